package game

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// workersGames are the configs the workers tests run: fixtures with
// signals (alarm), gates, parallels, interruptions, failures, and the
// example game (a world script with shared data, the nav plugin's batched
// calls, gates, Lua actions), scaled up so that every worker has agents.
var workersGames = []struct {
	name, config string
	scale, steps int
}{
	{"alarm", fixturePath("alarm"), 0, 30},
	{"gates", fixturePath("gates"), 0, 60},
	{"parallel", fixturePath("parallel"), 0, 48},
	{"interrupt", fixturePath("interrupt"), 0, 60},
	{"failing", fixturePath("failing"), 0, 20},
	{"example", "../../config.toml", 40, 150},
}

func fixturePath(name string) string {
	return filepath.Join("..", "..", "tests", "testdata", "fixtures", name, "config.toml")
}

// openWorkers opens a config with n workers (and run.workers != 1, so
// that the scripts' contract holds for n = 1 too), its trace and output in
// the session's buffers.
func openWithWorkers(t *testing.T, config string, scale, n int) *session {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if scale > 0 {
		cfg.ScaleAgents(scale)
	}
	cfg.Run.Workers = 0 // the contract of parallel runs, whatever n
	s := &session{t: t, dir: filepath.Dir(config)}
	s.g, err = Open(cfg, Options{Trace: "-", Stdout: &s.trace, Stderr: &s.people, SaveEvery: -1, Workers: &n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.g.Close() })
	if got := s.g.Workers(); got != min(n, len(s.g.agents)) {
		t.Fatalf("Workers() = %d, want %d", got, n)
	}
	if err := s.g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := s.g.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *session) save() []byte {
	s.t.Helper()
	data, err := s.g.SaveState()
	if err != nil {
		s.t.Fatal(err)
	}
	return data
}

func TestWorkers_traceOutputAndSaveAreTheSameForAnyNumberOfWorkers(t *testing.T) {
	for _, tc := range workersGames {
		t.Run(tc.name, func(t *testing.T) {
			one := openWithWorkers(t, tc.config, tc.scale, 1)
			one.run(tc.steps)
			wantSave := one.save()
			if one.trace.Len() == 0 {
				t.Fatal("no trace")
			}
			for _, n := range []int{2, 3, 8} {
				s := openWithWorkers(t, tc.config, tc.scale, n)
				s.run(tc.steps)
				if got, want := s.trace.String(), one.trace.String(); got != want {
					t.Fatalf("workers=%d: the trace differs from one worker's:\n%s", n, firstDiff(got, want))
				}
				if got, want := s.people.String(), one.people.String(); got != want {
					t.Fatalf("workers=%d: the output differs from one worker's:\n%s", n, firstDiff(got, want))
				}
				if !bytes.Equal(s.save(), wantSave) {
					t.Fatalf("workers=%d: the save differs from one worker's", n)
				}
			}
		})
	}
}

// TestWorkers_aSaveWithNWorkersLoadsWithM: a run saved halfway with N
// workers and continued with M ends in the save of a straight run.
func TestWorkers_aSaveWithNWorkersLoadsWithM(t *testing.T) {
	for _, tc := range workersGames {
		t.Run(tc.name, func(t *testing.T) {
			straight := openWithWorkers(t, tc.config, tc.scale, 1)
			straight.run(tc.steps)
			want := straight.save()
			half := tc.steps / 2
			for _, nm := range [][2]int{{1, 3}, {3, 1}, {2, 8}, {8, 2}} {
				first := openWithWorkers(t, tc.config, tc.scale, nm[0])
				first.run(half)
				mid := first.save()
				then := openWithWorkers(t, tc.config, tc.scale, nm[1])
				if err := then.g.RestoreState(mid); err != nil {
					t.Fatalf("%d -> %d workers: %v", nm[0], nm[1], err)
				}
				then.run(tc.steps - half)
				if !bytes.Equal(then.save(), want) {
					t.Fatalf("saved with %d workers at step %d, continued with %d: the end differs from a straight run", nm[0], half, nm[1])
				}
			}
		})
	}
}

func TestWorkers_agentsAreSpreadEvenlyInConfigOrder(t *testing.T) {
	for _, tc := range []struct {
		n, agents int
		want      string
	}{
		{2, 4, "0 0 1 1"},
		{3, 7, "0 0 0 1 1 2 2"},
		{8, 3, "0 1 2"}, // never more workers than agents
	} {
		g := &Game{env: &runtime.Env{}}
		n := resolveWorkers(tc.n, tc.agents)
		g.openWorkers(n, tc.agents)
		got := strings.Trim(fmt.Sprint(g.workerOf), "[]")
		if got != tc.want {
			t.Errorf("%d workers, %d agents: %s, want %s", tc.n, tc.agents, got, tc.want)
		}
	}
	if n := resolveWorkers(0, 1000); n < 1 {
		t.Errorf("workers = 0 resolves to %d", n)
	}
}
