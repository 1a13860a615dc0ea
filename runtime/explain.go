package runtime

import (
	"fmt"
	"math"
	"strconv"
)

// Why: the reasons behind a step's decisions. With Env.Explain set, the
// loop records them as it decides: every step then runs in the loop, as an
// observed one does (stepTo), where the decisions are written once, so
// the reasons do not depend on whether the step could take the fast path
// or an Observer is set:
//
//   - every condition evaluated (checkConds, where every condition of
//     every rule is evaluated when recording; the one-condition shortcuts
//     of testSomeConds step aside), with what it read;
//   - every score and weight of an ordered choice, and the order drawn
//     (enterOrderedChoice);
//   - every refusal at a rule's arrival: its cooldown (refuses), or its
//     gate, full or cooling down (decideTake).
//
// They are kept in the agent's extension, marked with the step they belong
// to, so a step that does not record costs nothing and an agent that never
// recorded has none. Agent.Whys gives them to the Observer at StepDone.

// WhyKind says what a Why records.
type WhyKind uint8

const (
	WhyCondition WhyKind = iota + 1 // a condition evaluated
	WhyScore                        // a child's score in a choice ordered by score
	WhyWeight                       // a child's weight in a weighted choice
	WhyOrder                        // the order a choice drew when entered
	WhyRefused                      // a rule refused at its arrival (cooldown, gate)
)

var whyKindNames = [...]string{"", "condition", "score", "weight", "order", "refused"}

func (k WhyKind) String() string {
	if int(k) < len(whyKindNames) && k != 0 {
		return whyKindNames[k]
	}
	return fmt.Sprintf("WhyKind(%d)", k)
}

// Why is one reason of a step.
type Why struct {
	Kind WhyKind
	// Rule is the rule whose condition was evaluated, the choice that was
	// ordered, or the rule refused.
	Rule int32
	// Child is the child a score or weight is of; -1 otherwise.
	Child int32
	// Name is the condition as written ("!" included), or what refused:
	// "cooldown", or "gate NAME".
	Name string
	// Result is a condition's value (after "!").
	Result bool
	// Read is what a condition read ("Alarmed=true", "Seen age 1.5 s",
	// "Seen unset", "Hurt held, age 0.25 s", "grenade 1/1 held, cooling
	// 2 s more"), or why a rule was refused ("0.75 s left", "full: 2/2").
	Read string
	// Value is a score or a weight.
	Value float64
	// Order is a drawn order: the children, first tried first.
	Order []int32
}

// whys is an agent's reasons of one step.
type whys struct {
	step uint64
	list []Why
}

// Whys are the reasons recorded for the agent's current or last step
// (Env.Explain); nil when none were. Valid until its next step records.
func (a *Agent) Whys() []Why {
	if a.ext == nil || a.ext.whys == nil || a.ext.whys.step != a.step {
		return nil
	}
	return a.ext.whys.list
}

// why records w for the current step.
func (a *Agent) why(w Why) {
	x := a.extra()
	if x.whys == nil {
		x.whys = &whys{}
	}
	if x.whys.step != a.step {
		x.whys.step, x.whys.list = a.step, x.whys.list[:0]
	}
	x.whys.list = append(x.whys.list, w)
}

// whyCond records condition c of rule r, whose value (after "!") was v.
func (a *Agent) whyCond(r int32, c *boundCond, v bool) {
	name := c.src.Name
	if c.negate {
		name = "!" + name
	}
	a.why(Why{Kind: WhyCondition, Rule: r, Child: -1, Name: name, Result: v, Read: a.condRead(c)})
}

// condRead is what condition c reads, as text.
func (a *Agent) condRead(c *boundCond) string {
	t := a.bound.Tree
	switch c.kind {
	case condVar:
		return t.Vars[c.slot].Name + "=" + strconv.FormatBool(a.VarAt(c.slot))
	case condStampSet, condStampLess, condStampMore:
		name := t.Stamps[c.slot].Name
		at, set := a.StampAt(c.slot)
		if !set {
			return name + " unset"
		}
		return name + " age " + secs(a.time-at)
	case condCall:
		if e, ok := c.cond.(interface{ read(a *Agent) string }); ok {
			return e.read(a)
		}
		return "" // a host's condition: what it read is its own
	case condCmp:
		return a.whyCompare(c)
	}
	return "unknown condition: false"
}

// read says whether the signal's stimulus is held, and its age.
func (c *heldCond) read(a *Agent) string {
	if a.ext == nil || a.ext.stim == nil || a.ext.stim.slots == nil || a.ext.stim.slots[c.slot].Signal == "" {
		return "no stimulus"
	}
	x := &a.ext.stim.slots[c.slot]
	if a.gone(x.At, c.expires) {
		return "stimulus expired, age " + secs(a.time-x.At)
	}
	return "stimulus age " + secs(max(0, a.time-x.At))
}

// read gives the gate's state.
func (c *gateCond) read(a *Agent) string { return gateRead(a.gate(c.slot), a.time) }

func gateRead(st *gateState, t float64) string {
	s := fmt.Sprintf("%s %d/%d held", st.decl.Name, len(st.holders), st.decl.Users)
	if st.cooling(t) {
		s += ", cooling " + secs(st.decl.Cooldown-(t-st.since)) + " more"
	}
	return s
}

// whyOrder records the order choice r (feature row f) drew, with the
// children's weights or scores.
func (a *Agent) whyOrder(r int32, f *ruleFeat) {
	switch f.order {
	case OrderWeighted:
		for _, c := range f.kids {
			a.why(Why{Kind: WhyWeight, Rule: r, Child: c, Value: a.bound.feats[c].weight})
		}
	case OrderScore:
		for k, c := range f.kids {
			a.why(Why{Kind: WhyScore, Rule: r, Child: c, Value: a.ext.scores[k]})
		}
	}
	order := make([]int32, a.orderLen(f))
	for k := range order {
		order[k] = a.orderChild(f, k)
	}
	a.why(Why{Kind: WhyOrder, Rule: r, Child: -1, Order: order})
}

// whyCooldown records that rule r's cooldown refused it.
func (a *Agent) whyCooldown(r int32) {
	f := &a.bound.feats[r]
	left := f.cooldown - (a.time - math.Float64frombits(a.slab[f.coolSlot]))
	a.why(Why{Kind: WhyRefused, Rule: r, Child: -1, Name: "cooldown", Read: secs(left) + " left"})
}

// whyGate records that the gate st refused the take of rule r.
func (a *Agent) whyGate(r int32, st *gateState) {
	a.why(Why{Kind: WhyRefused, Rule: r, Child: -1, Name: "gate " + st.decl.Name, Read: gateRead(st, a.time)})
}

// secs writes seconds for a reason: shortest exact form, then " s".
func secs(s float64) string { return strconv.FormatFloat(s, 'g', -1, 64) + " s" }
