package runtime

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Saving and restoring the state bytes of custom rules (Snapshot.Customs,
// format version 8; custom_step.go). A save names each rule by its label
// and index as it names the other per-rule state (a cooldown's time), and
// a restore or a hot reload puts it back on the same rule, found the same
// way (ruleIn).

// RuleState is the saved state of a custom rule.
type RuleState struct {
	Rule  string
	Index int32
	State []byte
}

// snapshotCustoms saves the state of the custom rules that hold any, in
// document order. The bytes are copies (a Snapshot outlives the step that
// follows) but for a save's, which are written at once.
func (a *Agent) snapshotCustoms(s *Snapshot) {
	if a.ext == nil {
		return
	}
	first := len(s.Customs)
	for _, c := range a.ext.customs {
		// A tree no slot runs (slots.go) starts afresh when one takes it.
		if len(c.bytes) > 0 && !a.bound.Tree.unreached(c.rule) {
			b := c.bytes
			if !s.borrowed {
				b = slices.Clone(b)
			}
			s.Customs = append(s.Customs, RuleState{Rule: a.bound.Tree.Rules[c.rule].Label, Index: c.rule, State: b})
		}
	}
	slices.SortFunc(s.Customs[first:], func(x, y RuleState) int { return int(x.Index - y.Index) })
}

// planCustoms checks the saved states of custom rules: each goes to a
// custom rule.
func (p *RestorePlan) planCustoms(s *Snapshot, bad func(string, ...any) error) error {
	b := p.a.bound
	for _, x := range s.Customs {
		r, ok := s.ruleIn(b, x.Rule, x.Index)
		switch {
		case !ok || b.feats == nil || b.feats[r].custom == nil:
			if err := bad("the state of custom rule %s has no custom rule to go to", x.Rule); err != nil {
				return err
			}
		case slices.ContainsFunc(p.customs, func(c customState) bool { return c.rule == r }):
			return &Error{Agent: p.a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("custom rule %s has two saved states", x.Rule)}
		default:
			// Into the bytes the entry had in the plan's last load, if any.
			var buf []byte
			if k := len(p.customs); k < cap(p.customs) {
				buf = p.customs[:k+1][k].bytes[:0]
			}
			p.customs = append(p.customs, customState{rule: r, bytes: append(buf, x.State...)})
		}
	}
	return nil
}

// applyCustoms replaces the agent's custom rules' states with the
// planned ones.
func (p *RestorePlan) applyCustoms() {
	p.a.clearCustoms(0, int32(len(p.a.bound.rules)))
	for _, c := range p.customs {
		p.a.SetCustomBytes(c.rule, c.bytes)
	}
}

func encodeCustoms(e *savecodec.Encoder, list []RuleState) {
	e.Uvarint(uint64(len(list)))
	for _, c := range list {
		e.String(c.Rule)
		e.Uvarint(uint64(c.Index))
		e.Blob(c.State)
	}
}

func decodeCustoms(d *savecodec.Decoder, list []RuleState, keep *[]byte) []RuleState {
	n := d.Count(3)
	for range n {
		list = append(list, RuleState{Rule: d.String(), Index: d.Index(), State: d.KeptBlob(keep)})
	}
	return list
}
