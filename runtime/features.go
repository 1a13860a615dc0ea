package runtime

import (
	"fmt"
	"strconv"
)

// This file binds what a tree asks beyond Drag[en]gine's stepping: abort,
// timeout, cooldown and gate on rules, log parameters, choice orders with
// their weights and scorers, and parallels (whose lanes hook into the same
// places: lanes.go). A tree that uses none of it gets no feature table
// (BoundTree.feats is nil) and no extra slab words; in a tree that does, a
// rule that uses none has no hook bits (step_hot.go), and the loop skips
// every feature for it behind one test of them.

// ruleFeat is what one rule of a tree that uses the features needs at run
// time. Slots are indices into the agent's slab.
type ruleFeat struct {
	abort    Abort
	order    Order
	timeout  float64 // seconds; 0 when none
	cooldown float64 // seconds; 0 when none

	timeSlot  int32 // when the rule became active (float64 bits, NaN while not active); -1 without timeout
	coolSlot  int32 // when the rule was last left (float64 bits, NaN: never); -1 without cooldown
	orderSlot int32 // a choice's order region (order.go); -1 for document order

	// Gates (gate_agent.go): the tree's gate the rule takes (an index into
	// Tree.Gates), and the bit of the agent's hold bits that says the rule
	// holds it; both -1 for a rule without a gate.
	gate    int32
	holdBit int32

	// arrival says which arrival checks the rule has (arriveCooldown,
	// arriveGate), and leaves whether leaving it does anything (a clock to
	// stop, a cooldown to start, a gate to release, a log line): most
	// rules of a tree that uses the features have neither, and admit and
	// leave test one field for them.
	arrival uint8
	leaves  bool

	// watchLower is set on a choice when one of its children has abort
	// lower or both: the start-of-step checks look at its children.
	watchLower bool
	// kids are a choice's children in document order, for choices with an
	// order or with watched children: orders hold positions into it; and a
	// parallel's children, one lane each.
	kids []int32
	// pos is the rule's position among its parent's children (children of
	// choices and parallels).
	pos int32

	// Parallel lanes (lanes.go). lane is the innermost lane the rule is in
	// (a slot; a lane's child is in its own lane), -1 outside every
	// parallel. A parallel has par, its index among the tree's parallels
	// (-1 for other rules), its first lane's slot, and the counts of lanes
	// done with success and with failure that finish it.
	lane                     int32
	par                      int32
	laneBase                 int32
	needSuccess, needFailure int32

	logStart, logSuccess, logFailure string // "" when the parameter is absent or empty

	// Counted passes and retries: repeat and attempts (0 when none), and
	// the slab word that counts the rule's passes (low 32 bits) and
	// failures (high 32 bits) since it became active; -1 without either.
	repeat, attempts int32
	countSlot        int32
	// Enter and exit hooks (hooks.go), nil when none, and the rule's start
	// bit (its slab word × 64 + its bit) when it has a hook or log.start,
	// else -1.
	enter, exit Hook
	startBit    int32

	// As a child of a weighted choice: its weight. Of a score choice: its
	// constant score, or its scorer (then scorerName names it).
	weight     float64
	score      float64
	scorer     Scorer
	scorerName string

	// custom is a custom rule's bound value (custom_step.go); nil for
	// other rules.
	custom *customFeat
}

// The arrival checks of a rule (ruleFeat.arrival).
const (
	arriveCooldown uint8 = 1 << iota
	arriveGate
)

// kindOrderedChoice is the bound kind of a choice with an order (order.go):
// the loop's switch on a rule's kind sends it to runOrderedChoice, so that
// plain choices pay nothing for orders. It never appears in a Tree.
const kindOrderedChoice Kind = 100

// usesFeatures reports whether a rule asks for anything of this file.
func usesFeatures(r *Rule) bool {
	if r.Abort != AbortNone || r.Timeout > 0 || r.Cooldown > 0 || r.Order != OrderList || r.Kind == KindParallel || r.Kind == KindCustom || r.Gate != "" ||
		r.Repeat > 0 || r.Attempts > 0 || r.Enter != "" || r.Exit != "" {
		return true
	}
	for _, name := range []string{ParamLogStart, ParamLogSuccess, ParamLogFailure} {
		if v, ok := r.Params.Get(name); ok && v != "" {
			return true
		}
	}
	return false
}

// bindFeatures fills b.feats and extends the slab layout, when some rule of
// the tree uses the features. Call it after layout. Unknown scorers are
// reported through add (or warned about under lenient binding).
func (b *BoundTree) bindFeatures(reg *Registry, opts BindOptions, add func(error), warn func(kind, name string, pos Pos, label string)) {
	t := b.Tree
	uses := false
	for i := range t.Rules {
		if usesFeatures(&t.Rules[i]) {
			uses = true
			break
		}
	}
	if !uses {
		return
	}
	b.feats = make([]ruleFeat, len(t.Rules))
	slot := func(words int, init uint64) int32 {
		s := int32(b.slabLen)
		for range words {
			b.slabInit = append(b.slabInit, init)
		}
		b.slabLen += words
		return s
	}
	// Every word a rule needs is allocated as the rules come, in document
	// order, bits included (a word of start bits, or of hold bits, is
	// allocated where the first rule that needs one comes): so the layout
	// of a tree's first rules is the same whatever rules follow them, which
	// lets an agent move to a tree with more blocks grafted after the same
	// rules by growing its slab (slots.go). A block (breaks) starts new
	// words, so that its words are its own. The gates' counts come first.
	if len(t.Gates) > 0 {
		b.gateCount = int(slot(len(t.Gates), 0))
	}
	holdBits, startBits := int32(0), int32(0) // bits used of the current word
	holdAt, startAt := int32(0), int32(0)     // the current words
	bit := func(used, at *int32) int32 {
		if *used%64 == 0 {
			*at, *used = slot(1, 0), 0
		}
		*used++
		return *at*64 + *used - 1
	}
	breaks := b.breaks
	b.breakWords = b.breakWords[:0]
	for i := range t.Rules {
		r := &t.Rules[i]
		f := &b.feats[i]
		if len(breaks) > 0 && breaks[0] == int32(i) {
			breaks = breaks[1:]
			holdBits, startBits = 0, 0
			b.breakWords = append(b.breakWords, int32(b.slabLen))
		}
		f.abort, f.order, f.timeout, f.cooldown = r.Abort, r.Order, r.Timeout, r.Cooldown
		f.timeSlot, f.coolSlot, f.orderSlot = -1, -1, -1
		f.gate, f.holdBit = -1, -1
		f.repeat, f.attempts, f.countSlot, f.startBit = r.Repeat, r.Attempts, -1, -1
		if r.Repeat > 0 || r.Attempts > 0 {
			f.countSlot = slot(1, 0)
		}
		var err error
		if f.enter, err = b.bindHook(reg, int32(i), "enter", r.Enter, opts, warn); err != nil {
			add(err)
		}
		if f.exit, err = b.bindHook(reg, int32(i), "exit", r.Exit, opts, warn); err != nil {
			add(err)
		}
		if r.Gate != "" {
			if g, ok := t.GateIndex(r.Gate); ok { // the loader checked it; a tree built by hand may not have been
				f.gate, f.holdBit = g, bit(&holdBits, &holdAt)
			} else {
				add(&Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: fmt.Sprintf("gate %q is not declared", r.Gate)})
			}
		}
		if r.Timeout > 0 {
			f.timeSlot = slot(1, unsetStamp)
		}
		if r.Cooldown > 0 {
			f.coolSlot = slot(1, unsetStamp)
		}
		f.logStart, _ = r.Params.Get(ParamLogStart)
		f.logSuccess, _ = r.Params.Get(ParamLogSuccess)
		f.logFailure, _ = r.Params.Get(ParamLogFailure)
		if r.Enter != "" || r.Exit != "" || f.logStart != "" || r.Kind == KindCustom { // a custom rule's Exit answers its start (custom_step.go)
			f.startBit = bit(&startBits, &startAt)
		}
		if r.Abort != AbortNone || r.Timeout > 0 {
			b.watch = true
		}
		if r.Kind == KindCustom {
			b.bindCustom(reg, int32(i), f, opts, add, warn)
			continue
		}
		if r.Kind == KindParallel {
			f.kids = t.Children(int32(i))
			for k, c := range f.kids {
				b.feats[c].pos = int32(k)
			}
			continue
		}
		if r.Kind != KindChoice {
			continue
		}
		kids := int32(0) // walked through the links: most choices keep no list of their children
		for c := r.FirstChild; c >= 0; c = t.Rules[c].Next {
			b.feats[c].pos = kids
			kids++
			if t.Rules[c].Abort.WatchesLower() {
				f.watchLower = true
			}
		}
		if r.Order != OrderList {
			f.orderSlot = slot(orderWords(int(kids)), 0)
			b.rules[i].kind = kindOrderedChoice
		}
		if f.watchLower || r.Order != OrderList {
			f.kids = t.Children(int32(i))
		}
	}
	for i := range b.feats {
		f := &b.feats[i]
		if f.coolSlot >= 0 {
			f.arrival |= arriveCooldown
		}
		if f.gate >= 0 {
			f.arrival |= arriveGate
		}
		f.leaves = f.timeSlot >= 0 || f.coolSlot >= 0 || f.holdBit >= 0 || f.logSuccess != "" || f.logFailure != "" ||
			f.countSlot >= 0 || f.startBit >= 0 || f.custom != nil
	}
	if b.breaks != nil {
		b.breakWords = append(b.breakWords, int32(b.slabLen))
	}
	for i := range b.feats {
		if b.feats[i].holdBit >= 0 {
			b.gated = true // per gate, how many of the agent's active rules hold it (gateCount), and a bit per rule with a gate
			break
		}
	}
	b.bindLanes()
	// Labels of the rules whose state a save names (label -> indices; a
	// label repeats when a subtree file is included twice).
	b.featLabels = map[string][]int32{}
	for i := range b.feats {
		if f := &b.feats[i]; f.timeSlot >= 0 || f.coolSlot >= 0 || f.orderSlot >= 0 || f.holdBit >= 0 || f.countSlot >= 0 || f.startBit >= 0 || f.custom != nil || b.isLaneChild(int32(i)) {
			l := t.Rules[i].Label
			b.featLabels[l] = append(b.featLabels[l], int32(i))
		}
		if f := &b.feats[i]; f.timeSlot >= 0 || f.coolSlot >= 0 || f.countSlot >= 0 || f.startBit >= 0 {
			b.snapRules = append(b.snapRules, int32(i))
		}
	}
	// Weights and scores, now that every child knows its parent's order.
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Parent < 0 || t.Rules[r.Parent].Kind != KindChoice {
			continue
		}
		f := &b.feats[i]
		switch t.Rules[r.Parent].Order {
		case OrderWeighted:
			f.weight = 1
			if s, ok := r.Params.Get(ParamChoiceWeight); ok {
				f.weight, _ = parseWeight(s) // the loader checked it
			}
		case OrderScore:
			if err := b.bindScore(reg, int32(i), opts, warn); err != nil {
				add(err)
			}
		}
	}
}

// bindScore resolves a score choice's child's choice.score: a number, or a
// scorer's name.
func (b *BoundTree) bindScore(reg *Registry, i int32, opts BindOptions, warn func(kind, name string, pos Pos, label string)) error {
	r := &b.Tree.Rules[i]
	f := &b.feats[i]
	s, ok := r.Params.Get(ParamChoiceScore)
	if !ok {
		return nil // scores 0: not tried
	}
	score, name, err := parseScore(s)
	if err != nil { // the loader reports these; a tree built by hand may not have been checked
		return &Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: fmt.Sprintf("parameter %s = %q %v", ParamChoiceScore, s, err)}
	}
	if name == "" {
		f.score = score
		return nil
	}
	f.scorerName = name
	def, ok := reg.LookupScorer(name)
	if !ok {
		if opts.Lenient {
			warn("scorer", name, r.Pos, r.Label)
			return nil // scores 0
		}
		return &Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: unknownMsg("scorer", name, scorerNames(reg))}
	}
	f.scorer = def.Scorer
	if def.Bind != nil {
		sc, err := def.Bind(&Site{Tree: b.Tree, Rule: i, Name: name, Params: r.Params, Pos: r.Pos, bound: b})
		if err != nil {
			return err
		}
		f.scorer = sc
	}
	return nil
}

// resolveLabel finds the rule a save names by label and index: the rule at
// that index when its label matches, else the first with that label (the
// tree was edited).
func (b *BoundTree) resolveLabel(label string, index int32) (int32, bool) {
	rules := b.Tree.Rules
	if b.view != nil { // saves name a grafted tree's rules by their canonical index (slots_save.go)
		index = b.fromCanonical(index)
	}
	if index >= 0 && int(index) < len(rules) && rules[index].Label == label {
		return index, true
	}
	if l := b.featLabels[label]; len(l) > 0 {
		return l[0], true
	}
	return 0, false
}

func scorerNames(reg *Registry) []string {
	out := make([]string, 0, len(reg.scorers))
	for n := range reg.scorers {
		out = append(out, n)
	}
	return out
}

// formatSeconds writes seconds as the tree would.
func formatSeconds(s float64) string { return strconv.FormatFloat(s, 'g', -1, 64) }
