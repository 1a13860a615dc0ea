package liveview

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/btrun/btrun/game"
)

// slots is the fixture whose grunts graft a mounted gun or a supply crate
// into their slot "use" (default patrol) and give it up again.
const slots = "../tests/testdata/fixtures/slots/config.toml"

// TestAPI_agentViewNamesTheTreeItRunsWithItsGrafts: at every step of the
// slots fixture, each agent's view names the tree it runs (treeKey), and
// GET /api/trees/KEY answers that tree: the template's rules, then the
// tree its slot holds hung under the slot and marked grafted (slot, tree,
// root), a dead block as dead; the agent's cursor and every last result
// index that tree's rules (the trace ran a rule of that label at that step
// with that result, and not since). Agents move between the gun, the crate
// and the patrol default, and the view follows.
func TestAPI_agentViewNamesTheTreeItRunsWithItsGrafts(t *testing.T) {
	const steps = 40
	data, _ := straight(t, slots, steps)
	lines := readTrace(t, data)
	h := start(t, slots, steps, Options{Paused: true})
	grunt, sizes := slotTrees(h)
	held := map[string]bool{}
	graftedResults := 0
	for s := uint64(1); s <= steps; s++ {
		h.ok("POST", "/api/step", "")
		for i := 1; i <= 5; i++ {
			a := h.agent(fmt.Sprintf("grunt-%d", i))
			tree := checkComposite(t, h, a, grunt, sizes)
			held[a.Slots[0].Holds] = true
			graftedResults += checkLastResults(t, a, tree, lines, s)
		}
	}
	for _, name := range []string{"gun", "crate", "patrol"} {
		if !held[name] {
			t.Errorf("no agent's slot held %s in %d steps: the test did not see every tree", name, steps)
		}
	}
	if graftedResults == 0 {
		t.Error("no agent had a result on a grafted tree's rule")
	}
}

// slotTrees are the slots fixture's grunt tree and the sizes of the trees
// its slot takes.
func slotTrees(h *harness) (treeView, map[string]int) {
	sizes := map[string]int{}
	for _, name := range []string{"gun", "crate", "patrol"} {
		var tv treeView
		h.getJSON("/api/trees/"+name, &tv)
		sizes[name] = len(tv.Rules)
	}
	var grunt treeView
	h.getJSON("/api/trees/grunt", &grunt)
	return grunt, sizes
}

// checkComposite checks the tree agent a's view names and returns it.
func checkComposite(t *testing.T, h *harness, a agentView, grunt treeView, sizes map[string]int) treeView {
	t.Helper()
	if len(a.Slots) != 1 || a.Slots[0].Slot != "use" || a.Slots[0].Default != "patrol" {
		t.Fatalf("%s: slots %+v; want the slot use, default patrol", a.ID, a.Slots)
	}
	holds := a.Slots[0].Holds
	var tree treeView
	h.getJSON("/api/trees/"+a.TreeKey, &tree)
	if holds == "" {
		if a.TreeKey != "grunt" || len(tree.Rules) != len(grunt.Rules) {
			t.Fatalf("%s holds no tree but runs %q (%d rules)", a.ID, a.TreeKey, len(tree.Rules))
		}
		return tree
	}
	if !strings.HasPrefix(a.TreeKey, "grunt[use="+holds+"]") || tree.Tree != "grunt" || tree.Name != a.TreeKey {
		t.Fatalf("%s holds %s: tree key %q, tree %q of template %q", a.ID, holds, a.TreeKey, tree.Name, tree.Tree)
	}
	slot := tree.Rules[a.Slots[0].Rule]
	if slot.Kind != "slot" || slot.Attrs["holds"] != holds || slot.Attrs["default"] != "patrol" || len(slot.Children) != 1 {
		t.Fatalf("%s: the slot rule in %s: %+v", a.ID, a.TreeKey, slot)
	}
	root := tree.Rules[slot.Children[0]]
	if root.Graft == nil || *root.Graft != (graftMark{Slot: "use", Tree: holds, Root: true}) || root.Parent != slot.Index {
		t.Fatalf("%s: the slot's child %s is not the grafted %s's root: %+v", a.ID, root.Label, holds, root.Graft)
	}
	grafted := 0
	for i, r := range tree.Rules {
		switch {
		case i < len(grunt.Rules):
			if r.Label != grunt.Rules[i].Label || r.Graft != nil || r.Dead {
				t.Fatalf("%s: rule %d of %s is %s (graft %v, dead %v); the template's is %s", a.ID, i, a.TreeKey, r.Label, r.Graft, r.Dead, grunt.Rules[i].Label)
			}
		case r.Graft != nil:
			grafted++
			if r.Graft.Tree != holds || r.Dead || !strings.HasPrefix(r.Label, "use.") {
				t.Fatalf("%s: rule %d of %s (%s): graft %+v", a.ID, i, a.TreeKey, r.Label, r.Graft)
			}
		case !r.Dead:
			t.Fatalf("%s: rule %d of %s (%s) is neither the template's, grafted nor dead", a.ID, i, a.TreeKey, r.Label)
		}
	}
	if grafted != sizes[holds] {
		t.Fatalf("%s: %d grafted rules in %s; %s has %d", a.ID, grafted, a.TreeKey, holds, sizes[holds])
	}
	return tree
}

// checkLastResults checks that the agent's cursor and last results index
// tree's rules, against the trace up to step s; it returns how many of
// those results are on grafted rules.
func checkLastResults(t *testing.T, a agentView, tree treeView, lines []traceLine, s uint64) int {
	t.Helper()
	if c := tree.Rules[a.Cursor]; c.Label != a.Rule || c.Dead {
		t.Fatalf("step %d: %s's cursor %d is %s in %s; the agent is at %s", s, a.ID, a.Cursor, c.Label, a.TreeKey, a.Rule)
	}
	last := map[string]resultView{}
	for _, l := range lines {
		if l.Step <= s && l.Agent == a.ID {
			for _, r := range l.Runs {
				last[r[0]] = resultView{Result: r[1], Step: l.Step}
			}
		}
	}
	grafted := 0
	for _, r := range a.Results {
		rule := tree.Rules[r.Rule]
		if len(rule.Children) > 0 { // the trace leaves out some runs of list rules
			continue
		}
		want, ran := last[rule.Label]
		if !ran || want != (resultView{Result: r.Result, Step: r.Step}) {
			t.Fatalf("step %d: %s: rule %d of %s (%s): last result %s at %d; the trace's last is %+v", s, a.ID, r.Rule, a.TreeKey, rule.Label, r.Result, r.Step, want)
		}
		if rule.Graft != nil {
			grafted++
		}
	}
	return grafted
}

// TestTimeTravel_drawsTheTreeTheAgentRanThen: after travelling back, each
// agent's view names the tree it ran at that step (the trees its slot held
// then), and its cursor and results index that tree.
func TestTimeTravel_drawsTheTreeTheAgentRanThen(t *testing.T) {
	const steps = 30
	data, _ := straight(t, slots, steps)
	lines := readTrace(t, data)
	h := start(t, slots, steps, Options{Paused: true, SnapshotEvery: 7})
	grunt, sizes := slotTrees(h)
	holds := map[uint64][]string{}
	for s := uint64(1); s <= steps; s++ {
		h.ok("POST", "/api/step", "")
		for i := 1; i <= 5; i++ {
			holds[s] = append(holds[s], h.agent(fmt.Sprintf("grunt-%d", i)).Slots[0].Holds)
		}
	}
	changed := false
	for _, s := range []uint64{3, 14, 9, 21, 7, 28, 1, 16} {
		h.ok("POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		for i := 1; i <= 5; i++ {
			a := h.agent(fmt.Sprintf("grunt-%d", i))
			if a.Step != s || a.Slots[0].Holds != holds[s][i-1] {
				t.Fatalf("travel to %d: %s (step %d) holds %q; it held %q then", s, a.ID, a.Step, a.Slots[0].Holds, holds[s][i-1])
			}
			changed = changed || holds[s][i-1] != holds[steps][i-1]
			tree := checkComposite(t, h, a, grunt, sizes)
			checkLastResults(t, a, tree, lines, s)
		}
	}
	if !changed {
		t.Error("no agent held another tree at the steps travelled to than at the last: the test shows nothing")
	}
}

// TestBreakpoints_onAGraftedTreesRule: a breakpoint on a grafted tree's
// rule is set by its label (use.man.fire.aim), for any agent of the tree
// or for one (by the rule's index in the tree that agent runs), stops the
// game when an agent arrives there in whatever composite it runs, and
// names the rule; a label no grafted tree has is refused.
func TestBreakpoints_onAGraftedTreesRule(t *testing.T) {
	h := start(t, slots, 60, Options{Paused: true, Fast: true})
	code, body := h.do("POST", "/api/breakpoints", `{"tree":"grunt","rule":"use.man.fire.aim"}`)
	if code != http.StatusNotFound {
		t.Fatalf("a breakpoint on a grafted rule before any agent ran the tree: %d %v; want 404", code, body)
	}
	h.ok("POST", "/api/step", `{"steps":10}`)
	bp := h.ok("POST", "/api/breakpoints", `{"tree":"grunt","rule":"use.man.fire.aim"}`)
	if bp["rule"] != -1.0 || bp["label"] != "use.man.fire.aim" || bp["slot"] != "use" {
		t.Fatalf("breakpoint: %v", bp)
	}
	if code, body := h.do("POST", "/api/breakpoints", `{"tree":"grunt","rule":"use.man.nothing"}`); code != http.StatusNotFound {
		t.Fatalf("a breakpoint on no rule: %d %v", code, body)
	}
	for range 4 {
		h.ok("POST", "/api/resume", "")
		st := h.waitPaused("breakpoint")
		hit := st["reason"].(map[string]any)["hits"].([]any)[0].(map[string]any)
		a := h.agent(hit["agent"].(string))
		var tree treeView
		h.getJSON("/api/trees/"+a.TreeKey, &tree)
		r := tree.Rules[int(hit["rule"].(float64))]
		if hit["label"] != "use.man.fire.aim" || r.Label != "use.man.fire.aim" || r.Graft == nil || !strings.HasPrefix(a.Rule, "use.man.fire.aim") {
			t.Fatalf("hit %v: rule %s (graft %v) of %s; the agent is at %s", hit, r.Label, r.Graft, a.TreeKey, a.Rule)
		}
	}
	// One agent's, by the index in the tree it runs.
	a := h.agent("grunt-1")
	var tree treeView
	h.getJSON("/api/trees/"+a.TreeKey, &tree)
	for i, r := range tree.Rules {
		if r.Graft != nil && !r.Graft.Root {
			bp := h.ok("POST", "/api/breakpoints", fmt.Sprintf(`{"agent":"grunt-1","rule":%d}`, i))
			if bp["label"] != r.Label || bp["agent"] != "grunt-1" || bp["rule"] != -1.0 {
				t.Fatalf("breakpoint on rule %d (%s) of grunt-1's %s: %v", i, r.Label, a.TreeKey, bp)
			}
			break
		}
	}
}

// TestReload_keepsGraftedBreakpointsAndNamesTreesAgain: after a reload the
// status counts it (a page fetches its trees again), a breakpoint on a
// grafted tree's rule is kept while the tree has its slot and still stops
// there, and each agent's treeKey names the new tree it runs.
func TestReload_keepsGraftedBreakpointsAndNamesTreesAgain(t *testing.T) {
	var g *game.Game
	h := start(t, slots, 60, Options{Paused: true, Fast: true, Reload: func() (string, error) {
		_, err := g.Reload(game.ReloadOptions{}) // calls the debugger's Reloaded
		return "reloaded", err
	}})
	g = h.g
	h.ok("POST", "/api/step", `{"steps":10}`)
	h.ok("POST", "/api/breakpoints", `{"tree":"grunt","rule":"use.man.fire.aim"}`)
	st := h.ok("POST", "/api/reload", "")["status"].(map[string]any)
	if bps := st["breakpoints"].([]any); st["reloads"] != 1.0 || len(bps) != 1 || bps[0].(map[string]any)["label"] != "use.man.fire.aim" {
		t.Fatalf("after the reload: reloads %v, breakpoints %v", st["reloads"], st["breakpoints"])
	}
	grunt, sizes := slotTrees(h)
	for i := 1; i <= 5; i++ {
		checkComposite(t, h, h.agent(fmt.Sprintf("grunt-%d", i)), grunt, sizes)
	}
	h.ok("POST", "/api/resume", "")
	hit := h.waitPaused("breakpoint")["reason"].(map[string]any)["hits"].([]any)[0].(map[string]any)
	if hit["label"] != "use.man.fire.aim" {
		t.Fatalf("hit %v", hit)
	}
}
