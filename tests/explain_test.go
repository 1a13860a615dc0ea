package tests

import (
	"regexp"
	"strings"
	"testing"
)

// TestExplain_addsWhyAndChangesNothingElse: -explain adds the key "why" to
// step lines and nothing else: without it the trace is the same but for
// that key, and has none.
func TestExplain_addsWhyAndChangesNothingElse(t *testing.T) {
	for _, fix := range []string{"gates", "slots"} {
		plain := run(t, "", "run", "-config", fixture(fix), "-trace", "-", "-quiet")
		explained := run(t, "", "run", "-config", fixture(fix), "-trace", "-", "-quiet", "-explain", "-workers", "2")
		if plain.code != 0 || explained.code != 0 {
			t.Fatalf("%s: exit %d, %d: %s %s", fix, plain.code, explained.code, plain.stderr, explained.stderr)
		}
		if strings.Contains(plain.stdout, `"why"`) {
			t.Fatalf("%s: a trace without -explain has \"why\"", fix)
		}
		if !strings.Contains(explained.stdout, `"why":[{`) {
			t.Fatalf("%s: -explain wrote no \"why\"", fix)
		}
		stripped := regexp.MustCompile(`(?m),"why":\[.*\]\}$`).ReplaceAllString(explained.stdout, "}")
		if stripped != plain.stdout {
			t.Errorf("%s: -explain changed more than the \"why\" keys", fix)
		}
	}
	gates := run(t, "", "run", "-config", fixture("gates"), "-trace", "-", "-quiet", "-explain")
	if !strings.Contains(gates.stdout, `"refused":"gate grenade","read":"grenade 1/1 held`) {
		t.Error("the gates fixture's trace shows no refusal by a full gate")
	}
}
