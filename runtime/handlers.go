package runtime

import (
	"errors"
	"fmt"
	"slices"
)

// Handlers on running actions: an action may react to a signal while it
// runs (it last returned Running and is the cursor, or a lane's cursor),
// without polling a variable. The handler is called when the signal is
// delivered; it may change the rule's and the agent's state, send signals,
// and finish the action: its Success or Failure becomes the action's
// result the next time the step reaches the action, whose Run is then not
// called.
//
// The step loops know nothing of this. The pending result lives in the
// rule's own state (the rule word, which arrival clears and saves carry),
// and the action bound to the rule is wrapped (handledAction) so that its
// Run gives the pending result back instead of running. So a tree whose
// actions have no handlers pays nothing, and one that has them pays a word
// test per run of those actions.
//
// When handlers are called: a signal delivered between steps (Signal,
// SignalAt and the data forms, from the game, the world, another agent)
// calls them at once; one delivered ahead of the agent's time (SignalAt at
// the time of the step about to run: a game's scheduled and world signals)
// calls them at that time: they see the time its timestamps take, and its
// stimulus 0 seconds old. A signal the agent receives during its own step (it
// signalled itself, or a plugin's reply did) applies its effects at once
// but owes the handler call, which RunHandlers makes once the step has
// ended: calling into a running action's handler in the middle of a step
// would run it inside the step's own calls. Signals a handler sends the
// agent itself are owed the same way and called after it, in order. The
// handler calls that one delivery causes count against the run-away limit,
// so handlers that keep signalling each other end with an error.

// SignalHandler is implemented by actions that react to signals while they
// run. HandledSignals lists the signals it has a handler for; the list is
// read once, when a tree is bound. HandleSignal is called when the agent
// receives one of them while the action is running at a rule (the cursor,
// or a lane's cursor, whose last result was Running), with the rule's
// parameters and the signal's data (NilValue when it carried none). It
// returns Success or Failure to finish the action: the next time the step
// reaches the rule, that is its result and Run is not called; Running (or
// 0) lets the action go on. Once an action has a result from a handler,
// later signals call none of its handlers. An error is an error of the
// agent: it is reset, as after any error of a step.
//
// A handler may not jump (Agent.Jump fails while handlers run): it returns
// a status, or sets variables the tree watches.
type SignalHandler interface {
	HandledSignals() []string
	HandleSignal(a *Agent, p Params, signal string, data Value) (Status, error)
}

// ruleHandler is the handler of the action bound to one rule.
type ruleHandler struct {
	h       SignalHandler
	signals []string
}

// pendingSignal is a signal whose handlers are still to be called, and the
// time it was delivered at.
type pendingSignal struct {
	name string
	data Value
	at   float64
}

// handledMark marks a rule word that holds a handler's result for the
// rule (the result is its low byte).
const handledMark = 1 << 63

// handledAction is the action bound to a rule whose action has handlers:
// it gives back a result a handler left for the rule instead of running.
type handledAction struct{ Action }

func (x handledAction) Run(a *Agent, p Params) (Status, error) {
	if w := a.ruleWord; w&handledMark != 0 {
		a.ruleWord = 0
		return Status(w &^ handledMark), nil
	}
	return x.Action.Run(a, p)
}

// bindHandler wraps act, bound to rule r, when it has handlers.
func (b *BoundTree) bindHandler(r int32, act Action) Action {
	h, ok := act.(SignalHandler)
	if !ok {
		return act
	}
	signals := h.HandledSignals()
	if len(signals) == 0 {
		return act
	}
	if b.handlers == nil {
		b.handlers = make([]ruleHandler, len(b.rules))
	}
	b.handlers[r] = ruleHandler{h: h, signals: slices.Clone(signals)}
	return handledAction{act}
}

// HasHandlers reports whether an action bound in the tree has handlers, or
// a state machine of the tree has transitions on signals (machine.go): a
// game loop needs to call RunHandlers after the steps of its agents only
// then.
func (b *BoundTree) HasHandlers() bool { return b.handlers != nil || b.machineSignals }

// Handles lists the signals the action bound to rule i handles (nil when
// it has no handler).
func (b *BoundTree) Handles(i int32) []string {
	if b.handlers == nil {
		return nil
	}
	return b.handlers[i].signals
}

// owe queues the handler calls of a signal the agent received at time t,
// and calls them at once when the agent is between steps and no handler is
// running.
func (a *Agent) owe(name string, data *Value, t float64) error {
	if a.bound.handlers == nil && !a.bound.machineSignals {
		return nil
	}
	s := a.stimState()
	s.pending = append(s.pending, pendingSignal{name, *data, t})
	if a.phase != phaseIdle || s.handling {
		return nil
	}
	return a.RunHandlers()
}

// handleOwed calls, after err, the handlers owed to signals the agent sent
// itself while it was being left between steps (cancel and exit hooks
// during Reset, Close, Jump), once it has left: they find the actions that
// run now. A handler's error is joined to err.
func (a *Agent) handleOwed(err error) error {
	if !a.HandlersOwed() {
		return err
	}
	return errors.Join(err, a.RunHandlers())
}

// HandlersOwed reports whether the agent received signals during its step
// whose handlers RunHandlers is still to call.
func (a *Agent) HandlersOwed() bool {
	return a.ext != nil && a.ext.stim != nil && len(a.ext.stim.pending) > 0 && !a.ext.stim.handling
}

// RunHandlers calls the handlers the agent owes: those of the signals it
// received during its step (from itself), in the order received, each for
// the actions running now. A game loop calls it after the agent's step has
// ended (btrun: once every agent has stepped, before delivering the signals
// agents sent each other). An error from a handler (or too many handler
// calls, see the run-away limit) resets the agent, as an error of a step
// does, and is returned; the handlers still owed are then not called.
func (a *Agent) RunHandlers() error {
	if !a.HandlersOwed() {
		return nil
	}
	if a.phase != phaseIdle {
		return &Error{Agent: a.id, Msg: "cannot call signal handlers while a step is in progress or paused", Err: ErrBusy}
	}
	s := a.ext.stim
	s.handling = true
	calls := 0
	var err error
	for i := 0; i < len(s.pending) && err == nil; i++ {
		p := s.pending[i]
		// A signal delivered at the start of a step (scheduled, from the
		// world), before the step advanced the agent's clock, has its
		// handlers called at that step's time, as its timestamps are set.
		now := a.time
		a.time = max(now, p.at)
		err = a.dispatch(s, p.name, p.data, &calls)
		a.time = now
	}
	clear(s.pending)
	s.pending = s.pending[:0]
	if err != nil {
		if rerr := a.Reset(); rerr != nil {
			err = fmt.Errorf("%w (and resetting the agent: %w)", err, rerr)
		}
		clear(s.pending) // what cancel hooks sent during the reset
		s.pending = s.pending[:0]
	}
	s.handling = false
	return err
}

// dispatch takes the transitions on signal name of the state machines the
// agent is in (machine.go), then calls the handlers of signal name of the
// actions running now: the agent's cursor, then its lanes' cursors
// (handlers_lanes.go).
func (a *Agent) dispatch(s *stimState, name string, data Value, calls *int) error {
	if a.bound.machineSignals {
		if err := a.machineSignal(name); err != nil {
			return err
		}
	}
	a.toMain()
	if a.bound.handlers == nil {
		return nil
	}
	if a.flags&flagActionRunning != 0 && a.bound.rules[a.cursor].kind == KindAction {
		if err := a.callHandler(name, data, calls); err != nil {
			return err
		}
	}
	if err := a.dispatchCustom(a.cursor, -1, name, data, calls); err != nil { // custom_step.go
		return err
	}
	return a.dispatchLanes(s, name, data, calls)
}

// callHandler calls the handler for signal name of the action at the cursor
// of the context being run, if it has one and no result yet.
func (a *Agent) callHandler(name string, data Value, calls *int) error {
	r := a.cursor
	rh := &a.bound.handlers[r]
	if rh.h == nil || a.ruleWord&handledMark != 0 || !slices.Contains(rh.signals, name) {
		return nil
	}
	rule := &a.bound.Tree.Rules[r]
	if *calls++; *calls > int(a.env.limit()) {
		return &Error{Pos: rule.Pos, Label: rule.Label, Agent: a.id, Err: ErrRunaway,
			Msg: fmt.Sprintf("run-away signal handlers: %d handler calls for one delivery (limit %d); handlers that keep signalling the agent never end", *calls-1, a.env.limit())}
	}
	st, err := rh.h.HandleSignal(a, a.bound.rules[r].params, name, data)
	if err != nil {
		return &Error{Pos: rule.Pos, Label: rule.Label, Agent: a.id, Err: fmt.Errorf("%w: %w", ErrAction, err),
			Msg: fmt.Sprintf("handler for signal %q of action %q: %v", name, rule.Action, err)}
	}
	switch st {
	case Success, Failure:
		a.ruleWord = handledMark | uint64(st)
	case 0, Running:
	default:
		return &Error{Pos: rule.Pos, Label: rule.Label, Agent: a.id, Err: ErrAction,
			Msg: fmt.Sprintf("handler for signal %q of action %q returned %v; a handler returns success, failure, or running (or nothing) to go on", name, rule.Action, st)}
	}
	return nil
}

// handling reports whether the agent's signal handlers are being called.
func (a *Agent) handling() bool {
	return a.ext != nil && a.ext.stim != nil && a.ext.stim.handling
}
