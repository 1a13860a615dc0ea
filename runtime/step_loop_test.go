package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// leanScript is the registry of TestLoop_rulesWithoutHooksStepAsWithEveryHook: actions
// and conditions whose results come from one pseudo-random sequence, taken
// in call order, so that two loops that call the same things in the same
// order see the same results. Every call is logged.
type leanScript struct {
	seed uint64
	log  strings.Builder
}

func (s *leanScript) next(n uint64) uint64 {
	s.seed = s.seed*6364136223846793005 + 1442695040888963407
	return (s.seed >> 33) % n
}

func (s *leanScript) status() Status { return [3]Status{Success, Failure, Running}[s.next(3)] }

func (s *leanScript) registry() *Registry {
	reg := NewRegistry()
	reg.RegisterAction("act", ActionFunc(func(a *Agent, p Params) (Status, error) {
		st := s.status()
		fmt.Fprintf(&s.log, "act@%s first=%v:%s ", a.Label(), a.FirstRun(), st)
		return st, nil
	}))
	reg.RegisterAction("slow", ActionFunc(func(a *Agent, p Params) (Status, error) {
		fmt.Fprintf(&s.log, "slow@%s ", a.Label())
		return 0, ErrPending
	}))
	reg.RegisterAction("bad", ActionFunc(func(a *Agent, p Params) (Status, error) {
		if s.next(4) == 0 {
			return 0, fmt.Errorf("broken")
		}
		return s.status(), nil
	}))
	reg.RegisterAction("toggle", ActionFunc(func(a *Agent, p Params) (Status, error) {
		v, _ := a.Tree().Tree.VarIndex("V")
		a.SetVarAt(v, !a.VarAt(v))
		return Success, nil
	}))
	reg.RegisterAction("life", &Lifecycle{
		OnStart:  func(a *Agent, p Params) error { fmt.Fprintf(&s.log, "start@%s ", a.Label()); return nil },
		OnRun:    func(a *Agent, p Params) (Status, error) { return s.status(), nil },
		OnCancel: func(a *Agent, p Params) error { fmt.Fprintf(&s.log, "cancel@%s ", a.Label()); return nil },
	})
	reg.RegisterCondition("c", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		v := s.next(3) != 0
		fmt.Fprintf(&s.log, "c@%s:%v ", a.Label(), v)
		return v, nil
	}))
	reg.RegisterCondition("q", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		fmt.Fprintf(&s.log, "q@%s ", a.Label())
		return false, ErrPending
	}))
	reg.RegisterCondition("e", ConditionFunc(func(a *Agent, p Params) (bool, error) {
		if s.next(5) == 0 {
			return false, fmt.Errorf("cannot tell")
		}
		return true, nil
	}))
	return reg
}

// leanRuns records every run of every step, list rules included.
type leanRuns struct{ b strings.Builder }

func (o *leanRuns) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	for _, r := range runs {
		if r.Arrived() { // arrivals are marked alike, hooks or not
			o.b.WriteByte('*')
		}
		fmt.Fprintf(&o.b, "%s:%s ", a.Tree().Tree.Label(r.Rule), r.Status)
	}
	fmt.Fprintf(&o.b, "=> %s %v\n", st, err)
}

// TestLoop_rulesWithoutHooksStepAsWithEveryHook: trees without features
// step on rules without hooks, through the loop's shortcuts; the same
// trees with every hook set and no fast path (trackAll, as if every rule
// used a feature) call the same actions and conditions in the same order,
// see the same runs and results, and leave the agent in the same state,
// step after step, through every shape the shortcuts treat apart: no
// condition, one condition call or variable under each mode and negation,
// several conditions, ActionFunc and Start/Cancel actions, paused actions
// and conditions, errors, choices and sequences (looping or not,
// doNotFail) after their children finish, and run-away steps.
func TestLoop_rulesWithoutHooksStepAsWithEveryHook(t *testing.T) {
	trees := map[string]string{
		"modes": `<choice id="root">` +
			modeActions("c") + modeActions("!c") + modeActions("V") + modeActions("!V") +
			`<action id="t" name="toggle"/><action id="l" name="life"><condition>c</condition></action></choice>`,
		"nested": `<sequence id="root" loop="true">
			<choice id="ch"><action id=".a" name="act"><condition>!c</condition></action><action id=".b" name="act"/></choice>
			<sequence id="sq" doNotFail="true"><condition>c</condition><action id=".a" name="life"/><action id=".b" name="act"/></sequence>
			<choice id="lp" loop="true" doNotFail="true"><action id=".a" name="act"><condition>c</condition></action><failure/></choice>
			<choice id="empty"/><choice id="ok" doNotFail="true"><success id=".c"><condition>!c</condition></success></choice><running/></sequence>`,
		"paused": `<choice id="root"><action id="s" name="slow"><condition>q</condition></action>
			<sequence id="sq"><conditionMode>anyTrue</conditionMode><condition>q</condition><condition>c</condition><action id=".s" name="slow"/><action id=".a" name="act"/></sequence>
			<action id="a" name="act"/></choice>`,
		"errors":  `<choice id="root"><action id="b" name="bad"><condition>e</condition></action><action id="a" name="act"/></choice>`,
		"runaway": `<choice id="root" loop="true"><action id="a" name="act"><condition>c</condition></action><success/></choice>`,
	}
	for name, body := range trees {
		t.Run(name, func(t *testing.T) {
			lean, leanLog := leanAgent(t, body, false)
			tracked, trackedLog := leanAgent(t, body, true)
			for step := 1; step <= 300; step++ {
				got, want := stepLean(lean, leanLog), stepLean(tracked, trackedLog)
				if got != want {
					t.Fatalf("step %d: the tree's own code and trackAll's differ:\nown     %s\ntracked %s", step, got, want)
				}
			}
		})
	}
}

// modeActions is one action per condition mode with cond as its condition.
func modeActions(cond string) string {
	var b strings.Builder
	for _, m := range []string{"allTrue", "anyTrue", "anyFalse", "allFalse"} {
		fmt.Fprintf(&b, `<action id="%s-%s" name="act"><conditionMode>%s</conditionMode><condition>%s</condition></action>`,
			strings.TrimPrefix(cond, "!")+map[bool]string{true: "n", false: ""}[cond[0] == '!'], m, m, cond)
	}
	return b.String()
}

type leanLogs struct {
	script *leanScript
	runs   *leanRuns
}

func leanAgent(t *testing.T, body string, tracked bool) (*Agent, leanLogs) {
	t.Helper()
	xml := `<behaviorTree><variables><variable name="V"/></variables>` + body + `</behaviorTree>`
	tree, err := LoadBytes("lean.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &leanScript{seed: 7}
	b, err := Bind(tree, s.registry(), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.feats != nil || b.hot == nil {
		t.Fatal("the tree uses features: its rules have hooks")
	}
	if tracked {
		trackAll(b)
	}
	runs := &leanRuns{}
	return b.NewAgent("a1", &Env{Observer: runs, RunawayLimit: 40}), leanLogs{s, runs}
}

// stepLean steps a once (answering its paused calls from its script) and
// describes everything the step did and left.
func stepLean(a *Agent, l leanLogs) string {
	l.script.log.Reset()
	l.runs.b.Reset()
	st, err := a.Step(0.5)
	for st == Paused {
		if a.phase == phaseWaitAction {
			st, err = a.CompleteAction(l.script.status(), nil)
		} else {
			st, err = a.CompleteCondition(l.script.next(2) == 0, nil)
		}
	}
	v, _ := a.Tree().Tree.VarIndex("V")
	return fmt.Sprintf("%s %v | calls %s| runs %s| cursor %s last %s first %v running %v V %v",
		st, err, l.script.log.String(), l.runs.b.String(), a.CursorLabel(), a.LastResult(), a.FirstRun(),
		a.flags&flagActionRunning != 0, a.VarAt(v))
}

// TestLoopLean_hotRuleIsOneCacheLine: what a run reads of a rule fits in
// 64 bytes.
func TestLoopLean_hotRuleIsOneCacheLine(t *testing.T) {
	if n := unsafe.Sizeof(hotRule{}); n != 64 {
		t.Errorf("hotRule is %d bytes, want 64", n)
	}
}

// TestLoopLean_limitLoweredWhilePaused: a step paused after more runs than
// the run-away limit it resumes under ends with a run-away error, as in
// with every hook (trackAll), and does not overrun the Env's buffer of runs.
func TestLoopLean_limitLoweredWhilePaused(t *testing.T) {
	for _, tracked := range []bool{false, true} {
		s := &leanScript{seed: 1}
		reg := s.registry()
		reg.RegisterAction("ok", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil }))
		tree, err := LoadBytes("lean.xml", []byte(bt(`<sequence id="root">`+strings.Repeat(`<action name="ok"/>`, 30)+`<action id="s" name="slow"/></sequence>`)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Bind(tree, reg, BindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tracked {
			trackAll(b)
		}
		env := &Env{}
		a := b.NewAgent("a1", env)
		if st, err := a.Step(1); st != Paused || err != nil {
			t.Fatalf("tracked=%v: got %v, %v; want the step paused at s", tracked, st, err)
		}
		env.RunawayLimit = 10
		if st, err := a.CompleteAction(Success, nil); st != Errored || !errors.Is(err, ErrRunaway) {
			t.Errorf("tracked=%v: got %v, %v; want a run-away error", tracked, st, err)
		}
	}
}
