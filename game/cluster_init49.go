package game

import (
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// The world's init in a cluster sends its signals as the tick does
// (cluster_refuse.go). In one process game.signal in init delivers at
// once and raises a Lua error, delivering nothing, when a receiver cannot
// hold the stimulus or its data does not fit the receiver's signal line;
// the init's next signal meets the receivers as the earlier ones left
// them, and a script may go on differently after a refusal it caught. In
// a cluster every process runs init (a shard's spawns need what it leaves
// in the world's state), but only a receiver's shard knows its stimuli:
// each process refusing by its own agents refused differently (a
// receiver held elsewhere was taken), so processes could deliver, write
// and go on differently. So:
//
//   - a shard that serves a conductor (ServeShard) makes its agents and
//     waits with its init until the conductor has run its own (await);
//   - the conductor's init sends each signal to its receivers' shards at
//     once, an `input check` then a `deliver` of step 0 (sendWorld; the
//     shards, not started, check and deliver to their fresh agents, which
//     is what one process's init meets), or, when it holds copies of the
//     agents, checks and delivers on them as one process does;
//   - after its init it gives every shard the answer each signal got, in
//     order (one `input check` message carrying them, only when the init
//     sent a signal: a world whose init sends none pays nothing);
//   - each shard then runs its start (at the conductor's StartLines): its
//     init's game.signal takes the next answer, raising the same refusal,
//     and delivers nothing more (the conductor's deliveries reached it),
//     or, after a conductor with copies, delivers to the agents it holds.
//
// So every process's init sees one process's answers and goes on alike,
// and the agents hold what one process's would.

// clusterInit is a role's part in the world init's signals.
type clusterInit struct {
	wait    bool         // a shard's start waits for the conductor's init (await)
	done    bool         // the world's init is over (initDone)
	replay  bool         // a shard runs its init with the conductor's answers
	local   bool         // those answers came from the conductor's copies: deliver here
	answers []initAnswer // the conductor's: kept; a shard's: given
	next    int          // a shard's next answer
	started bool         // a waiting shard's start ran
	err     error        // the waiting start's error, kept for every later message
	bad     error        // a shard's init sent another signal than the conductor's: the start's error, caught or not
}

// initAnswer is what one game.signal of the world's init got.
type initAnswer struct {
	to, name string
	refusal  string // "" when delivered
}

// initAnswersPeer marks the item that gives a shard the init's answers
// (a delivery's Peer is an agent's place, or -1).
const initAnswersPeer = -2

// initSignals reports whether game.signal in the world's init goes the
// cluster's way: the conductor's start, or a shard's that took its
// conductor's answers.
func (r *clusterRole) initSignals() bool {
	if r.live || r.init.done {
		return false
	}
	if r.conductor {
		return r.refuse.c != nil
	}
	return r.init.replay
}

// initSignal is game.signal in the world's init of a cluster (ga nil: to
// all): on the conductor, the shards check and deliver it (or its copies
// do) and its answer is kept for the shards; on a shard, the conductor's
// answer is taken.
func (g *Game) initSignal(signal string, data runtime.Value, ga *gameAgent) error {
	r := g.cl
	to := "all"
	if ga != nil {
		to = g.agentID(ga)
	}
	if !r.conductor {
		return g.initAnswer(to, signal, data, ga)
	}
	var err error
	if r.start.on { // no copies: the receivers' shards (cluster_refuse.go)
		err = g.sendWorld(signal, data, ga)
		if r.refuse.err != nil {
			return err // the cluster failed: initDone ends the start with it
		}
	} else {
		err = g.deliverHere(signal, data, ga)
	}
	a := initAnswer{to: to, name: signal}
	if err != nil {
		a.refusal = err.Error()
	}
	r.init.answers = append(r.init.answers, a)
	return err
}

// deliverHere checks and delivers a signal to the game's own agents (ga
// nil: every one), as one process's game.signal.
func (g *Game) deliverHere(signal string, data runtime.Value, ga *gameAgent) error {
	to := g.agents
	if ga != nil {
		to = []*gameAgent{ga}
	}
	if err := g.refuses(signal, data, to...); err != nil {
		return err
	}
	s := g.step
	t := g.Time(s)
	for _, ga := range to {
		g.deliver(ga, signal, data, worldSender, s, t)
	}
	return nil
}

// initAnswer is a shard's game.signal in its init: the conductor's answer
// to the same signal, in order.
func (g *Game) initAnswer(to, signal string, data runtime.Value, ga *gameAgent) error {
	in := &g.cl.init
	if in.bad != nil {
		return in.bad
	}
	if in.next >= len(in.answers) {
		in.bad = fmt.Errorf("game: the world's init on the shard of agents %d..%d sends signal %q to %s, beyond the %d the conductor's init sent (an init must send the same signals in every process: game.agents holds only a process's own agents)",
			g.cl.lo, g.cl.hi-1, signal, to, len(in.answers))
		return in.bad
	}
	a := in.answers[in.next]
	in.next++
	if a.to != to || a.name != signal {
		in.bad = fmt.Errorf("game: the world's init on the shard of agents %d..%d sends signal %q to %s where the conductor's sent %q to %s (an init must send the same signals in every process)",
			g.cl.lo, g.cl.hi-1, signal, to, a.name, a.to)
		return in.bad
	}
	if a.refusal != "" {
		return refusedError(a.refusal)
	}
	if in.local {
		return g.deliverHere(signal, data, ga)
	}
	return nil // the conductor's deliver reached the receivers before this start
}

// initDone ends the world's init: the conductor gives the shards its
// answers (none when its init sent no signal), or ends the start with a
// failure of the cluster that the script caught; a shard checks that it
// took every answer.
func (g *Game) initDone() error {
	r := g.cl
	if r == nil || r.live || r.init.done {
		return nil
	}
	r.init.done = true
	if !r.conductor {
		if r.init.bad != nil {
			return r.init.bad
		}
		if in := &r.init; in.replay && in.next != len(in.answers) {
			return fmt.Errorf("game: the world's init on the shard of agents %d..%d sent %d signals, the conductor's %d (an init must send the same signals in every process)",
				r.lo, r.hi-1, in.next, len(in.answers))
		}
		return nil
	}
	if err := r.refuse.err; err != nil {
		r.refuse.err = nil
		return err
	}
	if r.refuse.c == nil || len(r.init.answers) == 0 {
		return nil
	}
	v, err := r.encodeValue(runtime.String(string(encodeAnswers(r.init.answers, !r.start.on))))
	if err != nil {
		return err
	}
	clear(r.init.answers)
	r.init.answers = nil
	mark := cluster.Item{Kind: cluster.Delivery, Agent: -1, Peer: initAnswersPeer, Text: worldSender, Data: v}
	if _, err := r.refuse.c.CheckInput(g.step, []cluster.Item{mark}); err != nil {
		return fmt.Errorf("game: giving the shards the answers to the world init's signals: %w", err)
	}
	return nil
}

// encodeAnswers is the answers' bytes: whether the shards deliver, then
// each answer.
func encodeAnswers(as []initAnswer, local bool) []byte {
	e := savecodec.NewEncoder()
	e.Uvarint(uint64(len(as)))
	if local {
		e.Uvarint(1)
	} else {
		e.Uvarint(0)
	}
	for _, a := range as {
		e.Blob([]byte(a.to))
		e.Blob([]byte(a.name))
		e.Blob([]byte(a.refusal))
	}
	return e.Bytes()
}

// takeAnswers is a shard's part of the answers' item: it keeps them for
// its start. A shard that has started, or has answers, refuses them.
func (h *shardHost) takeAnswers(data runtime.Value) error {
	in := &h.g.cl.init
	if !in.wait || in.started || in.answers != nil {
		return fmt.Errorf("game: the answers to the world init's signals on the shard of agents %d..%d, which has started or has them", h.g.cl.lo, h.g.cl.hi-1)
	}
	d := savecodec.NewDecoder([]byte(data.Str), nil)
	n := d.Count(3)
	local := d.Uvarint() == 1
	as := make([]initAnswer, 0, n)
	for range n {
		as = append(as, initAnswer{to: string(d.Blob()), name: string(d.Blob()), refusal: string(d.Blob())})
	}
	if err := d.Done(); err != nil {
		return fmt.Errorf("game: the answers to the world init's signals: %w", err)
	}
	in.answers, in.local = as, local
	return nil
}

// await is start for a shard that serves its conductor: the start waits
// for the conductor's init (startNow runs it).
func (h *shardHost) await() error {
	h.g.cl.init.wait = true
	return h.start()
}

// waitStart readies a waiting shard for the conductor's init: what opening
// wrote is the conductor's, and the init's deliveries go to the agents as
// they come (not kept as a start's), with their lines in the replies.
func (h *shardHost) waitStart() error {
	g := h.g
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.cl.trace.Reset()
	g.cl.out.Reset()
	g.cl.start.in = true
	return nil
}

// startNow runs a waiting shard's start, once, with the conductor's
// answers: at its conductor's StartLines, which follows the conductor's
// init. Its error is every later call's too.
func (h *shardHost) startNow() error {
	in := &h.g.cl.init
	if !in.wait || in.started {
		return in.err
	}
	in.started = true
	h.g.cl.start.in = false
	in.replay = true
	in.err = h.run()
	in.replay = false
	clear(in.answers)
	in.answers = in.answers[:0]
	return in.err
}
