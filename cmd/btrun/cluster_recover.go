package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/natsnet"
	"github.com/btrun/btrun/game"
)

// A cluster run that loses nothing (docs/cluster.md, "Failures and
// recovery"): the conductor holds the run's lease, stores a checkpoint
// every [cluster] checkpoint_every steps, and when a shard is lost (its
// process ended, or silent past [cluster] deadline) it starts the shards
// anew, goes back to the last checkpoint with them, cuts the trace and the
// output back to where they stood there, and replays: the same steps write
// the same bytes again. `-resume` is the same going back, by a new
// conductor, after the old one died.

// maxRecoveries bounds the recoveries of one run: a shard that dies at
// the same point every time ends the run rather than looping.
const maxRecoveries = 8

// clusterSession is one conductor's part of a run.
type clusterSession struct {
	r          clusterRun
	url, name  string
	embedded   bool // shards are this process's children
	stderr     io.Writer
	store      *natsnet.Store
	lease      *natsnet.Lease
	trace, out *runWriter // trace nil: none
	fault      fault
	links      int           // links made
	placed     bool          // the writers stood at a checkpoint's count once (begin)
	seq        uint64        // the last checkpoint's number
	stats      cluster.Stats // the exchanges of links before the last
	first      uint64        // the step this conductor went on from
	until      uint64        // the step the run ends at
	recoveries int
	own        []string        // the links' names of their own
	inputs     *natsnet.Inputs // the run's journal of inputs (cluster_inputs.go)

	moves cluster.MoveStats // agents moved between shards, on every link (cluster_rebalance.go)
	view  *clusterView      // -debug: the live view's server, for every link (cluster_debug.go)

	reloading bool // the checkpoint taken follows a reload (cluster_reload.go)

	opened *cluster.ReloadManifest // the files the link's game opened with (cluster_reload_recover.go)
	progs  programs                // the programs its plugins run (cluster_reload_recover.go)
	carry  watchCarry              // what a lost link's watcher held (cluster_watch_recover.go)
}

// openSession takes the run's lease (waiting for it to run out if resume)
// and readies its store: a new run forgets an old one's checkpoint.
func openSession(r clusterRun, url, name string, embedded bool, stderr io.Writer) (*clusterSession, error) {
	store, err := natsnet.OpenStore(natsnet.Options{URL: url, Run: name}, natsnet.StoreOptions{})
	if err != nil {
		return nil, err
	}
	s := &clusterSession{r: r, url: url, name: name, embedded: embedded, stderr: stderr, store: store}
	s.fault, _ = faultFor("conductor")
	host, _ := os.Hostname()
	holder := host + " pid " + strconv.Itoa(os.Getpid())
	ttl := r.cfg.Cluster.Deadline.Duration
	for try := 0; ; try++ {
		s.lease, err = store.TakeLease(holder, ttl, time.Now)
		var held *natsnet.LeaseHeldError
		if !r.resume || try >= 3 || !errors.As(err, &held) {
			break
		}
		fmt.Fprintf(stderr, "btrun: run %s's lease is held by %s: waiting %s for it to run out\n", name, held.Holder, held.Left.Round(time.Millisecond))
		time.Sleep(held.Left + 10*time.Millisecond)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	if s.inputs, err = store.Inputs(natsnet.StoreOptions{}); err == nil && !r.resume {
		err = errors.Join(store.Forget(), s.inputs.Prune(^uint64(0))) // a new run forgets an old one's inputs too
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// drop deletes what the run kept in the store, once it ended.
func (s *clusterSession) drop() error {
	err := s.store.Drop()
	for _, link := range s.own {
		err = errors.Join(err, s.store.DropFiles(link))
	}
	return err
}

// close gives the lease up and closes the store.
func (s *clusterSession) close() {
	s.lease.Release()
	s.store.Close()
}

// standDown drops what the writers hold, unwritten, when err says that
// another conductor took the run: its trace and output are the other's.
func (s *clusterSession) standDown(err error) error {
	if errors.Is(err, natsnet.ErrStale) || errors.Is(err, cluster.ErrFenced) {
		s.writers((*runWriter).drop)
		return fmt.Errorf("%w: this conductor of run %s stands down", err, s.name)
	}
	return err
}

// recovered is what the summary says of recoveries.
func (s *clusterSession) recovered() string {
	if s.recoveries == 0 {
		return ""
	}
	if s.recoveries == 1 {
		return "; 1 recovery from a checkpoint"
	}
	return fmt.Sprintf("; %d recoveries from a checkpoint", s.recoveries)
}

// lost reports whether err is a shard lost during the run, which a replay
// recovers (shards that did not join are not).
func lost(err error) bool {
	var nj notJoined
	return errors.Is(err, natsnet.ErrMissing) && !errors.As(err, &nj)
}

// notJoined is a link that could not be made: its shards did not join.
type notJoined struct{ error }

func (e notJoined) Unwrap() error { return e.error }

// run runs the run to its end, recovering lost shards; stats count the
// exchanges of every link, and the run's steps without replays.
func (s *clusterSession) run() (cluster.Stats, error) {
	var from *cluster.Checkpoint
	s.first = ^uint64(0)
	if s.r.resume {
		cp, ok, err := s.store.Latest()
		if err != nil {
			return cluster.Stats{}, err
		}
		if !ok {
			return cluster.Stats{}, fmt.Errorf("run %s has no checkpoint to resume from", s.name)
		}
		fmt.Fprintf(s.stderr, "btrun: resuming run %s from its checkpoint at step %d\n", s.name, cp.Step)
		from = &cp
	}
	for recoveries := 0; ; recoveries++ {
		st, err := s.attempt(from)
		st.Steps, st.Rounds, st.Batches = st.Steps+s.stats.Steps, st.Rounds+s.stats.Rounds, st.Batches+s.stats.Batches
		if err == nil || !lost(err) {
			st.Steps = s.until - s.first // the run's, not counting replays
			return st, err
		}
		s.stats, s.recoveries = st, recoveries+1
		if recoveries == maxRecoveries {
			return st, fmt.Errorf("%w (after %d recoveries)", err, recoveries)
		}
		cp, ok, lerr := s.store.Latest()
		if lerr != nil {
			return st, errors.Join(err, lerr)
		}
		if !ok { // lost before the first checkpoint: from the start again
			fmt.Fprintf(s.stderr, "btrun: %v\nbtrun: starting the run again\n", err)
			from = nil
			continue
		}
		fmt.Fprintf(s.stderr, "btrun: %v\nbtrun: going back to the checkpoint of step %d and replaying\n", err, cp.Step)
		from = &cp
	}
}

// connect starts the shards (embedded) and makes a link with them.
func (s *clusterSession) connect(g *game.Game) (*natsnet.ConductorLink, *natsnet.Children, error) {
	r := s.r
	files, config, err := clusterFiles(g)
	if err != nil {
		return nil, nil, err
	}
	s.links++
	run := s.name
	if s.embedded && (s.links > 1 || r.resume) {
		// A new link of its own: a shard of an earlier one that wakes up
		// speaks where nobody listens.
		run = s.name + "-" + strconv.FormatUint(s.lease.Revision(), 10) + "-" + strconv.Itoa(s.links)
		s.own = append(s.own, run)
	}
	if err := s.keepFiles(g, files, config, run); err != nil { // cluster_reload_recover.go
		return nil, nil, err
	}
	o := natsnet.Options{URL: s.url, Run: run, Version: clusterVersion(), JoinTimeout: time.Minute,
		ReplyTimeout: r.cfg.Cluster.Deadline.Duration, Files: files, Config: config,
		Stale: func(msg string) { fmt.Fprintln(s.stderr, "btrun:", msg) }}
	var children *natsnet.Children
	if s.embedded {
		self, err := os.Executable()
		if err != nil {
			return nil, nil, err
		}
		var env []string // the first shards inherit this environment
		if s.links > 1 || r.resume {
			env = envWithoutFault()
		}
		children, err = natsnet.StartChildren(r.shards, self, func(int) []string {
			return []string{"shard", "-cluster", s.url, "-name", run, "-workers", strconv.Itoa(r.workers),
				"-quiet=" + strconv.FormatBool(r.quiet), "-trace=" + strconv.FormatBool(r.trace != ""), "-explain=" + strconv.FormatBool(r.live.explain)}
		}, env, s.stderr)
		if err != nil {
			return nil, nil, err
		}
		o.Gone = failed(children, r.shards)
	} else if s.links > 1 {
		fmt.Fprintf(s.stderr, "btrun: waiting for %d shards to join run %s (btrun shard -cluster %s -name %s)\n", r.shards, run, s.url, run)
	}
	link, err := natsnet.Conduct(o, r.shards)
	if err != nil {
		if children != nil {
			children.Stop()
		}
		return nil, nil, err
	}
	return link, children, nil
}

// failed delivers the number of each of n children that ends in failure
// (killed, say): one that ends well ended after its last reply.
func failed(c *natsnet.Children, n int) <-chan int {
	out := make(chan int, n)
	go func() {
		for range n {
			k := <-c.Exited()
			if c.Err(k) != nil {
				out <- k
			}
		}
	}()
	return out
}

// attempt runs the run on a new link: from its start (from nil: the
// start, or the -load file) or from checkpoint from.
func (s *clusterSession) attempt(from *cluster.Checkpoint) (st cluster.Stats, err error) {
	r := s.r
	// What opening and starting the game write was written before a
	// checkpoint (begin turns the writers on again).
	s.writers(func(w *runWriter) {
		w.off = from != nil
		if from == nil && s.links > 0 { // the run starts again: what it wrote is written again
			err = errors.Join(err, w.Rewind(0))
		}
	})
	if err != nil {
		return st, err
	}
	// A checkpoint may hold agents added and removed (cluster_inputs.go).
	// The conductor holds no agents, but for a live view, which draws a copy of each.
	cfg, dir, err := s.checkpointConfig(from) // cluster_reload_recover.go: a checkpoint before a reload
	if err != nil {
		return st, err
	}
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	g, err := game.Open(cfg, game.Options{Stdout: s.out, Stderr: s.stderr, Quiet: r.quiet, AgentsFromSave: from != nil, Conductor: r.debug.addr == "",
		Explain: r.live.explain, Realtime: r.live.realtime})
	if err != nil {
		return st, err
	}
	defer g.Close()
	link, children, err := s.connect(g)
	if err != nil {
		s.writers(func(w *runWriter) { w.off = true }) // closing the game is no part of the run
		return st, notJoined{err}
	}
	var trace io.Writer
	if s.trace != nil {
		trace = s.trace
	}
	c, err := g.Conduct(link, trace, s.out)
	if err != nil {
		link.Close()
		return st, err
	}
	c.SetJournal(s.inputs)
	c.SetFiles(bothFiles{link.FileStore(), s.store.FileStore()}) // a reload's files (cluster_reload.go, cluster_reload_recover.go)
	if dir != "" {
		c.SetFilesCopy(r.cfg)
	}
	defer func() {
		st = c.Stats()
		s.moves = addMoves(s.moves, c.Balancer())
		if err != nil {
			s.keepUnreloaded(c) // cluster_watch_recover.go: -watch's edits seen, not reloaded
			// What closing a game that failed writes is no part of the run.
			s.writers(func(w *runWriter) { w.off = true })
			link.Close()
			if children != nil {
				children.Stop()
			}
			return
		}
		err = c.Stop()
		if children != nil {
			err = errors.Join(err, children.Wait(30*time.Second))
		}
	}()
	until, err := s.begin(c, from)
	if err != nil {
		return st, err
	}
	if err := s.watch(c, from == nil && s.links == 1); err != nil { // cluster_reload.go
		return st, err
	}
	if err := s.watchRecovered(c, from, dir != ""); err != nil { // cluster_watch_recover.go
		return st, err
	}
	s.until, s.first = until, min(s.first, c.Step())
	every := uint64(r.cfg.Cluster.CheckpointEvery)
	stopDebug, err := s.startDebug(g)
	if err != nil {
		return st, err
	}
	defer func() { stopDebug(err) }()
	for s.debugDue(c) && c.Between(until) && c.Step() < until { // the live view's moment, as btrun run gives it
		if err := s.afterPage(c, until); err != nil { // cluster_livereload.go: the page's reloads' checkpoint
			return st, s.standDown(err)
		}
		s.fault.at("step", c.Step()+1)
		s.fault.at("stop", c.Step()+1)
		// Before the step writes: a conductor that was silent past its
		// lease (stopped, say) finds out here that another took the run.
		if s.lease.Due() {
			if err := s.lease.Renew(); err != nil {
				return st, s.standDown(err)
			}
		}
		if err := s.between(c, until); err != nil { // cluster_reload.go: the pace, -watch's reloads
			return st, s.standDown(err)
		}
		if err := s.sendInputs(c); err != nil {
			return st, s.standDown(err)
		}
		if err := c.Run(1); err != nil {
			return st, err
		}
		if c.Step()%every == 0 && c.Step() < until {
			if err := s.checkpoint(c, until); err != nil {
				return st, s.standDown(err)
			}
		}
	}
	if c.Step() < until { // the live view's Quit ended the run
		s.until = c.Step()
	}
	if r.save != "" {
		if err := c.Save(r.save); err != nil {
			return st, err
		}
	}
	return st, c.Finish()
}

// begin starts the game on the new link and brings it to where the run
// goes on from: its start (and a first checkpoint) or a checkpoint, the
// writers cut back to it. It returns the step the run ends at.
func (s *clusterSession) begin(c *game.Conductor, from *cluster.Checkpoint) (uint64, error) {
	r := s.r
	if from == nil {
		err := c.Start()
		if err == nil && r.load != "" {
			var data []byte
			if data, err = os.ReadFile(r.load); err == nil {
				err = c.Load(data)
			}
		}
		if err != nil {
			return 0, err
		}
		steps := r.cfg.Run.Steps
		if r.steps >= 0 {
			steps = r.steps
		}
		until := c.Step() + uint64(steps)
		if err := s.restartInputs(); err != nil {
			return 0, err
		}
		return until, s.checkpoint(c, until)
	}
	err := c.Start()
	if err == nil {
		// The conductor restores its part, each shard its range from the
		// parts that hold it, in parallel (game/cluster_checkpoint.go).
		err = c.RestoreCheckpoint(s.store, s.name, *from)
	}
	s.writers(func(w *runWriter) { w.off = false })
	if err != nil {
		return 0, err
	}
	if c.Step() != from.Step {
		return 0, fmt.Errorf("checkpoint %d of run %s is of step %d, its save of step %d", from.Seq, s.name, from.Step, c.Step())
	}
	if err := s.place(from); err != nil {
		return 0, err
	}
	s.seq = from.Seq
	if err := s.replayInputs(c, from.Step); err != nil {
		return 0, err
	}
	return from.Until, nil
}

// place puts the run's writers at a checkpoint's counts: what the replay
// writes next is what was written from there.
func (s *clusterSession) place(from *cluster.Checkpoint) error {
	rewind := (*runWriter).Rewind
	if s.r.resume && !s.placed {
		// A new process's writers, until a restore has put them at a
		// checkpoint's count: a first link that lost a shard before that
		// left them where the process started.
		rewind = (*runWriter).resumeAt
	}
	if s.trace != nil {
		if err := rewind(s.trace, from.Trace); err != nil {
			return fmt.Errorf("the trace: %w", err)
		}
	}
	if err := rewind(s.out, from.Out); err != nil {
		return fmt.Errorf("the output: %w", err)
	}
	s.placed = true
	return nil
}

func (s *clusterSession) writers(f func(*runWriter)) {
	if s.trace != nil {
		f(s.trace)
	}
	f(s.out)
}

// checkpoint stores the run's state at the end of the step just done, and
// where its writers stand, as the run's next checkpoint.
func (s *clusterSession) checkpoint(c *game.Conductor, until uint64) error {
	var err error
	cp := cluster.Checkpoint{Seq: s.seq + 1, Step: c.Step(), Until: until}
	if s.trace != nil {
		if cp.Trace, err = s.trace.Mark(); err != nil {
			return fmt.Errorf("the trace: %w", err)
		}
	}
	if cp.Out, err = s.out.Mark(); err != nil {
		return fmt.Errorf("the output: %w", err)
	}
	if s.reloading { // cluster_reload.go: it holds the reload lines of its step
		if err := s.store.PutPart(cp.Seq, reloadedPart, []byte{}); err != nil {
			return err
		}
		cp.Parts = []string{reloadedPart}
	}
	parts, err := s.putFiles(c, cp.Seq) // cluster_reload_recover.go
	if err != nil {
		return err
	}
	cp.Parts = append(cp.Parts, parts...)
	// The shards write their agents, the conductor its part, then the
	// record is committed (game/cluster_checkpoint.go).
	if _, err := c.WriteCheckpoint(faultyStore{s.store, s.fault}, s.name, cp); err != nil {
		return err
	}
	s.seq = cp.Seq
	return s.inputs.Prune(cp.Step) // the checkpoint holds the inputs before its step
}

// faultyStore meets the conductor's "commit" fault between a checkpoint's
// parts and its commit.
type faultyStore struct {
	cluster.CheckpointStore
	f fault
}

func (s faultyStore) Commit(cp cluster.Checkpoint) error {
	s.f.at("commit", cp.Step)
	return s.CheckpointStore.Commit(cp)
}

// checkpointCost is what one checkpoint took: its bytes (every part),
// and the time from the shards' start on their parts, which they write in
// parallel, to the record's commit.
type checkpointCost struct {
	bytes int
	took  time.Duration
}

// measureCheckpoint takes one checkpoint of the run on its server's store,
// for btrun bench, and drops it.
func measureCheckpoint(c *game.Conductor, url, name string) (checkpointCost, error) {
	var cost checkpointCost
	store, err := natsnet.OpenStore(natsnet.Options{URL: url, Run: name}, natsnet.StoreOptions{})
	if err != nil {
		return cost, err
	}
	defer store.Close()
	if _, _, err := store.Latest(); err != nil {
		return cost, err
	}
	start := time.Now()
	cost.bytes, err = c.WriteCheckpoint(store, name, cluster.Checkpoint{Seq: 1, Step: c.Step()})
	cost.took = time.Since(start)
	return cost, errors.Join(err, store.Drop())
}

func (c checkpointCost) print(w io.Writer, agents int) {
	n := float64(max(agents, 1))
	fmt.Fprintf(w, "a checkpoint: %d bytes (%.0f an agent), written in %.1f ms (%.1f µs an agent; the shards write their agents in parallel)\n",
		c.bytes, float64(c.bytes)/n, c.took.Seconds()*1e3, float64(c.took.Microseconds())/n)
}
