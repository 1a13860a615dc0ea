package game

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// One game across processes (package cluster): a Game is the conductor or
// a shard. Both open the whole config and run its start (the world's init,
// every agent's spawn) as one process does, so that every process begins
// with the same agents; from the first step on, a shard steps only its
// range of agents and the conductor none: it runs the world's tick and the
// schedule, turns their signals into deliveries, routes the signals agents
// send, and writes the trace and the output that the shards' steps made.
//
// What each process writes (trace lines, output lines) goes to a buffer of
// its own and is taken after each agent's part (capture), as a record at
// that agent's place: the conductor writes every record in the single
// run's order, so the trace and the output are the single run's bytes.
//
// This first cut does not run gates or plugins (their calls would cross as
// requests; clusterCheck refuses them), nor saves, a live view or reloads.

// clusterRole is what a Game does in a cluster; nil outside one.
type clusterRole struct {
	conductor bool
	lo, hi    int32 // a shard's places, [lo, hi)
	live      bool  // the start is over: the role's hooks apply

	trace, out bytes.Buffer // what the game writes, until taken

	entries []cluster.Item // the conductor's step start: its lines and deliveries
	enc     *runtime.Encoder
	shared  bool // the conductor sent shared data
}

// holds reports whether the agent at place i steps here.
func (r *clusterRole) holds(i int32) bool { return !r.conductor && i >= r.lo && i < r.hi }

// ErrClusterFeature is a game the cluster cannot run yet.
var ErrClusterFeature = errors.New("game: not in a cluster yet")

// joinCluster makes g the conductor (conductor) or the shard of places
// [lo, hi), before OpenTrace and Start: its trace and output go to its
// role's buffers.
func (g *Game) joinCluster(conductor bool, lo, hi int32) error {
	switch {
	case g.gates != nil:
		return fmt.Errorf("%w: the trees declare gates", ErrClusterFeature)
	case g.plugins != nil:
		return fmt.Errorf("%w: the config starts plugins", ErrClusterFeature)
	case g.workers != nil:
		return fmt.Errorf("%w: workers inside a process of a cluster", ErrClusterFeature)
	}
	r := &clusterRole{conductor: conductor, lo: lo, hi: hi, enc: runtime.NewEncoder()}
	g.cl = r
	g.opts.TraceTo = &r.trace
	g.out.w = &r.out
	g.activeStale = true
	return nil
}

// goLive ends the start: from now on the role's hooks apply. A shard drops
// what its start wrote (the conductor's start wrote the same).
func (r *clusterRole) goLive() {
	r.live = true
}

// take adds what the game wrote since the last take as records at order,
// rank hi, and the signals its agents sent since as Signal items.
func (g *Game) take(out *cluster.Out, order, hi uint64) error {
	r := g.cl
	if err := g.flushTrace(); err != nil {
		return err
	}
	if r.trace.Len() > 0 {
		out.Add(order, hi, cluster.Item{Kind: cluster.Record, Text: "trace", Data: bytes.Clone(r.trace.Bytes())})
		r.trace.Reset()
	}
	if r.out.Len() > 0 {
		out.Add(order, hi, cluster.Item{Kind: cluster.Record, Text: "out", Data: bytes.Clone(r.out.Bytes())})
		r.out.Reset()
	}
	for _, s := range g.outbox {
		data, err := r.encodeValue(s.data)
		if err != nil {
			return err
		}
		out.Add(order, hi, cluster.Item{Kind: cluster.Signal, Agent: s.from.idx, Text: s.to, Name: s.signal, Data: data})
	}
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	return nil
}

// encodeValue is a signal's or the shared data's bytes: the strings the
// save codec keeps apart, then the value.
func (r *clusterRole) encodeValue(v runtime.Value) ([]byte, error) {
	r.enc.Reset()
	r.enc.Value(v)
	body := r.enc.Bytes()
	strs := r.enc.Strings()
	var b []byte
	e := runtime.NewEncoder()
	e.Uvarint(uint64(len(strs)))
	for _, s := range strs {
		e.Blob([]byte(s))
	}
	e.Blob(body)
	b = append(b, e.Bytes()...)
	return b, nil
}

// decodeValue reads what encodeValue wrote.
func decodeValue(b []byte) (runtime.Value, error) {
	if len(b) == 0 {
		return runtime.Value{}, nil
	}
	d := runtime.NewDecoder(b, nil)
	n := d.Count(1)
	strs := make([]string, 0, n)
	for range n {
		strs = append(strs, string(d.Blob()))
	}
	body := d.Blob()
	if err := d.Done(); err != nil {
		return runtime.Value{}, fmt.Errorf("game: a value from the cluster: %w", err)
	}
	vd := runtime.NewDecoder(body, strs)
	v := vd.Value()
	if err := vd.Done(); err != nil {
		return runtime.Value{}, fmt.Errorf("game: a value from the cluster: %w", err)
	}
	return v, nil
}

// clusterDeliver is deliver on the conductor once live: the delivery
// becomes an entry of the step start, after the lines written so far.
func (g *Game) clusterDeliver(ga *gameAgent, signal string, data runtime.Value, from string) {
	r := g.cl
	r.ownLines()
	b, err := r.encodeValue(data)
	if err != nil {
		g.out.repeatable(g.Time(g.step), "world", "error: "+err.Error())
		return
	}
	r.entries = append(r.entries, cluster.Item{Kind: cluster.Delivery, Agent: ga.idx, Peer: -1, Text: from, Name: signal, Data: b})
}

// ownLines adds the conductor's lines written so far to its entries.
func (r *clusterRole) ownLines() {
	if r.trace.Len() > 0 {
		r.entries = append(r.entries, cluster.Item{Kind: cluster.Record, Text: "trace", Data: bytes.Clone(r.trace.Bytes())})
		r.trace.Reset()
	}
	if r.out.Len() > 0 {
		r.entries = append(r.entries, cluster.Item{Kind: cluster.Record, Text: "out", Data: bytes.Clone(r.out.Bytes())})
		r.out.Reset()
	}
}

// conductorHost is the conductor's side of a game (cluster.ConductorHost):
// it writes the records to the run's trace and output.
type conductorHost struct {
	g          *Game
	trace, out io.Writer
}

// newConductor makes g the conductor, writing to trace and out.
func newConductor(g *Game, trace, out io.Writer) (*conductorHost, error) {
	if err := g.joinCluster(true, 0, 0); err != nil {
		return nil, err
	}
	return &conductorHost{g: g, trace: trace, out: out}, nil
}

// start runs the game's start and writes what it wrote.
func (h *conductorHost) start() error {
	g := h.g
	if err := g.OpenTrace(); err != nil {
		return err
	}
	if err := g.Start(); err != nil {
		return err
	}
	g.cl.goLive()
	return h.writeOwn()
}

// writeOwn writes what the conductor wrote itself.
func (h *conductorHost) writeOwn() error {
	g := h.g
	if err := g.flushTrace(); err != nil {
		return err
	}
	if _, err := h.trace.Write(g.cl.trace.Bytes()); err != nil {
		return fmt.Errorf("game: writing the trace: %w", err)
	}
	h.out.Write(g.cl.out.Bytes())
	g.cl.trace.Reset()
	g.cl.out.Reset()
	return nil
}

// finish writes the world's folded repeats, after the shards' (Finish).
func (h *conductorHost) finish() error {
	h.g.out.flushRepeats(nil)
	return h.writeOwn()
}

func (h *conductorHost) BeginStep(step uint64) (float64, []byte, []cluster.Item, error) {
	g := h.g
	r := g.cl
	g.step = step
	t := g.Time(step)
	clear(r.entries)
	r.entries = r.entries[:0]
	if err := g.flushTrace(); err != nil {
		return 0, nil, nil, err
	}
	g.tickWorld(step, t)
	g.deliverSchedule(step, t)
	if err := g.flushTrace(); err != nil {
		return 0, nil, nil, err
	}
	r.ownLines()
	var shared []byte
	if g.lua != nil && g.lua.game != nil {
		if v := g.lua.game.RawGetString("shared"); v != lua.LNil || r.shared {
			d, err := luabind.DataOf(v)
			if err == nil {
				shared, err = r.encodeValue(d)
			}
			if err != nil {
				return 0, nil, nil, fmt.Errorf("game: game.shared for the shards: %w", err)
			}
			if shared == nil {
				shared = []byte{} // nil data, not "unchanged"
			}
			r.shared = true
		}
	}
	return t, shared, r.entries, nil
}

func (h *conductorHost) Write(records []cluster.Item) error {
	for _, rec := range records {
		switch rec.Text {
		case "trace":
			if _, err := h.trace.Write(rec.Data); err != nil {
				return fmt.Errorf("game: writing the trace: %w", err)
			}
		case "out":
			h.out.Write(rec.Data)
		default:
			return fmt.Errorf("game: a record of stream %q", rec.Text)
		}
	}
	return nil
}

func (h *conductorHost) Resolve(uint32, []cluster.Item) ([]cluster.Item, error) { return nil, nil }

func (h *conductorHost) Route(signals []cluster.Item) ([]cluster.Item, error) {
	g := h.g
	dels := make([]cluster.Item, 0, len(signals))
	for _, s := range signals {
		if s.Agent < 0 || int(s.Agent) >= len(g.agents) {
			return nil, fmt.Errorf("game: a signal %q from agent %d, which the game does not have", s.Name, s.Agent)
		}
		d := cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: s.Agent, Text: g.agents[s.Agent].a.ID(), Name: s.Name, Data: s.Data}
		if s.Text != "all" {
			to := g.byID[s.Text]
			if to == nil {
				return nil, fmt.Errorf("game: a signal %q to %q, which the game does not have", s.Name, s.Text)
			}
			d.Agent = to.idx
		}
		dels = append(dels, d)
	}
	return dels, nil
}

// shardHost is a shard's side of a game (cluster.ShardHost).
type shardHost struct {
	g *Game
}

// newShard makes g the shard of places [lo, hi).
func newShard(g *Game, lo, hi int32) (*shardHost, error) {
	if err := g.joinCluster(false, lo, hi); err != nil {
		return nil, err
	}
	return &shardHost{g: g}, nil
}

// start runs the game's start, as the conductor does; what it writes is
// the conductor's to write.
func (h *shardHost) start() error {
	g := h.g
	if err := g.OpenTrace(); err != nil {
		return err
	}
	if err := g.Start(); err != nil {
		return err
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.cl.trace.Reset()
	g.cl.out.Reset()
	g.cl.goLive()
	return nil
}

func (h *shardHost) Begin(step uint64, t float64, shared []byte) error {
	g := h.g
	g.step = step
	if shared == nil || g.lua == nil {
		return nil
	}
	v, err := decodeValue(shared)
	if err != nil {
		return err
	}
	for _, s := range append([]*scripts{g.lua}, g.extraScripts()...) {
		lv := lua.LValue(lua.LNil)
		if len(shared) > 0 {
			lv = s.engine.FromValue(v)
		}
		if err := s.engine.SetShared(lv); err != nil {
			return fmt.Errorf("game: shared data from the conductor: %w", err)
		}
	}
	g.lua.shared = len(shared) > 0
	return nil
}

func (h *shardHost) Deliver(d *cluster.Item, out *cluster.Out) error {
	g := h.g
	s := g.step
	t := g.Time(s)
	data, err := decodeValue(d.Data)
	if err != nil {
		return err
	}
	one := func(ga *gameAgent) error {
		g.deliver(ga, d.Name, data, d.Text, s, t)
		return g.take(out, d.Order, uint64(ga.idx))
	}
	if d.Agent >= 0 {
		if !g.cl.holds(d.Agent) {
			return fmt.Errorf("game: a delivery to agent %d on the shard of agents %d..%d", d.Agent, g.cl.lo, g.cl.hi-1)
		}
		return one(g.agents[d.Agent])
	}
	for _, ga := range g.agents[g.cl.lo:g.cl.hi] {
		if ga.idx != d.Peer {
			if err := one(ga); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *shardHost) Round(round uint32, answers []cluster.Item, out *cluster.Out) (int, error) {
	g := h.g
	if round != 1 || len(answers) > 0 {
		return 0, fmt.Errorf("%w: round %d (gates and plugins)", ErrClusterFeature, round)
	}
	if g.activeStale {
		g.listActive()
	}
	t := g.Time(g.step)
	g.plainOut = g.plainOut[:0]
	for i, a := range g.active {
		st, err := a.StepAt(t)
		g.plainOut = append(g.plainOut, runtime.Outcome{Status: st, Err: err})
		if err := g.take(out, cluster.Place(cluster.PhaseRound, int64(g.activeGA[i].idx)), 0); err != nil {
			return 0, err
		}
	}
	g.outcomes, g.roundsErr, g.picked = g.plainOut, nil, false
	return 0, nil
}

func (h *shardHost) Report(out *cluster.Out) error {
	g := h.g
	s := g.step
	t := g.Time(s)
	for i, ga := range g.activeGA {
		if err := g.reportOne(ga, g.outcomes[i], s, t); err != nil {
			return err
		}
		if err := g.take(out, cluster.Place(cluster.PhaseReport, int64(ga.idx)), 0); err != nil {
			return err
		}
	}
	if !g.handlers {
		return nil
	}
	for _, ga := range g.activeGA { // deliverSent's owed handlers
		if ga.stopped || !ga.a.HandlersOwed() {
			continue
		}
		if err := ga.a.RunHandlers(); err != nil {
			g.handlerFailed(ga, err, s, t)
		}
		g.writeChanges(ga, s, t)
		if err := g.take(out, cluster.Place(cluster.PhaseOwed, int64(ga.idx)), 0); err != nil {
			return err
		}
	}
	return nil
}

func (h *shardHost) Finish(out *cluster.Out) error {
	g := h.g
	for _, ga := range g.agents[g.cl.lo:g.cl.hi] {
		g.out.flushRepeat(ga.a.ID())
		if err := g.take(out, cluster.Place(cluster.PhaseReport, int64(ga.idx)), 0); err != nil {
			return err
		}
	}
	return nil
}

func (h *shardHost) Save(*cluster.Out) error {
	return fmt.Errorf("%w: saves", ErrClusterFeature)
}

func (h *shardHost) Load([]cluster.Item) error {
	return fmt.Errorf("%w: loads", ErrClusterFeature)
}
