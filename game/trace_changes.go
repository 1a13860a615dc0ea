package game

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// The trace shows why a branch was taken: every signal an agent receives
// (scheduled, sent by the world, by another agent, by itself or by a
// plugin on its behalf) and every change of its variables and timestamps,
// in the order they happened. The runtime reports them to the Game (a
// runtime.ChangeObserver, set only while a trace is written). Those of an
// agent's own step are kept until its step line is written, and come just
// before it; those of a delivery between steps are written at once.

// change is one signal received or variable or timestamp changed.
type change struct {
	kind  byte             // 's' signal, 'v' variable, 'V' typed variable, 't' timestamp, 'e' a signal handler's error
	name  string           // the signal, variable or timestamp; the rule of the handler
	value bool             // the variable's value; whether the timestamp is set
	from  string           // signals: who sent it
	data  runtime.Value    // signals: what it carried
	err   error            // 'e'
	typed runtime.VarValue // 'V': a number's, string's or vector's new value
}

// signalReceived is the runtime.SignalDataObserver's SignalReceivedData
// (engine.go): a signal an agent received, with its data, which the trace
// shows. The sender is the delivery under way (deliver), or else the agent
// itself, sending during its step. The delivery's sender is
// the first signal's only: the runtime reports the delivered signal before
// calling its handlers, and a signal a handler sends the agent itself is
// the agent's own (docs/reference.md).
func (g *Game) signalReceived(a *runtime.Agent, signal string, data runtime.Value) {
	from := g.from
	if from == "" { // during the steps (the workers' too): only read
		from = a.ID()
	} else {
		g.from = ""
	}
	g.noteChange(a, change{kind: 's', name: signal, from: from, data: data})
}

// varChanged is the runtime.ChangeObserver's VarChanged.
func (g *Game) varChanged(a *runtime.Agent, slot int32, v bool) {
	g.noteChange(a, change{kind: 'v', name: a.Tree().Tree.Vars[slot].Name, value: v})
}

// varValueChanged is the runtime.VarValueObserver's VarValueChanged: a
// number, string or vector variable changed.
func (g *Game) varValueChanged(a *runtime.Agent, slot int32, v runtime.VarValue) {
	g.noteChange(a, change{kind: 'V', name: a.Tree().Tree.Vars[slot].Name, typed: v})
}

// stampChanged is the runtime.ChangeObserver's StampChanged.
func (g *Game) stampChanged(a *runtime.Agent, slot int32, set bool) {
	g.noteChange(a, change{kind: 't', name: a.Tree().Tree.Stamps[slot].Name, value: set})
}

func (g *Game) noteChange(a *runtime.Agent, c change) {
	if ga := g.byPtr[a]; ga != nil {
		ga.changes = append(ga.changes, c)
	}
}

// writeChanges writes an agent's changes kept so far, at step s and time t.
func (g *Game) writeChanges(ga *gameAgent, s uint64, t float64) error {
	if len(ga.changes) == 0 { // always, unless a trace or a debugger observes changes
		return nil
	}
	if g.debug != nil {
		g.debugChanges(ga) // debug.go
	}
	if g.trace == nil || g.silent { // silent: a reload's spawn, whose changes the carry replaces
		ga.changes = ga.changes[:0]
		return nil
	}
	id := ga.a.ID()
	for _, c := range ga.changes {
		var err error
		switch c.kind {
		case 's':
			err = g.trace.Signal(s, t, id, c.name, c.from, c.data)
		case 'e':
			err = g.trace.HandlerError(s, t, id, c.name, c.err)
		case 'v':
			err = g.trace.Var(s, t, id, c.name, c.value)
		case 'V':
			err = g.trace.VarValue(s, t, id, c.name, c.typed)
		default:
			err = g.trace.Stamp(s, t, id, c.name, c.value)
		}
		if err != nil {
			return fmt.Errorf("game: writing the trace: %w", err)
		}
	}
	ga.changes = ga.changes[:0]
	return nil
}
