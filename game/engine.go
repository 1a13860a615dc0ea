package game

import "github.com/btrun/btrun/runtime"

// engine is the Game as the runtime sees it: the callbacks the runtime
// makes into the game (a finished step, a signal for another agent, a log
// line, a change of an agent's declared state). They are this type's
// methods, not Game's, so that a program holding a *Game never meets them
// among the methods it is meant to call. An *engine is the *Game itself,
// converted: handing it to the runtime costs nothing.
type engine Game

// engine is g as the runtime's Observer, ChangeObserver, Router and Logger.
func (g *Game) engine() *engine { return (*engine)(g) }

func (e *engine) StepDone(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	(*Game)(e).stepDone(a, runs, st, err)
}

func (e *engine) Route(from *runtime.Agent, to, signal string, data runtime.Value) error {
	return (*Game)(e).route(from, to, signal, data)
}

func (e *engine) Log(a *runtime.Agent, label, msg string) { (*Game)(e).log(a, label, msg) }

// SignalReceived is never called: the runtime prefers SignalReceivedData.
func (e *engine) SignalReceived(a *runtime.Agent, signal string) {
	(*Game)(e).signalReceived(a, signal, runtime.Value{})
}

func (e *engine) SignalReceivedData(a *runtime.Agent, signal string, data runtime.Value) {
	(*Game)(e).signalReceived(a, signal, data)
}

func (e *engine) VarChanged(a *runtime.Agent, slot int32, v bool) {
	(*Game)(e).varChanged(a, slot, v)
}

func (e *engine) VarValueChanged(a *runtime.Agent, slot int32, v runtime.VarValue) {
	(*Game)(e).varValueChanged(a, slot, v)
}

func (e *engine) StampChanged(a *runtime.Agent, slot int32, set bool) {
	(*Game)(e).stampChanged(a, slot, set)
}

var (
	_ runtime.Observer           = (*engine)(nil)
	_ runtime.ChangeObserver     = (*engine)(nil)
	_ runtime.SignalDataObserver = (*engine)(nil)
	_ runtime.VarValueObserver   = (*engine)(nil)
	_ runtime.Router             = (*engine)(nil)
	_ runtime.Logger             = (*engine)(nil)
)
