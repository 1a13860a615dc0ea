package runtime

// What the step reads of a rule on every run: a compact copy of the bound
// rules (hotRule, one 64-byte cache line per rule) that Bind makes for
// every tree, so that a step reads little memory and makes no call but the
// tree's own actions and conditions in the common cases:
//
//   - a rule with no condition, or one condition that is a variable or a
//     call (a ConditionFunc called directly; another condition, such as a
//     Lua one, through its Test method), its negation and the rule's mode
//     folded into one flip flag at bind time (testConds);
//   - an action without Start and Cancel (hotRule.run: an ActionFunc, or
//     another action's Run method, such as a short Lua action's);
//   - hooks: what a rule asks beyond Drag[en]gine's stepping when it is let
//     in and when it is left (its cooldown, gate, timeout clock, log
//     parameters) is one bit each, so that a rule without any costs a tree
//     that has some nothing more than a tree without features.
//
// Everything else (several conditions, timestamps, actions with Start or
// Cancel, answers to a paused call, orders, parallels) goes through the
// general helpers of step_rules.go, which the fast cases are short cuts of.

// hotRule is what the loops read of a rule on every run: 64 bytes.
type hotRule struct {
	kind  Kind // the bound kind: kindOrderedChoice for a choice with an order
	bits  hotBits
	conds condShape
	// flip: with one condition, the rule's conditions hold when the
	// condition's value differs from flip (its negation and an
	// anyFalse/allFalse mode folded in).
	flip bool
	// parent, firstChild and next are as in boundRule.
	parent     int32
	firstChild int32
	next       int32
	slot       int32 // condOneVar: the variable's slot
	// failed is the rule's result when it fails: Failure, or Success
	// with doNotFail (notFail).
	failed Status
	// after is, for a rule the fast path runs (hotSibling), what its
	// parent choice does once the rule finished, by the rule's result
	// after doNotFail: after[0] on failure, after[1] on success
	// (indexed by the status's low bit; markSiblings).
	after [2]sibAfter
	// hooks says what letting the rule in and leaving it do beyond
	// marking it active (step_hot.go).
	hooks hookBits
	// run is the action when it has no Start and no Cancel (actionRun);
	// nil: the action is called through callAction.
	run func(*Agent, Params) (Status, error)
	// test is the rule's one condition when conds is condOneFunc: a call
	// (condTest).
	test func(*Agent, Params) (bool, error)
	// params are the rule's (boundRule.params), which run and test are
	// passed.
	params *Params
	// lrun and ltest are run and test when both are lean (LeanAction,
	// LeanCondition: registry_lean.go), which the fast path calls with the
	// agent alone (hotLean); nil otherwise. run and test hold them as an
	// ActionFunc and a ConditionFunc would be held, for every other loop.
	lrun  LeanAction
	ltest LeanCondition
}

type hotBits uint8

const (
	hotLoop      hotBits = 1 << iota // a looping list
	hotDoNotFail                     // failure counts as success
)

// hotRepeat: a list with repeat (its pass counts: countPass). After the
// fast path's bits (step_fast.go).
const hotRepeat hotBits = 1 << 5

// condShape is how testConds checks a rule's conditions.
type condShape uint8

const (
	condNone    condShape = iota // no condition: they hold
	condOneFunc                  // one condition that is a call: hotRule.test
	condOneVar                   // one variable: hotRule.slot
	condOther                    // checkConds
)

// hookBits say what a rule asks of active.go: a rule with none is let in
// by marking it active, and left by clearing that, which the loops do
// themselves.
type hookBits uint8

const (
	// hookLetIn: letting the rule in checks its cooldown or gate, or
	// starts its timeout clock (admit).
	hookLetIn hookBits = 1 << iota
	// hookLeave: leaving it stops its clock, starts its cooldown, releases
	// its gate, writes a log line, clears its counts or runs its exit hook
	// (leave); finishing it with failure may retry it (attempts:
	// leaveFinished).
	hookLeave
	// hookStart: its start writes log.start or runs its enter hook
	// (start, hooks.go): where a list enters its children (listEnters), an
	// action's first run (callAction), a leaf's run (runLeaf), a jump
	// landing below it (moveTo).
	hookStart
	// hookSlot: the rule is a slot: letting it in gives it the tree wanted
	// for it (enterSlot), which may move the agent to another view of its tree.
	hookSlot
)

// ruleHooks are rule i's hooks: what its feature row asks. To add an
// attribute that acts when a rule is let in or left, set its bit here and
// act in admit or leave (active.go): every loop calls them through these
// bits, and a rule without the attribute pays nothing for it.
func (b *BoundTree) ruleHooks(i int) hookBits {
	if b.feats == nil {
		return 0
	}
	f := &b.feats[i]
	var h hookBits
	if f.arrival != 0 || f.timeSlot >= 0 {
		h |= hookLetIn
	}
	if f.leaves {
		h |= hookLeave
	}
	if f.startBit >= 0 {
		h |= hookStart
	}
	return h
}

// actionRun is what hotRule.run calls for an action without Start and
// Cancel: the function itself for an ActionFunc, else the action's Run
// method (a Lua action's, a Go type's), so that the loop and the fast path
// call it directly.
func actionRun(act Action) func(*Agent, Params) (Status, error) {
	switch f := act.(type) {
	case ActionFunc:
		return f
	case LeanAction:
		return f.Run // its own method, not the interface's: one call less
	}
	return act.Run
}

// condTest is what hotRule.test calls for a rule's one condition that is a
// call: the function itself for a ConditionFunc, else the condition's Test
// method.
func condTest(c Condition) func(*Agent, Params) (bool, error) {
	switch f := c.(type) {
	case ConditionFunc:
		return f
	case LeanCondition:
		return f.Test // its own method, not the interface's: one call less
	}
	return c.Test
}

// bindHot makes the compact copy of the rules that the loops step.
func (b *BoundTree) bindHot() {
	b.hot = make([]hotRule, len(b.rules))
	for i := range b.rules {
		r := &b.rules[i]
		h := &b.hot[i]
		*h = hotRule{kind: r.kind, parent: r.parent, firstChild: r.firstChild, next: r.next, params: &r.params, hooks: b.ruleHooks(i)}
		if b.Tree.Rules[i].Kind == KindSlot {
			h.hooks |= hookSlot
		}
		if r.loop {
			h.bits |= hotLoop
		}
		h.failed = Failure
		if r.doNotFail {
			h.bits |= hotDoNotFail
			h.failed = Success
		}
		switch n := r.condEnd - r.condStart; {
		case n == 0:
			h.conds = condNone
		case n > 1:
			h.conds = condOther
		default:
			c := &b.conds[r.condStart]
			switch {
			case c.kind == condCall:
				h.conds, h.test = condOneFunc, condTest(c.cond)
			case c.kind == condVar:
				h.conds, h.slot = condOneVar, c.slot
			default:
				h.conds = condOther
			}
			if c.negate != (r.mode == AnyFalse || r.mode == AllFalse) {
				h.flip = true
			}
		}
		if r.action != nil && r.starter == nil && r.canceler == nil && h.hooks&hookStart == 0 {
			h.run = actionRun(r.action)
		}
		if b.feats != nil && b.feats[i].repeat > 0 {
			h.bits |= hotRepeat
		}
		if h.conds == condOneFunc && h.run != nil {
			run, ok1 := r.action.(LeanAction)
			test, ok2 := b.conds[r.condStart].cond.(LeanCondition)
			if ok1 && ok2 {
				h.lrun, h.ltest = run, test
			}
		}
	}
	b.begins = b.gated || b.watch
	if !b.begins {
		markSiblings(b.hot)
	}
}
