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
// template: a slot or tree the game does not have is an error.
func (a *Agent) restoreBound(s *Snapshot) (*BoundTree, error) {
	host := a.Template()
	g := host.graft
	if g == nil {
		if len(s.Slots) > 0 {
			return nil, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("cannot restore: the save holds slots (%s) and tree %s has none", s.Slots[0].Slot, host.Tree.File)}
		}
		return host, nil
	}
	has := make([]string, len(g.slots))
	for _, sl := range s.Slots {
		k, err := g.slot(sl.Slot)
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

// savedIndex is the index a save gives rule r of b: its index in the
// canonical composite of the trees b's slots hold, so that a save does not
// depend on the order in which slots took their trees during a step.
func (b *BoundTree) savedIndex(r int32) int32 {
	if !b.stray || r < int32(len(b.graft.host.Tree.Rules)) {
		return r
	}
	to, err := b.graft.composite(canonical(b.holds()))
	if err != nil {
		return r
	}
	for k, bl := range b.blocks {
		if r >= bl.start && r < bl.end {
			return r - bl.start + to.blocks[k].start
		}
	}
	return r
}
