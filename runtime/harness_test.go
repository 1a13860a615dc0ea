package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// harness runs trees with scripted actions and switchable conditions and
// records every call, so tests can assert exactly what a step did.
type harness struct {
	t      *testing.T
	reg    *Registry
	tree   *BoundTree
	env    *Env
	agent  *Agent
	log    []string
	script map[string][]Status // action label -> results, one per Run; the last repeats
	calls  map[string]int      // action label -> Run calls since the cursor arrived
	conds  map[string]bool     // condition name -> value
	hook   map[string]func(a *Agent) error
	leaves []string // the leaf rules run in the last step, "label=status"
}

// StepDone records the leaf runs of each step (harness is the Observer).
func (h *harness) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	h.leaves = h.leaves[:0]
	for _, r := range runs {
		if rule := &a.bound.Tree.Rules[r.Rule]; !rule.Kind.IsList() {
			h.leaves = append(h.leaves, rule.Label+"="+r.Status.String())
		}
	}
}

// Log records log lines (log parameters, bt.log) in the call log.
func (h *harness) Log(a *Agent, label, msg string) {
	h.log = append(h.log, "log("+label+": "+msg+")")
}

// newHarness binds xml with the scripted action "act", actions "ok", "fail",
// "run" that always succeed/fail/run, and conditions named in conds.
func newHarness(t *testing.T, xml string, conds map[string]bool) *harness {
	t.Helper()
	return newHarnessOpts(t, xml, conds, BindOptions{})
}

// newHarnessOpts is newHarness binding with opts.
func newHarnessOpts(t *testing.T, xml string, conds map[string]bool, opts BindOptions) *harness {
	t.Helper()
	h := &harness{t: t, reg: NewRegistry(), script: map[string][]Status{}, calls: map[string]int{},
		conds: map[string]bool{}, hook: map[string]func(a *Agent) error{}}
	for k, v := range conds {
		h.conds[k] = v
		name := k
		h.must(h.reg.RegisterCondition(name, ConditionFunc(func(a *Agent, p Params) (bool, error) {
			h.log = append(h.log, "?"+name)
			if f := h.hook["?"+name]; f != nil {
				if err := f(a); err != nil {
					return false, err
				}
			}
			return h.conds[name], nil
		})))
	}
	h.must(h.reg.RegisterAction("act", &Lifecycle{
		OnStart: func(a *Agent, p Params) error {
			h.log = append(h.log, a.Label()+":start")
			return nil
		},
		OnRun: func(a *Agent, p Params) (Status, error) {
			l := a.Label()
			h.log = append(h.log, l)
			if f := h.hook[l]; f != nil {
				if err := f(a); err != nil {
					return 0, err
				}
			}
			s := h.script[l]
			n := h.calls[l]
			h.calls[l]++
			if len(s) == 0 {
				return Success, nil
			}
			if n >= len(s) {
				n = len(s) - 1
			}
			return s[n], nil
		},
		OnCancel: func(a *Agent, p Params) error {
			h.log = append(h.log, a.Label()+":cancel")
			return nil
		},
	}))
	for name, st := range map[string]Status{"ok": Success, "fail": Failure, "run": Running} {
		label, result := name, st
		h.must(h.reg.RegisterAction(label, ActionFunc(func(a *Agent, p Params) (Status, error) {
			h.log = append(h.log, a.Label())
			return result, nil
		})))
	}
	// Hooks: "h" logs +LABEL when its rule starts and -LABEL(HOW) when it
	// is left; "bad" fails with "hook failed" (after logging, as h).
	h.must(h.reg.RegisterHook("h", HookFunc(func(a *Agent, p Params, how string) error {
		h.log = append(h.log, hookLine(a, how))
		return nil
	})))
	h.must(h.reg.RegisterHook("bad", HookFunc(func(a *Agent, p Params, how string) error {
		h.log = append(h.log, hookLine(a, how))
		return errors.New("hook failed")
	})))
	h.registerCustom() // custom_test.go
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{Rules: h.reg.RuleDecls()})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, opts)
	h.must(err)
	h.env = &Env{Observer: h, Logger: h}
	h.agent = h.tree.NewAgent("a1", h.env)
	return h
}

// hookLine is what the harness's hooks log: +LABEL for an enter hook,
// -LABEL(HOW) for an exit hook.
func hookLine(a *Agent, how string) string {
	if how == "enter" {
		return "+" + a.Label()
	}
	return "-" + a.Label() + "(" + how + ")"
}

func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

// step runs one step of 1 s and returns "status cursor: calls", followed by
// " [KIND RULE]" when the step was interrupted. A cursor whose lanes run is
// followed by them (laneView).
func (h *harness) step() string {
	h.log = h.log[:0]
	st, err := h.agent.Step(1)
	out := fmt.Sprintf("%s %s%s: %s", st, h.agent.CursorLabel(), laneView(h.agent), strings.Join(h.log, " "))
	if in, ok := h.agent.LastInterrupt(); ok {
		out += fmt.Sprintf(" [%s %s]", in.Kind, h.tree.Tree.Rules[in.Rule].Label)
	}
	if err != nil {
		out += " | " + errSummary(err)
	}
	return out
}

func errSummary(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// steps runs n steps and returns their summaries.
func (h *harness) steps(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = h.step()
	}
	return out
}

func expectSteps(t *testing.T, got, want []string) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		g, w := "<none>", "<none>"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("step %d:\n got  %s\n want %s", i+1, g, w)
		}
	}
}
