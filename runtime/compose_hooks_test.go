package runtime

import (
	"strings"
	"testing"
)

// composeLogTree hooks bt.log to rules in two lanes of a parallel, to a
// sequence that aborts itself, to a slot and to the grafted tree's rules.
const composeLogTree = `<behaviorTree>
<sequence id="top" loop="true"><parallel id="root" success="all">
  <sequence id="l1" abort="self" enter="bt.log" exit="bt.log">
    <parameter name="log.enter">l1 in</parameter><parameter name="log.exit">l1 {how}</parameter>
    <condition>c</condition>
    <action id="a" name="act" enter="bt.log" exit="bt.log"><parameter name="log.enter">a in</parameter><parameter name="log.exit">a {how}</parameter></action>
  </sequence>
  <sequence id="l2" enter="bt.log" exit="bt.log">
    <parameter name="log.enter">l2 in</parameter><parameter name="log.exit">l2 {how}</parameter>
    <action id="b" name="act"/>
    <slot id="s" doNotFail="true" enter="bt.log" exit="bt.log"><parameter name="log.enter">s in</parameter><parameter name="log.exit">s {how}</parameter></slot>
  </sequence>
</parallel></sequence>
</behaviorTree>`

var composeLogGame = map[string]string{
	"g": `<behaviorTree><sequence id="g" enter="bt.log" exit="bt.log"><parameter name="log.enter">g in</parameter><parameter name="log.exit">g {how}</parameter>
<yield id="y1"/><yield id="y2"/></sequence></behaviorTree>`,
}

// composeLogRun runs composeLogTree for n steps, saving the agent and
// restoring it into a new one before step saveAt (-1: never).
func composeLogRun(t *testing.T, n, saveAt int) []string {
	h := newHarnessOpts(t, composeLogTree, map[string]bool{"c": true}, BindOptions{Trees: slotTrees(t, composeLogGame)})
	h.script["a"] = []Status{R, R, R, S, R, R, R, R, S}
	h.script["b"] = []Status{R, S}
	h.hook["b"] = func(a *Agent) error {
		if h.calls["b"] == 1 {
			return a.Graft("s", "g")
		}
		return nil
	}
	var out []string
	for i := range n {
		switch i {
		case 5:
			h.conds["c"] = false
		case 7:
			h.conds["c"] = true
		}
		if i == saveAt {
			data, err := SaveAgents([]*Agent{h.agent}, nil)
			h.must(err)
			h.agent = h.tree.NewAgent("a1", h.env)
			if _, err := RestoreAgents(data, []*Agent{h.agent}, nil); err != nil {
				t.Fatalf("restore before step %d: %v", i, err)
			}
		}
		out = append(out, h.step())
	}
	return out
}

// TestCompose_logHookInLanesSlotsAndAbortAcrossSaveRestoreAtEveryStep:
// bt.log hooked in parallel lanes, in a slot and its grafted tree, and on
// a sequence that aborts, writes the same log whether or not the agent
// was saved and restored before any step.
func TestCompose_logHookInLanesSlotsAndAbortAcrossSaveRestoreAtEveryStep(t *testing.T) {
	const n = 14
	want := composeLogRun(t, n, -1)
	joined := strings.Join(want, "\n")
	for _, s := range []string{"log(l1: l1 abort)", "log(a: a abort)", "log(s.g: g in)", "log(s.g: g success)", "log(s.g: g cancel)", "log(s: s success)", "log(a: a success)"} {
		if !strings.Contains(joined, s) {
			t.Fatalf("the run never writes %s:\n%s", s, joined)
		}
	}
	for k := 1; k < n; k++ {
		got := composeLogRun(t, n, k)
		if strings.Join(got, "\n") != joined {
			t.Errorf("saved and restored before step %d:\n%s\nwant:\n%s", k, strings.Join(got, "\n"), joined)
		}
	}
}
