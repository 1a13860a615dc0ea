package game

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// workersGames are the configs the workers tests run: fixtures with
// signals (alarm), gates, parallels, interruptions, failures, a crashing
// plugin, signals with data, stimuli and handlers, and the
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
	{"crashy", fixturePath("crashy"), 6, 20},   // a plugin that crashes mid-batch and sends signals for agents
	{"signals", fixturePath("signals"), 0, 80}, // data between agents, stimuli, handlers (of lanes' actions too)
	{"slots", fixturePath("slots"), 4, 60},     // grafted trees: composites bound on each worker
	{"example", "../config.toml", 40, 220},     // long enough for medics to treat and be preempted (their hooks)
}

func fixturePath(name string) string {
	return filepath.Join("..", "tests", "testdata", "fixtures", name, "config.toml")
}

// openWithWorkers opens a config with n workers (and run.workers != 1, so
// that the scripts' contract holds for n = 1 too), its trace and output in
// the session's buffers.
func openWithWorkers(t *testing.T, config string, scale, n int) *session {
	t.Helper()
	return openOnWorkers(t, config, scale, n, true)
}

// openOnWorkers is openWithWorkers, without a trace when traced is false.
func openOnWorkers(t *testing.T, config string, scale, n int, traced bool) *session {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if scale > 0 {
		cfg.ScaleAgents(scale)
	}
	cfg.Run.Workers = 0 // the contract of parallel runs, whatever n
	return startTracedOrNot(t, cfg, filepath.Dir(config), &n, traced)
}

func (s *session) save() []byte {
	s.t.Helper()
	data, err := s.g.SaveState()
	if err != nil {
		s.t.Fatal(err)
	}
	return data
}

// withoutBuilds drops the lines that say a plugin is being built: only the
// first game to start a plugin after its sources (or the SDK) changed
// builds it, whichever test or package that is (on a fresh machine, this
// test's first game, or another package's test running beside it).
func withoutBuilds(out string) string {
	var keep []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, "btrun: plugin ") &&
			(strings.Contains(line, ": building ") || strings.Contains(line, ": still building ") || strings.Contains(line, ": built in ")) {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "")
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
			// The example's medics run enter and exit hooks (medic.xml):
			// their log lines must be the same for every number of workers,
			// and the save, taken while some are treating (repeat counts
			// and starts), too.
			if out := one.people.String(); tc.name == "example" && (!strings.Contains(out, "opens the medkit") || !strings.Contains(out, "packs the medkit away")) {
				t.Fatalf("the example's medics never ran their hooks:\n%s", out)
			}
			for _, n := range []int{2, 3, 8} {
				s := openWithWorkers(t, tc.config, tc.scale, n)
				s.run(tc.steps)
				if got, want := s.trace.String(), one.trace.String(); got != want {
					t.Fatalf("workers=%d: the trace differs from one worker's:\n%s", n, firstDiff(got, want))
				}
				if got, want := withoutBuilds(s.people.String()), withoutBuilds(one.people.String()); got != want {
					t.Fatalf("workers=%d: the output differs from one worker's:\n%s", n, firstDiff(got, want))
				}
				if !bytes.Equal(s.save(), wantSave) {
					t.Fatalf("workers=%d: the save differs from one worker's", n)
				}
				if one.g.plugins != nil {
					// The calls of every worker's agents travel in one batch
					// per plugin and round, as with one worker.
					if got, want := s.g.plugins.Stats(), one.g.plugins.Stats(); got != want {
						t.Fatalf("workers=%d: plugin traffic %+v, one worker's %+v", n, got, want)
					}
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

func TestWorkers_eachEntrysAgentsAreCutIntoARunPerWorker(t *testing.T) {
	for _, tc := range []struct {
		n      int
		counts []int
		want   string
	}{
		{2, []int{4}, "0 0 1 1"},
		{3, []int{7}, "0 0 0 1 1 2 2"},
		{2, []int{4, 2, 3}, "0 0 1 1 0 1 0 0 1"}, // every worker gets some of each tree
		{2, []int{3, 3}, "0 0 1 0 1 1"},          // leftovers go round: 3 and 3
		{8, []int{3}, "0 1 2"},                   // workers 3 to 7 wait for added agents
	} {
		g := &Game{env: &runtime.Env{}}
		total := 0
		for _, c := range tc.counts {
			total += c
		}
		g.openWorkers(resolveWorkers(tc.n, total), tc.counts)
		got := strings.Trim(fmt.Sprint(g.workerOf), "[]")
		if got != tc.want {
			t.Errorf("%d workers, %v agents: %s, want %s", tc.n, tc.counts, got, tc.want)
		}
	}
	if n := resolveWorkers(0, 1000); n < 1 {
		t.Errorf("workers = 0 resolves to %d", n)
	}
}

// TestWorkers_aReloadReloadsEveryWorkersLuaState: a hot reload with several
// workers rebuilds every worker's Lua state and trees, and a run reloaded
// halfway without changes gives the trace of a straight run.
func TestWorkers_aReloadReloadsEveryWorkersLuaState(t *testing.T) {
	for _, name := range []string{"alarm", "parallel", "interrupt"} {
		t.Run(name, func(t *testing.T) {
			const steps, at = 30, 13
			straight := openWithWorkers(t, fixturePath(name), 0, 3)
			straight.run(steps)
			s := openWithWorkers(t, fixturePath(name), 0, 3)
			s.run(at)
			before := s.g.extra
			rep, err := s.g.Reload(ReloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Kept != len(s.g.agents) || len(rep.Restarted) > 0 {
				t.Fatalf("reload: %+v", rep)
			}
			if len(s.g.extra) != len(before) || (len(before) > 0 && s.g.extra[0] == before[0]) {
				t.Fatal("the extra workers' states were not rebuilt")
			}
			s.run(steps - at)
			if got, want := s.trace.String(), straight.trace.String(); got != want {
				t.Fatalf("the trace differs:\n%s", firstDiff(got, want))
			}
		})
	}
}

// stepsSeen is a Debugger that records the agents' steps it is told of,
// and fails the test when two calls overlap (the live view's hooks are
// called from one goroutine at a time).
type stepsSeen struct {
	t     *testing.T
	busy  atomic.Bool
	steps []string
}

func (d *stepsSeen) Attached(DebugHost)      {}
func (d *stepsSeen) Between(end uint64) bool { return true }
func (d *stepsSeen) Stepped(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	if !d.busy.CompareAndSwap(false, true) {
		d.t.Error("two Stepped calls at once")
	}
	d.steps = append(d.steps, fmt.Sprintf("%s %s %d", a.ID(), st, len(runs)))
	d.busy.Store(false)
}
func (d *stepsSeen) Changed(a *runtime.Agent, c Change)         {}
func (d *stepsSeen) Logged(a *runtime.Agent, label, msg string) {}
func (d *stepsSeen) Reloaded()                                  {}

// TestWorkers_theLiveViewSeesStepsOneAtATime: with a debugger attached,
// workers step one after the other, so its hooks are never called at once,
// and it sees what it sees with one worker.
func TestWorkers_theLiveViewSeesStepsOneAtATime(t *testing.T) {
	var want []string
	for _, n := range []int{1, 3} {
		s := openWithWorkers(t, fixturePath("gates"), 0, n)
		d := &stepsSeen{t: t}
		s.g.AttachDebugger(d)
		s.run(20)
		got := strings.Join(d.steps, "\n")
		if n == 1 {
			want = d.steps
			continue
		}
		if got != strings.Join(want, "\n") {
			t.Fatalf("workers=%d: the debugger saw other steps:\n%s", n, firstDiff(got, strings.Join(want, "\n")))
		}
	}
}

// TestWorkers_writingAModuleTableIsAnAgentsErrorAtTheScriptLine: with
// run.workers not 1, an action that writes its module's table errors at the
// line that wrote it, whatever the number of workers; with workers = 1 the
// same script runs.
func TestWorkers_writingAModuleTableIsAnAgentsErrorAtTheScriptLine(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"config.toml":  "[run]\nsteps = 2\n[scripts]\npaths = [\"ai\"]\n[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\ncount = 4\n",
		"t.xml":        `<behaviorTree><action id="bump" name="bump"/></behaviorTree>`,
		"ai/tally.lua": "local tally = {n = 0}\nreturn tally\n",
		"ai/bump.lua":  "local tally = require(\"tally\")\nbt.action(\"bump\", function(ctx)\n  tally.n = tally.n + 1\n  return bt.RUNNING\nend)\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(dir, "config.toml")
	for _, n := range []int{1, 2} {
		s := openWithWorkers(t, config, 0, n)
		s.run(1)
		want := `ai/bump.lua:3: luabind: read-only table: cannot set n: module tally is read-only`
		if got := strings.Count(s.trace.String(), want); got != 4 {
			t.Fatalf("workers=%d: %d of 4 agents' steps end with %q:\n%s", n, got, want, s.trace.String())
		}
	}
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard}) // run.workers = 1: no contract
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.runStep(); err != nil {
		t.Fatal(err)
	}
	for _, ga := range g.agents {
		if ga.err != nil || ga.errors > 0 {
			t.Fatalf("workers = 1: %s: %v", ga.a.ID(), ga.err)
		}
	}
}

// TestWorkers_quietOutputKeepsNoLogLines: with the output quiet and no
// live view, log lines and prints of agents' steps would be dropped at the
// round's end; the workers do not keep them. The output of a quiet run is
// the summary alone either way.
func TestWorkers_quietOutputKeepsNoLogLines(t *testing.T) {
	cfg, err := LoadConfig(fixturePath("gates"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Run.Workers = 2
	loud := openWithWorkers(t, fixturePath("gates"), 0, 2)
	loud.run(60)
	if !strings.Contains(loud.people.String(), " log ") {
		t.Fatalf("the gates fixture logs nothing, so this test shows nothing:\n%s", loud.people.String())
	}
	var out bytes.Buffer
	g, err := Open(cfg, Options{Quiet: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Run(60); err != nil {
		t.Fatal(err)
	}
	for k, w := range g.workers {
		if cap(w.lines) != 0 {
			t.Errorf("worker %d kept log lines (capacity %d) that a quiet run drops", k, cap(w.lines))
		}
	}
	if strings.Contains(out.String(), " log ") {
		t.Errorf("a quiet run printed a log line:\n%s", out.String())
	}
}
