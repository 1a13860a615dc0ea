package runtime

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

// The custom rules of the random trees (treegen.RandComposite and
// RandDecorator): what they answer is drawn from the agent's script, so
// that every way of stepping a game sees the same answers, and their state
// (kept by the runtime) shows in their log lines and in every save the
// fuzzers compare.

// fuzzLoadOptions load the random trees: their custom tags declared.
var fuzzLoadOptions = LoadOptions{Rules: (&fuzzScript{}).registry().RuleDecls()}

type fuzzPickState struct{ Tries, Last int }

type fuzzDecoState struct{ Runs int }

func (s *fuzzScript) registerCustom(reg *Registry) {
	logf := func(a *Agent, format string, args ...any) {
		fmt.Fprintf(&s.of(a).log, "%s@%s; ", fmt.Sprintf(format, args...), a.Label())
	}
	// The composite: enters a drawn child (now and then it finishes at
	// once, or answers a child it does not have, or fails with an error);
	// after a child it goes on to a drawn one or finishes, with the
	// child's result or a drawn one.
	pick := TypedRule[struct{}, fuzzPickState]{
		Tag: treegen.RandComposite,
		Enter: func(a *Agent, _ *struct{}, st *fuzzPickState, n int) (Next, error) {
			v := s.of(a).draw()
			logf(a, "enter:%d:%d", st.Tries, st.Last)
			switch {
			case v%61 == 0:
				return RunChild(n), nil // out of range: the step's error
			case v%53 == 0:
				return Next{}, errors.New("enter broke")
			case v%13 == 0:
				return Finish(Success + Status(v>>8%2)), nil
			}
			st.Tries, st.Last = 1, int(v>>8)%n
			return RunChild(st.Last), nil
		},
		ChildDone: func(a *Agent, _ *struct{}, st *fuzzPickState, n, child int, res Status) (Next, error) {
			v := s.of(a).draw()
			logf(a, "done:%d:%s:%d:%d", child, res, st.Tries, st.Last)
			switch {
			case v%47 == 0:
				return Next{}, errors.New("child done broke")
			case st.Tries >= 3 || v%4 == 0:
				return Finish(res), nil
			case v%4 == 1:
				return Finish(Success + Status(v>>8%2)), nil
			}
			st.Tries++
			st.Last = int(v>>8) % n
			return RunChild(st.Last), nil
		},
		Exit: func(a *Agent, _ *struct{}, st *fuzzPickState, how string) error {
			logf(a, "exit:%s:%d:%d", how, st.Tries, st.Last)
			return nil
		},
	}
	// The decorator: runs its child until it has run it twice or it
	// failed, then inverts the last result on a drawn coin.
	deco := TypedRule[struct{}, fuzzDecoState]{
		Tag: treegen.RandDecorator, Decorator: true,
		Enter: func(a *Agent, _ *struct{}, st *fuzzDecoState, n int) (Next, error) {
			logf(a, "enter:%d", st.Runs)
			st.Runs = 0
			return RunChild(0), nil
		},
		ChildDone: func(a *Agent, _ *struct{}, st *fuzzDecoState, n, child int, res Status) (Next, error) {
			st.Runs++
			v := s.of(a).draw()
			logf(a, "done:%s:%d", res, st.Runs)
			if res == Success && st.Runs < 2 {
				return RunChild(0), nil
			}
			if v%2 == 0 {
				res = Success + Failure - res
			}
			return Finish(res), nil
		},
		Exit: func(a *Agent, _ *struct{}, st *fuzzDecoState, how string) error {
			logf(a, "exit:%s:%d", how, st.Runs)
			return nil
		},
	}
	if err := errors.Join(pick.Register(reg), deco.Register(reg)); err != nil {
		panic(err)
	}
}
