package runtime

import (
	"strings"
	"testing"
)

// Typed variables inside the other features: "why", abort, a parallel's
// lanes, a slot's tree.

func TestVars_whyShowsTheValuesAComparisonRead(t *testing.T) {
	h := newHarnessOpts(t, bt(typedDecls+`<choice id="root">
  <action name="ok" id="low"><condition>Ammo &lt; 3</condition></action>
  <action name="ok" id="max"><condition>!Ammo == Max</condition><condition>Target != "grunt-2"</condition></action>
  <action name="ok" id="any"><condition>Ammo</condition><condition>Pos != Home</condition></action>
</choice>`), nil, BindOptions{})
	h.env.Explain = true
	h.step()
	expectWhys(t, 1, whyLines(h.agent), []string{
		"low: Ammo < 3=false (Ammo=12)",
		`max: !Ammo == Max=true (Ammo=12 Max=3)`,
		`max: Target != "grunt-2"=false (Target="grunt-2")`,
		"any: Ammo=true (Ammo=12)",
		"any: Pos != Home=true (Pos=1,2.5,-3 Home=0,0,0)",
	})
}

func TestVars_abortWatchesAComparison(t *testing.T) {
	h := newHarness(t, bt(typedDecls+`<choice id="root">
  <sequence id="s" abort="self"><condition>Ammo &gt; 0</condition><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`), nil)
	h.script["a"] = []Status{R}
	expectSteps(t, h.steps(2), []string{"running a: a:start a", "running a: a"})
	h.must(h.agent.SetVarValue("Ammo", NumberVar(0)))
	expectSteps(t, h.steps(1), []string{"success root: a:cancel b [abort s]"})
}

func TestVars_inLanes(t *testing.T) {
	h := newHarness(t, bt(typedDecls+`<parallel id="root" success="all">
  <sequence id="shoot" loop="true">
    <action id=".fire" name="bt.variable.set"><condition>Ammo &gt; 9</condition><parameter name="variable.name">Ammo</parameter><parameter name="variable.add">-1</parameter></action>
    <running id=".hold"/>
  </sequence>
  <sequence id="watch" loop="true">
    <action id=".done" name="bt.variable.set"><condition>Ammo &lt;= 10</condition><parameter name="variable.name">Target</parameter><parameter name="variable.value">done</parameter></action>
    <running id=".wait"/>
  </sequence>
</parallel>`), nil)
	var got []string
	for range 4 {
		line := h.step()
		a, _ := h.agent.VarValue("Ammo")
		tg, _ := h.agent.VarValue("Target")
		got = append(got, line+" | Ammo="+a.String()+" Target="+tg.String())
	}
	// Step 1: the shooting lane fires (12 -> 11), the watching lane's
	// condition fails, and with it the parallel; step 2 enters it again:
	// it fires (11 -> 10) and the watch sees Ammo <= 10.
	expectSteps(t, got, []string{
		`failure root:  | Ammo=11 Target="grunt-2"`,
		`running root{shoot.hold watch.wait}:  | Ammo=10 Target="done"`,
		`running root{shoot.hold watch.wait}:  | Ammo=10 Target="done"`,
		`running root{shoot.hold watch.wait}:  | Ammo=10 Target="done"`,
	})
}

func TestVars_inASlotsTree(t *testing.T) {
	const host = `<behaviorTree>
  <variables><variable name="Ammo" type="number" default="2"/></variables>
  <sequence id="root"><slot id="use" default="shoot"/></sequence>
</behaviorTree>`
	trees := map[string]string{
		"shoot": `<behaviorTree><variables><variable name="Ammo" type="number" default="2"/></variables>
  <action id="fire" name="bt.variable.set"><condition>Ammo &gt; 0</condition><parameter name="variable.name">Ammo</parameter><parameter name="variable.add">-1</parameter></action></behaviorTree>`,
		"asString":     `<behaviorTree><variables><variable name="Ammo" type="string"/></variables><action name="ok" id="x"/></behaviorTree>`,
		"otherDefault": `<behaviorTree><variables><variable name="Ammo" type="number" default="3"/></variables><action name="ok" id="x"/></behaviorTree>`,
	}
	h := newHarnessOpts(t, host, nil, BindOptions{Trees: slotTrees(t, trees)})
	expectSteps(t, h.steps(3), []string{"success root: ", "success root: ", "failure root: "})
	if v, _ := h.agent.VarValue("Ammo"); !v.Equal(NumberVar(0)) {
		t.Errorf("Ammo = %v, want 0", v)
	}
	for tree, want := range map[string]string{
		"asString":     `its variable "Ammo" is a string (asString.xml:1:26), test.xml's is a number`,
		"otherDefault": `its variable "Ammo" has default 3 (otherDefault.xml:1:26), test.xml's has 2`,
	} {
		if err := h.agent.Graft("use", tree); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Graft(%s) = %v, want %q", tree, err, want)
		}
	}
}
