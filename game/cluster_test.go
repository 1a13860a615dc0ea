package game

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// singleRun is the config's run in one process: its trace and output.
func singleRun(t *testing.T, name string, steps int) (string, string) {
	t.Helper()
	cfg, err := LoadConfig(clusterConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	var trace, out bytes.Buffer
	g, err := Open(cfg, Options{TraceTo: &trace, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(steps); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil { // closing the agents writes too
		t.Fatal(err)
	}
	return trace.String(), out.String()
}

// testCluster is a conductor and its shards in this process, over the
// in-process transport: every shard a Game of its own, with its own agents
// and Lua state.
type testCluster struct {
	t          *testing.T
	c          *cluster.Conductor
	ch         *conductorHost
	wg         sync.WaitGroup
	errs       []error
	trace, out bytes.Buffer
	shards     []*shardHost // for tests that reach into a shard between steps
}

func startCluster(t *testing.T, name string, shards int) *testCluster {
	return startClusterWorkers(t, name, shards, 1)
}

// startClusterWorkers is startCluster with workers on every shard.
func startClusterWorkers(t *testing.T, name string, shards, workers int) *testCluster {
	t.Helper()
	tc := &testCluster{t: t, errs: make([]error, shards)}
	// What opening writes (a plugin's start) is the conductor's to write.
	open := func(w io.Writer, workers int, shard *ShardOf) *Game {
		cfg, err := LoadConfig(clusterConfig(name))
		if err != nil {
			t.Fatal(err)
		}
		g, err := Open(cfg, Options{Stdout: w, Stderr: w, Workers: &workers, Shard: shard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	cg := open(&tc.out, 1, nil)
	ch, err := newConductor(cg, &tc.trace, &tc.out)
	if err != nil {
		t.Fatal(err)
	}
	layout := cluster.Cut(len(cg.agents), shards)
	link, ends := cluster.NewLocal(shards)
	for k := range shards {
		sg := open(io.Discard, workers, &ShardOf{K: k, N: shards})
		lo, hi := layout.Range(k)
		sh, err := newShard(sg, lo, hi, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := sh.start(); err != nil {
			t.Fatal(err)
		}
		tc.shards = append(tc.shards, sh)
		tc.wg.Add(1)
		go func() {
			defer tc.wg.Done()
			tc.errs[k] = (&cluster.Shard{Host: sh, Link: ends[k]}).Run()
		}()
	}
	if err := ch.start(); err != nil {
		t.Fatal(err)
	}
	tc.ch, tc.c = ch, &cluster.Conductor{Host: ch, Link: link, Layout: layout}
	t.Cleanup(func() { tc.stop() })
	return tc
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

// finish ends the run: the trace and the output.
func (tc *testCluster) finish() (string, string) {
	tc.t.Helper()
	c := &Conductor{g: tc.ch.g, h: tc.ch, c: tc.c}
	if err := c.Finish(); err != nil {
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

// clusterRun is the config's run on shards: its trace and output.
func clusterRun(t *testing.T, name string, steps, shards int) (string, string) {
	t.Helper()
	workers := 1
	if shards < 0 {
		shards, workers = -shards, 2
	}
	tc := startClusterWorkers(t, name, shards, workers)
	tc.steps(1, steps)
	return tc.finish()
}

// singleSave is the save file of the config's run in one process after
// steps steps, and after half of them.
func singleSave(t *testing.T, name string, steps int) (half, end []byte) {
	t.Helper()
	cfg, err := LoadConfig(clusterConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= steps; s++ {
		if _, err := g.runStep(); err != nil {
			t.Fatal(err)
		}
		if s == steps/2 {
			if half, err = g.encodeSave(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if end, err = g.encodeSave(); err != nil {
		t.Fatal(err)
	}
	return half, end
}

// TestCluster_saves: the cluster's save after half the steps and at the
// end is one process's, byte for byte; a save made on 2 shards, loaded on
// 3 (and on 1), goes on to the same end.
func TestCluster_saves(t *testing.T) {
	for _, fx := range []struct {
		name  string
		steps int
	}{{"signals", 80}, {"gates", 60}, {"slots", 60}} {
		t.Run(fx.name, func(t *testing.T) {
			wantHalf, wantEnd := singleSave(t, fx.name, fx.steps)
			a := startCluster(t, fx.name, 2)
			a.steps(1, fx.steps/2)
			half := a.save()
			if !bytes.Equal(half, wantHalf) {
				t.Fatalf("the save at step %d differs from one process's (%d bytes, want %d)", fx.steps/2, len(half), len(wantHalf))
			}
			a.steps(fx.steps/2+1, fx.steps)
			if end := a.save(); !bytes.Equal(end, wantEnd) {
				t.Errorf("the save at the end differs from one process's")
			}
			for _, shards := range []int{3, 1} {
				b := startCluster(t, fx.name, shards)
				b.load(half)
				b.steps(fx.steps/2+1, fx.steps)
				if end := b.save(); !bytes.Equal(end, wantEnd) {
					t.Errorf("%d shards from the 2 shards' save: the save at the end differs from one process's", shards)
				}
			}
		})
	}
}

// TestCluster_sameTraceAndOutput: a game run by a conductor and 1, 2 or 3
// shards writes the trace and the output of one process, byte for byte:
// signals with data from the schedule, the world and agents, handlers and
// their errors, stimuli.
func TestCluster_sameTraceAndOutput(t *testing.T) {
	for _, fx := range []struct {
		name  string
		steps int
	}{{"signals", 80}, {"alarm", 30}, {"gates", 60}, {"parallel", 48}, {"slots", 60}, {"interrupt", 40}, {"failing", 30}, {"slotlanes", 40}} {
		wantTrace, wantOut := singleRun(t, fx.name, fx.steps)
		for _, shards := range []int{1, 2, 3, -2} { // -2: 2 shards of 2 workers
			t.Run(fmt.Sprintf("%s/%d", fx.name, shards), func(t *testing.T) {
				trace, out := clusterRun(t, fx.name, fx.steps, shards)
				if trace != wantTrace {
					t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
				}
				if out != wantOut {
					t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
				}
			})
		}
	}
}

// clusterConfig is a fixture's config, or the example game's ("example").
func clusterConfig(name string) string {
	if strings.HasSuffix(name, ".toml") { // a config the test wrote
		return name
	}
	if name == "example" {
		return "../config.toml"
	}
	return fixturePath(name)
}

// TestCluster_exampleGame: the example game (the gun, gates, parallels,
// signals with data, handlers, grafts, the nav plugin, the world's shared
// data) for 600 steps: the trace, the output and the final save of one
// process on 1, 2 and 3 shards; and a save made on 2 shards at step 300,
// loaded on 3 and on 1, ends with the same save.
func TestCluster_exampleGame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	const steps = 600
	wantTrace, wantOut := singleRun(t, "example", steps)
	wantHalf, wantEnd := singleSave(t, "example", steps)
	var half []byte
	for _, shards := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			tc := startCluster(t, "example", shards)
			tc.steps(1, steps/2)
			if b := tc.save(); !bytes.Equal(b, wantHalf) {
				t.Errorf("the save at step %d differs", steps/2)
			} else if shards == 2 {
				half = b
			}
			tc.steps(steps/2+1, steps)
			if b := tc.save(); !bytes.Equal(b, wantEnd) {
				t.Errorf("the final save differs")
			}
			trace, out := tc.finish()
			if trace != wantTrace {
				t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
			}
			if out != wantOut {
				t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
			}
		})
	}
	t.Run("2x2workers", func(t *testing.T) {
		tc := startClusterWorkers(t, "example", 2, 2)
		tc.steps(1, steps)
		if b := tc.save(); !bytes.Equal(b, wantEnd) {
			t.Errorf("the final save differs")
		}
		trace, out := tc.finish()
		if trace != wantTrace {
			t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
		}
		if out != wantOut {
			t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
		}
	})
	if half == nil {
		t.Fatal("no save from 2 shards")
	}
	for _, shards := range []int{3, 1} {
		tc := startClusterWorkers(t, "example", shards, 2)
		tc.load(half)
		tc.steps(steps/2+1, steps)
		if b := tc.save(); !bytes.Equal(b, wantEnd) {
			t.Errorf("%d shards from the 2 shards' save at step %d: the final save differs", shards, steps/2)
		}
	}
}

func lineDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}
