package runtime

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/btrun/btrun/runtime/savecodec"
)

// SlotSave is one slot of a saved agent: the tree it holds (what it runs
// while active, and where the saved cursor may be) and the tree grafted
// into it ("" for none: the default at the next entry).
type SlotSave struct {
	Slot, Holds, Wants string
}

// snapshotSlots saves the agent's slots.
func (a *Agent) snapshotSlots(s *Snapshot) {
	g := a.bound.graft
	if g == nil {
		return
	}
	for k, sl := range g.slots {
		w := ""
		if a.ext != nil && a.ext.slots != nil {
			w = a.ext.slots.want[k]
		}
		s.Slots = append(s.Slots, SlotSave{Slot: sl.id, Holds: a.bound.blocks[k].tree, Wants: w})
	}
}

// restoreBound is the view of the agent's template whose slots hold what
// a snapshot's hold, and the pairs of the trees grafted into them: a slot
// or tree the game does not have, or a tree that no longer fits the
// template (fits), is an error, so that a restore never leaves a slot that
// fails at every entry. A carry (a hot reload) drops the slots the new
// version no longer has, as FollowSlots does: what ran in one is gone
// with it, and the rule map leaves an agent whose cursor was there
// without a place (it restarts).
func (a *Agent) restoreBound(s *Snapshot) (*BoundTree, []int32, error) {
	host := a.Template()
	g := host.graft
	if g == nil {
		if len(s.Slots) > 0 && s.carry == nil {
			return nil, nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot restore: the save holds slots (%s) and tree %s has none", s.Slots[0].Slot, host.Tree.File)}
		}
		return host, nil, nil
	}
	has := make([]string, len(g.slots))
	wantP := make([]int32, len(g.slots))
	for k := range wantP {
		wantP[k] = -1
	}
	for _, sl := range s.Slots {
		k, err := g.slot(sl.Slot)
		if err != nil && s.carry != nil {
			continue
		}
		if err != nil {
			return nil, nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: "cannot restore: " + err.Error()}
		}
		has[k] = sl.Holds
		if sl.Wants != "" {
			if wantP[k], err = g.pair(k, sl.Wants); err != nil {
				return nil, nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot restore the graft into slot %q: %v", sl.Slot, err)}
			}
		}
	}
	b, err := g.viewHolding(has)
	if err != nil {
		return nil, nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: "cannot restore the trees of its slots: " + err.Error()}
	}
	return b, wantP, nil
}

// savedWants are the grafts a snapshot restores, by slot of the agent's
// template (nil for a tree without slots; restoreBound checked them).
func (a *Agent) savedWants(s *Snapshot, reuse []string) []string {
	g := a.Template().graft
	if g == nil {
		return nil
	}
	w := reuse[:0]
	if cap(w) < len(g.slots) {
		w = make([]string, len(g.slots))
	} else {
		w = w[:len(g.slots)]
		clear(w)
	}
	for _, sl := range s.Slots {
		if k, err := g.slot(sl.Slot); err == nil {
			w[k] = sl.Wants
		}
	}
	return w
}

// applySlots moves the agent to the planned view, with its grafts.
func (a *Agent) applySlots(p *RestorePlan) {
	if p.bound == nil {
		return
	}
	a.bound = p.bound
	if p.wants == nil {
		return
	}
	if a.ext != nil && a.ext.slots != nil || anySet(p.wants) {
		s := a.slotWants(p.bound.graft)
		copy(s.want, p.wants)
		copy(s.wantP, p.wantP)
	}
}

func anySet(s []string) bool {
	for _, x := range s {
		if x != "" {
			return true
		}
	}
	return false
}

func encodeSlots(e *savecodec.Encoder, list []SlotSave) {
	e.Uvarint(uint64(len(list)))
	for _, s := range list {
		e.String(s.Slot)
		e.String(s.Holds)
		e.String(s.Wants)
	}
}

func decodeSlots(d *savecodec.Decoder, list []SlotSave) []SlotSave {
	n := d.Count(3)
	for range n {
		list = append(list, SlotSave{Slot: d.String(), Holds: d.String(), Wants: d.String()})
	}
	return list
}

// canonical is the index rule r of view b has in the canonical composite
// of the trees b's slots hold: the template's rules, then each slot's tree
// in slot order. Saves name rules by it, so that a save depends neither on
// the order in which the agents of a game first took their trees nor on
// the trees no slot holds (and saves of format 7, written when agents ran
// such composites, restore as they were). fromCanonical is its inverse.
func (b *BoundTree) canonical(r int32) int32 {
	at := int32(len(b.graft.host.Tree.Rules))
	for _, bl := range b.blocks {
		if r >= bl.start && r < bl.end {
			return r - bl.start + at
		}
		at += bl.end - bl.start
	}
	return r
}

func (b *BoundTree) fromCanonical(r int32) int32 {
	at := int32(len(b.graft.host.Tree.Rules))
	if r < at {
		return r
	}
	for _, bl := range b.blocks {
		if n := bl.end - bl.start; r < at+n {
			return r - at + bl.start
		}
		at += bl.end - bl.start
	}
	return -1
}

// canonicalIndices gives the rules a save of an agent on view b names
// their canonical indices, and puts the lists a snapshot makes in rule
// order in canonical order (orders and lanes follow the active paths).
func (b *BoundTree) canonicalIndices(s *Snapshot) {
	at := b.canonical
	for _, list := range [][]RuleTime{s.Clocks, s.Cooldowns} {
		for i := range list {
			list[i].Index = at(list[i].Index)
		}
		slices.SortStableFunc(list, func(x, y RuleTime) int { return cmp.Compare(x.Index, y.Index) })
	}
	for i := range s.Orders {
		s.Orders[i].Index = at(s.Orders[i].Index)
	}
	for i := range s.Holds {
		s.Holds[i].Index = at(s.Holds[i].Index)
	}
	slices.SortStableFunc(s.Holds, func(x, y RuleHold) int { return cmp.Compare(x.Index, y.Index) })
	for i := range s.Entries {
		s.Entries[i].Index = at(s.Entries[i].Index)
	}
	slices.SortStableFunc(s.Entries, func(x, y RuleEntry) int { return cmp.Compare(x.Index, y.Index) })
	for i := range s.Customs {
		s.Customs[i].Index = at(s.Customs[i].Index)
	}
	slices.SortStableFunc(s.Customs, func(x, y RuleState) int { return cmp.Compare(x.Index, y.Index) })
	var lanes func([]LaneSnapshot)
	lanes = func(l []LaneSnapshot) {
		for i := range l {
			l[i].Index = at(l[i].Index)
			lanes(l[i].Lanes)
		}
	}
	lanes(s.Lanes)
}

// FollowSlots puts a, a new agent of a new version of old's template (a
// hot reload, before the carry), on the view whose slots hold the trees
// old's slots hold, in their new versions, with old's grafts. A slot the
// new version lacks is dropped; a tree that does not fit the new version
// any more is an error (held or grafted: the game keeps the old version).
func (a *Agent) FollowSlots(old *Agent) error {
	g, og := a.bound.graft, old.bound.graft
	if g == nil || og == nil {
		return nil
	}
	has := make([]string, len(g.slots))
	want := make([]string, len(g.slots))
	wantP := make([]int32, len(g.slots))
	for k, s := range og.slots {
		nk, err := g.slot(s.id)
		if err != nil {
			continue
		}
		has[nk] = old.bound.blocks[k].tree
		if old.ext != nil && old.ext.slots != nil {
			want[nk] = old.ext.slots.want[k]
		}
	}
	for k := range wantP {
		wantP[k] = -1
		if want[k] != "" {
			p, err := g.pair(k, want[k])
			if err != nil {
				return &Error{Agent: a.id, Err: ErrInvalidTree, Msg: "the tree grafted into its slot: " + err.Error()}
			}
			wantP[k] = p
		}
	}
	to, err := g.viewHolding(has)
	if err != nil {
		return &Error{Agent: a.id, Err: ErrInvalidTree, Msg: "its slots' trees: " + err.Error()}
	}
	slab := make([]uint64, to.slabLen)
	copy(slab, to.slabInit)
	a.bound, a.slab = to, slab
	if anySet(want) {
		s := a.slotWants(g)
		copy(s.want, want)
		copy(s.wantP, wantP)
	}
	return nil
}
