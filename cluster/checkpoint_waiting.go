package cluster

import (
	"bytes"
	"fmt"
)

// What waits between steps for the next one, on the conductor: the
// deliveries that inputs, loads and reloads left (inCarry: the signals
// their handlers and cancel hooks sent, routed, which open the next
// step's first batch), and the signals a live view's exchange kept
// (carry: routed at the next step's start). A checkpoint taken between
// steps (after a reload) must hold them, or a process lost after it
// replays from a state without them: AppendWaiting writes them into the
// conductor's part, SetWaiting puts them back. At a step's end both are
// empty.

// AppendWaiting appends what waits for the next step to dst: one
// message's encoding (Append), a Deliver message whose Round counts the
// deliveries, the kept signals after them.
func (c *Conductor) AppendWaiting(dst []byte) []byte {
	m := Message{Kind: Deliver, Round: uint32(len(c.inCarry))}
	m.Items = append(append(make([]Item, 0, len(c.inCarry)+len(c.carry)), c.inCarry...), c.carry...)
	return m.Append(dst)
}

// SetWaiting makes what waits for the next step what AppendWaiting wrote
// in b (b is not kept; empty b: nothing), in place of what waited: a
// restore. Items that no agent of the layout can send or receive are an
// error, and nothing changes.
func (c *Conductor) SetWaiting(b []byte) error {
	if len(b) == 0 {
		b = (&Conductor{}).AppendWaiting(nil)
	}
	m, err := Decode(bytes.Clone(b))
	if err != nil {
		return err
	}
	if m.Kind != Deliver || int(m.Round) > len(m.Items) {
		return fmt.Errorf("%w: what waits for the next step: a %s message of %d items, %d of them deliveries", ErrMessage, m.Kind, len(m.Items), m.Round)
	}
	n := int32(c.Layout.Agents())
	dels, sigs := m.Items[:m.Round], m.Items[m.Round:]
	for i, it := range dels {
		if it.Kind != Delivery || it.Agent < -1 || it.Agent >= n || it.Peer < -1 || it.Peer >= n {
			return fmt.Errorf("%w: what waits for the next step: delivery %d, a %s to %d from %d of %d agents", ErrMessage, i, it.Kind, it.Agent, it.Peer, n)
		}
	}
	for i, it := range sigs {
		if it.Kind != Signal || it.Agent < 0 || it.Agent >= n {
			return fmt.Errorf("%w: what waits for the next step: signal %d, a %s from %d of %d agents", ErrMessage, i, it.Kind, it.Agent, n)
		}
	}
	clear(c.inCarry)
	c.inCarry = append(c.inCarry[:0], dels...)
	clear(c.carry)
	c.carry = append(c.carry[:0], sigs...)
	return nil
}
