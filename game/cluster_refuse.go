package game

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// The world's game.signal in a cluster. In one process game.signal
// delivers at once, during the tick, and raises a Lua error, delivering
// nothing, when a receiver cannot hold the signal's stimulus
// (run.stimulus_memory) or its data does not fit the tree's signal line
// (refuses); the tick's next signal meets the receivers as the earlier
// ones and their handlers left them. A conductor holds no agent
// (Options.Conductor), or copies that are as old as the last step; only
// the receivers' shards know whether they take a signal now. So on a live
// conductor each world signal goes to the shards of its receivers at once,
// as an input from outside goes (cluster_inputs.go): one `input check`
// message (the shard answers with the refusal one process meets, data or
// stimuli, first in config order), then one `deliver` message, which the
// shard applies at once at the step the tick begins (its lines are written
// at once, after the conductor's lines so far; the signals its handlers
// send open the step's queue, as one process has them). The answer must
// come before the script's next statement (a refusal is a Lua error that
// may end the tick), so a tick's signals cannot be batched into one check
// or one delivery: a tick costs two round trips a signal it sends, and a
// game whose world sends no signal pays nothing. (Handing the shards the
// tick's signals with the step's start instead, checked against the state
// the step began with, refused a tick's second signal to a receiver that
// its first had filled one tick later than one process.) The world's
// init sends its signals so too: cluster_init49.go.

// worldSender is the sender the trace names for the world's signals; a
// shard knows a check or a delivery of the world's signals by it.
const worldSender = "world"

// clusterRefuse is a cluster role's part in the world's signals.
type clusterRefuse struct {
	c       *cluster.Conductor // the conductor's link to its shards (Start, Load and a restore set it)
	ticking bool               // the conductor runs the world's tick of a step
	err     error              // a failure of the cluster during the tick, for BeginStep
	early   bool               // a shard has begun the next step for the world's deliveries
}

// using remembers the cluster.Conductor that steps h (Start, Load and a
// checkpoint's restore come before any step).
func (h *conductorHost) using(c *cluster.Conductor) { h.g.cl.refuse.c = c }

// beginTick marks the world's tick of a step under way: its signals go to
// the shards at once (a reload's quiet run of init does not send them).
func (r *clusterRole) beginTick() { r.refuse.ticking = r.refuse.c != nil }

// worldSignals reports whether the world's signals go to the shards at
// once: the conductor runs a step's tick, or any process the world's init
// (cluster_init49.go).
func (g *Game) worldSignals() bool {
	r := g.cl
	return r != nil && (r.conductor && r.live && r.refuse.ticking || r.initSignals())
}

// worldSignal is game.signal(to, name, data) when worldSignals: in the
// tick, sendWorld; in the init, initSignal.
func (g *Game) worldSignal(signal string, data runtime.Value, ga *gameAgent) error {
	if !g.cl.live {
		return g.initSignal(signal, data, ga) // cluster_init49.go
	}
	return g.sendWorld(signal, data, ga)
}

// sendWorld is game.signal(to, name, data) on a conductor (ga nil: to
// all): the shards holding the receivers check it, then deliver it. A
// refusal is the error game.signal raises; a failure of the cluster is
// kept for BeginStep (or the start: initDone) and ends the tick as an
// error too.
func (g *Game) sendWorld(signal string, data runtime.Value, ga *gameAgent) error {
	r := g.cl
	fail := func(what string, err error) error {
		r.refuse.err = fmt.Errorf("game: step %d: %s the world's signal %q: %w", g.step, what, signal, err)
		return r.refuse.err
	}
	b, err := r.encodeValue(data)
	if err != nil {
		return err
	}
	d := cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: -1, Text: worldSender, Name: signal, Data: b}
	if ga != nil {
		d.Agent = ga.idx
	}
	refusal, err := r.refuse.c.CheckInput(g.step, []cluster.Item{d})
	if err != nil {
		return fail("checking", err)
	}
	if refusal != "" {
		return refusedError(refusal)
	}
	if err := g.flushTrace(); err != nil {
		return fail("writing the trace before", err)
	}
	r.ownLines() // what the conductor wrote so far goes first
	dels := append(r.entries, d)
	err = r.refuse.c.DeliverInput(g.step, dels)
	clear(dels)
	r.entries = dels[:0]
	if err != nil {
		return fail("delivering", err)
	}
	return nil
}

// refusedError is a shard's refusal, with one process's text.
type refusedError string

func (e refusedError) Error() string { return string(e) }

// tickDone ends the tick: the cluster's failure during it, once.
func (r *clusterRole) tickDone() error {
	r.refuse.ticking = false
	err := r.refuse.err
	r.refuse.err = nil
	return err
}

// checkWorld is the shard's part of the world's refusals: the first of its
// receivers of d (config order) that refuses, with refuses' error, which
// game.signal raises on the conductor. A stopped receiver takes nothing
// and refuses nothing, as in one process.
func (h *shardHost) checkWorld(d *cluster.Item, data runtime.Value, out *cluster.Out) error {
	g := h.g
	if d.Peer == initAnswersPeer {
		return h.takeAnswers(data) // cluster_init49.go
	}
	lo, hi := g.cl.lo, g.cl.hi
	if d.Agent >= 0 {
		if !g.cl.holds(d.Agent) {
			return fmt.Errorf("game: the world's signal to agent %d on the shard of agents %d..%d", d.Agent, g.cl.lo, g.cl.hi-1)
		}
		lo, hi = d.Agent, d.Agent+1
	}
	for _, ga := range g.agents[lo:hi] {
		if err := g.refuses(d.Name, data, ga); err != nil {
			out.Add(cluster.Place(cluster.PhaseDelivery, int64(ga.idx)), 0,
				cluster.Item{Kind: cluster.Answer, Agent: ga.idx, Peer: -1, Text: err.Error()})
			return nil
		}
	}
	return nil
}

// worldAhead readies the shard for a world's delivery: it comes during the
// conductor's tick, before the step's start, and is of that step (a live
// conductor sends every world signal so, none with the step's start); the
// first begins the step as Begin does before its deliveries (Begin then
// adds the world's game.shared, which one process publishes after the
// tick, so the handlers see the one before, as there).
func (h *shardHost) worldAhead(d *cluster.Item) {
	g := h.g
	if d.Text != worldSender || g.cl.refuse.early || !g.cl.live { // not live: the world's init (cluster_init49.go), at step 0
		return
	}
	g.cl.refuse.early = true
	g.step++
	g.syncWorkerEnvs()
	if g.plugins != nil {
		g.plugins.Advance(g.step)
	}
}

// errClusterSignal is Game.Signal on a cluster's game: the conductor's
// delivery would go out with no journal and no check, a shard's would
// reach its agents alone.
var errClusterSignal = errors.New("game: this game is a part of a cluster's run: send signals from Go with Conductor.Signal, which journals them and has the receivers' shards check and deliver them")
