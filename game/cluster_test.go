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
	return trace.String(), out.String()
}

// clusterRun is the config's run on a conductor and shards in this
// process, over the in-process transport: every shard a Game of its own,
// with its own agents and Lua state.
func clusterRun(t *testing.T, name string, steps, shards int) (string, string) {
	t.Helper()
	var trace, out bytes.Buffer
	// What opening writes (a plugin's start) is the conductor's to write.
	open := func(w io.Writer) *Game {
		cfg, err := LoadConfig(clusterConfig(name))
		if err != nil {
			t.Fatal(err)
		}
		g, err := Open(cfg, Options{Stdout: w, Stderr: w})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	cg := open(&out)
	ch, err := newConductor(cg, &trace, &out)
	if err != nil {
		t.Fatal(err)
	}
	layout := cluster.Cut(len(cg.agents), shards)
	link, ends := cluster.NewLocal(shards)
	var wg sync.WaitGroup
	errs := make([]error, shards)
	for k := range shards {
		sg := open(io.Discard)
		lo, hi := layout.Range(k)
		sh, err := newShard(sg, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		if err := sh.start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = (&cluster.Shard{Host: sh, Link: ends[k]}).Run()
		}()
	}
	if err := ch.start(); err != nil {
		t.Fatal(err)
	}
	c := &cluster.Conductor{Host: ch, Link: link, Layout: layout}
	for s := 1; s <= steps; s++ {
		if err := c.Step(uint64(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Finish(uint64(steps)); err != nil {
		t.Fatal(err)
	}
	if err := ch.finish(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Errorf("shard %d: %v", k, err)
		}
	}
	return trace.String(), out.String()
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
		for _, shards := range []int{1, 2, 3} {
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
	if name == "example" {
		return "../config.toml"
	}
	return fixturePath(name)
}

// TestCluster_exampleGame: the example game (the gun, gates, parallels,
// signals with data, handlers, grafts, the nav plugin, the world's shared
// data) for 600 steps: the trace and output of one process on 1, 2 and 3
// shards.
func TestCluster_exampleGame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	wantTrace, wantOut := singleRun(t, "example", 600)
	for _, shards := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			trace, out := clusterRun(t, "example", 600, shards)
			if trace != wantTrace {
				t.Errorf("trace differs:\n%s", lineDiff(trace, wantTrace))
			}
			if out != wantOut {
				t.Errorf("output differs:\n%s", lineDiff(out, wantOut))
			}
		})
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
