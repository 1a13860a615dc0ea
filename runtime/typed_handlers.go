package runtime

import (
	"fmt"
	"slices"
)

// Typed signal handlers (TypedAction.On): the bound action of a typed
// action with handlers is a typedHandled, a SignalHandler, so that the
// binder wraps only those rules (handlers.go); an action without handlers
// stays a plain typedAction and pays nothing. A handler gets the rule's
// typed state decoded from the running rule's bytes, as Run does, and its
// changes are kept: a lane's action, a slot's, a restored one all find
// their own state.

// typedHandled is a typedAction with signal handlers.
type typedHandled[P, S any] struct {
	*typedAction[P, S]
	signals []string // sorted; on[i] handles signals[i]
	on      []func(a *Agent, p *P, s *S, data Value) (Status, error)
}

// typedHandlers orders an action's handlers by signal name: the list
// HandledSignals gives and ActionDef.Handles records (nil, nil: none).
func typedHandlers[P, S any](name string, on map[string]func(*Agent, *P, *S, Value) (Status, error)) ([]func(*Agent, *P, *S, Value) (Status, error), []string, error) {
	if len(on) == 0 {
		return nil, nil, nil
	}
	signals := make([]string, 0, len(on))
	for sig, fn := range on {
		if sig == "" || fn == nil {
			return nil, nil, fmt.Errorf("%w: action %q: a handler for signal %q without a name or a function", ErrParamDecl, name, sig)
		}
		signals = append(signals, sig)
	}
	slices.Sort(signals)
	fns := make([]func(*Agent, *P, *S, Value) (Status, error), len(signals))
	for i, sig := range signals {
		fns[i] = on[sig]
	}
	return fns, signals, nil
}

func (h *typedHandled[P, S]) HandledSignals() []string { return h.signals }

func (h *typedHandled[P, S]) HandleSignal(a *Agent, _ Params, signal string, data Value) (Status, error) {
	i, ok := slices.BinarySearch(h.signals, signal)
	if !ok {
		return Running, nil
	}
	s, sc, err := h.state(a)
	if err != nil {
		return 0, err
	}
	st, err := h.on[i](a, h.p, s, data)
	h.keep(a, s, sc)
	return st, err
}
