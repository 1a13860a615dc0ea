package game

import (
	"strings"
	"testing"
)

// A BHS selection tree whose blocks are in a block file, run as a game.
var nativeGame = map[string]string{
	"config.toml": `[run]
steps = 10
dt = 0.5
[scripts]
paths = ["ai"]
[[trees]]
name = "g"
file = "ai/grunt.xml"
[[agents]]
tree = "g"
count = 2
`,
	"ai/grunt.xml": `<SelectionTree name="Grunt" blocks="common.xml">
<Variables><Ref name="Vars"/></Variables>
<LeafTranslations><Map node="Idle" target="idle"/></LeafTranslations>
<Priority name="Root"><Ref name="Tree"/></Priority>
</SelectionTree>`,
	"ai/common.xml": `<Blocks>
<Block name="Vars"><Variable name="Alert"/></Block>
<Block name="Tree"><Leaf name="Idle"/></Block>
</Blocks>`,
	"ai/idle.lua": `local bt = require("bt")
bt.action("idle", function(ctx) ctx:log("idle v1") return bt.RUNNING end)`,
}

// TestReload_nativeDocuments: a BHS tree runs in a game, its block file is
// one of its files, and a hot reload of either keeps the agents in place
// (their rules' ids are node paths, which moving lines does not change).
func TestReload_nativeDocuments(t *testing.T) {
	s := openSession(t, writeGame(t, nativeGame), 0)
	s.run(2)
	wantLines(t, "output", s.people.String(), "t=1.00 g-1 log Root.Idle: idle v1")
	// A comment line above moves every position; the ids stay. Then a
	// leaf added to the block file preempts the one that runs.
	s.write("ai/grunt.xml", "<!-- moved -->\n"+nativeGame["ai/grunt.xml"])
	if rep := s.reload("ai/grunt.xml"); rep.Kept != 2 || len(rep.Restarted) != 0 {
		t.Fatalf("reload of the document: %+v", rep)
	}
	s.write("ai/common.xml", strings.Replace(nativeGame["ai/common.xml"], `<Leaf name="Idle"/>`, `<Leaf name="Guard" condition="ready and not Alert"/><Leaf name="Idle"/>`, 1))
	s.write("ai/idle.lua", nativeGame["ai/idle.lua"]+`
bt.condition("ready", function(ctx) return true end)
bt.action("Guard", function(ctx) ctx:log("guard") return bt.RUNNING end)`)
	if rep := s.reload("ai/common.xml", "ai/idle.lua"); rep.Kept != 2 || len(rep.Restarted) != 0 {
		t.Fatalf("reload of the block file: %+v", rep)
	}
	s.run(1)
	wantLines(t, "output", s.people.String(), "t=1.50 g-1 log Root.Guard: guard", "t=1.50 g-2 log Root.Guard: guard")
}
