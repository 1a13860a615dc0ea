package game

import (
	"bytes"
	"strings"
	"testing"
)

// translateGame: two kinds share one tree; the second translates its
// generic leaf Attack to its own action.
func translateGame(target string) map[string]string {
	return map[string]string{
		"config.toml": `[run]
steps = 2
workers = 2
[scripts]
paths = ["ai"]
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 2
[[agents]]
tree = "t"
name = "sniper"
count = 2
translate = { Attack = "` + target + `" }
`,
		"ai/t.xml": `<behaviorTree><action id="root" name="Attack"/></behaviorTree>`,
		"ai/a.lua": `local bt = require("bt")
bt.action("Attack", function(ctx) ctx:log("melee") return bt.SUCCESS end)
bt.action("sniperAttack", function(ctx) ctx:log("snipe") return bt.SUCCESS end)
`,
	}
}

// TestTranslate_eachKindCallsItsOwnActions: the translated kind's agents
// call its action, the others the tree's, on any worker; the trace names
// the tree's rule for both.
func TestTranslate_eachKindCallsItsOwnActions(t *testing.T) {
	cfg, err := LoadConfig(writeGame(t, translateGame("sniperAttack")))
	if err != nil {
		t.Fatal(err)
	}
	var trace, people bytes.Buffer
	g, err := Open(cfg, Options{Trace: "-", Stdout: &trace, Stderr: &people})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(1); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"agent":"t-1","runs":[["root","success"]]`, `"agent":"sniper-2","runs":[["root","success"]]`} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("no %s in\n%s", want, trace.String())
		}
	}
	out := people.String() + trace.String()
	for _, want := range []string{"t-1 log root: melee", "t-2 log root: melee", "sniper-1 log root: snipe", "sniper-2 log root: snipe"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestTranslate_unknownTargetIsAnErrorAtTheRule: a translation to an action
// nobody registers fails the load, naming the rule and both names.
func TestTranslate_unknownTargetIsAnErrorAtTheRule(t *testing.T) {
	cfg, err := LoadConfig(writeGame(t, translateGame("sniperAtack")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), `ai/t.xml:1:15: rule root: action "Attack" translates to unknown action "sniperAtack"`) {
		t.Errorf("err %v", err)
	}
}

// TestTranslate_agentsAddedAtRunTimeGetTheirKinds: an agent added between
// steps whose id continues an [[agents]] entry's ids is of that kind (its
// translations), on any worker; another id runs the tree's own actions;
// and a game that takes its agents from a save makes them of their kinds
// again.
func TestTranslate_agentsAddedAtRunTimeGetTheirKinds(t *testing.T) {
	dir := writeGame(t, translateGame("sniperAttack"))
	cfg, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	g, err := Open(cfg, Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"sniper-3", "t-3", "sniper-x", "sniper-07"} {
		if _, err := g.AddAgent(id, "t", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Run(1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sniper-3 log root: snipe", "t-3 log root: melee", "sniper-x log root: melee", "sniper-07 log root: melee"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	data, err := g.SaveState()
	if err != nil {
		t.Fatal(err)
	}

	out.Reset()
	h, err := Open(cfg, Options{Stdout: &out, Stderr: &out, AgentsFromSave: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.RestoreState(data); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	if err := h.Run(1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "sniper-3 log root: snipe") || !strings.Contains(out.String(), "t-3 log root: melee") {
		t.Errorf("restored from the save:\n%s", out.String())
	}
}
