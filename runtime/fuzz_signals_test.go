package runtime

import (
	"fmt"
	"slices"
)

// Signals in the stepping fuzzer (step_fuzz_test.go): for a tree that
// declares some (treegen.RandomTree.Signals), the calls' side effects, the
// actions' cancels and the handlers of RandHandled send them, as each
// agent's stream draws: to the agent itself, to another agent, to all.
// Signals to others go through fuzzRouter, which refuses what a game
// refuses (a second signal to all in a step, too many in a step) and
// delivers them once every agent has stepped, after the handlers the
// agents owe, as btrun does (game/signals.go). Handlers draw their answer:
// a result, nothing, an error, a refused jump.

// fuzzSent is a signal an agent sent to others.
type fuzzSent struct {
	from   int
	to     string // an agent's id, or "all"
	signal string
	data   Value
}

// Limits on the signals an agent sends others in a step, small enough
// for a few draws to reach them.
const (
	fuzzMaxSent    = 6
	fuzzMaxSentAll = 1
)

// fuzzRouter is the game's Router: the signals wait in the script's
// outbox for deliver.
type fuzzRouter struct{ s *fuzzScript }

func (r fuzzRouter) Route(from *Agent, to, signal string, data Value) error {
	i := from.UserData().(int)
	l := &r.s.agents[i]
	if l.sentStep != from.step {
		l.sentStep, l.sent, l.sentAll = from.step, 0, 0
	}
	if l.sent++; l.sent > fuzzMaxSent {
		return fmt.Errorf("fuzz: %s sends more than %d signals a step", from.ID(), fuzzMaxSent)
	}
	if to == "all" {
		if l.sentAll++; l.sentAll > fuzzMaxSentAll {
			return fmt.Errorf("fuzz: %s sends a second signal to all in a step", from.ID())
		}
	}
	r.s.outbox = append(r.s.outbox, fuzzSent{from: i, to: to, signal: signal, data: data})
	return nil
}

// send sends a signal as draw v asks (1 in 3 draws send one): to the agent
// itself, to all, or to the next agent.
func (s *fuzzScript) send(a *Agent, v uint64, l *fuzzAgentScript) {
	if v%3 == 0 {
		s.sendNow(a, v, l)
	}
}

// sendNow sends the signal draw v says.
func (s *fuzzScript) sendNow(a *Agent, v uint64, l *fuzzAgentScript) {
	sig := fmt.Sprintf("S%d", (v>>2)%uint64(s.signals))
	data := Value{}
	if (v>>6)%2 == 0 {
		data = numv(float64((v >> 7) % 100))
	}
	to := []string{"self", "all", "next", "self"}[(v>>14)%4]
	if to == "next" {
		to = fmt.Sprintf("a%d", (a.UserData().(int)+1)%len(s.agents))
	}
	fmt.Fprintf(&l.log, " send %s %s %s", to, sig, DataText(data, 20))
	if err := a.Send(to, sig, data); err != nil {
		fmt.Fprintf(&l.log, " (%v)", err)
	}
}

// cancel is the cancel hook of RandAct and RandHandled: with signals, it
// sends one, mostly to the agent itself (SPEC §15: a lane's cancel that
// signals its agent, whose other lanes' actions have handlers).
func (s *fuzzScript) cancel(a *Agent) error {
	l := s.of(a)
	fmt.Fprintf(&l.log, "cancel@%s", a.Label())
	if s.signals > 0 {
		s.sendNow(a, l.draw(), l)
	}
	l.log.WriteString("; ")
	return nil
}

// fuzzHandled is RandHandled: an action with a handler for every signal.
type fuzzHandled struct {
	*Lifecycle
	s *fuzzScript
}

func (x fuzzHandled) HandledSignals() []string { return []string{"S0", "S1", "S2"} }

func (x fuzzHandled) HandleSignal(a *Agent, _ Params, signal string, data Value) (Status, error) {
	s := x.s
	l := s.of(a)
	v := l.draw()
	lane := a.Lane()
	if s.trees != nil && lane >= 0 {
		lane = 0 // with slots, a lane's number depends on the slot's history (act)
	}
	fmt.Fprintf(&l.log, "on%s@%s(%s) lane=%d", signal, a.Label(), DataText(data, 20), lane)
	s.send(a, v>>8, l)
	var st Status
	var err error
	switch r := v % 16; {
	case r < 3:
		st = Success
	case r < 6:
		st = Failure
	case r == 6:
		err = fmt.Errorf("handler broke")
	case r == 7:
		if jerr := a.Jump(s.ids[(v>>32)%uint64(len(s.ids))]); jerr != nil {
			fmt.Fprintf(&l.log, " (jump: %v)", jerr)
		} else {
			panic("fuzz: a handler jumped")
		}
	}
	fmt.Fprintf(&l.log, " -> %v %v; ", st, err)
	return st, err
}

// deliver ends a step: the agents' owed handlers, in order, then the
// signals they sent others (and those their handlers send, in turn).
func (w *fuzzWorld) deliver() {
	s := w.script
	// The step's signals, by sender in agent order (btrun merges its
	// workers' that way): when calls are answered later, agents send in
	// rounds, and each agent's own order is all a mode keeps.
	slices.SortStableFunc(s.outbox, func(x, y fuzzSent) int { return x.from - y.from })
	for i, a := range w.agents {
		if a.HandlersOwed() {
			if err := a.RunHandlers(); err != nil {
				fmt.Fprintf(&s.agents[i].log, "[handlers: %v] ", err)
			}
		}
	}
	for k := 0; k < len(s.outbox); k++ {
		m := s.outbox[k]
		for j, a := range w.agents {
			if m.to == "all" && j == m.from || m.to != "all" && m.to != a.ID() {
				continue
			}
			fmt.Fprintf(&s.agents[j].log, "[%s from a%d] ", m.signal, m.from)
			if err := a.SignalData(m.signal, m.data); err != nil {
				fmt.Fprintf(&s.agents[j].log, "[handlers: %v] ", err)
			}
		}
	}
	clear(s.outbox)
	s.outbox = s.outbox[:0]
}
