package tests

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests of `btrun run -watch` edit a game's files while it runs. They
// do not race the game: it runs with -realtime (a step every dt of wall
// time) and far more steps than needed, each test waits for the output
// line that says what it expects (the reload, the new behaviour), however
// long a loaded machine takes, then stops the game. Step numbers are read
// from the output, never guessed from the time.

// patience bounds each wait: a plugin's first build on a loaded machine
// takes a minute.
const patience = 4 * time.Minute

// watched is a `btrun run -watch -realtime` process whose output for
// people a test reads line by line as it comes.
type watched struct {
	t     *testing.T
	dir   string
	trace string
	cmd   *exec.Cmd
	lines chan string
	seen  []string
}

// startWatched runs the game in dir with -watch, -realtime and a trace.
func startWatched(t *testing.T, dir string, args ...string) *watched {
	t.Helper()
	w := &watched{t: t, dir: dir, trace: filepath.Join(dir, "trace.jsonl"), lines: make(chan string, 1024)}
	w.cmd = command(append([]string{"run", "-watch", "-realtime", "-steps", "1000000", "-trace", w.trace}, args...)...)
	w.cmd.Dir = dir
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.cmd.Stderr = w.cmd.Stdout
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(w.stop)
	w.waitFor(`^btrun: watching .* changes apply between two steps$`)
	return w
}

// stop ends the game (killed: it would run for days).
func (w *watched) stop() {
	if w.cmd.ProcessState == nil {
		w.cmd.Process.Kill()
		w.cmd.Wait()
	}
}

// waitFor reads the output until a line matches pattern and returns the
// pattern's groups. It fails if the game ends or patience runs out first.
func (w *watched) waitFor(pattern string) []string {
	w.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.After(patience)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("the game ended before a line matched %q:\n%s", pattern, strings.Join(w.seen, "\n"))
			}
			w.seen = append(w.seen, l)
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-deadline:
			w.t.Fatalf("no line matched %q within %v:\n%s", pattern, patience, strings.Join(w.seen, "\n"))
		}
	}
}

// waitForAll reads the output until each pattern has matched a line, in
// any order.
func (w *watched) waitForAll(patterns ...string) {
	w.t.Helper()
	left := map[string]*regexp.Regexp{}
	for _, p := range patterns {
		left[p] = regexp.MustCompile(p)
	}
	deadline := time.After(patience)
	for len(left) > 0 {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("the game ended before lines matched %q:\n%s", slices.Collect(maps.Keys(left)), strings.Join(w.seen, "\n"))
			}
			w.seen = append(w.seen, l)
			for p, re := range left {
				if re.MatchString(l) {
					delete(left, p)
				}
			}
		case <-deadline:
			w.t.Fatalf("no lines matched %q within %v:\n%s", slices.Collect(maps.Keys(left)), patience, strings.Join(w.seen, "\n"))
		}
	}
}

// edit replaces a file of the game the way editors save: a temporary file
// written, then renamed over it.
func (w *watched) edit(name, text string) {
	w.t.Helper()
	path := filepath.Join(w.dir, filepath.FromSlash(name))
	tmp := path + ".tmp-save"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		w.t.Fatal(err)
	}
}

// traceLines reads the trace written so far (a paced run writes it out at
// every step) and returns its complete lines.
func (w *watched) traceLines() []string {
	w.t.Helper()
	data, err := os.ReadFile(w.trace)
	if err != nil {
		w.t.Fatal(err)
	}
	text := string(data)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	} else {
		text = ""
	}
	return strings.Split(text, "\n")
}

// stepOf is the step a time of the output (t=1.15) is, with dt.
func stepOf(t *testing.T, at string, dt float64) int {
	t.Helper()
	f, err := strconv.ParseFloat(at, 64)
	if err != nil {
		t.Fatal(err)
	}
	return int(math.Round(f / dt))
}

// traceTime is the time of step s as the trace writes it.
func traceTime(s int, dt float64) string {
	return strconv.FormatFloat(math.Round(float64(s)*dt*1e9)/1e9, 'f', -1, 64)
}

// wantTrace checks that the trace holds each line.
func wantTrace(t *testing.T, lines []string, want ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range lines {
		have[l] = true
	}
	for _, l := range want {
		if !have[l] {
			t.Errorf("the trace lacks\n%s\nit has:\n%s", l, strings.Join(lines, "\n"))
		}
	}
}

// counterGame counts its steps in ctx.memory.
var counterGame = map[string]string{
	"config.toml": "[run]\ndt = 0.05\n[scripts]\npaths = [\"ai\"]\n[[trees]]\nname = \"c\"\nfile = \"ai/c.xml\"\n[[agents]]\ntree = \"c\"\n",
	"ai/c.xml": `<behaviorTree>
  <sequence id="root">
    <action id=".count" name="count"/>
  </sequence>
</behaviorTree>`,
	"ai/count.lua": `local bt = require("bt")
bt.action("count", function(ctx)
  ctx.memory.n = (ctx.memory.n or 0) + 1
  ctx:log("v1 n=" .. ctx.memory.n)
  return bt.RUNNING
end)`,
}

// TestWatch_editedLuaActionRunsAtTheNextStepWithMemoryKept: a Lua action
// edited while the game runs: one reload line; from the next step on the
// trace shows the new version's result, and ctx.memory goes on from where
// the old version left it.
func TestWatch_editedLuaActionRunsAtTheNextStepWithMemoryKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, counterGame)
	w := startWatched(t, dir)
	w.waitFor(`^t=\S+ c-1 log root\.count: v1 n=3$`)
	w.edit("ai/count.lua", strings.NewReplacer("v1", "v2", "bt.RUNNING", "bt.SUCCESS").Replace(counterGame["ai/count.lua"]))
	k := stepOf(t, w.waitFor(`^t=(\S+) reload: ai/count\.lua: 1 agent kept its place$`)[1], 0.05)
	m := w.waitFor(`^t=(\S+) c-1 log root\.count: v2 n=(\d+)$`)
	if got := stepOf(t, m[1], 0.05); got != k+1 || m[2] != strconv.Itoa(k+1) {
		t.Errorf("first v2 line at step %d with n=%s; want step %d and n=%d (memory kept)", got, m[2], k+1, k+1)
	}
	w.waitFor(fmt.Sprintf(`^t=\S+ c-1 log root\.count: v2 n=%d$`, k+2)) // step k+1 is in the trace
	wantTrace(t, w.traceLines(),
		fmt.Sprintf(`{"step":%d,"time":%s,"agent":"c-1","runs":[["root.count","running"]],"result":"running","cursor":"root.count"}`, k, traceTime(k, 0.05)),
		fmt.Sprintf(`{"step":%d,"time":%s,"agent":"c-1","runs":[["root.count","success"]],"result":"success","cursor":"root"}`, k+1, traceTime(k+1, 0.05)),
	)
}

// TestWatch_brokenTreeIsReportedAndFixingItApplies: a tree saved with
// mistakes is reported, every problem with its position, and the game goes
// on as it was; saving the fixed tree applies it.
func TestWatch_brokenTreeIsReportedAndFixingItApplies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, counterGame)
	w := startWatched(t, dir)
	w.waitFor(`^t=\S+ c-1 log root\.count: v1 n=2$`)
	w.edit("ai/c.xml", `<behaviorTree>
  <sequence id="root">
    <actoin name="count"/>
    <action id=".count" name="count" loop="x"/>
  </sequence>
</behaviorTree>`)
	w.waitFor(`^t=\S+ reload: ai/c\.xml: not applied; the game goes on unchanged:$`)
	w.waitFor(`^    ai/c\.xml:3:5: unknown tag <actoin>`)
	w.waitFor(`^    ai/c\.xml:4:5: `)
	w.waitFor(`^    2 problems$`)
	n, _ := strconv.Atoi(w.waitFor(`^t=\S+ c-1 log root\.count: v1 n=(\d+)$`)[1]) // the game goes on
	w.edit("ai/c.xml", `<behaviorTree>
  <sequence id="root">
    <action id=".count" name="count"/>
    <success id=".done"/>
  </sequence>
</behaviorTree>`)
	w.waitFor(`^t=\S+ reload: ai/c\.xml: 1 agent kept its place$`)
	if m, _ := strconv.Atoi(w.waitFor(`^t=\S+ c-1 log root\.count: v1 n=(\d+)$`)[1]); m <= n {
		t.Errorf("memory restarted: n=%d after n=%d", m, n)
	}
}

// TestWatch_lostFolderIsWatchedAgain: the game's folder renamed away and
// back, or deleted and made again (as a git checkout does), is said lost,
// then watched again; its files are reloaded, and a later edit is reloaded
// as before.
func TestWatch_lostFolderIsWatchedAgain(t *testing.T) {
	for _, how := range []string{"renamedAwayAndBack", "deletedAndMadeAgain"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, counterGame)
			w := startWatched(t, dir)
			w.waitFor(`^t=\S+ c-1 log root\.count: v1 n=2$`)
			ai := filepath.Join(dir, "ai")
			switch how {
			case "renamedAwayAndBack":
				if err := os.Rename(ai, ai+".away"); err != nil {
					t.Fatal(err)
				}
				w.waitFor(`^btrun: watch: ai was removed or renamed; watching for it to come back$`)
				if err := os.Rename(ai+".away", ai); err != nil {
					t.Fatal(err)
				}
			case "deletedAndMadeAgain":
				if err := os.RemoveAll(ai); err != nil {
					t.Fatal(err)
				}
				// The files gone do not reload; the folder is made again
				// after that reload, which watches what is there.
				w.waitForAll(`^btrun: watch: ai was removed or renamed; watching for it to come back$`,
					`^t=\S+ reload: ai/c\.xml, ai/count\.lua: not applied; the game goes on unchanged:$`)
				writeFiles(t, dir, counterGame)
			}
			// The files reloaded and the watch back, in either order (a
			// batch with the files made again may come before the notice,
			// or the files in two batches, as they are made).
			w.waitForAll(`^btrun: watch: ai is there again; watching it again$`,
				`^t=\S+ reload: ai/(c\.xml|count\.lua|c\.xml, ai/count\.lua): 1 agent kept its place$`)
			// An edit now may still be seen by the look at every file of
			// the folder back; once it is reloaded, the next edit is the
			// live watch's alone.
			w.edit("ai/count.lua", strings.Replace(counterGame["ai/count.lua"], "v1", "v2", 1))
			w.waitFor(`^t=\S+ c-1 log root\.count: v2 n=\d+$`)
			w.edit("ai/count.lua", strings.Replace(counterGame["ai/count.lua"], "v1", "v3", 1))
			w.waitFor(`^t=\S+ reload: ai/count\.lua: 1 agent kept its place$`)
			w.waitFor(`^t=\S+ c-1 log root\.count: v3 n=\d+$`)
		})
	}
}

// aimGame has an agent sitting on a running Lua action with a cancel hook.
var aimGame = map[string]string{
	"config.toml": "[run]\ndt = 0.05\n[scripts]\npaths = [\"ai\"]\n[[trees]]\nname = \"a\"\nfile = \"ai/a.xml\"\n[[agents]]\ntree = \"a\"\n",
	"ai/a.xml": `<behaviorTree>
  <sequence id="root">
    <action id=".aim" name="aim"/>
  </sequence>
</behaviorTree>`,
	"ai/aim.lua": `local bt = require("bt")
bt.action("aim", {
  start = function(ctx) ctx.state.since = ctx.step; ctx:log("start") end,
  run = function(ctx) ctx:log("run") return bt.RUNNING end,
  cancel = function(ctx) ctx:log("cancel, aiming since step " .. ctx.state.since) end,
})`,
}

// TestWatch_renamedRuleRestartsTheAgentsOnIt: renaming the id of the rule
// an agent sits on restarts it at the root: the old action's cancel hook
// runs (with its ctx.state), the reload line names the agent and the rule,
// the trace has the restart, and the next step starts the renamed rule.
func TestWatch_renamedRuleRestartsTheAgentsOnIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, aimGame)
	w := startWatched(t, dir)
	w.waitFor(`^t=0\.05 a-1 \(start\) -> root\.aim$`)
	w.edit("ai/a.xml", strings.Replace(aimGame["ai/a.xml"], `id=".aim"`, `id=".aim2"`, 1))
	w.waitFor(`^t=\S+ a-1 log root\.aim: cancel, aiming since step 1$`)
	k := stepOf(t, w.waitFor(`^t=(\S+) reload: ai/a\.xml: 0 agents kept their place, 1 restarted \(a-1: rule root\.aim is gone\)$`)[1], 0.05)
	m := w.waitFor(`^t=(\S+) a-1 log root\.aim2: start$`)
	if got := stepOf(t, m[1], 0.05); got != k+1 {
		t.Errorf("the renamed rule started at step %d, want %d", got, k+1)
	}
	w.waitFor(fmt.Sprintf(`^t=%.2f a-1 log root\.aim2: run$`, float64(k+2)*0.05)) // step k+1 is in the trace
	wantTrace(t, w.traceLines(),
		fmt.Sprintf(`{"step":%d,"time":%s,"agent":"a-1","reload":"restart","rule":"root.aim"}`, k, traceTime(k, 0.05)),
		fmt.Sprintf(`{"step":%d,"time":%s,"agent":"a-1","runs":[["root.aim2","running"]],"result":"running","cursor":"root.aim2"}`, k+1, traceTime(k+1, 0.05)),
	)
}

// TestWatch_changedPluginIsRebuilt: a plugin's Go source saved with a
// mistake is reported with the compiler's errors, and the old build serves
// on; fixed, it is rebuilt and restarted between two steps, the agent keeps
// its place, and the new build goes on from the old one's state bytes.
func TestWatch_changedPluginIsRebuilt(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Parallel()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "plugins", "reloady", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"reloady/go.mod": "module example.com/reloady\n\ngo 1.26\n\nrequire github.com/btrun/btrun v0.0.0\n\nreplace github.com/btrun/btrun => " +
			filepath.ToSlash(repo) + "\n",
		"reloady/main.go": string(src),
		"config.toml": "[run]\ndt = 0.05\n[[trees]]\nname = \"w\"\nfile = \"ai/w.xml\"\n" +
			"[[plugins]]\nname = \"reloady\"\npath = \"reloady\"\n[[agents]]\ntree = \"w\"\n",
		"ai/w.xml": `<behaviorTree><sequence id="root"><action id=".work" name="reloady.work"/></sequence></behaviorTree>`,
	})
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = filepath.Join(dir, "reloady")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	w := startWatched(t, dir) // the first build comes before the watching line
	w.waitFor(`^t=\S+ w-1 log root\.work: version 1 call 3$`)
	w.edit("reloady/main.go", strings.Replace(string(src), "const version = 1", "const version = 2 +", 1))
	w.waitFor(`^t=\S+ reload: reloady/main\.go: not applied; the game goes on unchanged:$`)
	w.waitFor(`^    game: a plugin could not be rebuilt: host: plugin reloady: go build example\.com/reloady \(in .*\) failed \(\d+ compiler errors?\):$`)
	w.waitFor(`^        \./main\.go:\d+:\d+: syntax error`)
	w.waitFor(`^t=\S+ w-1 log root\.work: version 1 call \d+$`) // the old build serves on
	w.edit("reloady/main.go", strings.Replace(string(src), "const version = 1", "const version = 2", 1))
	k := stepOf(t, w.waitFor(`^t=(\S+) reload: reloady/main\.go: 1 agent kept its place; plugin reloady restarted with its new build$`)[1], 0.05)
	m := w.waitFor(`^t=(\S+) w-1 log root\.work: version 2 call (\d+)$`)
	if got := stepOf(t, m[1], 0.05); got != k+1 || m[2] != strconv.Itoa(k+1) {
		t.Errorf("the new build's first call at step %d, call %s; want step %d, call %d (its state bytes kept)", got, m[2], k+1, k+1)
	}
}

// TestWatch_touchedFileLeavesTheTraceAsItWas: a file saved without a change
// (touched) reloads the example game (world script, Lua, the nav plugin)
// between two steps, and every agent goes on as if nothing happened: the
// trace is byte for byte the trace of a run without the reload.
func TestWatch_touchedFileLeavesTheTraceAsItWas(t *testing.T) {
	t.Parallel()
	dir := exampleCopy(t) // editor_browser_test.go
	w := startWatched(t, dir)
	w.waitTraceStep(5)
	now := time.Now()
	if err := os.Chtimes(filepath.Join(dir, "scripts", "ai", "grunt.xml"), now, now); err != nil {
		t.Fatal(err)
	}
	k := stepOf(t, w.waitFor(`^t=(\S+) reload: scripts/ai/grunt\.xml: 16 agents kept their place$`)[1], 0.1)
	w.waitTraceStep(k + 20)
	w.stop()
	last := k + 19 // complete: lines of the next step follow it
	var watchedTrace strings.Builder
	for _, l := range w.traceLines() {
		if traceStep(t, l) <= last {
			watchedTrace.WriteString(l + "\n")
		}
	}
	straight := filepath.Join(dir, "straight.jsonl")
	if r := run(t, dir, "run", "-steps", strconv.Itoa(last), "-trace", straight, "-quiet"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want, err := os.ReadFile(straight)
	if err != nil {
		t.Fatal(err)
	}
	if watchedTrace.String() != string(want) {
		t.Errorf("reloaded at step %d, the trace differs from a run without the reload: %s", k, firstDifference(watchedTrace.String(), string(want)))
	}
}

// waitTraceStep waits until the trace holds a line of step s.
func (w *watched) waitTraceStep(s int) {
	w.t.Helper()
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if lines := w.traceLines(); len(lines) > 0 && lines[0] != "" && traceStep(w.t, lines[len(lines)-1]) >= s {
			return
		}
	}
	w.t.Fatalf("the trace has no step %d within %v", s, patience)
}

// traceStep is the step of a trace line.
func traceStep(t *testing.T, line string) int {
	t.Helper()
	rest, ok := strings.CutPrefix(line, `{"step":`)
	n, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, ','))])
	if !ok || err != nil {
		t.Fatalf("not a trace line: %s", line)
	}
	return n
}
