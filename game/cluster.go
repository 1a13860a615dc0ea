package game

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// One game across processes (package cluster): a Game is the conductor or
// a shard. Every process lists every agent of the config (the directory:
// id, tree, place). A shard's game makes only its range of agents
// (Options.Shard, cluster_range.go) and runs its part of the start (the
// world's init, its agents' spawns), keeping what it writes by place; the
// conductor's game makes none (Options.Conductor, cluster_nocopy.go), runs
// the world's init and writes the start from its lines and the shards'
// (cluster_nocopy_start.go). From the first step on, a shard steps its
// agents: the conductor runs the world's tick and the schedule, turns
// their signals into deliveries, routes the signals agents send, and
// writes the trace and the output that the shards' steps made. A save
// joins the shards' parts (cluster_saveparts.go); a load cuts the file
// into each agent's save as it reads it and gives each shard its agents'
// saves and the gates' state (cluster_nocopy_load.go, cluster_range.go).
// With a live view (cluster_debug.go) the conductor makes a copy of every
// agent instead, runs the whole start as one process does, gathers the
// shards' saves into its copies to save (takeSaves) and loads the save
// file into them.
//
// What each process writes (trace lines, output lines) goes to a buffer of
// its own and is taken after each agent's part (capture), as a record at
// that agent's place: the conductor writes every record in the single
// run's order, so the trace and the output are the single run's bytes.
//
// Gates: every process keeps a copy of the gates (agents' conditions read
// them), and every copy ends each round from every agent's part of it, in
// config order (runtime.Gates.EndRoundParts; a shard names the agents it
// does not hold by place): the same decisions everywhere. A round's parts cross as one request per shard and one
// answer per shard (gateAnswer). A plugin marked shardable runs on each
// shard for its agents; any other runs on the conductor, one batch of every
// shard's calls per round (cluster_plugins.go). A shard with
// workers runs each round's parallel part on them (runtime.Workers by
// hand) and takes what they kept in config order, as one process's round
// end does. A live view: cluster_debug.go. Agents added and removed
// between steps change every process's list, and only their shard makes
// or closes them (cluster_inputs_agents.go). Reloads: cluster_reload.go.
// Not yet: removing an agent of a game with gates.

// clusterRole is what a Game does in a cluster; nil outside one.
type clusterRole struct {
	conductor bool
	lo, hi    int32 // a shard's places, [lo, hi)
	live      bool  // the start is over: the role's hooks apply

	trace, out bytes.Buffer // what the game writes, until taken
	outcome    []byte       // an outcome record's scratch (cluster_outcome.go)

	entries []cluster.Item // the conductor's step start: its lines and deliveries
	enc     *savecodec.Encoder
	shared  bool // the conductor sent shared data

	debug *clusterDebug // the conductor's live view (cluster_debug.go)
	relay *relay        // a shard's relay to it

	start startRecords // what the start wrote, by place (cluster_nocopy_start.go)

	refuse clusterRefuse // the world's signals, checked and delivered at once (cluster_refuse.go)
	init   clusterInit   // the world init's signals, as the tick's (cluster_init49.go)

}

// holds reports whether the agent at place i steps here.
func (r *clusterRole) holds(i int32) bool { return !r.conductor && i >= r.lo && i < r.hi }

// ErrClusterFeature is a game the cluster cannot run yet.
var ErrClusterFeature = errors.New("game: not in a cluster yet")

// joinCluster makes g the conductor (conductor) or the shard of places
// [lo, hi), before OpenTrace and Start: its trace and output go to its
// role's buffers.
func (g *Game) joinCluster(conductor bool, lo, hi int32, trace bool) error {
	r := &clusterRole{conductor: conductor, lo: lo, hi: hi, enc: savecodec.NewEncoder()}
	r.start.on = !conductor || g.held != nil // a conductor with copies runs the whole start
	g.cl = r
	g.opts.Trace, g.opts.TraceTo = "", nil
	if trace {
		g.opts.TraceTo = &r.trace
	}
	g.out.w = &r.out
	g.activeStale = true
	return nil
}

// goLive ends the start, which every process runs as one process does:
// from now on the role's hooks apply.
func (r *clusterRole) goLive() {
	r.live = true
}

// take adds what the game wrote since the last take as records at order,
// rank hi, and the signals its agents sent since as Signal items.
func (g *Game) take(out *cluster.Out, order, hi uint64) error {
	if r := g.cl; len(g.outbox) > 0 || len(r.trace.Bytes()) > 0 || len(r.out.Bytes()) > 0 || g.trace != nil || r.relay != nil {
		return g.takeSome(out, order, hi)
	}
	return nil // nothing since the last take: a shard takes after every agent's part, and most write nothing
}

func (g *Game) takeSome(out *cluster.Out, order, hi uint64) error {
	r := g.cl
	if err := g.flushTrace(); err != nil {
		return err
	}
	if r.trace.Len() > 0 {
		out.Add(order, hi, cluster.Item{Kind: cluster.Record, Text: "trace", Data: out.Keep(r.trace.Bytes())})
		r.trace.Reset()
	}
	if r.out.Len() > 0 {
		out.Add(order, hi, cluster.Item{Kind: cluster.Record, Text: "out", Data: out.Keep(r.out.Bytes())})
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
	g.takeNotes(out, order, hi) // cluster_debug.go
	return nil
}

// encodeValue is a signal's or the shared data's bytes: the strings the
// save codec keeps apart, then the value.
func (r *clusterRole) encodeValue(v runtime.Value) ([]byte, error) {
	r.enc.Reset()
	runtime.EncodeValue(r.enc, v)
	body := r.enc.Bytes()
	strs := r.enc.Strings()
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(strs)))
	for _, s := range strs {
		e.Blob([]byte(s))
	}
	e.Blob(body)
	return bytes.Clone(e.Bytes()), nil
}

// decodeValue reads what encodeValue wrote.
func decodeValue(b []byte) (runtime.Value, error) {
	if len(b) == 0 {
		return runtime.Value{}, nil
	}
	d := savecodec.NewDecoder(b, nil)
	n := d.Count(1)
	strs := make([]string, 0, n)
	for range n {
		strs = append(strs, string(d.Blob()))
	}
	body := d.Blob()
	if err := d.Done(); err != nil {
		return runtime.Value{}, fmt.Errorf("game: a value from the cluster: %w", err)
	}
	vd := savecodec.NewDecoder(body, strs)
	v := runtime.DecodeValue(vd)
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
	gateParts  uint64 // the agents' gate parts resolved so far
}

// newConductor makes g the conductor, writing to trace and out.
func newConductor(g *Game, trace, out io.Writer) (*conductorHost, error) {
	if err := g.joinCluster(true, 0, 0, trace != nil); err != nil {
		return nil, err
	}
	return &conductorHost{g: g, trace: trace, out: out}, nil
}

// start runs the game's start and writes what it wrote: with copies of the
// agents, the whole start here (what the shards kept of theirs is
// dropped); else the world's part here and the agents' on their shards
// (cluster_nocopy_start.go).
func (h *conductorHost) start(c *cluster.Conductor) error {
	h.using(c) // cluster_refuse.go
	if !h.copies() {
		return h.startNoCopy(c)
	}
	g := h.g
	if err := g.OpenTrace(); err != nil {
		return err
	}
	if err := g.Start(); err != nil {
		return err
	}
	g.cl.goLive()
	if err := h.writeOwn(); err != nil {
		return err
	}
	if err := c.StartLines(nil, true); err != nil {
		return err
	}
	return h.carrySpawned(c) // cluster_init49_spawn.go
}

// writeOwn writes what the conductor wrote itself.
func (h *conductorHost) writeOwn() error {
	g := h.g
	if err := g.flushTrace(); err != nil {
		return err
	}
	if h.trace != nil {
		if _, err := h.trace.Write(g.cl.trace.Bytes()); err != nil {
			return fmt.Errorf("game: writing the trace: %w", err)
		}
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
	stepMark(step) // cluster_stepmark.go
	t := g.Time(step)
	clear(r.entries)
	r.entries = r.entries[:0]
	if err := g.flushTrace(); err != nil {
		return 0, nil, nil, err
	}
	if g.plugins != nil {
		g.plugins.Advance(step) // the plugins run here (cluster_plugins.go): restarts due, as one process
	}
	r.beginTick() // cluster_refuse.go
	g.tickWorld(step, t)
	g.deliverSchedule(step, t)
	if err := g.flushTrace(); err != nil {
		return 0, nil, nil, err
	}
	r.ownLines()
	if err := r.tickDone(); err != nil { // cluster_refuse.go
		return 0, nil, nil, err
	}
	var shared []byte
	if g.lua != nil && g.lua.game != nil {
		if g.lua.game.RawGetString("shared") != lua.LNil || r.shared {
			var err error
			if shared, err = g.sharedBytes(); err != nil { // shared_save.go: the save's encoding, which keeps what bt.shared keeps
				return 0, nil, nil, fmt.Errorf("game: game.shared for the shards: %w", err)
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
			if h.trace == nil {
				return fmt.Errorf("game: a shard writes a trace, and the run has none")
			}
			if _, err := h.trace.Write(rec.Data); err != nil {
				return fmt.Errorf("game: writing the trace: %w", err)
			}
		case "out":
			h.out.Write(rec.Data)
		case outcomeStream:
			if err := h.g.applyOutcomes(rec.Data); err != nil { // cluster_outcome.go
				return err
			}
		default:
			return fmt.Errorf("game: a record of stream %q", rec.Text)
		}
	}
	return nil
}

// resolveGates ends a round of the conductor's copy of the gates, and gives
// every shard every part, in config order, to end the round of its own:
// all in one answer (gateAnswer), so that a round's gate traffic is one
// item to each shard however many agents take or release a gate. (Resolve,
// cluster_plugins.go, takes the plugins' calls out first.)
func (h *conductorHost) resolveGates(reqs []cluster.Item) ([]cluster.Item, error) {
	g := h.g
	if len(reqs) == 0 {
		return nil, nil
	}
	if g.gates == nil {
		return nil, fmt.Errorf("game: a request to %q in a game without gates", reqs[0].Name)
	}
	var peers []int32
	var parts []runtime.GatePart
	for _, r := range reqs {
		if r.Name != gateAnswer {
			return nil, fmt.Errorf("game: a request to %q from agent %d", r.Name, r.Agent)
		}
		pe, pa, err := decodeGateParts(r.Data)
		if err != nil {
			return nil, err
		}
		for _, p := range pe {
			if p < 0 || int(p) >= len(g.agents) {
				return nil, fmt.Errorf("game: a gate part of agent %d, which the game does not have", p)
			}
			if len(peers) > 0 && p <= peers[len(peers)-1] {
				return nil, fmt.Errorf("game: a gate part of agent %d after agent %d's: not in config order", p, peers[len(peers)-1])
			}
			peers = append(peers, p)
		}
		parts = append(parts, pa...)
	}
	h.gateParts += uint64(len(peers))
	agents := make([]*runtime.Agent, len(peers))
	own := make([]bool, len(peers))
	for i, p := range peers {
		agents[i] = g.agents[p].a
	}
	if err := g.gates.EndRoundParts(agents, own, peers, parts); err != nil {
		return nil, fmt.Errorf("game: %w", err)
	}
	return []cluster.Item{{Kind: cluster.Answer, Agent: -1, Peer: -1, Name: gateAnswer, Data: encodeGateParts(peers, parts)}}, nil
}

// gateAnswer names the request that carries a shard's agents' gate parts
// of a round, and the answer that carries every agent's, in config order.
const gateAnswer = "gates"

func (h *conductorHost) Route(signals []cluster.Item) ([]cluster.Item, error) {
	g := h.g
	dels := make([]cluster.Item, 0, len(signals))
	for _, s := range signals {
		if s.Agent < 0 || int(s.Agent) >= len(g.agents) {
			return nil, fmt.Errorf("game: a signal %q from agent %d, which the game does not have", s.Name, s.Agent)
		}
		d := cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: s.Agent, Text: g.agentID(g.agents[s.Agent]), Name: s.Name, Data: s.Data}
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
	g            *Game
	ran, waiting []int32 // indices into g.active: the round's agents, those that paused
	round        []*runtime.Agent
	files        cluster.FileStore // a reload's files (cluster_reload.go)
	reported     int               // the agents whose steps the last Report reported (cluster_coord.go)
}

// newShard makes g, opened for that shard (Options.Shard), the shard of
// places [lo, hi).
func newShard(g *Game, lo, hi int32, trace bool) (*shardHost, error) {
	if g.held == nil || g.held.lo != lo || g.held.hi != hi {
		return nil, fmt.Errorf("game: a shard of agents %d..%d needs a game opened for them (Options.Shard)", lo, hi-1)
	}
	if err := g.joinCluster(false, lo, hi, trace); err != nil {
		return nil, err
	}
	if err := g.relayPlugins(); err != nil { // cluster_plugins.go
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
	if g.workers != nil {
		// What the start writes of every agent is kept by place
		// (cluster_nocopy_start.go), through worker 0's writers, as a
		// round's steps are (workersRound).
		w0 := g.workers[0].env
		for _, w := range g.workers[1:] {
			w.env.Observer, w.env.Changes, w.env.Gates, w.env.Explain = w0.Observer, w0.Changes, w0.Gates, w0.Explain
		}
	}
	if g.cl.init.wait { // cluster_init49.go: the start waits for the conductor's init
		return h.waitStart()
	}
	return h.run()
}

// run runs the game's start; what it writes is the conductor's to write.
func (h *shardHost) run() error {
	g := h.g
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
	g.cl.refuse.early = false // cluster_refuse.go: the world's deliveries began the step, or none
	g.step = step
	stepMark(step)     // cluster_stepmark.go
	g.syncWorkerEnvs() // workers.go: before this step's deliveries reach agents
	if g.plugins != nil {
		g.plugins.Advance(step) // restarts the plugins whose restart is due
	}
	if shared == nil {
		return nil
	}
	return g.takeShared(shared) // cluster_shared.go
}

func (h *shardHost) Deliver(d *cluster.Item, out *cluster.Out) error {
	g := h.g
	h.worldAhead(d) // cluster_refuse.go: the world's signals come during the tick
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

// Round steps the shard's agents (round 1) or resumes those that paused
// with the round's answers, then ends its part of the round: the plugins'
// batches of its agents' calls, and their gate parts as requests.
func (h *shardHost) Round(round uint32, answers []cluster.Item, out *cluster.Out) (int, error) {
	g := h.g
	t := g.Time(g.step)
	if round == 1 {
		if g.activeStale {
			g.listActive()
		}
		g.plainOut = append(g.plainOut[:0], make([]runtime.Outcome, len(g.active))...)
		h.ran = h.ran[:0]
		for i := range g.active {
			h.ran = append(h.ran, int32(i))
		}
	} else {
		answers, err := h.relayAnswers(answers) // cluster_plugins.go: the plugins' replies
		if err != nil {
			return 0, err
		}
		if err := h.endGates(answers); err != nil {
			return 0, err
		}
		h.ran, h.waiting = append(h.ran[:0], h.waiting...), h.waiting[:0]
	}
	h.waiting = h.waiting[:0]
	if g.workers != nil {
		return h.workersRound(round, t, out)
	}
	for _, i := range h.ran {
		a := g.active[i]
		var st runtime.Status
		var err error
		if round == 1 {
			st, err = a.StepAt(t)
		} else {
			var ok bool
			if st, err, ok = h.resume(a); !ok {
				return 0, fmt.Errorf("game: agent %s is paused at a call that nothing answers", a.ID())
			}
		}
		g.plainOut[i] = runtime.Outcome{Status: st, Err: err}
		if st == runtime.Paused {
			h.waiting = append(h.waiting, i)
		}
		if err := g.take(out, cluster.Place(cluster.PhaseRound, int64(g.activeGA[i].idx)), 0); err != nil {
			return 0, err
		}
	}
	g.outcomes, g.roundsErr, g.picked = g.plainOut, nil, false
	h.round = h.round[:0]
	for _, i := range h.ran {
		h.round = append(h.round, g.active[i])
	}
	return h.endRound(out, len(h.waiting))
}

// endRound ends the shard's part of a round: the plugins' batches of its
// agents' calls, and their gate parts as requests. waiting is the number
// of its agents that paused.
func (h *shardHost) endRound(out *cluster.Out, waiting int) (int, error) {
	g := h.g
	if g.plugins != nil {
		if err := g.plugins.EndRound(h.round); err != nil {
			return 0, err
		}
		if err := h.relayUp(out); err != nil { // cluster_plugins.go
			return 0, err
		}
	}
	if g.gates != nil {
		// The round's gate parts of the shard's agents cross as one request,
		// in config order, at the place of the first: the shards' ranges
		// are contiguous, so the conductor's merge of the shards' requests
		// keeps every part in config order.
		var peers []int32
		var parts []runtime.GatePart
		for _, a := range h.round {
			if !g.gates.Wants(a) { // most agents: no release asked, no take waited at (cluster_coord.go)
				continue
			}
			if p, ok := a.GatePart(g.gates); ok {
				peers, parts = append(peers, g.byPtr[a].idx), append(parts, p)
			}
		}
		if len(peers) > 0 {
			out.Add(cluster.Place(cluster.PhaseRound, int64(peers[0])), 1,
				cluster.Item{Kind: cluster.Request, Agent: peers[0], Name: gateAnswer, Data: encodeGateParts(peers, parts)})
		}
	}
	return waiting, nil
}

// workersRound runs a round's parallel part on the shard's workers, then
// takes what their steps kept (signals, log lines, prints), by agent in
// config order: the records and signals of each agent's place.
func (h *shardHost) workersRound(round uint32, t float64, out *cluster.Out) (int, error) {
	g := h.g
	if round == 1 {
		w0 := g.workers[0].env
		for _, w := range g.workers[1:] {
			w.env.Observer, w.env.Changes, w.env.Gates, w.env.Explain = w0.Observer, w0.Changes, w0.Gates, w0.Explain
		}
		g.par.Of, g.par.Serial, g.par.Ended = g.activeOf, false, nil
		if err := g.par.Begin(g.active, t); err != nil {
			return 0, err
		}
	}
	g.parallel = true
	waiting, err := g.par.NextRound()
	g.parallel = false
	if err != nil {
		return 0, err
	}
	g.mergeOut, g.mergeLines = g.mergeOut[:0], g.mergeLines[:0]
	for _, w := range g.workers {
		g.mergeOut = append(g.mergeOut, w.outbox...)
		g.mergeLines = append(g.mergeLines, w.lines...)
		clear(w.outbox)
		w.outbox = w.outbox[:0]
		clear(w.lines)
		w.lines = w.lines[:0]
	}
	slices.SortStableFunc(g.mergeOut, func(a, b tagged) int { return cmp.Compare(a.idx, b.idx) })
	slices.SortStableFunc(g.mergeLines, func(a, b taggedLine) int { return cmp.Compare(a.idx, b.idx) })
	sig, line := 0, 0
	for sig < len(g.mergeOut) || line < len(g.mergeLines) {
		idx := int32(math.MaxInt32)
		if sig < len(g.mergeOut) {
			idx = g.mergeOut[sig].idx
		}
		if line < len(g.mergeLines) {
			idx = min(idx, g.mergeLines[line].idx)
		}
		for ; sig < len(g.mergeOut) && g.mergeOut[sig].idx == idx; sig++ {
			g.outbox = append(g.outbox, g.mergeOut[sig].r)
		}
		for ; line < len(g.mergeLines) && g.mergeLines[line].idx == idx; line++ {
			if l := g.mergeLines[line]; l.print {
				quietable{g}.Write([]byte(l.text))
			} else {
				g.log(l.a, l.label, l.text)
			}
		}
		if err := g.take(out, cluster.Place(cluster.PhaseRound, int64(idx)), 0); err != nil {
			return 0, err
		}
	}
	clear(g.mergeOut)
	clear(g.mergeLines)
	g.outcomes, g.roundsErr, g.picked = g.par.Outcomes(), nil, false
	h.round = append(h.round[:0], g.par.RoundAgents()...)
	return h.endRound(out, waiting)
}

// resume resumes a paused agent with the resolver that answers it.
func (h *shardHost) resume(a *runtime.Agent) (runtime.Status, error, bool) {
	g := h.g
	if g.gates != nil {
		if st, err, ok := g.gates.Continue(a); ok {
			return st, err, true
		}
	}
	if g.plugins != nil {
		return g.plugins.Continue(a)
	}
	return 0, nil, false
}

// endGates ends the round of the shard's copy of the gates from every
// agent's part, in config order: its own agents' and the others'.
func (h *shardHost) endGates(answers []cluster.Item) error {
	g := h.g
	if len(answers) == 0 {
		return nil
	}
	if g.gates == nil {
		return fmt.Errorf("game: an answer of %q in a game without gates", answers[0].Name)
	}
	if len(answers) != 1 || answers[0].Name != gateAnswer {
		return fmt.Errorf("game: %d answers (the first %q) where one %q carries the round's gate parts", len(answers), answers[0].Name, gateAnswer)
	}
	peers, parts, err := decodeGateParts(answers[0].Data)
	if err != nil {
		return err
	}
	agents := make([]*runtime.Agent, len(peers))
	own := make([]bool, len(peers))
	for i, peer := range peers {
		if peer < 0 || int(peer) >= len(g.agents) {
			return fmt.Errorf("game: a gate part for agent %d", peer)
		}
		agents[i], own[i] = g.agents[peer].a, g.cl.holds(peer) // nil for an agent another shard holds
	}
	if err := g.gates.EndRoundParts(agents, own, peers, parts); err != nil {
		return fmt.Errorf("game: %w", err)
	}
	return nil
}

// appendGatePart writes a gate part (encodeGateParts).
func appendGatePart(e *savecodec.Encoder, p runtime.GatePart) {
	e.Uvarint(uint64(len(p.Releases)))
	for _, r := range p.Releases {
		e.Varint(int64(r.Gate))
		e.Uvarint(r.Step)
		e.Float(r.Time)
	}
	e.Varint(int64(p.Take))
	e.Uvarint(p.Step)
	e.Float(p.Time)
}

func readGatePart(d *savecodec.Decoder) runtime.GatePart {
	var p runtime.GatePart
	n := d.Count(3)
	for range n {
		p.Releases = append(p.Releases, runtime.GateRelease{Gate: int32(d.Varint()), Step: d.Uvarint(), Time: d.Float()})
	}
	p.Take = int32(d.Varint())
	p.Step = d.Uvarint()
	p.Time = d.Float()
	return p
}

// encodeGateParts is a round's gate parts with their agents' places, in
// config order: a shard's request, or the one answer every shard gets
// (gateAnswer).
func encodeGateParts(peers []int32, parts []runtime.GatePart) []byte {
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(parts)))
	for i, p := range parts {
		e.Varint(int64(peers[i]))
		appendGatePart(e, p)
	}
	return bytes.Clone(e.Bytes())
}

func decodeGateParts(b []byte) ([]int32, []runtime.GatePart, error) {
	d := savecodec.NewDecoder(b, nil)
	n := d.Count(4) // a place, a count, a take and a step at least
	peers := make([]int32, 0, n)
	parts := make([]runtime.GatePart, 0, n)
	for range n {
		peers = append(peers, int32(d.Varint()))
		parts = append(parts, readGatePart(d))
	}
	if err := d.Done(); err != nil {
		return nil, nil, fmt.Errorf("game: the gate parts of a round from the conductor: %w", err)
	}
	return peers, parts, nil
}

func (h *shardHost) Report(answers []cluster.Item, out *cluster.Out) error {
	g := h.g
	if err := h.endGates(answers); err != nil {
		return err
	}
	s := g.step
	t := g.Time(s)
	pick := g.picking() && g.roundsErr == nil
	h.reported = 0
	last := uint64(0) // the last reported agent's place (cluster_outcome.go)
	for i, ga := range g.activeGA {
		if pick && !g.reports(ga, g.outcomes[i]) { // cluster_coord.go
			continue
		}
		h.reported++
		prev := ga.status
		if err := g.reportOne(ga, g.outcomes[i], s, t); err != nil {
			return err
		}
		last = cluster.Place(cluster.PhaseReport, int64(ga.idx))
		if err := g.take(out, last, 0); err != nil {
			return err
		}
		g.noteOutcome(ga, prev)
	}
	g.takeOutcomes(out, last) // cluster_outcome.go
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

// Finish flushes its agents' folded repeats (part 1), or closes them
// (part 2: an action running is cancelled, hooks may log), as the end of
// a run in one process does.
func (h *shardHost) Finish(part uint32, out *cluster.Out) error {
	g := h.g
	for _, ga := range g.agents[g.cl.lo:g.cl.hi] {
		if part == 1 {
			g.out.flushRepeat(ga.a.ID())
		} else if err := ga.a.Close(); err != nil {
			return err
		}
		if err := g.take(out, cluster.Place(cluster.PhaseReport, int64(ga.idx)), 0); err != nil {
			return err
		}
	}
	return nil
}

// Save adds each of the shard's agents' save: the game's bookkeeping of
// it, its snapshot and its Lua state, self-contained (its own strings).
func (h *shardHost) Save(out *cluster.Out) error {
	return h.g.agentSaves(h.g.cl.lo, h.g.cl.hi, out)
}

// clusterAgentMagic marks one agent's save crossing between processes.
const clusterAgentMagic = "BTRUNAGT"

// Load restores the shard's agents from their saves, and the gates from
// their state (restoreAgents, cluster_range.go).
func (h *shardHost) Load(saves []cluster.Item) error { return h.restoreAgents(saves) }

// takeSaves makes the conductor's copies of the agents what the shards'
// saves say, so that its own save is the game's.
func (h *conductorHost) takeSaves(saves []cluster.Item) error {
	g := h.g
	host := g.hostStateOf(g.Agents())
	if g.gates != nil {
		defer g.gates.Keep()() // the rounds kept the copy of the gates right
	}
	defer g.hideDebugger()() // cluster_debug.go
	// A restore leaves the copy's rules (their hooks run, and may log):
	// what the shards' agents did is written already.
	g.silent = true
	defer func() {
		g.silent = false
		for _, ga := range g.agents {
			ga.changes = ga.changes[:0]
		}
	}()
	for _, it := range saves {
		if it.Agent < 0 || int(it.Agent) >= len(g.agents) {
			return fmt.Errorf("game: a save of agent %d", it.Agent)
		}
		if err := g.restoreAgent(g.agents[it.Agent], it.Data, host); err != nil {
			return err
		}
	}
	g.activeStale = true
	return nil
}

// save is the game's save file, as one process writes it: the shards'
// agents gathered into the conductor's copies.
func (h *conductorHost) save(c *cluster.Conductor) ([]byte, error) {
	if !h.copies() {
		return h.saveFromParts(c) // cluster_saveparts.go
	}
	saves, err := c.Save(h.g.step)
	if err != nil {
		return nil, err
	}
	if err := h.takeSaves(saves); err != nil {
		return nil, err
	}
	return h.g.encodeSave()
}

// load loads a save file on the conductor, and on every shard its
// agents' part of it.
func (h *conductorHost) load(c *cluster.Conductor, data []byte) error {
	h.using(c) // cluster_refuse.go
	if !h.copies() {
		return h.loadNoCopy(c, data) // cluster_nocopy_load.go
	}
	was := h.g.agentList() // the shards' list (cluster_inputs_list.go)
	// cluster_loadsig.go: the shards' restores give the hooks' lines and signals
	if err := h.decodeCopies(data); err != nil {
		return err
	}
	if err := h.writeOwn(); err != nil {
		return err
	}
	if err := h.sendList(c, was); err != nil { // a save of other agents
		return err
	}
	shared, err := h.g.sharedItems() // cluster_shared.go: the loaded game.shared, for the shards
	if err != nil {
		return err
	}
	return h.loadShards(c, append([]cluster.Item{loadOut}, shared...)...) // cluster_range.go
}
