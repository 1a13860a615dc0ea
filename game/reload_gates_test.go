package game

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// postGame: two of three guards take the post (users 2) and hold it for
// ever (waiting for a signal no one sends); the third is refused and idles.
var postGame = map[string]string{
	"config.toml": `[run]
steps = 100
dt = 0.5
[[trees]]
name = "g"
file = "g.xml"
[[agents]]
tree = "g"
count = 3
`,
	"g.xml": `<behaviorTree>
  <gates>
    <gate name="post" users="2" cooldown="1"/>
    <gate name="horn"/>
  </gates>
  <choice id="root">
    <sequence id="guard" gate="post">
      <action id=".stand" name="bt.signal.wait"><parameter name="signal.name">never</parameter></action>
    </sequence>
    <action id="idle" name="bt.wait"><parameter name="wait.seconds">1000</parameter></action>
  </choice>
</behaviorTree>`,
}

// gateState is a gate of the game as text: its users, holders and last
// release ("-" when never released).
func gateState(g *Game, name string) string {
	if g.Gates() == nil {
		return "none"
	}
	for _, gi := range g.Gates().List() {
		if gi.Name == name {
			since := "-"
			if !math.IsNaN(gi.CoolingSince) {
				since = fmt.Sprint(gi.CoolingSince)
			}
			return fmt.Sprintf("users=%d holders=%v since=%s takes=%d", gi.Users, gi.Holders, since, gi.Takes)
		}
	}
	return "none"
}

// TestReload_carriesGates: a reload carries the gates by name and every
// hold by its rule: holders that keep their rule keep the gate (with a
// capacity that shrank below them), holders whose rule no longer names the
// gate, or is gone, let it go as leaving the rule would (the cooldown runs
// from the reload), and a gate no tree declares any more is dropped with
// its holders.
func TestReload_carriesGates(t *testing.T) {
	tree := postGame["g.xml"]
	for _, tc := range []struct {
		name      string
		edit      func(string) string
		restarted int
		post      string   // the post gate after the reload
		after     string   // the post gate one step later
		warnings  []string // each a part of a warning
	}{
		{"unchanged", func(s string) string { return s }, 0,
			"users=2 holders=[g-1 g-2] since=- takes=2",
			"users=2 holders=[g-1 g-2] since=- takes=2", nil},
		{"capacity shrank", func(s string) string { return strings.Replace(s, `users="2"`, `users="1"`, 1) }, 0,
			"users=1 holders=[g-1 g-2] since=- takes=2",
			"users=1 holders=[g-1 g-2] since=- takes=2",
			[]string{`gate "post" now lets 1 agents hold it and 2 do: they keep it, and it is full until fewer than 1 hold it`}},
		{"capacity grew", func(s string) string { return strings.Replace(s, `users="2"`, `users="3"`, 1) }, 0,
			"users=3 holders=[g-1 g-2] since=- takes=2",
			"users=3 holders=[g-1 g-2] since=- takes=2", nil}, // g-3 idles on: it does not come back to the gate
		{"holding rule names no gate", func(s string) string { return strings.Replace(s, ` gate="post"`, ``, 1) }, 0,
			"users=2 holders=[] since=1.5 takes=2",
			"users=2 holders=[] since=1.5 takes=2",
			[]string{`agent g-1 lets gate "post" go: none of its active rules holds it in the new version`,
				`agent g-2 lets gate "post" go`}},
		{"holding rule gone", func(s string) string {
			return strings.NewReplacer(`id="guard"`, `id="watch"`).Replace(s)
		}, 2,
			"users=2 holders=[] since=1.5 takes=2",
			"users=2 holders=[] since=1.5 takes=2", nil}, // restarted at 1.5, the post cools down until 2.5: refused at 2
		{"gate removed", func(s string) string {
			return strings.NewReplacer(`<gate name="post" users="2" cooldown="1"/>`, ``, ` gate="post"`, ``,
				`<parameter name="gate.name">post</parameter>`, `<parameter name="gate.name">horn</parameter>`).Replace(s)
		}, 0, "none", "none",
			[]string{`gate "post" is not declared any more; its holders (g-1, g-2) let it go`}},
		{"every gate removed", func(s string) string {
			return strings.NewReplacer(`<gates>
    <gate name="post" users="2" cooldown="1"/>
    <gate name="horn"/>
  </gates>`, ``, ` gate="post"`, ``,
				`name="bt.signal.wait"><parameter name="signal.name">never</parameter>`,
				`name="bt.wait"><parameter name="wait.seconds">1000</parameter>`).Replace(s)
		}, 2, "none", "none", nil}, // the guards' rule calls another action: they restart, their gate released first
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openSession(t, writeGame(t, postGame), 0)
			s.run(3)
			if got, want := gateState(s.g, "post"), "users=2 holders=[g-1 g-2] since=- takes=2"; got != want {
				t.Fatalf("before the reload: %s, want %s", got, want)
			}
			s.write("g.xml", tc.edit(tree))
			rep := s.reload("g.xml")
			if len(rep.Restarted) != tc.restarted || rep.Kept != 3-tc.restarted {
				t.Errorf("report %+v", rep)
			}
			if got := gateState(s.g, "post"); got != tc.post {
				t.Errorf("after the reload: %s, want %s", got, tc.post)
			}
			all := strings.Join(rep.Warnings, "\n")
			for _, w := range tc.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("no warning %q in:\n%s", w, all)
				}
			}
			if len(tc.warnings) == 0 && all != "" {
				t.Errorf("warnings:\n%s", all)
			}
			s.run(1)
			if got := gateState(s.g, "post"); got != tc.after {
				t.Errorf("a step later: %s, want %s", got, tc.after)
			}
			if strings.Contains(s.trace.String(), `"result":"error"`) {
				t.Errorf("an error in the trace:\n%s", s.trace.String())
			}
			// The agents that hold a gate say so in their slots.
			for _, a := range s.g.Agents() {
				if s.g.Gates() == nil {
					break
				}
				slot, err := a.GateSlot("horn")
				if err != nil || slot != 0 {
					t.Errorf("%s: horn slot %d, %v", a.ID(), slot, err)
				}
				if p, err := a.GateSlot("post"); err == nil {
					held := slices.Contains([]string{"unchanged", "capacity shrank", "capacity grew"}, tc.name) && a.ID() != "g-3"
					if (p > 0) != held {
						t.Errorf("%s: post slot %d", a.ID(), p)
					}
				}
			}
		})
	}
}

// TestReload_holdingRuleGoneLetsOthersTakeTheGateAfterItsCooldown: the
// guards restarted by the reload (their rule is gone) released the post
// at the reload; it cools down for its second; then the first two guards
// to arrive take it again.
func TestReload_holdingRuleGoneLetsOthersTakeTheGateAfterItsCooldown(t *testing.T) {
	s := openSession(t, writeGame(t, postGame), 0)
	s.run(3) // t = 1.5
	s.write("g.xml", strings.Replace(postGame["g.xml"], `id="guard"`, `id="watch"`, 1))
	s.reload("g.xml")
	s.run(1) // t = 2: cooling, refused: g-1 and g-2 idle with g-3
	wantLines(t, "trace", s.trace.String(),
		`{"step":3,"time":1.5,"agent":"g-1","reload":"restart","rule":"guard.stand"}`,
		`{"step":4,"time":2,"agent":"g-1","runs":[["idle","running"]],"result":"running","cursor":"idle"}`,
	)
	if got, want := gateState(s.g, "post"), "users=2 holders=[] since=1.5 takes=2"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}
