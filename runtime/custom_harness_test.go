package runtime

import (
	"fmt"
	"strconv"
)

// The harness's custom rules (custom.go), which log their calls:
//
//   - <pick> (pick.first, pick.bad): a composite that tries its children
//     in order from pick.first until one succeeds (a choice), keeping the
//     number tried in its state; pick.bad answers a child it does not
//     have. It logs LABEL.enter, LABEL.done(CHILD:RESULT:TRIED) and
//     LABEL.exit(HOW:TRIED).
//   - <invert>: a decorator that inverts its child's result; it logs as
//     pick does, without state.
//   - <times> (times.n): a decorator that runs its child until it has
//     succeeded times.n times in a row (its state counts them; the signal
//     Bump counts one more); it fails when the child fails.
type pickParams struct {
	First int  `param:"pick.first" default:"0" doc:"the child tried first"`
	Bad   bool `param:"pick.bad" default:"false" doc:"answer a child the rule does not have"`
}

type pickState struct{ Tried int }

type timesParams struct {
	N int `param:"times.n,required" doc:"successes in a row"`
}

type timesState struct{ Done int }

func (h *harness) registerCustom() {
	line := func(a *Agent, what string) { h.log = append(h.log, a.Label()+"."+what) }
	h.must(TypedRule[pickParams, pickState]{
		Tag: "pick", Doc: "tries its children in order from pick.first until one succeeds",
		Enter: func(a *Agent, p *pickParams, s *pickState, n int) (Next, error) {
			line(a, "enter")
			s.Tried = 1
			if p.Bad {
				return RunChild(n), nil
			}
			return RunChild(p.First), nil
		},
		ChildDone: func(a *Agent, p *pickParams, s *pickState, n, child int, res Status) (Next, error) {
			line(a, fmt.Sprintf("done(%d:%s:%d)", child, res, s.Tried))
			if res == Success {
				return Finish(Success), nil
			}
			if s.Tried >= n {
				return Finish(Failure), nil
			}
			s.Tried++
			return RunChild((child + 1) % n), nil
		},
		Exit: func(a *Agent, p *pickParams, s *pickState, how string) error {
			line(a, "exit("+how+":"+strconv.Itoa(s.Tried)+")")
			return nil
		},
	}.Register(h.reg))
	h.must(TypedRule[struct{}, struct{}]{
		Tag: "invert", Decorator: true,
		Enter: func(a *Agent, _ *struct{}, _ *struct{}, n int) (Next, error) {
			line(a, "enter")
			return RunChild(0), nil
		},
		ChildDone: func(a *Agent, _ *struct{}, _ *struct{}, n, child int, res Status) (Next, error) {
			line(a, fmt.Sprintf("done(%d:%s)", child, res))
			if res == Success {
				return Finish(Failure), nil
			}
			return Finish(Success), nil
		},
		Exit: func(a *Agent, _ *struct{}, _ *struct{}, how string) error {
			line(a, "exit("+how+")")
			return nil
		},
	}.Register(h.reg))
	h.must(TypedRule[timesParams, timesState]{
		Tag: "times", Decorator: true,
		Enter: func(a *Agent, p *timesParams, s *timesState, n int) (Next, error) {
			line(a, "enter")
			s.Done = 0
			return RunChild(0), nil
		},
		ChildDone: func(a *Agent, p *timesParams, s *timesState, n, child int, res Status) (Next, error) {
			if res != Success {
				line(a, fmt.Sprintf("done(%s:%d)", res, s.Done))
				return Finish(Failure), nil
			}
			s.Done++
			line(a, fmt.Sprintf("done(%s:%d)", res, s.Done))
			if s.Done >= p.N {
				return Finish(Success), nil
			}
			return RunChild(0), nil
		},
		Exit: func(a *Agent, p *timesParams, s *timesState, how string) error {
			line(a, fmt.Sprintf("exit(%s:%d)", how, s.Done))
			return nil
		},
		Signals: []string{"Bump"},
		Signal: func(a *Agent, p *timesParams, s *timesState, signal string, data Value, child int) error {
			s.Done++
			line(a, fmt.Sprintf("%s(%d:%d)", signal, child, s.Done))
			return nil
		},
	}.Register(h.reg))
}

// registerFirst registers <first>, a composite without parameters or state
// that runs its first child and finishes with its result (a CustomRule
// written by hand, not a TypedRule).
func registerFirst(reg *Registry) error {
	return reg.AddRule(RuleDef{RuleDecl: RuleDecl{Tag: "first", Origin: Origin{Kind: "go"}},
		Bind: func(s *Site) (CustomRule, error) { return firstRule{}, nil }})
}

type firstRule struct{}

func (firstRule) Enter(a *Agent) (Next, error) { return RunChild(0), nil }
func (firstRule) ChildDone(a *Agent, child int, res Status) (Next, error) {
	return Finish(res), nil
}
func (firstRule) Exit(a *Agent, how string) error { return nil }
