// Package model is a model game for the cluster protocol's tests: agents
// whose steps pause at gate takes and plugin calls, send signals to one
// agent or to all, owe handlers for signals to themselves, and whose
// handlers send signals in turn; a world that publishes shared data; a
// schedule; resolvers whose answers depend on the order of their requests.
// Single does what one process does, in config order; World and Shard are
// the conductor's and a shard's hosts over the protocol. Every result
// depends on order: merged in any other than the single run's, the lines
// and states differ.
package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/btrun/btrun/cluster"
)

func mix(v, x uint64) uint64 {
	v ^= x + 0x9e3779b97f4a7c15 + v<<6 + v>>2
	return v * 0xbf58476d1ce4e5b9
}

// Agent is a model agent.
type Agent struct {
	Place int32
	V     uint64
	owed  bool
	paid  uint64 // answers taken this step
	wait  string // the resolver it waits for, "" none
}

// ID is the id of the agent at place p.
func ID(p int32) string { return "a" + strconv.Itoa(int(p)) }

// emit is where an agent's items go: the single run's lists, or a shard's
// Out.
type emit func(cluster.Item)

func record(a *Agent, text string) cluster.Item {
	return cluster.Item{Kind: cluster.Record, Agent: a.Place, Text: "out", Data: []byte(ID(a.Place) + " " + text)}
}

func num(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func unnum(b []byte) uint64 { v, _ := binary.Uvarint(b); return v }

// run runs the agent until its step ends or pauses.
func (a *Agent) run(n int32, out emit) {
	for {
		switch {
		case a.V%3 == 0 && a.paid < 2:
			a.wait = "gate"
		case a.V%4 == 1 && a.paid < 3:
			a.wait = "plugin"
		}
		if a.wait != "" {
			out(cluster.Item{Kind: cluster.Request, Agent: a.Place, Name: a.wait, Data: num(a.V)})
			return
		}
		out(record(a, fmt.Sprintf("ends at %x", a.V%4096)))
		if a.V%5 == 0 {
			to := (a.Place + int32(a.V%7) + 1) % n
			out(cluster.Item{Kind: cluster.Signal, Agent: a.Place, Text: ID(to), Name: "poke", Data: num(a.V % 1000)})
		}
		if a.V%13 == 2 && a.Place%50 == 0 { // one in fifty shouts: what all hear grows as agents²
			out(cluster.Item{Kind: cluster.Signal, Agent: a.Place, Text: "all", Name: "shout", Data: num(a.V%1000*3 + 1)})
		}
		a.owed = a.owed || a.V%11 == 0
		return
	}
}

func (a *Agent) step(step uint64, shared uint64, n int32, out emit) {
	a.paid = 0
	a.V = mix(a.V, step+shared)
	out(record(a, fmt.Sprintf("steps %d", step)))
	a.run(n, out)
}

func (a *Agent) resume(answer []byte, n int32, out emit) {
	a.wait = ""
	a.paid++
	a.V = mix(a.V, unnum(answer))
	a.run(n, out)
}

// hear is a delivery's effect: a line and, for data not too far down a
// chain, a signal on.
func (a *Agent) hear(signal, from string, data []byte, n int32, out emit) {
	d := unnum(data)
	a.V = mix(a.V, d)
	out(record(a, fmt.Sprintf("hears %s from %s (%d)", signal, from, d)))
	if d%3 == 0 && d < 3000 {
		out(cluster.Item{Kind: cluster.Signal, Agent: a.Place, Text: ID((a.Place + 1) % n), Name: "relay", Data: num(d + 1000)})
	}
}

func (a *Agent) report(out emit) { out(record(a, fmt.Sprintf("state %x", a.V))) }

func (a *Agent) payOwed(n int32, out emit) {
	if !a.owed {
		return
	}
	a.owed = false
	a.V = mix(a.V, 11)
	out(record(a, "pays an owed handler"))
	if a.V%2 == 0 {
		out(cluster.Item{Kind: cluster.Signal, Agent: a.Place, Text: ID((a.Place + 2) % n), Name: "owed", Data: num(a.V % 999)})
	}
}

func (a *Agent) save() []byte {
	b := num(a.V)
	if a.owed {
		return append(b, 1)
	}
	return append(b, 0)
}

func (a *Agent) load(b []byte) error {
	v, k := binary.Uvarint(b)
	if k <= 0 || k != len(b)-1 {
		return fmt.Errorf("model: agent %d: a save of %d bytes", a.Place, len(b))
	}
	a.V, a.owed = v, b[k] == 1
	return nil
}

// World is the conductor's side: the world, the schedule, the gate
// (two takes a step, first come in config order) and a plugin whose answer
// depends on each call's place in its batch, and the lines written.
type World struct {
	N      int32
	taken  int
	Calls  uint64
	Shared uint64
	Loaded bool // shared goes to the shards again
	Lines  bytes.Buffer
}

func (w *World) BeginStep(step uint64) (float64, []byte, []cluster.Item, error) {
	w.taken = 0
	var shared []byte
	if step%3 == 0 {
		w.Shared = step * 7
	}
	if step%3 == 0 || w.Loaded {
		shared, w.Loaded = num(w.Shared), false
	}
	var dels []cluster.Item
	if step%5 == 0 {
		dels = append(dels, cluster.Item{Kind: cluster.Delivery, Agent: int32(step) % w.N, Peer: -1, Text: "schedule", Name: "alarm", Data: num(step)})
		dels = append(dels, cluster.Item{Kind: cluster.Record, Text: "out", Data: []byte(fmt.Sprintf("world: step %d sounds the alarm", step))})
		dels = append(dels, cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: -1, Text: "schedule", Name: "dawn", Data: num(step * 3)})
	}
	return float64(step) / 10, shared, dels, nil
}

func (w *World) Write(records []cluster.Item) error {
	for _, r := range records {
		w.Lines.Write(r.Data)
		w.Lines.WriteByte('\n')
	}
	return nil
}

func (w *World) Resolve(round uint32, reqs []cluster.Item) ([]cluster.Item, error) {
	var answers []cluster.Item
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
			w.Calls++
			ans = mix(unnum(r.Data), batch*1000+w.Calls+uint64(round))
		default:
			return nil, fmt.Errorf("model: a request to %q", r.Name)
		}
		answers = append(answers, cluster.Item{Kind: cluster.Answer, Agent: r.Agent, Name: r.Name, Data: num(ans)})
	}
	fmt.Fprintf(&w.Lines, "round %d: %d requests\n", round, len(reqs))
	return answers, nil
}

func (w *World) Route(signals []cluster.Item) ([]cluster.Item, error) {
	dels := make([]cluster.Item, 0, len(signals))
	for _, s := range signals {
		d := cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: s.Agent, Text: ID(s.Agent), Name: s.Name, Data: s.Data}
		if s.Text != "all" {
			num, ok := strings.CutPrefix(s.Text, "a")
			p, err := strconv.Atoi(num)
			if !ok || err != nil || p < 0 || p >= int(w.N) {
				return nil, fmt.Errorf("model: no agent %q", s.Text)
			}
			d.Agent = int32(p)
		}
		dels = append(dels, d)
	}
	return dels, nil
}

// Single is the single run: one process, config order, rounds.
type Single struct {
	W      *World
	Agents []*Agent
	shared uint64
}

func NewAgents(lo, hi int32) []*Agent {
	var out []*Agent
	for p := lo; p < hi; p++ {
		out = append(out, &Agent{Place: p, V: uint64(p) * 977})
	}
	return out
}

func (m *Single) Step(step uint64) error {
	n := m.W.N
	_, shared, dels, err := m.W.BeginStep(step)
	if err != nil {
		return err
	}
	if shared != nil {
		m.shared = unnum(shared)
	}
	var recs, outbox, reqs []cluster.Item
	sink := func(it cluster.Item) {
		switch it.Kind {
		case cluster.Record:
			recs = append(recs, it)
		case cluster.Signal:
			outbox = append(outbox, it)
		case cluster.Request:
			reqs = append(reqs, it)
		}
	}
	deliver := func(dels []cluster.Item) {
		for _, d := range dels {
			if d.Kind == cluster.Record { // the world's own line, in its place
				recs = append(recs, d)
				continue
			}
			if d.Agent >= 0 {
				m.Agents[d.Agent].hear(d.Name, d.Text, d.Data, n, sink)
				continue
			}
			for _, a := range m.Agents {
				if a.Place != d.Peer {
					a.hear(d.Name, d.Text, d.Data, n, sink)
				}
			}
		}
	}
	flush := func() {
		m.W.Write(recs)
		recs = recs[:0]
	}
	deliver(dels)
	for _, a := range m.Agents {
		a.step(step, m.shared, n, sink)
	}
	for round := uint32(1); ; round++ {
		flush()
		answers, err := m.W.Resolve(round, reqs)
		if err != nil {
			return err
		}
		reqs = reqs[:0]
		if len(answers) == 0 {
			break
		}
		for _, ans := range answers {
			m.Agents[ans.Agent].resume(ans.Data, n, sink)
		}
	}
	for _, a := range m.Agents {
		a.report(sink)
	}
	for _, a := range m.Agents {
		a.payOwed(n, sink)
	}
	flush()
	for len(outbox) > 0 {
		dels, err := m.W.Route(outbox)
		if err != nil {
			return err
		}
		outbox = outbox[:0]
		deliver(dels)
		flush()
	}
	return nil
}

// Shard is a shard's side: its range of agents.
type Shard struct {
	N      int32
	Agents []*Agent // places Lo..
	Lo     int32
	step   uint64
	shared uint64
}

func (s *Shard) Begin(step uint64, t float64, shared []byte) error {
	s.step = step
	if shared != nil {
		s.shared = unnum(shared)
	}
	return nil
}

func (s *Shard) Deliver(d *cluster.Item, out *cluster.Out) error {
	hear := func(a *Agent) {
		a.hear(d.Name, d.Text, d.Data, s.N, func(it cluster.Item) { out.Add(d.Order, uint64(a.Place), it) })
	}
	if d.Agent >= 0 {
		if d.Agent < s.Lo || int(d.Agent-s.Lo) >= len(s.Agents) {
			return fmt.Errorf("model: a delivery to agent %d on the shard of %d..", d.Agent, s.Lo)
		}
		hear(s.Agents[d.Agent-s.Lo])
		return nil
	}
	for _, a := range s.Agents {
		if a.Place != d.Peer {
			hear(a)
		}
	}
	return nil
}

func (s *Shard) Round(round uint32, answers []cluster.Item, out *cluster.Out) (int, error) {
	var at func(a *Agent) emit = func(a *Agent) emit {
		return func(it cluster.Item) { out.Add(cluster.Place(cluster.PhaseRound, int64(a.Place)), 0, it) }
	}
	if round == 1 {
		for _, a := range s.Agents {
			a.step(s.step, s.shared, s.N, at(a))
		}
	} else {
		for _, ans := range answers {
			if ans.Agent < s.Lo || int(ans.Agent-s.Lo) >= len(s.Agents) {
				return 0, fmt.Errorf("model: an answer to agent %d on the shard of %d..", ans.Agent, s.Lo)
			}
			a := s.Agents[ans.Agent-s.Lo]
			if a.wait != ans.Name {
				return 0, fmt.Errorf("model: agent %d waits for %q, answered by %q", a.Place, a.wait, ans.Name)
			}
			a.resume(ans.Data, s.N, at(a))
		}
	}
	waiting := 0
	for _, a := range s.Agents {
		if a.wait != "" {
			waiting++
		}
	}
	return waiting, nil
}

func (s *Shard) Report(_ []cluster.Item, out *cluster.Out) error {
	for _, a := range s.Agents {
		a.report(func(it cluster.Item) { out.Add(cluster.Place(cluster.PhaseReport, int64(a.Place)), 0, it) })
	}
	for _, a := range s.Agents {
		a.payOwed(s.N, func(it cluster.Item) { out.Add(cluster.Place(cluster.PhaseOwed, int64(a.Place)), 0, it) })
	}
	return nil
}

// Finish: the model's agents keep nothing for the end.
func (s *Shard) Finish(uint32, *cluster.Out) error { return nil }

func (s *Shard) Save(out *cluster.Out) error {
	for _, a := range s.Agents {
		out.Add(cluster.Place(cluster.PhaseSave, int64(a.Place)), 0, cluster.Item{Kind: cluster.AgentSave, Agent: a.Place, Data: a.save()})
	}
	return nil
}

func (s *Shard) Load(saves []cluster.Item) error {
	for _, it := range saves {
		if it.Agent < s.Lo || int(it.Agent-s.Lo) >= len(s.Agents) {
			return fmt.Errorf("model: a save of agent %d on the shard of %d..", it.Agent, s.Lo)
		}
		if err := s.Agents[it.Agent-s.Lo].load(it.Data); err != nil {
			return err
		}
	}
	return nil
}

// States prints agents' states, to compare runs.
func States(agents []*Agent) string {
	var b bytes.Buffer
	for _, a := range agents {
		fmt.Fprintf(&b, "%d:%x:%v ", a.Place, a.V, a.owed)
	}
	return b.String()
}

// NewSingle is the single run of n agents.
func NewSingle(n int32) *Single { return &Single{W: &World{N: n}, Agents: NewAgents(0, n)} }

// Cluster is a conductor over World and its shards, each serving its Shard
// host on its own goroutine, over any transport.
type Cluster struct {
	C      *cluster.Conductor
	Shards []*Shard
	wg     sync.WaitGroup
	errs   []error
}

// Start starts the shards' goroutines over links (shard k's end is
// shards[k]), their agents cut from w.N by cluster.Cut.
func Start(w *World, link cluster.ConductorLink, shards []cluster.ShardLink) *Cluster {
	layout := cluster.Cut(int(w.N), len(shards))
	mc := &Cluster{C: &cluster.Conductor{Host: w, Link: link, Layout: layout}, errs: make([]error, len(shards))}
	for k := range shards {
		lo, hi := layout.Range(k)
		sh := &Shard{N: w.N, Agents: NewAgents(lo, hi), Lo: lo}
		mc.Shards = append(mc.Shards, sh)
		mc.wg.Add(1)
		go func() {
			defer mc.wg.Done()
			mc.errs[k] = (&cluster.Shard{Host: sh, Link: shards[k]}).Run()
		}()
	}
	return mc
}

// Steps runs steps from .. to.
func (mc *Cluster) Steps(from, to uint64) error {
	for s := from; s <= to; s++ {
		if err := mc.C.Step(s); err != nil {
			return err
		}
	}
	return nil
}

// Stop stops the shards and waits for them; their errors are joined.
func (mc *Cluster) Stop() error {
	if mc.C == nil {
		return nil
	}
	errs := []error{mc.C.Stop()}
	mc.wg.Wait()
	mc.C = nil
	return errors.Join(append(errs, mc.errs...)...)
}

// States are the shards' agents' states (States).
func (mc *Cluster) States() string {
	var all []*Agent
	for _, s := range mc.Shards {
		all = append(all, s.Agents...)
	}
	return States(all)
}

// Run is n agents' single run for steps steps: its lines and states.
func Run(n int32, steps uint64) (lines, states string, err error) {
	m := NewSingle(n)
	for s := uint64(1); s <= steps; s++ {
		if err := m.Step(s); err != nil {
			return "", "", err
		}
	}
	return m.W.Lines.String(), States(m.Agents), nil
}

// FirstDiff says where two runs' lines part.
func FirstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}
