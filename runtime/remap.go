package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// A hot reload loads a game's tree files again while its agents run, and
// carries every agent over to the new version of its tree (carry.go). The
// agents' state names rules of the old version: the cursor, the rules whose
// timeout clock runs, whose cooldown runs, whose choice order is fixed. A
// RuleMap says which rule of the new version each rule of the old one
// became, so that every such reference is carried by rule, not by position:
// inserting or removing rules elsewhere in the file changes nothing for an
// agent.

// RuleMap maps the rules of a tree onto an edited version of it.
//
// A rule with an id is the rule with the same id in the new version. A rule
// without an id is found by its place: the child at the same position of
// the rule its parent became, when that child has no id either (so a rule
// keeps its place under its closest ancestor with an id, whatever changed
// elsewhere). The root always becomes the root, unless its id now names
// another rule. Either way the two rules must be of the same kind, and
// actions must call the same action: a rule that became something else is
// gone, since the state an agent keeps for it means nothing to the new rule.
// Two versions with the same fingerprint map every rule to itself.
type RuleMap struct {
	from, to *Tree
	idx      []int32  // idx[r]: the rule of `to` that rule r of `from` became; -1 when gone
	why      []string // why[r]: for a gone rule, why (for people)
}

// MapRules maps the rules of from onto to, its edited version.
func MapRules(from, to *Tree) *RuleMap {
	m := &RuleMap{from: from, to: to, idx: make([]int32, len(from.Rules)), why: make([]string, len(from.Rules))}
	if from.Fingerprint == to.Fingerprint && len(from.Rules) == len(to.Rules) && from.shape == to.shape {
		for i := range m.idx {
			m.idx[i] = int32(i)
		}
		return m
	}
	// Rules are in pre-order: a rule's parent is mapped before the rule.
	for i := range from.Rules {
		r := &from.Rules[i]
		m.idx[i] = -1
		if from.unreached(int32(i)) {
			continue // a tree no slot of the agent runs (slots.go): nothing of it is kept
		}
		c, ok := int32(-1), false
		switch {
		case r.ID != "":
			if c, ok = to.RuleIndex(r.ID); !ok {
				if i != int(Root) {
					m.why[i] = "is gone"
					continue
				}
				c, ok = Root, true // a root whose id changed is still the root
			}
		case i == int(Root):
			c, ok = Root, true
		default:
			p := m.idx[r.Parent]
			if p < 0 {
				m.why[i] = "has no id, and the rule above it is gone"
				continue
			}
			c, ok = childAt(to, p, position(from, int32(i)))
			if !ok || to.Rules[c].ID != "" {
				m.why[i] = "has no id and is not at its place any more"
				continue
			}
		}
		if why := changed(r, &to.Rules[c]); why != "" {
			m.why[i] = why
			continue
		}
		m.idx[i] = c
	}
	return m
}

// changed says why rule n of the new version is not rule o any more, or "".
func changed(o, n *Rule) string {
	switch {
	case o.Kind != n.Kind:
		return fmt.Sprintf("is now a %s rule", n.Kind)
	case o.Kind == KindAction && o.Action != n.Action:
		return fmt.Sprintf("now calls action %q", n.Action)
	}
	return ""
}

// position is rule r's position among its parent's children.
func position(t *Tree, r int32) int {
	n := 0
	for c := t.Rules[t.Rules[r].Parent].FirstChild; c != r; c = t.Rules[c].Next {
		n++
	}
	return n
}

// childAt is the n-th child of rule p.
func childAt(t *Tree, p int32, n int) (int32, bool) {
	c := t.Rules[p].FirstChild
	for ; c >= 0 && n > 0; n-- {
		c = t.Rules[c].Next
	}
	return c, c >= 0
}

// From is the tree the map maps from, To the edited version.
func (m *RuleMap) From() *Tree { return m.from }

// To is the edited version of From.
func (m *RuleMap) To() *Tree { return m.to }

// Rule returns the rule of To that rule r of From became.
func (m *RuleMap) Rule(r int32) (int32, bool) {
	if r < 0 || int(r) >= len(m.idx) || m.idx[r] < 0 {
		return -1, false
	}
	return m.idx[r], true
}

// Gone lists the rules of From that To does not have, each with its label
// and why ("is gone", "is now a choice rule").
func (m *RuleMap) Gone() []GoneRule {
	var out []GoneRule
	for i, c := range m.idx {
		if c < 0 && !m.from.unreached(int32(i)) {
			out = append(out, GoneRule{Label: m.from.Rules[i].Label, Why: m.why[i]})
		}
	}
	return out
}

// GoneRule is a rule of the old version that the new one does not have.
type GoneRule struct {
	Label string // its label in the old version: its id, or TAG@FILE:LINE:COL
	Why   string // "is gone", "now calls action \"aim2\"", ...
}

func (g GoneRule) String() string { return "rule " + g.Label + " " + g.Why }

// Unplaced reports whether agent old, running From, loses its place when
// carried over to agent a, running To: the rule it sits on is gone, or a
// running lane's rule is, or the new version puts it where the agent's
// state cannot go (inside a lane of a parallel it does not run, say). What
// it sat on and why is in GoneRule. An agent at the root that is not
// running an action there keeps its place whatever became of the root: it
// starts the tree again at its next step either way.
//
// It is the one place that decides who restarts: a carry (PlanCarry) takes
// every agent for which it is false to the same place in To, and refuses
// the others, which the caller resets first (the old version's cancel hook
// ends the running actions) so that they carry over at the root.
func (m *RuleMap) Unplaced(old, a *Agent) (GoneRule, bool) {
	rules := m.from.Rules
	if _, ok := m.cursor(old.cursor, old.flags&flagActionRunning != 0); !ok {
		return GoneRule{Label: rules[old.cursor].Label, Why: m.why[old.cursor]}, true
	}
	if old.lanesRun() {
		for _, path := range old.lanePaths(nil, old.cursor) {
			if _, ok := m.Rule(path.cursor); !ok {
				return GoneRule{Label: rules[path.cursor].Label, Why: m.why[path.cursor]}, true
			}
		}
	}
	// Whatever else the new version cannot take, a trial restore finds.
	var s Snapshot
	if err := old.snapshotOf(&s, true); err != nil {
		return GoneRule{}, false // not a question of place (a paused step): PlanCarry says so
	}
	s.carry = &carried{m: m, cursor: old.cursor}
	var p RestorePlan
	err := a.planRestore(&p, &s, make([]uint64, a.bound.slabLen))
	var e *Error
	if errors.Is(err, ErrUnknownID) && errors.As(err, &e) {
		return GoneRule{Label: rules[old.cursor].Label, Why: "cannot keep its place: " + strings.TrimPrefix(e.Msg, "cannot restore: ")}, true
	}
	return GoneRule{}, false
}

// cursor is the rule of To an agent at rule c of From goes to, following
// Unplaced: false when it loses its place.
func (m *RuleMap) cursor(c int32, running bool) (int32, bool) {
	if n, ok := m.Rule(c); ok {
		return n, true
	}
	if c == Root && !running {
		return Root, true
	}
	return -1, false
}
