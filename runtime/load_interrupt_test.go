package runtime

import (
	"testing"
)

// TestLoad_interruptionAttributesReachTheRules: abort, timeout, cooldown and
// order land on the rules as written; a subtree's apply to the sequence it
// becomes; rules without them keep the defaults.
func TestLoad_interruptionAttributesReachTheRules(t *testing.T) {
	files := map[string]string{
		"main.xml": bt(`<choice id="root" order="weighted" timeout="2.5">
  <action id="a" name="x" abort="lower" cooldown="0.25"><condition>c</condition></action>
  <subtree id="s" timeout="4" cooldown="1">sub.xml</subtree>
  <sequence id="q" abort="self" loop="true"><condition>c</condition><running id="r" abort="none"/></sequence>
</choice>`),
		"sub.xml": bt(`<success id="ok"/>`),
	}
	tree, err := LoadFile("main.xml", LoadOptions{ReadFile: memFiles(files)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		abort             Abort
		order             Order
		timeout, cooldown float64
	}{
		"root": {AbortNone, OrderWeighted, 2.5, 0},
		"a":    {AbortLower, OrderList, 0, 0.25},
		"s":    {AbortNone, OrderList, 4, 1},
		"s.ok": {AbortNone, OrderList, 0, 0},
		"q":    {AbortSelf, OrderList, 0, 0},
		"r":    {},
	}
	if len(tree.Rules) != len(want) {
		t.Errorf("%d rules, want %d", len(tree.Rules), len(want))
	}
	for i := range tree.Rules {
		r := &tree.Rules[i]
		w, ok := want[r.ID]
		if !ok {
			t.Errorf("unexpected rule %s", r.Label)
			continue
		}
		if r.Abort != w.abort || r.Order != w.order || r.Timeout != w.timeout || r.Cooldown != w.cooldown {
			t.Errorf("%s: abort=%s order=%s timeout=%v cooldown=%v; want %s %s %v %v",
				r.ID, r.Abort, r.Order, r.Timeout, r.Cooldown, w.abort, w.order, w.timeout, w.cooldown)
		}
	}
}

// TestParseScore_numbersOrScorerNames: what choice.score accepts.
func TestParseScore_numbersOrScorerNames(t *testing.T) {
	cases := []struct {
		in     string
		score  float64
		scorer string
		bad    bool
	}{
		{"1", 1, "", false},
		{"-2.5", -2.5, "", false},
		{"1e3", 1000, "", false},
		{"0x1p-2", 0.25, "", false},
		{"urge", 0, "urge", false},
		{"hunger.level", 0, "hunger.level", false},
		{"inf", 0, "", true},
		{"-Infinity", 0, "", true},
		{"nan", 0, "", true},
		{"1e999", 0, "", true},
		{"", 0, "", true},
	}
	for _, c := range cases {
		score, scorer, err := parseScore(c.in)
		if (err != nil) != c.bad || score != c.score || scorer != c.scorer {
			t.Errorf("parseScore(%q) = %v, %q, %v; want %v, %q, bad=%v", c.in, score, scorer, err, c.score, c.scorer, c.bad)
		}
	}
}
