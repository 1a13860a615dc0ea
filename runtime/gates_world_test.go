package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// gateWorld runs several agents of one tree that share a Gates, in rounds,
// and describes each step of each agent on one line, so that tests can say
// exactly what a step did:
//
//	ID RESULT CURSOR: LEAF=RESULT ... [gates NAME+ NAME-] [KIND RULE] | ERROR
//
// (NAME+ a take granted, NAME- a release). Conditions named in conds are
// registered; a condition "on.ID" of an agent ID reads conds["on.ID"], so a
// test can switch one agent's branch. Actions: ok, fail, run, boom (an
// error), and pend (a call answered by the test's resolver in the next
// round: success).
type gateWorld struct {
	t      testing.TB
	reg    *Registry
	tree   *BoundTree
	gates  *Gates
	env    *Env
	agents []*Agent
	rounds Rounds
	conds  map[string]bool
	dt     float64
	step   int
	runs   map[*Agent]string // the leaf runs of each agent's last step
	logs   []string
	pend   *pendResolver
	mu     sync.Mutex // StepDone and Log, which workers call at once
}

// pendResolver answers the "pend" action in the round after the call:
// another source of pauses (a plugin's, in a game), to show that takes and
// calls share the rounds.
type pendResolver struct {
	waiting map[*Agent]bool
	ended   int // rounds ended
}

func (p *pendResolver) EndRound(round []*Agent) error {
	p.ended++
	return nil
}

func (p *pendResolver) Continue(a *Agent) (Status, error, bool) {
	if !p.waiting[a] {
		return 0, nil, false
	}
	delete(p.waiting, a)
	st, err := a.CompleteAction(Success, nil)
	return st, err, true
}

func newGateWorld(t testing.TB, xml string, ids ...string) *gateWorld {
	t.Helper()
	w := &gateWorld{t: t, reg: NewRegistry(), conds: map[string]bool{}, dt: 1, runs: map[*Agent]string{},
		pend: &pendResolver{waiting: map[*Agent]bool{}}}
	for name, st := range map[string]Status{"ok": Success, "fail": Failure, "run": Running} {
		result := st
		w.must(w.reg.RegisterAction(name, ActionFunc(func(a *Agent, p Params) (Status, error) { return result, nil })))
	}
	w.must(w.reg.RegisterAction("boom", ActionFunc(func(a *Agent, p Params) (Status, error) {
		return 0, errors.New("boom")
	})))
	w.must(w.reg.RegisterAction("pend", ActionFunc(func(a *Agent, p Params) (Status, error) {
		w.pend.waiting[a] = true
		return 0, ErrPending
	})))
	// hop runs until the agent's "on" is set; then it jumps to its
	// parameter "to", or fails with an error when it has none.
	w.must(w.reg.RegisterAction("hop", ActionFunc(func(a *Agent, p Params) (Status, error) {
		if !w.conds["on."+a.ID()] {
			return Running, nil
		}
		if to, ok := p.Get("to"); ok {
			return Success, a.Jump(to)
		}
		return 0, errors.New("boom")
	})))
	w.must(w.reg.AddCondition(ConditionDef{Name: "on", Origin: Origin{Kind: "go"}, Condition: ConditionFunc(func(a *Agent, p Params) (bool, error) {
		return w.conds["on."+a.ID()], nil
	})}))
	w.must(registerFirst(w.reg)) // custom_harness_test.go
	tree, err := LoadBytes("g.xml", []byte(xml), LoadOptions{Rules: w.reg.RuleDecls()})
	w.must(err)
	w.tree, err = Bind(tree, w.reg, BindOptions{})
	w.must(err)
	w.gates = NewGates()
	w.must(w.gates.Add(w.tree))
	w.env = &Env{Observer: w, Logger: w, Gates: w.gates}
	for _, id := range ids {
		w.agents = append(w.agents, w.tree.NewAgent(id, w.env))
	}
	w.rounds.Resolvers = []Resolver{w.gates, w.pend}
	return w
}

func (w *gateWorld) must(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
}

// StepDone keeps the leaf runs of each agent's step.
func (w *gateWorld) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	var b strings.Builder
	for _, r := range runs {
		if rule := &a.bound.Tree.Rules[r.Rule]; !rule.Kind.IsList() {
			fmt.Fprintf(&b, " %s=%s", rule.Label, r.Status)
		}
	}
	w.mu.Lock()
	w.runs[a] = b.String()
	w.mu.Unlock()
}

func (w *gateWorld) Log(a *Agent, label, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.logs = append(w.logs, a.ID()+" "+label+": "+msg)
}

// stepAll runs one step of every agent in rounds and returns one line per
// agent.
func (w *gateWorld) stepAll() []string {
	w.t.Helper()
	w.step++
	out, err := w.rounds.StepAt(w.agents, float64(w.step)*w.dt)
	if err != nil {
		w.t.Fatal(err)
	}
	lines := make([]string, len(w.agents))
	for i, a := range w.agents {
		lines[i] = w.describe(a, out[i])
	}
	return lines
}

// describe is one agent's line for its last step.
func (w *gateWorld) describe(a *Agent, o Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s:%s", a.ID(), o.Status, a.CursorLabel(), w.runs[a])
	if ev := a.GateEvents(); len(ev) > 0 {
		b.WriteString(" [gates")
		for _, e := range ev {
			sign := "-"
			if e.Take {
				sign = "+"
			}
			fmt.Fprintf(&b, " %s%s", a.bound.Tree.Gates[e.Gate].Name, sign)
		}
		b.WriteString("]")
	}
	if in, ok := a.LastInterrupt(); ok {
		fmt.Fprintf(&b, " [%s %s]", in.Kind, a.bound.Tree.Rules[in.Rule].Label)
	}
	if o.Err != nil {
		b.WriteString(" | " + errSummary(o.Err))
	}
	return b.String()
}

// holders lists a gate's holders, in order, as "g: a1 a2".
func (w *gateWorld) holders(name string) string {
	for _, g := range w.gates.List() {
		if g.Name == name {
			return name + ":" + strings.Join(append([]string{""}, g.Holders...), " ")
		}
	}
	w.t.Fatalf("no gate %q", name)
	return ""
}

// expectLines compares step lines.
func expectLines(t *testing.T, step int, got, want []string) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		g, wl := "<none>", "<none>"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			wl = want[i]
		}
		if g != wl {
			t.Errorf("step %d, agent %d:\n got  %s\n want %s", step, i+1, g, wl)
		}
	}
}
