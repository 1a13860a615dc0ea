package game

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A live view on a cluster's conductor (`btrun run -shards N -debug ADDR`,
// docs/debug.md). The debugger is attached to the conductor's Game as to
// one process's, and draws the conductor's copies of the agents:
//
//   - the shards relay what the live view of one process is told about
//     their agents (each step's rules run, reasons, interrupt and gate
//     events, changes, log lines: relay), as DebugNote items beside their
//     records;
//   - after each step the conductor makes its copies what the shards hold
//     (refresh, from the agents' saves, as -save does) and tells the
//     debugger what was relayed, against the copies (replay): the debugger
//     sees each agent's step as one process's debugger sees it;
//   - the page's commands reach the agent on its shard between steps
//     (cluster_debug_inputs.go), where one process would run them.
//
// Time travel, rewind and opening a save are not available in a cluster:
// they would move every shard back in time. The page's reloads (the
// Reload button, the editor's saves) reload the whole cluster
// (cluster_livereload.go).

// ErrClusterDebug is what a live view cannot do in a cluster.
var ErrClusterDebug = errors.New("game: not available in a cluster")

// clusterDebug is the conductor's part for a live view.
type clusterDebug struct {
	c       *Conductor
	relayed *cluster.Conductor // the link whose shards relay (Relink makes another)
	failed  error              // a page's reload that failed the cluster, for the next step (cluster_livereload.go)
}

// Conducting reports whether g is a cluster's conductor (Game.Conduct):
// its agents are copies of its shards' (a live view draws them and refuses
// time travel).
func (g *Game) Conducting() bool { return g.cl != nil && g.cl.conductor }

// shardOf is the shard that steps agent i, -1 outside a cluster.
func (g *Game) shardOf(i int32) int {
	if g.cl == nil || g.cl.debug == nil {
		return -1
	}
	return g.cl.debug.c.c.Layout.Of(i)
}

// runDebugged is Conductor.Run with a debugger attached: after each step,
// the copies are refreshed and the debugger told what the shards relayed.
// Between is the caller's (Conductor.Between), as Game.Run calls it.
func (c *Conductor) runDebugged(steps int) error {
	d := c.g.cl.debug
	for range steps {
		if d.failed != nil {
			return d.failed
		}
		if err := d.relay(); err != nil {
			return err
		}
		if err := c.replayDue(); err != nil { // cluster_inputs.go
			return err
		}
		if err := c.c.Step(c.g.step + 1); err != nil {
			return err
		}
		if _, err := d.refresh(); err != nil {
			return err
		}
	}
	return nil
}

// Between gives the debugger attached to the conductor (a live view) its
// moment before each step, as Game.Run does: call it before each step of
// a run that ends at step end, and once more after the last. It returns
// false when the run is to end now (the page's Quit). Without a debugger
// it returns true.
func (c *Conductor) Between(end uint64) bool {
	if c.g.debug == nil {
		return true
	}
	return c.g.debug.Between(end)
}

// relay asks the shards of the current link to relay, once.
func (d *clusterDebug) relay() error {
	if d.relayed == d.c.c {
		return nil
	}
	if err := d.c.c.Debug(d.c.g.step, []cluster.Item{{Kind: cluster.DebugNote, Agent: -1, Peer: -1, Name: cluster.DebugRelay}}); err != nil {
		return err
	}
	d.relayed = d.c.c
	return nil
}

// refresh makes the conductor's copies of the agents what their shards
// hold, then tells the debugger what the shards relayed since the last
// refresh. It returns the warnings of commands among them. This is the
// one place the live view takes copies of agents from their shards.
func (d *clusterDebug) refresh() ([]string, error) {
	g := d.c.g
	saves, err := d.c.c.Save(g.step)
	if err != nil {
		return nil, err
	}
	if err := d.c.h.takeSaves(saves); err != nil {
		return nil, err
	}
	return d.replay(d.c.c.TakeNotes())
}

// hideDebugger hides the debugger until the returned function is called:
// restoring the conductor's copies runs their rules' hooks, which may log,
// and nothing of that is the page's to see.
func (g *Game) hideDebugger() func() {
	d := g.debug
	g.debug = nil
	return func() { g.debug = d }
}

// The notes a relaying shard sends (DebugNote items, Name).
const (
	noteStep    = "step"    // Debugger.Stepped
	noteChange  = "change"  // Debugger.Changed
	noteLog     = "log"     // Debugger.Logged
	noteWarning = "warning" // a command's error (Text)
)

// replay tells the debugger the relayed notes, against the copies.
func (d *clusterDebug) replay(notes []cluster.Item) ([]string, error) {
	g := d.c.g
	var warnings []string
	for _, n := range notes {
		if n.Agent < 0 || int(n.Agent) >= len(g.agents) {
			return warnings, fmt.Errorf("game: a live view's note about agent %d, which the game does not have", n.Agent)
		}
		a := g.agents[n.Agent].a
		dec := savecodec.NewDecoder(n.Data, nil)
		switch n.Name {
		case noteStep:
			runs, st, err, whys, intr, gates := readStepNote(dec)
			if derr := dec.Done(); derr != nil {
				return warnings, fmt.Errorf("game: agent %s's step from its shard: %w", a.ID(), derr)
			}
			a.SetStepFacts(whys, intr, gates)
			if g.debug != nil {
				g.debug.Stepped(a, runs, st, err)
			}
		case noteChange:
			c := readChange(dec)
			if derr := dec.Done(); derr != nil {
				return warnings, fmt.Errorf("game: agent %s's change from its shard: %w", a.ID(), derr)
			}
			if g.debug != nil {
				g.debug.Changed(a, c)
			}
		case noteLog:
			label, msg := string(dec.Blob()), string(dec.Blob())
			if derr := dec.Done(); derr != nil {
				return warnings, fmt.Errorf("game: agent %s's log line from its shard: %w", a.ID(), derr)
			}
			if g.debug != nil {
				g.debug.Logged(a, label, msg)
			}
		case noteWarning:
			warnings = append(warnings, n.Text)
		default:
			return warnings, fmt.Errorf("game: a live view's note %q from a shard", n.Name)
		}
	}
	return warnings, nil
}

// --- the shard's side ---

// relay is a shard's Debugger while its conductor has a live view: it
// keeps, as notes, what one process's live view is told about the shard's
// agents; take (cluster.go) adds them to the reply at the place of the
// lines taken with them. With workers, steps end on several goroutines
// (an agent's notes keep their order: one agent steps on one goroutine).
type relay struct {
	g     *Game
	mu    sync.Mutex
	enc   *savecodec.Encoder
	notes []cluster.Item
}

func (r *relay) Attached(DebugHost)  {}
func (r *relay) Between(uint64) bool { return true }
func (r *relay) Reloaded()           {}

func (r *relay) Stepped(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enc.Reset()
	writeStepNote(r.enc, a, runs, st, err)
	r.add(a, noteStep)
}

func (r *relay) Changed(a *runtime.Agent, c Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enc.Reset()
	writeChange(r.enc, c)
	r.add(a, noteChange)
}

func (r *relay) Logged(a *runtime.Agent, label, msg string) {
	if a == nil { // the world's lines are the conductor's
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enc.Reset()
	r.enc.Blob([]byte(label))
	r.enc.Blob([]byte(msg))
	r.add(a, noteLog)
}

// add keeps the note in r.enc about a (with r.mu held).
func (r *relay) add(a *runtime.Agent, name string) {
	ga := r.g.byPtr[a]
	if ga == nil {
		return
	}
	r.notes = append(r.notes, cluster.Item{Kind: cluster.DebugNote, Agent: ga.idx, Peer: -1, Name: name, Data: append([]byte(nil), r.enc.Bytes()...)})
}

// takeNotes adds the notes kept so far to out at order, rank hi (take).
func (g *Game) takeNotes(out *cluster.Out, order, hi uint64) {
	r := g.cl.relay
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// With workers, an agent's log lines reach the game after its step
	// ended (workersRound takes them in config order); one process's live
	// view sees them before: each agent's step note goes after its lines.
	slices.SortStableFunc(r.notes, func(a, b cluster.Item) int {
		if c := cmp.Compare(a.Agent, b.Agent); c != 0 {
			return c
		}
		return cmp.Compare(noteRank(a.Name), noteRank(b.Name))
	})
	for _, n := range r.notes {
		out.Add(order, hi, n)
	}
	clear(r.notes)
	r.notes = r.notes[:0]
}

// noteRank orders an agent's notes of one take: its step's after the rest.
func noteRank(name string) int {
	if name == noteStep {
		return 1
	}
	return 0
}

// Debug is cluster.DebugShardHost: the live view's commands for the
// shard's agents, each applied as one process applies it (debug.go), its
// lines, signals and notes taken at its place.
func (h *shardHost) Debug(cmds []cluster.Item, out *cluster.Out) error {
	g := h.g
	for _, c := range cmds {
		if c.Name == cluster.DebugRelay {
			if g.cl.relay == nil {
				g.cl.relay = &relay{g: g, enc: savecodec.NewEncoder()}
				g.AttachDebugger(g.cl.relay)
			}
			continue
		}
		if c.Name == cluster.DebugGates { // another shard's jump released them (cluster_debug_gates.go)
			if err := g.applyJumpReleases(c.Agent, c.Data); err != nil {
				return err
			}
			continue
		}
		if !g.cl.holds(c.Agent) {
			return fmt.Errorf("game: a live view's %q for agent %d on the shard of agents %d..%d", c.Name, c.Agent, g.cl.lo, g.cl.hi-1)
		}
		id := g.agents[c.Agent].a.ID()
		var err error
		switch c.Name {
		case cluster.DebugJump:
			before := g.gatesBefore(c.Agent)
			err = g.host().JumpAgent(id, c.Text)
			g.noteJumpReleases(out, c.Order, c.Agent, before)
		case cluster.DebugSetVar:
			d := savecodec.NewDecoder(c.Data, nil)
			v := readVarValue(d)
			if derr := d.Done(); derr != nil {
				return fmt.Errorf("game: a live view's value for %s's %q: %w", id, c.Text, derr)
			}
			err = g.host().SetAgentVar(id, c.Text, v)
		default:
			return fmt.Errorf("game: a live view's command %q", c.Name)
		}
		if terr := g.take(out, c.Order, uint64(c.Agent)); terr != nil {
			return terr
		}
		if err != nil { // the page's to show; the run goes on
			out.Add(c.Order, uint64(c.Agent), cluster.Item{Kind: cluster.DebugNote, Agent: c.Agent, Peer: -1, Name: noteWarning, Text: err.Error()})
		}
	}
	return nil
}

// --- the notes' bytes (strings as blobs: a note is self-contained) ---

func writeStepNote(e *savecodec.Encoder, a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	e.Uvarint(uint64(len(runs)))
	for _, r := range runs {
		e.Varint(int64(r.Rule))
		e.Uvarint(uint64(r.Status))
		e.Bool(r.Arrived())
	}
	e.Uvarint(uint64(st))
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	e.Bool(err != nil)
	e.Blob([]byte(msg))
	whys := a.Whys()
	e.Uvarint(uint64(len(whys)))
	for _, w := range whys {
		e.Uvarint(uint64(w.Kind))
		e.Varint(int64(w.Rule))
		e.Varint(int64(w.Child))
		e.Blob([]byte(w.Name))
		e.Bool(w.Result)
		e.Blob([]byte(w.Read))
		e.Float(w.Value)
		e.Uvarint(uint64(len(w.Order)))
		for _, o := range w.Order {
			e.Varint(int64(o))
		}
	}
	in, _ := a.LastInterrupt()
	e.Varint(int64(in.Rule))
	e.Uvarint(uint64(in.Kind))
	gates := a.GateEvents()
	e.Uvarint(uint64(len(gates)))
	for _, g := range gates {
		e.Varint(int64(g.Gate))
		e.Bool(g.Take)
	}
}

func readStepNote(d *savecodec.Decoder) (runs []runtime.RuleRun, st runtime.Status, err error, whys []runtime.Why, intr runtime.Interrupt, gates []runtime.GateEvent) {
	n := d.Count(3)
	runs = make([]runtime.RuleRun, 0, n)
	for range n {
		rule, status, arrived := int32(d.Varint()), runtime.Status(d.Uvarint()), d.Bool()
		runs = append(runs, runtime.NewRuleRun(rule, status, arrived))
	}
	st = runtime.Status(d.Uvarint())
	if failed, msg := d.Bool(), string(d.Blob()); failed {
		err = errors.New(msg)
	}
	n = d.Count(8)
	for range n {
		w := runtime.Why{Kind: runtime.WhyKind(d.Uvarint()), Rule: int32(d.Varint()), Child: int32(d.Varint()), Name: string(d.Blob()),
			Result: d.Bool(), Read: string(d.Blob()), Value: d.Float()}
		k := d.Count(1)
		for range k {
			w.Order = append(w.Order, int32(d.Varint()))
		}
		whys = append(whys, w)
	}
	intr = runtime.Interrupt{Rule: int32(d.Varint()), Kind: runtime.InterruptKind(d.Uvarint())}
	n = d.Count(2)
	for range n {
		gates = append(gates, runtime.GateEvent{Gate: int32(d.Varint()), Take: d.Bool()})
	}
	return
}

func writeChange(e *savecodec.Encoder, c Change) {
	e.Uvarint(uint64(c.Kind))
	e.Blob([]byte(c.Name))
	e.Bool(c.Value)
	e.Blob([]byte(c.From))
	writeVarValue(e, c.Typed)
}

func readChange(d *savecodec.Decoder) Change {
	c := Change{Kind: ChangeKind(d.Uvarint()), Name: string(d.Blob()), Value: d.Bool(), From: string(d.Blob())}
	c.Typed = readVarValue(d)
	return c
}

func writeVarValue(e *savecodec.Encoder, v runtime.VarValue) {
	e.Uvarint(uint64(v.Type))
	e.Bool(v.Bool)
	e.Float(v.Num)
	e.Blob([]byte(v.Str))
	e.Float(v.Vec.X)
	e.Float(v.Vec.Y)
	e.Float(v.Vec.Z)
}

func readVarValue(d *savecodec.Decoder) runtime.VarValue {
	return runtime.VarValue{Type: runtime.VarType(d.Uvarint()), Bool: d.Bool(), Num: d.Float(), Str: string(d.Blob()),
		Vec: runtime.Vec3{X: d.Float(), Y: d.Float(), Z: d.Float()}}
}
