package game

import (
	"fmt"
	"strings"
	"testing"
)

// scriptedGame is a game with two scripts, one inline lua.run and a world,
// for the code cache's tests.
var scriptedGame = map[string]string{
	"config.toml": `[run]
steps = 3
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "a"
file = "ai/t.xml"
[[trees]]
name = "b"
file = "ai/t.xml"
[[agents]]
tree = "a"
count = 2
[[agents]]
tree = "b"
count = 2
`,
	"ai/t.xml": `<behaviorTree><sequence id="root" loop="true">
  <action id=".say" name="say"/>
  <action id=".inline" name="bt.lua"><parameter name="lua.run">ctx.memory.n = (ctx.memory.n or 0) + 1</parameter></action>
  <yield id=".rest"/>
</sequence></behaviorTree>`,
	"ai/say.lua": `local bt = require("bt")
local data = require("data")
bt.action("say", function(ctx) ctx:log(ctx.tree .. " " .. data.word) return bt.SUCCESS end)`,
	"ai/data.lua":  `return {word = "hi"}`,
	"ai/world.lua": `return {}`,
}

// TestLoad_everyScriptIsCompiledOnceForAllWorkers: with one worker or
// three, each source (three scripts and one lua.run) is compiled once; a
// reload compiles only the source that changed.
func TestLoad_everyScriptIsCompiledOnceForAllWorkers(t *testing.T) {
	for _, n := range []int{1, 3} {
		cfg, err := LoadConfig(writeGame(t, scriptedGame))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Run.Workers = 0
		s := startSession(t, cfg, cfg.Dir, &n)
		s.run(1)
		if got := s.g.code.cache.Compiled(); got != 4 {
			t.Errorf("workers=%d: %d sources compiled, want 4", n, got)
		}
		s.reload()
		if got := s.g.code.cache.Compiled(); got != 4 {
			t.Errorf("workers=%d: a reload with nothing changed compiled %d in all, want 4", n, got)
		}
		s.write("ai/data.lua", `return {word = "hello"}`)
		s.reload("ai/data.lua")
		if got := s.g.code.cache.Compiled(); got != 5 {
			t.Errorf("workers=%d: a reload of one changed script compiled %d in all, want 5", n, got)
		}
		s.run(1)
		wantLines(t, "output", s.people.String(), "t=0.20 b-2 log root.say: b hello")
	}
}

// TestLoad_aTreeFileNamedTwiceIsLoadedOnce: two [[trees]] entries naming
// one file share its rules, and each agent still sees its own tree's name.
func TestLoad_aTreeFileNamedTwiceIsLoadedOnce(t *testing.T) {
	s := openSession(t, writeGame(t, scriptedGame), 0)
	s.run(1)
	a, b := s.g.trees["a"].Tree, s.g.trees["b"].Tree
	if a == b || &a.Rules[0] != &b.Rules[0] {
		t.Errorf("the entries' trees: %p and %p, rules at %p and %p: want two trees over one set of rules", a, b, &a.Rules[0], &b.Rules[0])
	}
	wantLines(t, "output", s.people.String(), "t=0.10 a-1 log root.say: a hi", "t=0.10 b-1 log root.say: b hi")
}

// TestLoad_theGamesTreesTogetherHoldAtMostMaxGameRules: the limit on rules
// bounds the whole game, every [[trees]] entry counted (the same file
// named again too), and loading stops at the tree that passes it.
func TestLoad_theGamesTreesTogetherHoldAtMostMaxGameRules(t *testing.T) {
	defer func(n int) { maxGameRules = n }(maxGameRules)
	maxGameRules = 1000
	var rules strings.Builder
	for i := range 400 {
		fmt.Fprintf(&rules, "<success id=\"r%d\"/>", i)
	}
	files := map[string]string{
		"big.xml":    "<behaviorTree><sequence id=\"root\">" + rules.String() + "</sequence></behaviorTree>", // 401 rules
		"other.xml":  "<behaviorTree><sequence id=\"root\">" + rules.String() + "</sequence></behaviorTree>",
		"broken.xml": "<behaviorTree><actoin/></behaviorTree>",
		"config.toml": "[run]\nsteps = 1\n" +
			"[[trees]]\nname = \"one\"\nfile = \"big.xml\"\n[[trees]]\nname = \"two\"\nfile = \"big.xml\"\n" +
			"[[trees]]\nname = \"three\"\nfile = \"other.xml\"\n[[trees]]\nname = \"four\"\nfile = \"broken.xml\"\n" +
			"[[agents]]\ntree = \"one\"\n",
	}
	cfg, err := LoadConfig(writeGame(t, files))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(cfg, Options{SaveEvery: -1})
	want := "other.xml: trees[2] (three): the game's trees hold 1203 rules with this one; a game holds at most 1000 rules, every [[trees]] entry counted"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %q", err, want)
	}
	if strings.Contains(err.Error(), "broken.xml") {
		t.Errorf("the tree after the one over the limit was loaded: %v", err)
	}
	files["config.toml"] = strings.Replace(files["config.toml"], "[[trees]]\nname = \"three\"\nfile = \"other.xml\"\n[[trees]]\nname = \"four\"\nfile = \"broken.xml\"\n", "", 1)
	cfg, err = LoadConfig(writeGame(t, files))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{SaveEvery: -1})
	if err != nil {
		t.Fatalf("802 rules: %v", err)
	}
	g.Close()
}
