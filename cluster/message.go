package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Kind is what a message asks or answers. Every message the conductor sends
// a shard gets exactly one reply of the same kind (Message.Reply set), so
// the conductor's barrier is the same for every phase.
type Kind uint8

const (
	// StepStart starts a step: its number and time, the world's shared
	// data when it changed, the scheduled signals due (Delivery items).
	// The shard applies them and runs its agents' first round; its reply
	// is the round's (as Round's).
	StepStart Kind = 1 + iota
	// Round gives a shard the answers (Answer items) of its paused
	// agents; the shard resumes them and replies with the next round's
	// requests, signals and lines, and how many of its agents still wait.
	Round
	// Report asks for the step's trace and output records of the shard's
	// agents (PhaseReport), then runs the handlers they owe for signals they
	// sent themselves (PhaseOwed: records and signals).
	Report
	// Deliver hands a shard its part of the step's signal queue (Delivery
	// items, keyed by their place in the queue). The reply holds each
	// delivery's records and the signals its handlers sent, keyed by the
	// delivery's place and the receiver's. The step ends with the last
	// Deliver's reply (or Report's, when no signal is sent).
	Deliver
	// Save asks for the saves of the shard's agents (AgentSave items);
	// Load gives a shard the saves of its agents.
	Save
	Load
	// Stop ends the shard.
	Stop
	// Finish ends a run: the shard adds what its agents kept for the end
	// (Round 1: the output's folded repeats; Round 2: what closing them
	// writes), PhaseReport by place.
	Finish
	// Debug carries a live view's commands for a shard's agents (debug.go):
	// DebugRelay turns on the relay of what its agents' steps do, a jump or
	// a variable's edit applies to one agent now, between steps. The reply
	// holds their records and DebugNote items.
	Debug
	// InputCheck asks whether the receivers of an input's deliveries
	// (Delivery items) would take them; the reply holds the shard's first
	// refusal (inputs.go). Nothing is delivered.
	InputCheck
	// InputAgents adds or removes an agent between two steps (an AgentAdd
	// or AgentRemove item) and gives the shard its range of the new
	// layout (an AgentRange item); the reply holds the lines and signals
	// of the removed agent's close (inputs_agents.go).
	InputAgents
	// Move moves agents between shards at a step's end (rebalance.go):
	// Round 1 asks a shard to release its agents outside its new range
	// (a MoveRange item), replying with their saves; Round 2 gives it the
	// saves of the agents it adopts, and its new range.
	Move
	// CheckpointParts has the shards write their agents into the run's
	// checkpoint store (checkpoint_shards.go): Round 1 writes the saves of
	// the shard's range as one part of a checkpoint and replies with the
	// part (a CheckpointPart item); Round 2 restores the shard's range from
	// the parts named (CheckpointPart items) that hold it.
	CheckpointParts
	// StartLines asks a shard for what its part of the game's start wrote
	// (start.go): the lines of the world's init's deliveries to its agents
	// and of their spawns, at their places in the single run's start.
	StartLines
	// Reload makes a shard load the game's files again between two steps
	// (inputs_reload.go): one item whose Data is the reload's manifest.
	// The shard's agents are then given their saves by a Load.
	Reload
	numKinds
)

var kindNames = [numKinds]string{"", "step start", "round", "report", "deliver", "save", "load", "stop", "finish", "debug", "input check", "input agents", "move", "checkpoint", "start lines", "reload"}

func (k Kind) String() string {
	if k < numKinds && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// ItemKind is what an item of a message is.
type ItemKind uint8

const (
	// Request: an agent's step paused at a call the conductor answers
	// (Name the resolver, "gate" or a plugin's name; Data the call).
	Request ItemKind = 1 + iota
	// Answer: the conductor's answer to a request, for its agent.
	Answer
	// Signal: a signal an agent sent to others (To an agent id or "all",
	// Name the signal, Data its data).
	Signal
	// Delivery: a signal handed to an agent (Agent the receiver, To the
	// sender's id or "schedule", "world").
	Delivery
	// Record: a line of the trace or the output (Name says which), from an
	// agent's step, a round or a delivery.
	Record
	// AgentSave: one agent's save.
	AgentSave
	// DebugNote: what a live view is told about an agent of a shard (an
	// agent's step, a change, a log line, a command's warning; debug.go).
	DebugNote
	// AgentAdd: an agent added (Agent its place, Text its id, Name its
	// tree, Data its save after its spawn on the conductor).
	AgentAdd
	// AgentRemove: an agent removed (Agent its place, Text its id); in a
	// reply, Text is the error its close returned.
	AgentRemove
	// AgentRange: a shard's range of agents, [Agent, Peer).
	AgentRange
	// AgentList: every agent of the game, in order (Data: the directory a
	// shard takes after a load of a save holding other agents).
	AgentList
	// MoveRange: a shard's new range of a move, [Agent, Peer).
	MoveRange
	// CheckpointPart: a part of a checkpoint that a shard wrote (Name the
	// part, [Agent, Peer) its range, Data its size and checksum), or, with
	// Agent -1, the store and checkpoint a CheckpointParts message is of (Text
	// the store's name, Data the checkpoint's number).
	CheckpointPart
	// AgentClose: an agent of a game with gates closed before its removal
	// (Agent its place, Text its id): its shard closes it, replying with
	// what its close wrote and sent, its close's error as an AgentRemove
	// item, and the gate releases of the close as an AgentClose item (Data;
	// remove.go); the others do nothing.
	AgentClose
	numItemKinds
)

// Item is one entry of a message: a request, an answer, a signal, a
// delivery, a record or an agent's save. (Order, Sub) is its place in the
// single run's order, by which Merge puts the items of several shards
// together: Order the phase of the step and a place in it (Place), Sub the
// item's rank there (an agent's n-th item; for a delivery's results, the
// receiver's place and its n-th). Out numbers them.
type Item struct {
	Order uint64
	Sub   uint64
	Kind  ItemKind
	// Agent is the agent it is of or for, by place in config order (-1:
	// a Delivery to every agent).
	Agent int32
	// Peer is the other agent's place, -1 for none: a Delivery's sender
	// (who does not hear its own signal to all).
	Peer int32
	// Text is a Signal's receiver (an id or "all"), a Delivery's sender
	// (an id, "schedule", "world"), a Record's stream ("trace", "out").
	Text string
	Name string // a Signal's or Delivery's signal; a Request's resolver
	Data []byte
}

// The phases of a step's replies whose items Merge orders: what comes
// first in the single run has the lower phase.
const (
	PhaseSchedule uint64 = 1 + iota // results of the scheduled deliveries (by place in the schedule)
	PhaseRound                      // a round's requests, signals and lines (by agent)
	PhaseReport                     // the step's trace and output (by agent)
	PhaseOwed                       // handlers agents owe for signals to themselves (by agent)
	PhaseDelivery                   // results of the queue's deliveries (by place in the queue)
	PhaseSave                       // agents' saves (by agent)
)

// Place is the Order of the items of place p (an agent's place in config
// order, or a delivery's in its queue) in a phase.
func Place(phase uint64, p int64) uint64 { return phase<<56 | uint64(p)&(1<<56-1) }

// Message is what crosses between the conductor and a shard. Seq numbers
// the messages of one direction of one link from 1: a receiver refuses a
// gap or a repeat (Sequence), so no transport can reorder silently, and a
// step can be replayed from a known message.
type Message struct {
	Kind    Kind
	Reply   bool
	Seq     uint64
	Step    uint64
	Round   uint32
	Time    float64
	Waiting uint32 // a round's reply: how many of the shard's agents still wait
	Shared  []byte // StepStart: the world's shared data, when it changed
	Err     string // a reply: the shard's error, which ends the run
	Items   []Item
}

// Codec errors.
var (
	// ErrMessage is a message that cannot be read: truncated, or with a
	// count or length beyond what its bytes hold.
	ErrMessage = errors.New("cluster: malformed message")
	// ErrSequence is a message out of sequence: lost, repeated or reordered
	// by the transport.
	ErrSequence = errors.New("cluster: message out of sequence")
)

const version = 1 // of the encoding; a message of another is refused

// Append appends the message's encoding to dst.
func (m *Message) Append(dst []byte) []byte {
	flags := byte(0)
	if m.Reply {
		flags = 1
	}
	dst = append(dst, version, byte(m.Kind), flags)
	dst = binary.AppendUvarint(dst, m.Seq)
	dst = binary.AppendUvarint(dst, m.Step)
	dst = binary.AppendUvarint(dst, uint64(m.Round))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(m.Time))
	dst = binary.AppendUvarint(dst, uint64(m.Waiting))
	dst = appendBytes(dst, m.Shared)
	dst = appendBytes(dst, []byte(m.Err))
	dst = binary.AppendUvarint(dst, uint64(len(m.Items)))
	for i := range m.Items {
		it := &m.Items[i]
		dst = binary.AppendUvarint(dst, it.Order)
		dst = binary.AppendUvarint(dst, it.Sub)
		dst = append(dst, byte(it.Kind))
		dst = binary.AppendVarint(dst, int64(it.Agent))
		dst = binary.AppendVarint(dst, int64(it.Peer))
		dst = appendBytes(dst, []byte(it.Text))
		dst = appendBytes(dst, []byte(it.Name))
		dst = appendBytes(dst, it.Data)
	}
	return dst
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// Decode reads a message Append wrote. Its byte slices (Shared, each
// item's Data) are parts of b, capped at their ends, not copies; its
// strings are copies, the common ones (records' streams, the gates'
// answers) shared. Bad bytes are an error wrapping ErrMessage naming the
// offset; nothing in them makes Decode allocate more than a few times
// len(b).
//
// Who owns the bytes: b passes to the message's receiver for good. A
// transport decodes every message from a buffer of its own and never
// writes into it again (NewLocal's, natsnet's: a NATS message's payload,
// or its parts put together in a new buffer), so a receiver may keep a
// message's slices past its handling, as the conductor does (a removed
// agent's gate releases across the next exchange, the signals that
// inputs' handlers and loads' hooks sent until the next step, a live
// view's notes until they are taken), and never writes into them: they
// are the message's, and an append to one copies it. A transport that
// reused its buffers would corrupt what its receivers kept.
func Decode(b []byte) (Message, error) {
	d := decoder{b: b}
	var m Message
	if v := d.byte(); d.err == nil && v != version {
		return m, fmt.Errorf("%w: encoding version %d, this btrun reads %d", ErrMessage, v, version)
	}
	m.Kind = Kind(d.byte())
	flags := d.byte()
	m.Reply = flags&1 != 0
	m.Seq = d.uvarint()
	m.Step = d.uvarint()
	m.Round = uint32(d.uvarint32())
	m.Time = math.Float64frombits(d.uint64())
	m.Waiting = uint32(d.uvarint32())
	m.Shared = d.bytes()
	m.Err = d.string()
	// Each item takes at least 8 bytes: a count above what is left is false.
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)-d.at)/8 {
		d.fail("item count %d", n)
	}
	if d.err == nil && n > 0 {
		m.Items = make([]Item, n)
		for i := range m.Items {
			it := &m.Items[i]
			it.Order = d.uvarint()
			it.Sub = d.uvarint()
			it.Kind = ItemKind(d.byte())
			it.Agent = d.varint32()
			it.Peer = d.varint32()
			it.Text = d.string()
			it.Name = d.string()
			it.Data = d.bytes()
			if d.err != nil {
				break
			}
		}
	}
	if d.err == nil && d.at != len(d.b) {
		d.fail("%d bytes after the message", len(d.b)-d.at)
	}
	if d.err == nil && (m.Kind == 0 || m.Kind >= numKinds) {
		d.fail("kind %d", uint8(m.Kind))
	}
	if d.err != nil {
		return Message{}, d.err
	}
	for i := range m.Items {
		if k := m.Items[i].Kind; k == 0 || k >= numItemKinds {
			return Message{}, fmt.Errorf("%w: item %d: kind %d", ErrMessage, i, uint8(k))
		}
	}
	return m, nil
}

// decoder reads a message; the first error sticks.
type decoder struct {
	b   []byte
	at  int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrMessage, d.at, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.at >= len(d.b) {
		d.fail("truncated")
		return 0
	}
	d.at++
	return d.b[d.at-1]
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.at:])
	if n <= 0 {
		d.fail("bad number")
		return 0
	}
	d.at += n
	return v
}

func (d *decoder) uvarint32() uint64 {
	v := d.uvarint()
	if v > math.MaxUint32 {
		d.fail("number %d too large", v)
		return 0
	}
	return v
}

func (d *decoder) varint32() int32 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.at:])
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("bad number")
		return 0
	}
	d.at += n
	return int32(v)
}

func (d *decoder) uint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b)-d.at < 8 {
		d.fail("truncated")
		return 0
	}
	d.at += 8
	return binary.LittleEndian.Uint64(d.b[d.at-8:])
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.at) {
		d.fail("length %d beyond the %d bytes left", n, len(d.b)-d.at)
		return nil
	}
	if n == 0 {
		return nil
	}
	at := d.at
	d.at += int(n)
	return d.b[at:d.at:d.at]
}

// string reads a string: one of the few an item's Text or Name mostly is,
// or a copy.
func (d *decoder) string() string {
	b := d.bytes()
	for _, s := range common {
		if string(b) == s { // compared without a copy
			return s
		}
	}
	return string(b)
}

// common are the strings most items carry (Decode's string): records'
// streams, signals' receiver "all", deliveries' senders, a round's gate
// parts ("gates", game/cluster.go's gateAnswer).
var common = [...]string{"trace", "out", "all", "schedule", "world", "gates"}

// Sequence checks that messages arrive numbered 1, 2, 3...; a transport
// keeps one per direction of each link.
type Sequence struct{ last uint64 }

// Next numbers the next message sent.
func (s *Sequence) Next() uint64 {
	s.last++
	return s.last
}

// Check accepts m when it is the next of the sequence; from names the
// sender for the error.
func (s *Sequence) Check(m *Message, from string) error {
	if m.Seq != s.last+1 {
		return fmt.Errorf("%w: %s sent message %d (%s) where %d was next", ErrSequence, from, m.Seq, m.Kind, s.last+1)
	}
	s.last = m.Seq
	return nil
}
