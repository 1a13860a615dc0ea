package runtime

// Saving and restoring the counts of repeat and attempts and the start bits
// of rules with hooks or log.start (Snapshot.Entries, format version 6).

// entryOf is the saved state of rule r: its counts and whether it started.
func (a *Agent) entryOf(r int32) RuleEntry {
	f := &a.bound.feats[r]
	e := RuleEntry{Rule: a.bound.Tree.Rules[r].Label, Index: r}
	if f.countSlot >= 0 {
		e.Passes, e.Failures = a.Counts(r)
	}
	if f.startBit >= 0 {
		e.Started = a.started(f)
	}
	return e
}

// planEntries puts the saved counts and starts of active rules into the
// plan's slab. A save from before version 6 holds no starts: every active
// rule with a start bit is then taken as started, as it is at the end of a
// step.
func (p *RestorePlan) planEntries(s *Snapshot, active func(int32) bool, bad func(string, ...any) error) error {
	b := p.a.bound
	for _, x := range s.Entries {
		r, ok := s.ruleIn(b, x.Rule, x.Index)
		if !ok || !active(r) {
			if err := bad("rule %s has counts or a start saved but is not active", x.Rule); err != nil {
				return err
			}
			continue
		}
		f := &b.feats[r]
		if x.Passes != 0 || x.Failures != 0 {
			if f.countSlot < 0 {
				if err := bad("the counts of rule %s have no rule with repeat or attempts to go to", x.Rule); err != nil {
					return err
				}
			} else {
				p.slab[f.countSlot] = uint64(uint32(x.Passes)) | uint64(uint32(x.Failures))<<32
			}
		}
		// A start saved for a rule that has no hook or log.start any more
		// (an edited tree) means nothing: dropped without a word.
		if x.Started && f.startBit >= 0 {
			w, bit := b.startWord(f)
			p.slab[w] |= bit
		}
	}
	if !s.startedUnsaved {
		return nil
	}
	for _, path := range p.paths {
		for r := path.cursor; r != path.stop; r = b.rules[r].parent {
			if f := &b.feats[r]; (r != path.cursor || path.active) && f.startBit >= 0 {
				w, bit := b.startWord(f)
				p.slab[w] |= bit
			}
		}
	}
	return nil
}
