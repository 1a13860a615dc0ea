package game

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// soloRun is cfg's run in one process for steps steps (Game.Run, so with
// opts.BeforeStep): its trace, its output and, if save, its final save.
// opts gets the trace and output buffers.
func soloRun(t *testing.T, cfg *Config, opts Options, steps int, save bool) (string, string, []byte) {
	t.Helper()
	g, trace, out := startSolo(t, cfg, opts)
	if err := g.Run(steps); err != nil {
		t.Fatal(err)
	}
	var b []byte
	if save {
		b = endSolo(t, g)
	} else if err := g.Close(); err != nil { // closing the agents writes too
		t.Fatal(err)
	}
	return trace.String(), out.String(), b
}

// soloWithInputs is the run of the game at config in one process for
// steps steps, with inputs called between the steps (before each, with the
// step before it: Options.BeforeStep), as a program sends a cluster's
// between its steps (runWithInputs): its trace, output and final save.
func soloWithInputs(t *testing.T, config string, steps int, inputs func(g *Game, after uint64)) (string, string, []byte) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	before := func(g *Game, s StepInfo) error {
		inputs(g, s.Step-1)
		return nil
	}
	return soloRun(t, cfg, Options{BeforeStep: before}, steps, true)
}

// runWithInputs runs c from its step to step to, one step at a time, with
// inputs called before each with the step before it.
func runWithInputs(t *testing.T, c *Conductor, to uint64, inputs func(after uint64)) {
	t.Helper()
	for c.Step() < to {
		inputs(c.Step())
		if err := c.Run(1); err != nil {
			t.Fatal(err)
		}
	}
}

// startSolo opens and starts cfg's game in one process (opts but for its
// trace and output, which go to the buffers it returns); the game is
// closed at the test's end if not before.
func startSolo(t *testing.T, cfg *Config, opts Options) (g *Game, trace, out *bytes.Buffer) {
	t.Helper()
	trace, out = &bytes.Buffer{}, &bytes.Buffer{}
	opts.TraceTo, opts.Stdout, opts.Stderr = trace, out, out
	g, err := Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	return g, trace, out
}

// openSolo is startSolo of the game at config.
func openSolo(t *testing.T, config string) (g *Game, trace, out *bytes.Buffer) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return startSolo(t, cfg, Options{})
}

// endSolo is a one-process run's final save, taken before the game is
// closed (closing the agents writes too).
func endSolo(t *testing.T, g *Game) []byte {
	t.Helper()
	save, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return save
}

// soloEachStep is the run of the game at config in one process for steps
// steps, taken one at a time (Game.Run(1)), with after called after each:
// its trace, its output and its final save.
func soloEachStep(t *testing.T, config string, steps int, after func(g *Game, step int)) (string, string, []byte) {
	t.Helper()
	g, trace, out := openSolo(t, config)
	for step := 1; step <= steps; step++ {
		if err := g.Run(1); err != nil {
			t.Fatal(err)
		}
		after(g, step)
	}
	save := endSolo(t, g)
	return trace.String(), out.String(), save
}

// testCluster is a conductor and its shards in this process, over the
// in-process transport: every shard a Game of its own, with its own agents
// and Lua state.
type testCluster struct {
	t          testing.TB
	c          *cluster.Conductor
	ch         *conductorHost
	wg         sync.WaitGroup
	errs       []error
	trace, out bytes.Buffer
	shards     []*shardHost // for tests that reach into a shard between steps
	moves      [2]int       // with a balancer: the boundaries that moved up, down
}

// clusterSetup is what a test cluster runs; the zero value of a field is
// what most tests want.
type clusterSetup struct {
	name      string        // a fixture, "example" or a config path (clusterConfig)
	shards    int           // shards, each a Game
	workers   int           // on every shard (0: 1); the conductor has 1
	agents    int           // > 0: movingConfig's agents
	edit      func(*Config) // changes the config in every process
	fromSaves bool          // every game opened with Options.AgentsFromSave
	every     uint64        // > 0: a balancer deciding every `every` steps on swingCost's costs
	copies    bool          // the conductor holds a copy of every agent, as with a live view
	noTrace   bool          // no trace written, as btrun bench or a run without -trace
	// shardFiles, when set, is where the shards' games open from, as btrun
	// shard does: a copy of the game's files of their own (a config path),
	// with store to fetch a reload's files from.
	shardFiles func() string
	store      cluster.FileStore
	// link, when set, wraps the conductor's end of the transport before
	// the start (a fuzzer's seeds record what crosses it).
	link func(cluster.ConductorLink) cluster.ConductorLink
	// shardLink, when set, wraps shard k's end of the transport.
	shardLink func(k int, l cluster.ShardLink) cluster.ShardLink
}

// open opens one process's game of the cluster s says: the conductor's
// (shard nil; conductor: without copies of the agents) or a shard's.
func (s clusterSetup) open(t testing.TB, w io.Writer, workers int, shard *ShardOf, conductor bool) *Game {
	t.Helper()
	name := s.name
	if shard != nil && s.shardFiles != nil {
		name = s.shardFiles()
	}
	cfg := movingConfig(t, name, s.agents)
	if s.edit != nil {
		s.edit(cfg)
	}
	opts := Options{Stdout: w, Stderr: w, Workers: &workers, Shard: shard, Conductor: conductor, AgentsFromSave: s.fromSaves}
	g, err := Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// openCluster opens, starts and serves the cluster s says, stopped at the
// test's end.
func openCluster(t testing.TB, s clusterSetup) *testCluster {
	t.Helper()
	tc := &testCluster{t: t, errs: make([]error, s.shards)}
	// What opening writes (a plugin's start) is the conductor's to write.
	open := func(w io.Writer, workers int, shard *ShardOf) *Game {
		return s.open(t, w, workers, shard, shard == nil && !s.copies)
	}
	cg := open(&tc.out, 1, nil)
	var trace io.Writer = &tc.trace
	if s.noTrace {
		trace = nil
	}
	ch, err := newConductor(cg, trace, &tc.out)
	if err != nil {
		t.Fatal(err)
	}
	layout := cluster.Cut(len(cg.agents), s.shards)
	link, ends := cluster.NewLocal(s.shards)
	for k := range s.shards {
		sg := open(io.Discard, max(s.workers, 1), &ShardOf{K: k, N: s.shards})
		lo, hi := layout.Range(k)
		sh, err := newShard(sg, lo, hi, !s.noTrace)
		if err != nil {
			t.Fatal(err)
		}
		sh.files = s.store
		if err := sh.await(); err != nil { // as ServeShard
			t.Fatal(err)
		}
		tc.shards = append(tc.shards, sh)
		if s.shardLink != nil {
			ends[k] = s.shardLink(k, ends[k])
		}
		cs := &cluster.Shard{Host: sh, Link: ends[k]}
		if s.every > 0 {
			cs.Meter.Cost = swingCost(k, s.every, func() int32 { return sh.g.cl.hi - sh.g.cl.lo })
		}
		tc.wg.Add(1)
		go func() {
			defer tc.wg.Done()
			tc.errs[k] = cs.Run()
		}()
	}
	tc.ch, tc.c = ch, &cluster.Conductor{Host: ch, Link: link, Layout: layout}
	if s.link != nil {
		tc.c.Link = s.link(link)
	}
	if err := ch.start(tc.c); err != nil {
		t.Fatal(err)
	}
	if s.every > 0 {
		tc.c.Balance = &cluster.Balancer{Every: s.every, Decide: func(_ uint64, _ []float64, from, to cluster.Layout) {
			for i := range from.Start {
				if to.Start[i] > from.Start[i] {
					tc.moves[0]++
				} else if to.Start[i] < from.Start[i] {
					tc.moves[1]++
				}
			}
		}}
	}
	t.Cleanup(func() { tc.stop() })
	return tc
}

func startCluster(t *testing.T, name string, shards int) *testCluster {
	t.Helper()
	return openCluster(t, clusterSetup{name: name, shards: shards})
}

// startClusterWorkers is startCluster with workers on every shard.
func startClusterWorkers(t *testing.T, name string, shards, workers int) *testCluster {
	t.Helper()
	return openCluster(t, clusterSetup{name: name, shards: shards, workers: workers})
}

func (tc *testCluster) steps(from, to int) {
	tc.t.Helper()
	for s := from; s <= to; s++ {
		if err := tc.c.Step(uint64(s)); err != nil {
			tc.t.Fatal(err)
		}
	}
}

func (tc *testCluster) save() []byte {
	tc.t.Helper()
	b, err := tc.ch.save(tc.c)
	if err != nil {
		tc.t.Fatal(err)
	}
	return b
}

func (tc *testCluster) load(b []byte) {
	tc.t.Helper()
	if err := tc.ch.load(tc.c, b); err != nil {
		tc.t.Fatal(err)
	}
}

// conductor is the test cluster's game.Conductor.
func (tc *testCluster) conductor() *Conductor {
	return &Conductor{g: tc.ch.g, h: tc.ch, c: tc.c}
}

// finish ends the run: the trace and the output.
func (tc *testCluster) finish() (string, string) {
	tc.t.Helper()
	if err := tc.conductor().Finish(); err != nil {
		tc.t.Fatal(err)
	}
	return tc.trace.String(), tc.out.String()
}

func (tc *testCluster) stop() {
	if tc.c == nil {
		return
	}
	if err := tc.c.Stop(); err != nil {
		tc.t.Error(err)
	}
	tc.wg.Wait()
	for k, err := range tc.errs {
		if err != nil {
			tc.t.Errorf("shard %d: %v", k, err)
		}
	}
	tc.c = nil
}

// wantSolo finishes the run and fails the test unless the cluster's save
// (when wantSave is not nil; taken first), trace and output are one
// process's, byte for byte. label, when not empty, starts every message.
func (tc *testCluster) wantSolo(label, wantTrace, wantOut string, wantSave []byte) {
	tc.t.Helper()
	if label != "" {
		label += ": "
	}
	if wantSave != nil {
		if save := tc.save(); !bytes.Equal(save, wantSave) {
			tc.t.Errorf("%sthe final save differs from one process's", label)
		}
	}
	trace, out := tc.finish()
	if trace != wantTrace {
		tc.t.Errorf("%strace differs:\n%s", label, lineDiff(trace, wantTrace))
	}
	if out != wantOut {
		tc.t.Errorf("%soutput differs:\n%s", label, lineDiff(out, wantOut))
	}
}

// wroteAs makes tc's trace and output what a's were when they were traceAt
// and outAt bytes long (at a checkpoint): tc writes on from there, as a run
// that went back to that checkpoint does.
func (tc *testCluster) wroteAs(a *testCluster, traceAt, outAt int) {
	tc.trace.Reset()
	tc.out.Reset()
	tc.trace.Write(a.trace.Bytes()[:traceAt])
	tc.out.Write(a.out.Bytes()[:outAt])
}

// movedBothWays fails the test unless the balancer moved boundaries up
// and down.
func (tc *testCluster) movedBothWays() {
	tc.t.Helper()
	if tc.moves[0] == 0 || tc.moves[1] == 0 {
		tc.t.Fatalf("boundaries moved up %d times and down %d: want both", tc.moves[0], tc.moves[1])
	}
}

// storedRun is a cluster run that keeps its game's files in a store, as
// btrun run does: its shards open copies of them, and its journal and
// files outlive a link, so that a link that goes back to a checkpoint
// opens a copy of the checkpoint's files (WriteCheckpointFiles).
type storedRun struct {
	t          *testing.T
	config     string
	journal    cluster.MemJournal
	files      cluster.MemFiles
	man        *cluster.ReloadManifest
	programs   []PluginProgram
	shardFiles func() string
}

// newStoredRun stores the files of config's game (storedFiles).
func newStoredRun(t *testing.T, config string) *storedRun {
	t.Helper()
	r := &storedRun{t: t, config: config}
	r.man, r.programs, r.shardFiles = storedFiles(t, config, &r.files)
	return r
}

// open opens the run's first link, on shards shards: its conductor reads
// the game's folder and journals into the run's journal.
func (r *storedRun) open(shards int) (*testCluster, *Conductor) {
	r.t.Helper()
	tc := openCluster(r.t, clusterSetup{name: r.config, shards: shards, shardFiles: r.shardFiles, store: &r.files})
	c := tc.conductor()
	c.SetJournal(&r.journal)
	c.SetFiles(&r.files)
	return tc, c
}

// recover opens a link that goes back to checkpoint (a save), from a copy
// of the checkpoint's files, on shards shards: its trace and output start
// with what the lost link, from, wrote up to the checkpoint (wroteAs); its
// conductor journals into the run's journal and is told where the run's
// folder is (SetFilesCopy: home, the game's config there, returned too).
// The caller replays the journal.
func (r *storedRun) recover(shards int, checkpoint []byte, from *testCluster, traceAt, outAt int) (*testCluster, *Conductor, *Config) {
	r.t.Helper()
	home, err := LoadConfig(r.config)
	if err != nil {
		r.t.Fatal(err)
	}
	copied, err := WriteCheckpointFiles(&r.files, r.man, r.programs, home, r.t.TempDir())
	if err != nil {
		r.t.Fatal(err)
	}
	tc := openCluster(r.t, clusterSetup{name: copied, shards: shards, shardFiles: r.shardFiles, store: &r.files})
	tc.load(checkpoint)
	tc.wroteAs(from, traceAt, outAt)
	c := tc.conductor()
	c.SetJournal(&r.journal)
	c.SetFiles(&r.files)
	c.SetFilesCopy(home)
	return tc, c, home
}

// editorSave writes text into the file name (slash-separated) under dir as
// an editor saves: beside it, then renamed over it, so that a watcher never
// sees the file empty or half written, however slow the machine is between
// the write's truncate and its data.
func editorSave(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.WriteFile(path+".new", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// openQuiet is the game at config opened, writing nothing; the caller
// closes it.
func openQuiet(t *testing.T, config string) *Game {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
