package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Inputs from outside the run (a Go program's Signal between two steps,
// say) are what a replay cannot make again from the config and the seed:
// so each one is appended to the run's journal before it is applied, with
// the step it follows, and a replay from a checkpoint applies the journaled
// inputs again after the same steps. A checkpoint of step c holds every
// input that followed a step before c; those that follow step c or later
// are the journal's, which is pruned with the checkpoint.

// InputKind is what an input does.
type InputKind uint8

const (
	// InputSignal sends signal Name with Data to the agent To, or to every
	// agent with To "all", as the game's Signal does.
	InputSignal InputKind = 1 + iota
	// InputAdd adds an agent with id To running tree Name, as the game's
	// AddAgent does; InputRemove removes the agent To.
	InputAdd
	InputRemove
	// A live view's signal, jump and variable edit (inputs_debug.go).
	InputDebugSignal
	InputDebugJump
	InputDebugSetVar
	// InputReload reloads the game's files (inputs_reload.go): Data is
	// the reload's manifest (EncodeReload), naming every file by the hash
	// of its content in the run's FileStore.
	InputReload
	numInputKinds
)

// Input is one input from outside the run, as journaled.
type Input struct {
	Seq  uint64 // its number in the journal (Append gives it)
	Step uint64 // the step it follows: it is applied between Step and Step+1
	Kind InputKind
	To   string // InputSignal: the receiver's id, or "all"; InputAdd, InputRemove: the agent's id
	Name string // InputSignal: the signal; InputAdd: the agent's tree
	Data []byte // InputSignal: its data, as the game encodes it
}

// Journal keeps a run's inputs in the order they were applied.
type Journal interface {
	// Append journals in (its Seq is the journal's to give) and returns
	// its number: it is durable once Append returns.
	Append(in Input) (uint64, error)
	// From returns the journaled inputs that follow step from or a later
	// step, in the order journaled.
	From(from uint64) ([]Input, error)
	// Prune forgets the inputs that follow a step before step (a
	// checkpoint of step holds them).
	Prune(step uint64) error
}

// ErrInput is a journaled input that cannot be read.
var ErrInput = errors.New("cluster: bad journaled input")

// inputMagic starts a journaled input, and its format's version.
const inputMagic = "BTRUNIN1"

// MaxInputBytes bounds a journaled input's encoding: a reader refuses a
// larger one (a signal's data is bounded far below it).
const MaxInputBytes = 1 << 24

// AppendInput adds in's encoding to b (its Seq is the journal's, not
// encoded).
func AppendInput(b []byte, in *Input) []byte {
	b = append(b, inputMagic...)
	b = binary.AppendUvarint(b, in.Step)
	b = append(b, byte(in.Kind))
	b = appendBytes(b, []byte(in.To))
	b = appendBytes(b, []byte(in.Name))
	return appendBytes(b, in.Data)
}

// DecodeInput reads what AppendInput wrote.
func DecodeInput(b []byte) (Input, error) {
	var in Input
	if len(b) > MaxInputBytes {
		return in, fmt.Errorf("%w: %d bytes", ErrInput, len(b))
	}
	if len(b) < len(inputMagic) || string(b[:len(inputMagic)]) != inputMagic {
		return in, fmt.Errorf("%w: it does not start with %s", ErrInput, inputMagic)
	}
	d := decoder{b: b, at: len(inputMagic)}
	in.Step = d.uvarint()
	in.Kind = InputKind(d.byte())
	in.To = string(d.bytes())
	in.Name = string(d.bytes())
	in.Data = d.bytes()
	if d.err == nil && d.at != len(b) {
		d.fail("%d bytes after its end", len(b)-d.at)
	}
	if d.err != nil {
		return Input{}, fmt.Errorf("%w: %w", ErrInput, d.err)
	}
	if in.Kind == 0 || in.Kind >= numInputKinds {
		return Input{}, fmt.Errorf("%w: kind %d", ErrInput, in.Kind)
	}
	return in, nil
}

// MemJournal is a Journal in memory, for one process's tests.
type MemJournal struct {
	ins  []Input
	last uint64
}

func (m *MemJournal) Append(in Input) (uint64, error) {
	m.last++
	in.Seq = m.last
	in.Data = slices.Clone(in.Data)
	m.ins = append(m.ins, in)
	return in.Seq, nil
}

func (m *MemJournal) From(from uint64) ([]Input, error) {
	var out []Input
	for _, in := range m.ins {
		if in.Step >= from {
			out = append(out, in)
		}
	}
	return out, nil
}

func (m *MemJournal) Prune(step uint64) error {
	m.ins = slices.DeleteFunc(m.ins, func(in Input) bool { return in.Step < step })
	return nil
}

// InputHost is a shard host that takes inputs from outside the run.
type InputHost interface {
	// CheckDelivery reports, before d is delivered to anyone (d.Agent, or
	// every agent of the shard with -1), why the first of the shard's
	// receivers in config order would refuse it: an Answer item at
	// Place(PhaseDelivery, receiver's place) whose Text is the refusal.
	// Nothing is delivered.
	CheckDelivery(d *Item, out *Out) error
	// LoadStep is the step of the load that follows (a Load message's):
	// the inputs a replay applies after it, before the next step's
	// StepStart, are of that step.
	LoadStep(step uint64)
}

// CheckInput asks the shards whether the receivers of dels (Delivery
// items, Agent -1 for every agent) would all take them; it returns the
// first refusal in config order ("" for none). Nothing is delivered.
func (c *Conductor) CheckInput(step uint64, dels []Item) (string, error) {
	if err := c.init(); err != nil {
		return "", err
	}
	c.begin(InputCheck, step)
	if err := c.spread(dels, PhaseDelivery); err != nil {
		return "", err
	}
	for k := range c.out {
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			return "", err
		}
	}
	if err := c.Link.Gather(c.replies); err != nil {
		return "", fmt.Errorf("cluster: after step %d, checking an input: %w", step, err)
	}
	lists := make([][]Item, len(c.replies))
	for k := range c.replies {
		lists[k] = c.replies[k].Items
	}
	refusals, err := Merge(nil, lists...)
	if err != nil || len(refusals) == 0 {
		return "", err
	}
	return refusals[0].Text, nil
}

// DeliverInput delivers dels (Delivery items, and Record items of the
// conductor's own between them) between step and the next, as one process
// delivers a signal sent from outside then: their records are written
// now, and the signals their handlers send join the next step's queue
// ahead of that step's own, where one process has them.
func (c *Conductor) DeliverInput(step uint64, dels []Item) error {
	if err := c.init(); err != nil {
		return err
	}
	c.outbox = c.outbox[:0]
	c.begin(Deliver, step)
	if err := c.spread(dels, PhaseDelivery); err != nil {
		return err
	}
	if err := c.exchange(false); err != nil {
		return fmt.Errorf("cluster: after step %d, an input's deliveries: %w", step, err)
	}
	return c.carry1()
}

// carry1 routes the signals that an input's handlers (or a removed
// agent's close) sent into deliveries that open the next step's queue:
// routed now, while their senders hold their places.
func (c *Conductor) carry1() error {
	if len(c.outbox) == 0 {
		return nil
	}
	dels, err := c.Host.Route(c.outbox)
	c.outbox = c.outbox[:0]
	if err != nil {
		return err
	}
	c.inCarry = append(c.inCarry, dels...)
	return nil
}

// carriedIn puts the deliveries inputs left before dels, the step's first
// batch: in one process they come first in its queue.
func (c *Conductor) carriedIn(dels []Item) []Item {
	if len(c.inCarry) == 0 {
		return dels
	}
	dels = append(c.inCarry, dels...)
	c.inCarry = nil
	return dels
}

// checkDelivery serves an InputCheck message.
func (s *Shard) checkDelivery(m *Message) error {
	h, ok := s.Host.(InputHost)
	if !ok {
		return fmt.Errorf("cluster: shard: this shard takes no inputs from outside the run")
	}
	for i := range m.Items {
		if m.Items[i].Kind != Delivery {
			return fmt.Errorf("cluster: shard: a %s item in a %s message", m.Items[i].Kind, m.Kind)
		}
		if err := h.CheckDelivery(&m.Items[i], &s.out); err != nil {
			return err
		}
	}
	return nil
}
