package game

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// singleRun is the config's run in one process: its trace and output.
func singleRun(t *testing.T, name string, steps int) (string, string) {
	t.Helper()
	cfg, err := LoadConfig(clusterConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	trace, out, _ := soloRun(t, cfg, Options{}, steps, false)
	return trace, out
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
			tc.wantSolo("", wantTrace, wantOut, wantEnd)
		})
	}
	t.Run("2x2workers", func(t *testing.T) {
		tc := startClusterWorkers(t, "example", 2, 2)
		tc.steps(1, steps)
		tc.wantSolo("", wantTrace, wantOut, wantEnd)
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
