package cluster

import (
	"errors"
	"fmt"
)

// ShardHost is a shard's side of a game: its agents (a contiguous range of
// config order), their Lua states and trees.
type ShardHost interface {
	// Begin starts step number step at time t; shared is the world's
	// shared data when it changed (nil: unchanged).
	Begin(step uint64, t float64, shared []byte) error
	// Deliver hands a delivery to the receiver (d.Agent), or to every
	// agent of the shard but the sender (d.Agent -1, d.Peer the sender):
	// each receiver's records and the signals its handlers send are added
	// to out with out.Add(d.Order, receiver's place, ...), receivers in
	// config order.
	Deliver(d *Item, out *Out) error
	// Round runs round number round of the step: the first steps every
	// agent of the shard that steps; the others resume the agents the
	// answers are for, in config order. Their requests, the signals they
	// send others and their lines go to out at Place(PhaseRound, agent's
	// place). It returns how many of its agents still wait.
	Round(round uint32, answers []Item, out *Out) (waiting int, err error)
	// Report ends the step's last round with its answers (as Round would,
	// with none left to resume), adds the step's trace and output records
	// of its agents (PhaseReport, by place), then runs the handlers they
	// owe for signals they sent themselves (PhaseOwed: records and
	// signals).
	Report(answers []Item, out *Out) error
	// Save adds one AgentSave item per agent (PhaseSave, by place); Load
	// restores its agents from theirs.
	Save(out *Out) error
	Load(saves []Item) error
	// Finish adds what its agents kept for the end of the run (part 1:
	// the output's folded repeats) or what closing them writes (part 2),
	// PhaseReport by place.
	Finish(part uint32, out *Out) error
}

// Shard serves the conductor's messages to a ShardHost, on the goroutine
// that calls Run.
type Shard struct {
	Host ShardHost
	Link ShardLink
	// Meter measures the shard's cost of each step, for moves
	// (rebalance.go); the zero Meter measures wall time.
	Meter Meter
	out   Out
	// stores is the checkpoint store the shard opened (checkpoint_shards.go).
	stores struct {
		run   string
		store CheckpointStore
	}
}

// Run serves messages until Stop (nil) or the link fails or closes (its
// error). An error of the host is replied to the conductor, which ends the
// run with it, and returned.
func (s *Shard) Run() error {
	defer s.Link.Close()
	for {
		m, err := s.Link.Recv()
		if err != nil {
			if errors.Is(err, ErrClosed) {
				return nil
			}
			return err
		}
		s.out.Reset()
		reply := Message{Kind: m.Kind, Step: m.Step, Round: m.Round}
		start := s.Meter.now()
		err = s.serve(&m, &reply)
		s.Meter.served(&m, &reply, start)
		reply.Items = s.out.Items
		if err != nil {
			reply.Items, reply.Err = nil, err.Error()
		}
		if rerr := s.Link.Reply(&reply); rerr != nil {
			return errors.Join(err, rerr)
		}
		if err != nil || m.Kind == Stop {
			return err
		}
	}
}

// serve answers one message into reply and s.out.
func (s *Shard) serve(m, reply *Message) error {
	switch m.Kind {
	case StepStart:
		if err := s.Host.Begin(m.Step, m.Time, m.Shared); err != nil {
			return err
		}
		if err := s.deliver(m); err != nil {
			return err
		}
		return s.round(1, nil, reply)
	case Round:
		return s.round(m.Round, m.Items, reply)
	case Report:
		return s.Host.Report(m.Items, &s.out)
	case Deliver:
		return s.deliver(m)
	case Save:
		if m.Round == SavePart { // saveparts.go
			return s.savePart()
		}
		return s.Host.Save(&s.out)
	case Load:
		if h, ok := s.Host.(InputHost); ok {
			h.LoadStep(m.Step) // inputs.go: the replay's inputs at the load's step
		}
		return s.load(m.Items) // loadsig.go
	case Finish:
		return s.Host.Finish(m.Round, &s.out)
	case Stop:
		return nil
	case Debug:
		return s.debug(m) // debug.go
	case InputCheck:
		return s.checkDelivery(m)
	case InputAgents:
		return s.changeAgents(m)
	case Move:
		return s.move(m)
	case CheckpointParts:
		return s.checkpoint(m) // checkpoint_shards.go
	case StartLines:
		return s.startLines() // start.go
	case Reload:
		return s.reload(m) // inputs_reload.go
	}
	return fmt.Errorf("cluster: shard: a %s message", m.Kind)
}

func (s *Shard) deliver(m *Message) error {
	for i := range m.Items {
		if m.Items[i].Kind != Delivery {
			return fmt.Errorf("cluster: shard: a %s item in a %s message", m.Items[i].Kind, m.Kind)
		}
		if err := s.Host.Deliver(&m.Items[i], &s.out); err != nil {
			return err
		}
	}
	return nil
}

func (s *Shard) round(round uint32, answers []Item, reply *Message) error {
	waiting, err := s.Host.Round(round, answers, &s.out)
	reply.Waiting = uint32(waiting)
	return err
}
