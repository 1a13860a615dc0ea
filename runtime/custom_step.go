package runtime

import (
	"errors"
	"fmt"
	"slices"
)

// How custom rules (custom.go) are bound and stepped. A custom rule is
// bound with kind kindCustom, which is kindOrderedChoice: the loop's switch
// sends both to runOrderedChoice, which hands a custom rule (its feature
// row's custom is set) to runCustom. Sharing the case keeps the loop's
// switch as it was: a tree without custom rules pays nothing for them
// (measured with the peer workload's callgrind count: a case of its own
// cost 0.1 instruction per agent-step), and an ordered choice pays one
// test. Its bound value, its children and its signals are in its feature
// row (ruleFeat.custom), and leaving it (active.go: leave) calls its Exit.
// Its children know their position (ruleFeat.pos), which ChildDone is told.

// kindCustom is the bound kind of a custom rule. It never appears in a Tree
// (whose kind is KindCustom).
const kindCustom = kindOrderedChoice

// customFeat is what a custom rule's feature row holds.
type customFeat struct {
	rule    CustomRule
	tag     string
	signals []string      // the signals it handles (CustomSignals); nil when none
	handler CustomSignals // nil when none
}

// bindCustom binds custom rule i of the tree: its registered definition,
// bound to the rule. An unknown tag is an error (under lenient binding, a
// warning: the rule fails when it runs).
func (b *BoundTree) bindCustom(reg *Registry, i int32, f *ruleFeat, opts BindOptions, add func(error), warn func(kind, name string, pos Pos, label string)) {
	r := &b.Tree.Rules[i]
	f.kids = b.Tree.Children(i)
	for k, c := range f.kids {
		b.feats[c].pos = int32(k)
	}
	def, ok := reg.LookupRule(r.Tag)
	if !ok {
		if opts.Lenient {
			warn("rule", r.Tag, r.Pos, r.Label)
			b.rules[i].kind = KindFailure
			return
		}
		add(&Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: unknownMsg("rule", r.Tag, ruleNames(reg))})
		return
	}
	least, most := def.kids()
	if n := len(f.kids); n < least || most > 0 && n > most { // a tree built by hand, or loaded without the declaration
		add(&Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: fmt.Sprintf("<%s> has %d children; %s", r.Tag, n, kidsWanted(&def.RuleDecl))})
		return
	}
	cr, err := def.Bind(&Site{Tree: b.Tree, Rule: i, Name: r.Tag, Params: r.Params, Pos: r.Pos, bound: b})
	if err != nil {
		add(err)
		return
	}
	if cr == nil {
		add(&Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: fmt.Sprintf("<%s>: its Bind returned no rule", r.Tag)})
		return
	}
	f.custom = &customFeat{rule: cr, tag: r.Tag}
	if h, ok := cr.(CustomSignals); ok {
		if sigs := h.HandledSignals(); len(sigs) > 0 {
			f.custom.handler, f.custom.signals = h, slices.Clone(sigs)
			if b.handlers == nil { // owe queues signals only for trees with handlers (handlers.go)
				b.handlers = make([]ruleHandler, len(b.rules))
			}
		}
	}
	b.rules[i].kind = kindCustom
}

// kidsWanted says how many children a rule of declaration d takes.
func kidsWanted(d *RuleDecl) string {
	least, most := d.kids()
	switch {
	case d.Decorator:
		return "a decorator takes exactly one child rule"
	case most == 0:
		return fmt.Sprintf("it takes at least %d child rules", least)
	case least == most:
		return fmt.Sprintf("it takes exactly %d child rules", least)
	}
	return fmt.Sprintf("it takes %d to %d child rules", least, most)
}

func ruleNames(reg *Registry) []string {
	out := make([]string, 0, len(reg.rules))
	for n := range reg.rules {
		out = append(out, n)
	}
	return out
}

// runCustom runs custom rule r: entered (its entry, as a list's:
// listEnters, then Enter), or after its child (the cursor) finished
// (ChildDone). Its answer moves the cursor to a child or finishes it.
func (a *Agent) runCustom(r int32, h *hotRule) (Status, error) {
	f := &a.bound.feats[r]
	c := f.custom
	var next Next
	var err error
	child := int32(-1)             // entered
	if a.flags&flagBubbling == 0 { // entered: the cursor is r
		var ok bool
		if ok, err = a.listEnters(r, h); err != nil {
			return 0, err
		}
		if !ok {
			return a.listGoes(r, -1, Failure), nil
		}
		next, err = c.rule.Enter(a)
	} else {
		child = a.bound.feats[a.cursor].pos
		next, err = c.rule.ChildDone(a, int(child), a.childRes)
	}
	for {
		switch {
		case err == ErrPending:
			err = errors.New("a custom rule may not pause (it returned ErrPending)")
		case err != nil:
		case next.child >= int32(len(f.kids)):
			err = fmt.Errorf("answered child %d; the rule has %d children (0 to %d)", next.child, len(f.kids), len(f.kids)-1)
		case next.child >= 0:
			return a.listGoes(r, f.kids[next.child], 0), nil
		case next.result != Success && next.result != Failure:
			err = fmt.Errorf("answered %s; a custom rule finishes with success or failure", next.result)
		case next.result == Success && h.bits&hotRepeat != 0 && a.passMove(r) == moveFirst:
			// A pass of a rule with repeat succeeded: it starts again, as a
			// sequence with repeat goes back to its first child (active.go).
			a.countPass(r)
			child = -1
			next, err = c.rule.Enter(a)
			continue
		default:
			return a.listGoes(r, -1, next.result), nil
		}
		break
	}
	what := "rule <" + c.tag + "> Enter" // the call's name, made only for an error
	if child >= 0 {
		what = fmt.Sprintf("rule <%s> ChildDone(%d, %s)", c.tag, child, a.childRes)
	}
	return 0, a.ruleError(r, nil, what, err)
}

// leaveCustom calls the Exit of custom rule r, left the way how, when it
// started (its start bit: it was entered, or a jump landed below it; so
// Exit answers a start, as an exit hook does). Its error goes to the
// agent's log, as an exit hook's. During the call Rule() is r, and a jump
// is refused. The rule's state stays: it is the agent's memory of the
// rule (the child it chose last time, a score it holds on to).
func (a *Agent) leaveCustom(r int32, f *ruleFeat, how leaveHow) {
	c := f.custom
	if !a.started(f) {
		return
	}
	x := a.extra()
	phase, callRule := a.phase, x.callRule
	a.phase, x.callRule = phaseHook, r
	err := c.rule.Exit(a, how.String())
	a.phase, x.callRule = phase, callRule
	if err != nil {
		a.env.log(a, a.bound.Tree.Rules[r].Label, fmt.Sprintf("error: rule <%s> Exit (%s): %v", c.tag, how, err))
	}
}

// customState is one custom rule's state bytes for an agent.
type customState struct {
	rule  int32
	bytes []byte
}

// CustomBytes are the state bytes of custom rule r for the agent: empty
// until its calls set them (SetCustomBytes). TypedRule keeps its typed
// state here.
func (a *Agent) CustomBytes(r int32) []byte {
	if a.ext == nil {
		return nil
	}
	for i := range a.ext.customs {
		if c := &a.ext.customs[i]; c.rule == r {
			return c.bytes
		}
	}
	return nil
}

// SetCustomBytes stores a copy of b as the state bytes of custom rule r.
// They stay with the agent, whether the rule is active or not, until the
// rule sets others; a slot that takes another tree empties those of the
// rules of the tree it held (slots.go).
func (a *Agent) SetCustomBytes(r int32, b []byte) {
	x := a.extra()
	for i := range x.customs {
		if c := &x.customs[i]; c.rule == r || len(c.bytes) == 0 {
			c.rule, c.bytes = r, append(c.bytes[:0], b...)
			a.dropCustomAfter(i, r)
			return
		}
	}
	if len(b) > 0 {
		x.customs = append(x.customs, customState{rule: r, bytes: append([]byte(nil), b...)})
	}
}

// dropCustomAfter empties any later entry of rule r (an entry reused
// before r's own one).
func (a *Agent) dropCustomAfter(i int, r int32) {
	for j := i + 1; j < len(a.ext.customs); j++ {
		if c := &a.ext.customs[j]; c.rule == r {
			c.bytes = c.bytes[:0]
		}
	}
}

// clearCustoms empties the state of the custom rules [from, to).
func (a *Agent) clearCustoms(from, to int32) {
	if a.ext == nil {
		return
	}
	for i := range a.ext.customs {
		if c := &a.ext.customs[i]; c.rule >= from && c.rule < to {
			c.bytes = c.bytes[:0]
		}
	}
}

// dispatchCustom calls the signal handlers of the custom rules above
// cursor, a context's cursor, up to stop (the lane's parallel; -1 for the
// agent's own context), innermost first.
func (a *Agent) dispatchCustom(cursor, stop int32, name string, data Value, calls *int) error {
	b := a.bound
	if b.feats == nil {
		return nil
	}
	child := cursor
	for r := b.rules[child].parent; r >= 0 && r != stop; child, r = r, b.rules[r].parent {
		c := b.feats[r].custom
		if c == nil || c.handler == nil || !slices.Contains(c.signals, name) {
			continue
		}
		rule := &b.Tree.Rules[r]
		if *calls++; *calls > int(a.env.limit()) {
			return &Error{Pos: rule.Pos, Label: rule.Label, Agent: a.id, Err: ErrRunaway,
				Msg: fmt.Sprintf("run-away signal handlers: %d handler calls for one delivery (limit %d)", *calls-1, a.env.limit())}
		}
		x := a.extra()
		phase, callRule := a.phase, x.callRule
		a.phase, x.callRule = phaseHook, r
		err := c.handler.HandleSignal(a, name, data, int(b.feats[child].pos))
		a.phase, x.callRule = phase, callRule
		if err != nil {
			return &Error{Pos: rule.Pos, Label: rule.Label, Agent: a.id, Err: fmt.Errorf("%w: %w", ErrAction, err),
				Msg: fmt.Sprintf("handler for signal %q of rule <%s>: %v", name, c.tag, err)}
		}
	}
	return nil
}
