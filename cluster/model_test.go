package cluster

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"testing"
)

// A model game for the protocol: agents whose steps pause at gate takes and
// plugin calls, send signals to one agent or to all, owe handlers for
// signals to themselves, and whose handlers send signals in turn; a world
// that publishes shared data; a schedule; resolvers whose answers depend on
// the order of their requests. The single run (modelSingle) does what one
// process does, in config order; the cluster runs the same agents and
// resolvers over the protocol. Every result depends on order: merged in any
// other than the single run's, the lines and states differ.

func mix(v, x uint64) uint64 {
	v ^= x + 0x9e3779b97f4a7c15 + v<<6 + v>>2
	return v * 0xbf58476d1ce4e5b9
}

type modelAgent struct {
	place int32
	v     uint64
	owed  bool
	paid  uint64 // answers taken this step
	wait  string // the resolver it waits for, "" none
}

func modelID(p int32) string { return "a" + strconv.Itoa(int(p)) }

// emit is where an agent's items go: the single run's lists, or a shard's
// Out.
type emit func(Item)

func record(a *modelAgent, text string) Item {
	return Item{Kind: Record, Agent: a.place, Text: "out", Data: []byte(modelID(a.place) + " " + text)}
}

func num(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func unnum(b []byte) uint64 { v, _ := binary.Uvarint(b); return v }

// run runs the agent until its step ends or pauses.
func (a *modelAgent) run(n int32, out emit) {
	for {
		switch {
		case a.v%3 == 0 && a.paid < 2:
			a.wait = "gate"
		case a.v%4 == 1 && a.paid < 3:
			a.wait = "plugin"
		}
		if a.wait != "" {
			out(Item{Kind: Request, Agent: a.place, Name: a.wait, Data: num(a.v)})
			return
		}
		out(record(a, fmt.Sprintf("ends at %x", a.v%4096)))
		if a.v%5 == 0 {
			to := (a.place + int32(a.v%7) + 1) % n
			out(Item{Kind: Signal, Agent: a.place, Text: modelID(to), Name: "poke", Data: num(a.v % 1000)})
		}
		if a.v%13 == 2 {
			out(Item{Kind: Signal, Agent: a.place, Text: "all", Name: "shout", Data: num(a.v%1000*3 + 1)})
		}
		a.owed = a.owed || a.v%11 == 0
		return
	}
}

func (a *modelAgent) step(step uint64, shared uint64, n int32, out emit) {
	a.paid = 0
	a.v = mix(a.v, step+shared)
	out(record(a, fmt.Sprintf("steps %d", step)))
	a.run(n, out)
}

func (a *modelAgent) resume(answer []byte, n int32, out emit) {
	a.wait = ""
	a.paid++
	a.v = mix(a.v, unnum(answer))
	a.run(n, out)
}

// hear is a delivery's effect: a line and, for data not too far down a
// chain, a signal on.
func (a *modelAgent) hear(signal, from string, data []byte, n int32, out emit) {
	d := unnum(data)
	a.v = mix(a.v, d)
	out(record(a, fmt.Sprintf("hears %s from %s (%d)", signal, from, d)))
	if d%3 == 0 && d < 3000 {
		out(Item{Kind: Signal, Agent: a.place, Text: modelID((a.place + 1) % n), Name: "relay", Data: num(d + 1000)})
	}
}

func (a *modelAgent) report(out emit) { out(record(a, fmt.Sprintf("state %x", a.v))) }

func (a *modelAgent) payOwed(n int32, out emit) {
	if !a.owed {
		return
	}
	a.owed = false
	a.v = mix(a.v, 11)
	out(record(a, "pays an owed handler"))
	if a.v%2 == 0 {
		out(Item{Kind: Signal, Agent: a.place, Text: modelID((a.place + 2) % n), Name: "owed", Data: num(a.v % 999)})
	}
}

func (a *modelAgent) save() []byte {
	b := num(a.v)
	if a.owed {
		return append(b, 1)
	}
	return append(b, 0)
}

func (a *modelAgent) load(b []byte) {
	v, k := binary.Uvarint(b)
	a.v, a.owed = v, b[k] == 1
}

// modelWorld is the conductor's side: the world, the schedule, the gate
// (two takes a step, first come in config order) and a plugin whose answer
// depends on each call's place in its batch, and the lines written.
type modelWorld struct {
	n      int32
	taken  int
	calls  uint64
	shared uint64
	loaded bool // shared goes to the shards again
	lines  bytes.Buffer
}

func (w *modelWorld) BeginStep(step uint64) (float64, []byte, []Item, error) {
	w.taken = 0
	var shared []byte
	if step%3 == 0 {
		w.shared = step * 7
	}
	if step%3 == 0 || w.loaded {
		shared, w.loaded = num(w.shared), false
	}
	var dels []Item
	if step%5 == 0 {
		dels = append(dels, Item{Kind: Delivery, Agent: int32(step) % w.n, Peer: -1, Text: "schedule", Name: "alarm", Data: num(step)})
		dels = append(dels, Item{Kind: Delivery, Agent: -1, Peer: -1, Text: "schedule", Name: "dawn", Data: num(step * 3)})
	}
	return float64(step) / 10, shared, dels, nil
}

func (w *modelWorld) Write(records []Item) error {
	for _, r := range records {
		w.lines.Write(r.Data)
		w.lines.WriteByte('\n')
	}
	return nil
}

func (w *modelWorld) Resolve(round uint32, reqs []Item) ([]Item, error) {
	var answers []Item
	batch := uint64(0)
	for _, r := range reqs {
		var ans uint64
		switch r.Name {
		case "gate":
			if w.taken < 2 {
				w.taken++
				ans = 1
			}
		case "plugin":
			batch++
			w.calls++
			ans = mix(unnum(r.Data), batch*1000+w.calls+uint64(round))
		default:
			return nil, fmt.Errorf("model: a request to %q", r.Name)
		}
		answers = append(answers, Item{Kind: Answer, Agent: r.Agent, Name: r.Name, Data: num(ans)})
	}
	fmt.Fprintf(&w.lines, "round %d: %d requests\n", round, len(reqs))
	return answers, nil
}

func (w *modelWorld) Route(signals []Item) ([]Item, error) {
	dels := make([]Item, 0, len(signals))
	for _, s := range signals {
		d := Item{Kind: Delivery, Agent: -1, Peer: s.Agent, Text: modelID(s.Agent), Name: s.Name, Data: s.Data}
		if s.Text != "all" {
			p, err := strconv.Atoi(s.Text[1:])
			if err != nil || p >= int(w.n) {
				return nil, fmt.Errorf("model: no agent %q", s.Text)
			}
			d.Agent = int32(p)
		}
		dels = append(dels, d)
	}
	return dels, nil
}

// modelSingle is the single run: one process, config order, rounds.
type modelSingle struct {
	w      *modelWorld
	agents []*modelAgent
	shared uint64
}

func newAgents(lo, hi int32) []*modelAgent {
	var out []*modelAgent
	for p := lo; p < hi; p++ {
		out = append(out, &modelAgent{place: p, v: uint64(p) * 977})
	}
	return out
}

func (m *modelSingle) step(step uint64) error {
	n := m.w.n
	_, shared, dels, err := m.w.BeginStep(step)
	if err != nil {
		return err
	}
	if shared != nil {
		m.shared = unnum(shared)
	}
	var recs, outbox, reqs []Item
	sink := func(it Item) {
		switch it.Kind {
		case Record:
			recs = append(recs, it)
		case Signal:
			outbox = append(outbox, it)
		case Request:
			reqs = append(reqs, it)
		}
	}
	deliver := func(dels []Item) {
		for _, d := range dels {
			for _, a := range m.agents {
				if (d.Agent < 0 && a.place != d.Peer) || a.place == d.Agent {
					a.hear(d.Name, d.Text, d.Data, n, sink)
				}
			}
		}
	}
	flush := func() {
		m.w.Write(recs)
		recs = recs[:0]
	}
	deliver(dels)
	for _, a := range m.agents {
		a.step(step, m.shared, n, sink)
	}
	for round := uint32(1); ; round++ {
		flush()
		answers, err := m.w.Resolve(round, reqs)
		if err != nil {
			return err
		}
		reqs = reqs[:0]
		if len(answers) == 0 {
			break
		}
		for _, ans := range answers {
			m.agents[ans.Agent].resume(ans.Data, n, sink)
		}
	}
	for _, a := range m.agents {
		a.report(sink)
	}
	for _, a := range m.agents {
		a.payOwed(n, sink)
	}
	flush()
	for len(outbox) > 0 {
		dels, err := m.w.Route(outbox)
		if err != nil {
			return err
		}
		outbox = outbox[:0]
		deliver(dels)
		flush()
	}
	return nil
}

// modelShard is a shard's side: its range of agents.
type modelShard struct {
	n      int32
	agents []*modelAgent // places lo..hi-1
	lo     int32
	step   uint64
	shared uint64
}

func (s *modelShard) Begin(step uint64, t float64, shared []byte) error {
	s.step = step
	if shared != nil {
		s.shared = unnum(shared)
	}
	return nil
}

func (s *modelShard) Deliver(d *Item, out *Out) error {
	for _, a := range s.agents {
		if (d.Agent < 0 && a.place != d.Peer) || a.place == d.Agent {
			a.hear(d.Name, d.Text, d.Data, s.n, func(it Item) { out.Add(d.Order, uint64(a.place), it) })
		}
	}
	return nil
}

func (s *modelShard) Round(round uint32, answers []Item, out *Out) (int, error) {
	var at func(a *modelAgent) emit = func(a *modelAgent) emit {
		return func(it Item) { out.Add(Place(PhaseRound, int64(a.place)), 0, it) }
	}
	if round == 1 {
		for _, a := range s.agents {
			a.step(s.step, s.shared, s.n, at(a))
		}
	} else {
		for _, ans := range answers {
			a := s.agents[ans.Agent-s.lo]
			if a.wait != ans.Name {
				return 0, fmt.Errorf("model: agent %d waits for %q, answered by %q", a.place, a.wait, ans.Name)
			}
			a.resume(ans.Data, s.n, at(a))
		}
	}
	waiting := 0
	for _, a := range s.agents {
		if a.wait != "" {
			waiting++
		}
	}
	return waiting, nil
}

func (s *modelShard) Report(out *Out) error {
	for _, a := range s.agents {
		a.report(func(it Item) { out.Add(Place(PhaseReport, int64(a.place)), 0, it) })
	}
	for _, a := range s.agents {
		a.payOwed(s.n, func(it Item) { out.Add(Place(PhaseOwed, int64(a.place)), 0, it) })
	}
	return nil
}

func (s *modelShard) Save(out *Out) error {
	for _, a := range s.agents {
		out.Add(Place(PhaseSave, int64(a.place)), 0, Item{Kind: AgentSave, Agent: a.place, Data: a.save()})
	}
	return nil
}

func (s *modelShard) Load(saves []Item) error {
	for _, it := range saves {
		if it.Agent < s.lo || int(it.Agent-s.lo) >= len(s.agents) {
			return fmt.Errorf("model: a save of agent %d on the shard of %d..", it.Agent, s.lo)
		}
		s.agents[it.Agent-s.lo].load(it.Data)
	}
	return nil
}

// modelCluster is a conductor and its shards over the local transport,
// each shard on its own goroutine.
type modelCluster struct {
	c      *Conductor
	link   *LocalConductor
	shards []*modelShard
	wg     sync.WaitGroup
	errs   []error
}

func startModel(t *testing.T, w *modelWorld, shards int) *modelCluster {
	t.Helper()
	link, ends := NewLocal(shards)
	layout := Cut(int(w.n), shards)
	mc := &modelCluster{c: &Conductor{Host: w, Link: link, Layout: layout}, link: link, errs: make([]error, shards)}
	for k := range shards {
		lo, hi := layout.Range(k)
		sh := &modelShard{n: w.n, agents: newAgents(lo, hi), lo: lo}
		mc.shards = append(mc.shards, sh)
		mc.wg.Add(1)
		go func() {
			defer mc.wg.Done()
			mc.errs[k] = (&Shard{Host: sh, Link: ends[k]}).Run()
		}()
	}
	t.Cleanup(func() { mc.stop(t) })
	return mc
}

func (mc *modelCluster) stop(t *testing.T) {
	if mc.c == nil {
		return
	}
	if err := mc.c.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	mc.wg.Wait()
	for k, err := range mc.errs {
		if err != nil {
			t.Errorf("shard %d: %v", k, err)
		}
	}
	mc.c = nil
}
