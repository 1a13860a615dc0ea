package runtime

import "testing"

// Custom rules (custom.go): each call of the contract, and every attribute
// of the format on them, stepped through the harness's <pick>, <invert>
// and <times> (custom_harness_test.go).

// TestCustom_contract: Enter, ChildDone and Exit, in order, with the
// children they name and the state they keep.
func TestCustom_contract(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "enter runs the child it names; child results go to ChildDone; the result leaves it",
			xml:  bt(`<pick id="p"><parameter name="pick.first">1</parameter><action id="a" name="ok"/><action id="b" name="fail"/><action id="c" name="ok"/></pick>`),
			want: []string{"success p: p.enter b p.done(1:failure:1) c p.done(2:success:2) p.exit(success:2)"}},
		{name: "wraps around and fails after every child",
			xml:  bt(`<pick id="p"><parameter name="pick.first">1</parameter><action id="a" name="fail"/><action id="b" name="fail"/></pick>`),
			want: []string{"failure p: p.enter b p.done(1:failure:1) a p.done(0:failure:2) p.exit(failure:2)"}},
		{name: "a decorator",
			xml:  bt(`<sequence id="root"><invert id="i"><action id="a" name="fail"/></invert><invert id="j"><action id="b" name="ok"/></invert></sequence>`),
			want: []string{"failure root: i.enter a i.done(0:failure) i.exit(success) j.enter b j.done(0:success) j.exit(failure)"}},
		{name: "state kept across steps while a child runs",
			xml:    bt(`<times id="t"><parameter name="times.n">2</parameter><action id="a" name="act"/></times>`),
			script: map[string][]Status{"a": {R, S, R, S}},
			want: []string{"running a: t.enter a:start a", "running a: a t.done(success:1) a:start a",
				"success t: a t.done(success:2) t.exit(success:2)"}},
		{name: "a child index out of range is the step's error",
			xml:  bt(`<pick id="p"><parameter name="pick.bad">true</parameter><action id="a" name="ok"/></pick>`),
			want: []string{"error p: p.enter p.exit(reset:1) | rule <pick> Enter: answered child 1; the rule has 1 children (0 to 0)"}},
	})
}
