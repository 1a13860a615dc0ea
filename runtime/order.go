package runtime

import (
	"errors"
	"fmt"
	"math"
)

// Choice orders (Spore's group decision policies: prioritized list, random,
// Sims-like scored competition). A choice with order="random", "weighted" or
// "score" fixes the order of its children each time it is entered and keeps
// it until it is entered again: a loop goes back to the first child of that
// order, and a failed child is followed by the next one in it.
//
// The order lives in the agent's slab, in the choice's order region:
//
//	word 0      the number of children in the order (a score order leaves
//	            out the children that scored <= 0)
//	words 1...  their positions among the choice's children, two uint32 per
//	            word, first in the low half
//
// Random draws come from the agent's own generator (rand.go), by the exact
// algorithms of the format's documentation, so that any implementation draws
// the same orders.

// orderWords is the size of an order region for a choice of n children.
func orderWords(n int) int { return 1 + (n+1)/2 }

func (a *Agent) orderLen(f *ruleFeat) int { return int(a.slab[f.orderSlot]) }

func (a *Agent) setOrderLen(f *ruleFeat, n int) { a.slab[f.orderSlot] = uint64(n) }

// orderPos is the position of the k-th child of the order.
func (a *Agent) orderPos(f *ruleFeat, k int) int32 {
	return int32(uint32(a.slab[int(f.orderSlot)+1+k/2] >> (32 * (k & 1))))
}

func (a *Agent) setOrderPos(f *ruleFeat, k int, pos int32) { putOrderPos(a.slab, f, k, pos) }

// putOrderPos writes the position of the k-th child of a choice's order
// into a slab.
func putOrderPos(slab []uint64, f *ruleFeat, k int, pos int32) {
	w := &slab[int(f.orderSlot)+1+k/2]
	shift := 32 * (k & 1)
	*w = *w&^(0xFFFFFFFF<<shift) | uint64(uint32(pos))<<shift
}

// documentOrder sets a choice's order to all its children in document
// order: the order of a choice made active by a jump landing below it.
func (a *Agent) documentOrder(f *ruleFeat) { putDocumentOrder(a.slab, f) }

func putDocumentOrder(slab []uint64, f *ruleFeat) {
	for k := range f.kids {
		putOrderPos(slab, f, k, int32(k))
	}
	slab[f.orderSlot] = uint64(len(f.kids))
}

// orderChild is the k-th child of a choice in its current order, or -1 past
// the end. f.kids must be set (ordered choices and choices with watched
// children); without an order region it is document order.
func (a *Agent) orderChild(f *ruleFeat, k int) int32 {
	if f.orderSlot < 0 {
		if k < len(f.kids) {
			return f.kids[k]
		}
		return -1
	}
	if k < a.orderLen(f) {
		return f.kids[a.orderPos(f, k)]
	}
	return -1
}

// orderIndex is where child stands in the choice's current order, or -1.
func (a *Agent) orderIndex(f *ruleFeat, child int32) int {
	pos := a.bound.feats[child].pos
	for k, n := 0, a.orderLen(f); k < n; k++ {
		if a.orderPos(f, k) == pos {
			return k
		}
	}
	return -1
}

// nextInOrder is the child after child in the choice's order, or -1.
func (a *Agent) nextInOrder(f *ruleFeat, child int32) int32 {
	k := a.orderIndex(f, child)
	if k < 0 {
		return -1
	}
	return a.orderChild(f, k+1)
}

// runOrderedChoice runs a choice with an order (bound with kind
// kindOrderedChoice, so that the loop's switch sends it here and plain
// choices pay nothing): as a choice, but it enters by drawing an order and
// moves on along that order instead of the siblings' links.
func (a *Agent) runOrderedChoice(r int32, h *hotRule) (Status, error) {
	f := &a.bound.feats[r]
	if f.custom != nil { // a custom rule shares the bound kind (custom_step.go)
		return a.runCustom(r, h)
	}
	if a.flags&flagBubbling == 0 { // entered: the cursor is r
		return a.enterOrderedChoice(r, h, f)
	}
	next, first := int32(-1), int32(-1) // the cursor is the child that finished
	if a.childRes != Success {
		next = a.nextInOrder(f, a.cursor)
	}
	m := choiceMove(a.childRes, next >= 0, h.bits)
	if m == moveFirst || m == movePass { // (a pass may start it again: listMoves)
		first = a.orderChild(f, 0)
	}
	return a.listMoves(r, h, m, next, first)
}

// enterOrderedChoice runs choice r, which has an order, as it is entered:
// its entry (listEnters), then the draw (or the scores), then the cursor
// moves to the first child of the new order. A choice that does not go
// into its children draws nothing and forgets its last order. A step
// paused at a scorer comes back here and goes on with the next child's
// score.
func (a *Agent) enterOrderedChoice(r int32, h *hotRule, f *ruleFeat) (Status, error) {
	if a.ext == nil || a.ext.scoreNext == 0 { // not resuming the scores
		ok, err := a.listEnters(r, h)
		if err != nil {
			return 0, err
		}
		if !ok {
			// It draws nothing, and keeps nothing of an earlier draw: a
			// jump its conditions asked for below it makes it go on in
			// document order (moveTo), as a choice a jump made active.
			a.setOrderLen(f, 0)
			return a.listGoes(r, -1, Failure), nil
		}
	}
	switch f.order {
	case OrderRandom:
		a.drawRandom(f)
	case OrderWeighted:
		a.drawWeighted(f)
	case OrderScore:
		if err := a.scoreChildren(f); err != nil {
			return 0, err
		}
	}
	if a.env.Explain {
		a.whyOrder(r, f)
	}
	// No child scored above 0 (first is -1): it fails as a choice without
	// children.
	return a.listGoes(r, a.orderChild(f, 0), Failure), nil
}

// drawRandom shuffles the children: Fisher–Yates over document order, for
// i from n-1 down to 1 swapping i with floor(float() × (i+1)).
func (a *Agent) drawRandom(f *ruleFeat) {
	a.documentOrder(f)
	rng := a.Rand()
	for i := len(f.kids) - 1; i >= 1; i-- {
		j := int(rng.Float64() * float64(i+1))
		pi, pj := a.orderPos(f, i), a.orderPos(f, j)
		a.setOrderPos(f, i, pj)
		a.setOrderPos(f, j, pi)
	}
}

// drawWeighted draws the children in a weighted order without replacement:
// repeatedly, over the children not yet placed whose weight is > 0, in
// document order, sum the weights afresh, draw u = float() × total and place
// the first child whose running sum is > u (the last one costs a draw too);
// then the children of weight 0, in document order.
func (a *Agent) drawWeighted(f *ruleFeat) {
	feats := a.bound.feats
	left := a.env.scratch[:0]
	for k, c := range f.kids {
		if feats[c].weight > 0 {
			left = append(left, int32(k))
		}
	}
	a.env.scratch = left
	rng := a.Rand()
	n := 0
	for len(left) > 0 {
		total := 0.0
		for _, p := range left {
			total += feats[f.kids[p]].weight
		}
		u := rng.Float64() * total
		pick, sum := len(left)-1, 0.0
		for i, p := range left {
			if sum += feats[f.kids[p]].weight; sum > u {
				pick = i
				break
			}
		}
		a.setOrderPos(f, n, left[pick])
		n++
		left = append(left[:pick], left[pick+1:]...)
	}
	for k, c := range f.kids {
		if !(feats[c].weight > 0) {
			a.setOrderPos(f, n, int32(k))
			n++
		}
	}
	a.setOrderLen(f, n)
}

// scoreChildren scores the children in document order (a constant
// choice.score, or a scorer's call) and orders those that scored above 0,
// highest first, ties in document order. A scorer that answers later pauses
// the step; CompleteScore delivers its answer.
func (a *Agent) scoreChildren(f *ruleFeat) error {
	x := a.extra()
	n := len(f.kids)
	if cap(x.scores) < n {
		x.scores = make([]float64, n)
	}
	x.scores = x.scores[:n]
	k := 0
	if x.scoreNext > 0 {
		k = int(x.scoreNext) - 1
	}
	for ; k < n; k++ {
		kid := f.kids[k]
		kf := &a.bound.feats[kid]
		if kf.scorer == nil {
			x.scores[k] = kf.score
			continue
		}
		x.callRule = kid
		a.phase = phaseScoring
		v, err := kf.scorer.Score(a, a.bound.rules[kid].params)
		a.phase = phaseStep
		if err == ErrPending {
			x.scoreNext = int32(k) + 1
			a.phase = phaseWaitScore
			return errPaused
		}
		if err == nil {
			err = checkScore(v)
		}
		if err != nil {
			x.scoreNext = 0
			return a.scorerError(kid, err)
		}
		x.scores[k] = v
	}
	x.scoreNext = 0
	m := 0
	for p := range n {
		if !(x.scores[p] > 0) {
			continue
		}
		j := m // insertion sort: stable, so ties keep document order
		for j > 0 && x.scores[a.orderPos(f, j-1)] < x.scores[p] {
			a.setOrderPos(f, j, a.orderPos(f, j-1))
			j--
		}
		a.setOrderPos(f, j, int32(p))
		m++
	}
	a.setOrderLen(f, m)
	return nil
}

func checkScore(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("returned %v; a scorer returns a finite number", v)
	}
	return nil
}

func (a *Agent) scorerError(kid int32, err error) error {
	return a.ruleError(kid, nil, fmt.Sprintf("scorer %q", a.bound.feats[kid].scorerName), err)
}

// CompleteScore resumes a step paused at a scorer call with the score (or
// its error). A score that is not a finite number is an error of the step.
func (a *Agent) CompleteScore(v float64, err error) (Status, error) {
	if a.phase != phaseWaitScore {
		return Errored, &Error{Agent: a.id, Msg: "CompleteScore: the agent is not waiting for a scorer", Err: ErrBusy}
	}
	x := a.ext
	k := int(x.scoreNext) - 1
	kid := x.callRule
	a.resume()
	if err == nil {
		err = checkScore(v)
	}
	if err != nil {
		x.scoreNext = 0
		return a.abort(a.scorerError(kid, err))
	}
	x.scores[k] = v
	x.scoreNext = int32(k) + 2
	return a.loop()
}

// errNoOrder is what restoring an order that does not fit its choice says.
var errNoOrder = errors.New("the saved order does not fit the choice's children")

// setSavedOrder puts a saved order into a choice's region, checking it: each
// position once, each below the number of children.
func setSavedOrder(slab []uint64, f *ruleFeat, order []int32) error {
	if len(order) > len(f.kids) {
		return errNoOrder
	}
	var seen uint64
	var seenBig map[int32]bool
	for k, p := range order {
		if p < 0 || int(p) >= len(f.kids) {
			return errNoOrder
		}
		if p < 64 {
			if seen&(1<<p) != 0 {
				return errNoOrder
			}
			seen |= 1 << p
		} else {
			if seenBig == nil {
				seenBig = map[int32]bool{}
			}
			if seenBig[p] {
				return errNoOrder
			}
			seenBig[p] = true
		}
		putOrderPos(slab, f, k, p)
	}
	slab[f.orderSlot] = uint64(len(order))
	return nil
}
