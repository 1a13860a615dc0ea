package liveview

import (
	"fmt"
	"testing"
)

// Issue 40: the Why card printed raw floats.
func TestWhy_designerNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"refused by its gate grenade (grenade 1/1 held, cooling 6.599999999999909 s more)":      "refused by its gate grenade (grenade 1/1 held, cooling 6.6 s more)",
		"order grunt.idle.look, grunt.idle.patrol; grunt.idle.patrol score 0.03333333333334091": "order grunt.idle.look, grunt.idle.patrol; grunt.idle.patrol score 0.0333",
		"refused by its cooldown (2.0000000001 s left)":                                         "refused by its cooldown (2 s left)",
		"x weight 12.34567":                             "x weight 12.35",
		"x score 1.5e-07 and 3.3333333333333e-05":       "x score 1.5e-07 and 3.33e-05",
		"Seen age 1.5 s; Alarm was false (Alarm=false)": "Seen age 1.5 s; Alarm was false (Alarm=false)",
		"grunt.attack.fire.lob.throw score 0.25":        "grunt.attack.fire.lob.throw score 0.25",
	} {
		if got := designerNumbers(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// Issue 40: the Why card blamed a condition for a failure that came from
// the action itself. swing runs at step 1 (Near was true) and fails on its
// own at step 2 (Near still true): the reason says the action failed.
func TestWhy_anActionsOwnFailure(t *testing.T) {
	h := start(t, "testdata/blame/config.toml", 100, Options{Paused: true, Fast: true})
	reason := func() string {
		for _, w := range h.agent("blame-1").Why {
			if w.Label == "root.hit" {
				return fmt.Sprintf("step %d: %s", w.Step, w.Text)
			}
		}
		return "none"
	}
	h.ok("POST", "/api/step", "")
	if got := reason(); got != "step 1: Near was true (Near=true)" {
		t.Errorf("at step 1: %s", got)
	}
	h.ok("POST", "/api/step", "")
	if got := reason(); got != "step 2: Near was true (Near=true); the action swing failed" {
		t.Errorf("at step 2: %s", got)
	}
}
