package runtime

import "testing"

// TestJump_toTheRuleBeingRunChangesNothing: a jump asked for by a call to
// the rule that call belongs to (the rule being run: an action's own, a
// list rule re-checking its conditions after a child finished, a watched
// rule whose conditions the checks at the start of a step evaluate)
// changes nothing, in every place a jump can be asked for; a jump to any
// other rule moves the cursor, even to the cursor itself when another
// rule's call asks for it (it is entered again, keeping its activation).
// Between steps, nothing is being run: a jump to the cursor of its context
// changes nothing.
func TestJump_toTheRuleBeingRunChangesNothing(t *testing.T) {
	const watched = `<choice id="root">
  <sequence id="w" abort="self"><condition>c</condition><action id="a" name="act"/></sequence>
</choice>`
	const parent = `<sequence id="root"><sequence id="s"><condition>c</condition><action id="a" name="ok"/><action id="b" name="act"/></sequence></sequence>`
	jumpOnce := func(h *harness, hook, target string) {
		h.hook[hook] = func(a *Agent) error { delete(h.hook, hook); return a.Jump(target) }
	}
	cases := []struct {
		name, xml string
		setup     func(h *harness) // before step 2
		want      []string
	}{
		{"an action to itself", watched, func(h *harness) { jumpOnce(h, "a", "a") },
			[]string{"running a: ?c a:start a", "running a: ?c a"}},
		{"a watched rule's condition in the checks, to that rule", watched, func(h *harness) { jumpOnce(h, "?c", "w") },
			[]string{"running a: ?c a:start a", "running a: ?c a"}},
		{"a watched rule's condition in the checks, to the cursor: entered again", watched, func(h *harness) { jumpOnce(h, "?c", "a") },
			[]string{"running a: ?c a:start a", "running a: ?c a:cancel a:start a"}},
		{"a list re-checking its conditions, to itself", parent, func(h *harness) {
			h.must(h.agent.Reset())
			n := 0
			h.hook["?c"] = func(a *Agent) error {
				if n++; n == 2 { // the re-check after a finished
					return a.Jump("s")
				}
				return nil
			}
		}, []string{"running b: ?c a ?c b:start b", "running b: b:cancel ?c a ?c b:start b"}},
		{"from Go between steps, to the cursor", watched, func(h *harness) { h.must(h.agent.Jump("a")) },
			[]string{"running a: ?c a:start a", "running a: ?c a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, bt(c.xml), map[string]bool{"c": true})
			h.script["a"], h.script["b"] = []Status{R}, []Status{R}
			got := []string{h.step()}
			h.log = h.log[:0]
			c.setup(h)
			pre := append([]string(nil), h.log...)
			s := h.step()
			if len(pre) > 0 {
				s = insertCalls(s, pre)
			}
			got = append(got, s)
			expectSteps(t, got, c.want)
		})
	}
}
