package runtime

import "fmt"

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

// restoreBound is the composite a snapshot's slots hold, of the agent's
// template: a slot or tree the game does not have is an error. A carry (a
// hot reload) drops the slots the new version no longer has, as
// FollowSlots did: what ran in one is gone with it, and the rule map
// leaves an agent whose cursor was there without a place (it restarts).
func (a *Agent) restoreBound(s *Snapshot) (*BoundTree, error) {
	host := a.Template()
	g := host.graft
	if g == nil {
		if len(s.Slots) > 0 && s.carry == nil {
			return nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot restore: the save holds slots (%s) and tree %s has none", s.Slots[0].Slot, host.Tree.File)}
		}
		return host, nil
	}
	has := make([]string, len(g.slots))
	for _, sl := range s.Slots {
		k, err := g.slot(sl.Slot)
		if err != nil && s.carry != nil {
			continue
		}
		if err != nil {
			return nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: "cannot restore: " + err.Error()}
		}
		has[k] = sl.Holds
		if sl.Wants != "" {
			if _, err := g.tree(sl.Wants); err != nil {
				return nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot restore the graft into slot %q: %v", sl.Slot, err)}
			}
		}
	}
	b, err := g.composite(canonical(has))
	if err != nil {
		return nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: "cannot restore the trees of its slots: " + err.Error()}
	}
	return b, nil
}

// slotWants are the grafts a snapshot restores, by slot of the agent's
// template (nil for a tree without slots; restoreBound checked the names).
func (a *Agent) savedWants(s *Snapshot) []string {
	g := a.Template().graft
	if g == nil {
		return nil
	}
	w := make([]string, len(g.slots))
	for _, sl := range s.Slots {
		if k, err := g.slot(sl.Slot); err == nil {
			w[k] = sl.Wants
		}
	}
	return w
}

// applySlots moves the agent to the planned composite, with its grafts.
func (a *Agent) applySlots(p *RestorePlan) {
	if p.bound == nil {
		return
	}
	a.bound = p.bound
	if p.wants == nil {
		return
	}
	if a.ext != nil && a.ext.slots != nil || anySet(p.wants) {
		copy(a.slotWants(p.bound.graft), p.wants)
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

func (e *Encoder) slots(list []SlotSave) {
	e.Uvarint(uint64(len(list)))
	for _, s := range list {
		e.String(s.Slot)
		e.String(s.Holds)
		e.String(s.Wants)
	}
}

func (d *Decoder) slots(list []SlotSave) []SlotSave {
	n := d.Count(3)
	for range n {
		list = append(list, SlotSave{Slot: d.String(), Holds: d.String(), Wants: d.String()})
	}
	return list
}

// canonicalIndices gives the rules a save of an agent on composite b
// names their indices in the canonical composite of the trees b's slots
// hold, so that a save does not depend on the order in which slots took
// their trees during a step. (A carry maps the indices of b itself.)
func (b *BoundTree) canonicalIndices(s *Snapshot) {
	to, err := b.graft.composite(canonical(b.holds()))
	if err != nil {
		return
	}
	at := func(r int32) int32 {
		for k, bl := range b.blocks {
			if r >= bl.start && r < bl.end {
				return r - bl.start + to.blocks[k].start
			}
		}
		return r
	}
	for _, list := range [][]RuleTime{s.Clocks, s.Cooldowns} {
		for i := range list {
			list[i].Index = at(list[i].Index)
		}
	}
	for i := range s.Orders {
		s.Orders[i].Index = at(s.Orders[i].Index)
	}
	for i := range s.Holds {
		s.Holds[i].Index = at(s.Holds[i].Index)
	}
	for i := range s.Entries {
		s.Entries[i].Index = at(s.Entries[i].Index)
	}
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
// hot reload, before the carry), on the composite whose slots hold the
// trees old's slots hold, in their new versions, with old's grafts. A slot
// the new version lacks is dropped; a tree that does not fit the new
// version any more is an error.
func (a *Agent) FollowSlots(old *Agent) error {
	g, og := a.bound.graft, old.bound.graft
	if g == nil || og == nil {
		return nil
	}
	has := make([]string, len(g.slots))
	want := make([]string, len(g.slots))
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
	to, err := g.composite(canonical(has))
	if err != nil {
		return &Error{Agent: a.id, Err: ErrInvalidTree, Msg: "its slots' trees: " + err.Error()}
	}
	slab := make([]uint64, to.slabLen)
	copy(slab, to.slabInit)
	a.bound, a.slab = to, slab
	if anySet(want) {
		copy(a.slotWants(g), want)
	}
	return nil
}
