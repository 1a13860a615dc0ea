package game

import (
	"fmt"
	"strings"

	"github.com/btrun/btrun/runtime"
)

// lintUnreachable reports the children of a sequence or choice that the
// flow of the list can never reach, because a sibling before them decides
// the list every time it runs (SPEC §2):
//
//   - in a sequence, a child that never succeeds (a <failure> without
//     doNotFail), or that succeeds only by making the sequence's own
//     conditions fail (a bt.variable.set of the boolean the sequence's
//     conditions read, which the sequence checks again right after);
//   - in a choice in document order, a child that never fails (doNotFail,
//     a <success> or an always-successful built-in action with no
//     conditions, cooldown or gate);
//   - in either, a child that never ends (a <running> with no conditions,
//     timeout, cooldown or gate).
//
// Only what is proved is reported: a jump (from a script, a plugin, Go or
// the live view) can still land in such a child, so a child whose subtree
// holds an id a script names as a string is left alone, and the message
// says a jump is the only way in. One finding per list, at its first
// unreachable child. jumpable says whether a script names an id.
func lintUnreachable(t *runtime.Tree, jumpable func(id string) bool) []Lint {
	var out []Lint
	for p := range t.Rules {
		list := &t.Rules[p]
		if list.Kind != runtime.KindSequence && list.Kind != runtime.KindChoice {
			continue
		}
		for c := list.FirstChild; c >= 0; c = t.Rules[c].Next {
			next := t.Rules[c].Next
			if next < 0 {
				break
			}
			why := blocks(t, list, &t.Rules[c])
			if why == "" {
				continue
			}
			if jumpedInto(t, next, jumpable) {
				break
			}
			n := 0
			for s := next; s >= 0; s = t.Rules[s].Next {
				n++
			}
			others := ""
			switch {
			case n == 2:
				others = " (nor can the rule after it)"
			case n > 2:
				others = fmt.Sprintf(" (nor can the %d rules after it)", n-1)
			}
			r := &t.Rules[next]
			out = append(out, Lint{r.Pos.String(), fmt.Sprintf("rule %s can never run%s: it comes after %s in %s %s, and %s; only a jump can reach it",
				r.Label, others, t.Rules[c].Label, list.Kind, list.Label, why)})
			break
		}
	}
	return out
}

// blocks says why child c decides list every time it runs, or "".
func blocks(t *runtime.Tree, list, c *runtime.Rule) string {
	refusable := c.Cooldown > 0 || c.Gate != ""
	if c.Kind == runtime.KindRunning && len(c.Conds) == 0 && c.Timeout == 0 && !refusable {
		return fmt.Sprintf("%s is a <running> with no conditions and no timeout: it never ends", c.Label)
	}
	if list.Kind == runtime.KindSequence {
		if c.Kind == runtime.KindFailure && !c.DoNotFail {
			return fmt.Sprintf("%s is a <failure>: it always fails, which ends the sequence", c.Label)
		}
		return clearsWatched(t, list, c)
	}
	if list.Order != runtime.OrderList {
		return "" // another order may try c last
	}
	switch {
	case c.DoNotFail && c.Kind != runtime.KindCustom && c.Kind != runtime.KindParallel && c.Kind != runtime.KindSlot && c.Kind != runtime.KindStateMachine:
		return fmt.Sprintf("%s has doNotFail=\"true\": it never fails, so the choice ends with its success", c.Label)
	case refusable || len(c.Conds) > 0:
		return ""
	case c.Kind == runtime.KindSuccess:
		return fmt.Sprintf("%s is a <success> with no conditions: it always succeeds, which ends the choice", c.Label)
	case c.Kind == runtime.KindAction && alwaysSucceeds[c.Action]:
		return fmt.Sprintf("%s calls %s with no conditions: it always succeeds, which ends the choice", c.Label, c.Action)
	}
	return ""
}

// alwaysSucceeds are the built-in actions that succeed whenever they run
// (their bind checks every parameter); an error instead resets the agent,
// which does not reach the next child either.
var alwaysSucceeds = map[string]bool{
	"bt.log": true, "bt.timestamp.set": true, "bt.timestamp.clear": true, "bt.stimulus.forget": true,
}

// clearsWatched says why a bt.variable.set child c of a sequence makes the
// sequence's conditions fail, which it checks again after c succeeds; ""
// when it does not, or c has a hook (an exit hook could set it back).
func clearsWatched(t *runtime.Tree, seq, c *runtime.Rule) string {
	if c.Kind != runtime.KindAction || c.Action != "bt.variable.set" || c.Enter != "" || c.Exit != "" {
		return ""
	}
	name, _ := c.Params.Get("variable.name")
	text, ok := c.Params.Get("variable.value")
	vi, declared := t.VarIndex(name)
	if !ok || !declared || t.Vars[vi].Type != runtime.VarBoolean || (text != "true" && text != "false") {
		return ""
	}
	for _, cond := range seq.Conds {
		if cond.Cmp != nil || cond.Name != name {
			continue
		}
		value := (text == "true") != cond.Negate
		fails := seq.Mode == runtime.AllTrue && !value || seq.Mode == runtime.AllFalse && value ||
			len(seq.Conds) == 1 && (seq.Mode == runtime.AnyTrue && !value || seq.Mode == runtime.AnyFalse && value)
		if fails {
			return fmt.Sprintf("%s sets %s to %s, so the sequence's condition %q is %t when it checks its conditions again after that child",
				c.Label, name, text, condText(&cond), value)
		}
	}
	return ""
}

// jumpedInto reports whether a script names the id of a rule at or below
// rule i (or of a later sibling): a jump may land there.
func jumpedInto(t *runtime.Tree, i int32, jumpable func(string) bool) bool {
	for s := i; s >= 0; s = t.Rules[s].Next {
		end := s + 1
		for end < int32(len(t.Rules)) && t.Rules[end].Depth > t.Rules[s].Depth {
			end++
		}
		for j := s; j < end; j++ {
			if id := t.Rules[j].ID; id != "" && (jumpable(id) || jumpable(strings.TrimPrefix(id, "."))) {
				return true
			}
		}
	}
	return false
}
