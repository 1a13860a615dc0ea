// Command luapeers measures the example game's Lua calls on btrun and on
// other Lua engines, so that the ratio table of docs/performance.md ("Lua
// per core") stays current:
//
//	go run ./luabind/internal/luapeers -agents 2000 -steps 100
//
// It runs the game (config.toml) with a hook on luabind's calls into Lua
// (luabind/internal/callhook) and writes each call to a log: the function
// (by where it is defined), the agent, the rule's params, the rule, and at
// each step the time and bt.shared. replay.lua replays that log through the
// same scripts with plain tables standing in for ctx, params and bt, on
// bare gopher-lua (this repository's, patched: its glua command, built from
// third_party/gopher-lua), gopher-lua v1.1.2 as released (its glua, built
// from the module cache), C Lua 5.1 and LuaJIT (lua5.1 and luajit on PATH; apt-get install lua5.1
// luajit). Engines that are missing are left out of the table.
//
// btrun's row is the game's own stepping with no hook (CPU time of the
// process over the steps, everything an agent-step does), per Lua call;
// the others are the calls alone: replay.lua's CPU time of its replay loop
// less that of the same loop without the calls (os.clock in C Lua and
// LuaJIT; /proc/self/stat in the gluas, whose os.clock is wall time). The
// replay's values drift from btrun's where a plugin wrote into agents' data
// and where scripts draw random numbers (bt.random is the replay's own
// generator), so it reports the calls that raised an error; the engines
// replay the same calls with the same values and agree on a checksum.
//
// Timings on a shared machine move with its load; -callgrind gives the
// table in instructions instead, exact under any load (valgrind on PATH;
// -nav is needed, since callgrind aborts on the signals of the go commands
// that would build the plugin):
//
//	go run ./luabind/internal/luapeers -callgrind -agents 2000 -steps 5 -nav /tmp/nav
//
// btrun's row is then a run of the game's steps less a run that only opens
// it (runGame), and each engine's the replay's loop with the calls less
// the loop without them, each run alone after the same loading and a full
// collection (replay.lua's "calls" and "base").
package main

import (
	"bufio"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/luabind/internal/callhook"
	lua "github.com/yuin/gopher-lua"
)

//go:embed replay.lua
var replayScript string

func main() {
	config := flag.String("config", "config.toml", "the game config")
	agents := flag.Int("agents", 2000, "agents")
	steps := flag.Int("steps", 100, "steps")
	reps := flag.Int("reps", 3, "replays of the log per engine (the fastest counts)")
	nav := flag.String("nav", "", "the nav plugin's executable, built beforehand (else the config's path, built if it must be)")
	cg := flag.Bool("callgrind", false, "count instructions per call with valgrind's callgrind instead of timing (exact on a busy machine)")
	runSteps := flag.Int("run-steps", -1, "internal: open the game, run this many steps and exit (what -callgrind counts for btrun)")
	flag.Parse()
	if *runSteps >= 0 {
		if err := runGame(*config, *nav, *agents, *runSteps); err != nil {
			fmt.Fprintln(os.Stderr, "luapeers:", err)
			os.Exit(1)
		}
		return
	}
	dir, err := os.MkdirTemp("", "luapeers")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if d := os.Getenv("LUAPEERS_KEEP"); d != "" {
		dir = d // keep the log and replay.lua there
	} else {
		defer os.RemoveAll(dir)
	}
	if *cg {
		rows, err := countAll(*config, *nav, dir, *agents, *steps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "luapeers:", err)
			os.Exit(1)
		}
		printCounts(os.Stdout, rows)
		return
	}
	rows, err := measure(*config, *nav, dir, *agents, *steps, *reps)
	if err != nil {
		fmt.Fprintln(os.Stderr, "luapeers:", err)
		os.Exit(1)
	}
	printTable(os.Stdout, rows)
}

// row is one engine's figure.
type row struct {
	engine   string
	calls    int
	errors   int
	seconds  float64 // the calls alone
	baseline float64 // replay.lua's loop without the calls
	checksum string
}

// measure records the log, times btrun's stepping and replays the log on
// every engine found.
func measure(config, nav, dir string, agents, steps, reps int) ([]row, error) {
	logPath := filepath.Join(dir, "calls.log")
	calls, err := record(config, nav, logPath, agents, steps)
	if err != nil {
		return nil, err
	}
	cpu, err := stepTime(config, nav, agents, steps)
	if err != nil {
		return nil, err
	}
	rows := []row{{engine: "btrun (whole agent-steps)", calls: calls, seconds: cpu.Seconds()}}
	script := filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		return nil, err
	}
	// Both gopher-luas run as glua processes, timed alike: in this
	// process, the collector's work for what the games left made bare
	// gopher-lua look slower than it is.
	patched := buildGlua(filepath.Join(filepath.Dir(config), "third_party", "gopher-lua"), filepath.Join(dir, "glua-patched"))
	glua := upstreamGlua(dir)
	peers := []struct{ name, bin string }{
		{"gopher-lua, patched (third_party), bare", patched},
		{"gopher-lua v1.1.2 (upstream glua)", glua},
	}
	for _, b := range []string{"lua5.1", "luajit"} {
		if p, err := exec.LookPath(b); err == nil {
			peers = append(peers, struct{ name, bin string }{b, p})
		}
	}
	for _, p := range peers {
		if p.bin == "" {
			continue
		}
		// Every engine's figure is replay.lua's own: CPU time of the replay
		// loop less the same loop without the calls. The gluas' os.clock is
		// wall time, so they read the process's CPU time from /proc (Linux;
		// elsewhere their figure is wall time).
		procClock := (p.bin == glua || p.bin == patched) && runtime.GOOS == "linux"
		r, err := best(reps, func() (row, error) { return replayExec(p.name, p.bin, script, logPath, 1, procClock) })
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// best is the fastest of reps runs.
func best(reps int, f func() (row, error)) (row, error) {
	var b row
	for i := range max(reps, 1) {
		r, err := f()
		if err != nil {
			return row{}, err
		}
		if i == 0 || r.seconds < b.seconds {
			b = r
		}
	}
	return b, nil
}

// openGame opens and starts the example game with agents agents.
func openGame(config, nav string, agents int) (*game.Game, error) {
	cfg, err := game.LoadConfig(config)
	if err != nil {
		return nil, err
	}
	cfg.ScaleAgents(agents)
	if nav != "" {
		for i := range cfg.Plugins {
			if cfg.Plugins[i].Name == "nav" {
				cfg.Plugins[i].Path = nav
			}
		}
	}
	one := 1
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, SaveEvery: -1, Workers: &one})
	if err != nil {
		return nil, err
	}
	if err := g.Start(); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// stepTime is the process's CPU time over steps of the game, with no hook.
func stepTime(config, nav string, agents, steps int) (time.Duration, error) {
	g, err := openGame(config, nav, agents)
	if err != nil {
		return 0, err
	}
	defer g.Close()
	start := cpuTime()
	for range steps {
		if _, err := g.Advance(); err != nil {
			return 0, err
		}
	}
	return cpuTime() - start, nil
}

// record runs the game with the hook and writes the call log; it returns
// the number of calls.
func record(config, nav, logPath string, agents, steps int) (int, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	rec := &recorder{w: w, fns: map[*lua.LFunction]int{}, agents: map[*luabind.AgentData]int{}, params: map[*lua.LTable]int{}}
	callhook.Hook = rec.call
	defer func() { callhook.Hook = nil }()
	g, err := openGame(config, nav, agents)
	if err != nil {
		return 0, err
	}
	defer g.Close()
	if err := rec.files(config); err != nil {
		return 0, err
	}
	rec.n, rec.live = 0, true // the calls of the steps, not of the spawns
	for range steps {
		if _, err := g.Advance(); err != nil {
			return 0, err
		}
	}
	rec.live = false // the calls closing the game makes are not the steps'
	if rec.err != nil {
		return 0, rec.err
	}
	return rec.n, w.Flush()
}

type recorder struct {
	w      *bufio.Writer
	fns    map[*lua.LFunction]int
	agents map[*luabind.AgentData]int
	params map[*lua.LTable]int
	time   float64
	n      int
	live   bool
	err    error
	bt     *lua.LTable
}

// files logs the script files as the engine loaded them: path, chunk name
// (what luabind names a chunk: its path relative to the config's folder)
// and module name.
func (r *recorder) files(config string) error {
	cfg, err := game.LoadConfig(config)
	if err != nil {
		return err
	}
	base := filepath.Dir(config)
	for _, p := range cfg.Scripts.Paths {
		root := filepath.Join(base, p)
		var names []string
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lua") && !strings.HasSuffix(path, ".d.lua") {
				names = append(names, path)
			}
			return err
		})
		if err != nil {
			return err
		}
		slices.Sort(names)
		for _, path := range names {
			if filepath.Clean(filepath.Join(base, cfg.Scripts.World)) == filepath.Clean(path) {
				continue // the world script is not an agent's
			}
			chunk, _ := filepath.Rel(base, path)
			mod := strings.TrimSuffix(filepath.Base(path), ".lua")
			fmt.Fprintf(r.w, "L %s %s %s\n", esc(path), esc(filepath.ToSlash(chunk)), esc(mod))
		}
	}
	return nil
}

func (r *recorder) call(c callhook.Call) {
	if !r.live || r.err != nil {
		return
	}
	L := c.L
	st, ok := c.Ctx.Value.(*luabind.AgentData)
	if !ok {
		r.err = errors.New("a ctx without its agent")
		return
	}
	if t := float64(lua.LVAsNumber(L.GetField(c.Ctx, "time"))); t != r.time || r.n == 0 {
		r.time = t
		fmt.Fprintf(r.w, "T %s %s %s", num(t), num(float64(lua.LVAsNumber(L.GetField(c.Ctx, "dt")))),
			num(float64(lua.LVAsNumber(L.GetField(c.Ctx, "step")))))
		r.shared(L)
		r.w.WriteByte('\n')
	}
	fn, ok := r.fns[c.Fn]
	if !ok {
		fn = len(r.fns)
		r.fns[c.Fn] = fn
		fmt.Fprintf(r.w, "F %d %s %d\n", fn, esc(c.Fn.Proto.SourceName), c.Fn.Proto.LineDefined)
	}
	ag, ok := r.agents[st]
	if !ok {
		ag = len(r.agents)
		r.agents[st] = ag
		fmt.Fprintf(r.w, "A %d %s %s", ag, esc(L.GetField(c.Ctx, "id").String()), esc(L.GetField(c.Ctx, "tree").String()))
		st.Table().ForEach(func(k, v lua.LValue) { r.field(k.String(), v) })
		r.w.WriteByte('\n')
	}
	p, ok := r.params[c.Params]
	if !ok {
		p = len(r.params)
		r.params[c.Params] = p
		fmt.Fprintf(r.w, "P %d", p)
		c.Params.ForEach(func(k, v lua.LValue) {
			if s, ok := v.(lua.LString); ok {
				fmt.Fprintf(r.w, " %s %s", esc(k.String()), esc(string(s)))
			}
		})
		r.w.WriteByte('\n')
	}
	first := 0
	if lua.LVAsBool(L.GetField(c.Ctx, "firstRun")) {
		first = 1
	}
	// Whether ctx.state is new at this call: btrun empties the agent's
	// table, key list included, when the cursor arrives at a rule.
	fresh := 1
	if t := st.State(); t != nil {
		if k, _ := t.Next(lua.LNil); k != lua.LNil {
			fresh = 0
		}
	}
	fmt.Fprintf(r.w, "C %d %d %d %s %d %d", fn, ag, p, esc(L.GetField(c.Ctx, "rule").String()), first, fresh)
	switch a := c.Arg.(type) {
	case lua.LString:
		fmt.Fprintf(r.w, " s %s", esc(string(a)))
	case lua.LNumber:
		fmt.Fprintf(r.w, " n %s", num(float64(a)))
	default:
		r.w.WriteString(" -")
	}
	r.w.WriteByte('\n')
	r.n++
}

// field writes a scalar entry of an agent's table.
func (r *recorder) field(k string, v lua.LValue) {
	switch x := v.(type) {
	case lua.LNumber:
		fmt.Fprintf(r.w, " %s n %s", esc(k), num(float64(x)))
	case lua.LString:
		fmt.Fprintf(r.w, " %s s %s", esc(k), esc(string(x)))
	case lua.LBool:
		fmt.Fprintf(r.w, " %s b %t", esc(k), bool(x))
	}
}

// shared writes bt.shared's scalars by path (player.x). Its tables are
// plain tables marked read-only (luabind/readonly.go).
func (r *recorder) shared(L *lua.LState) {
	if r.bt == nil {
		r.bt, _ = L.GetGlobal("bt").(*lua.LTable) // the bt module (luabind/btmodule.go)
		if r.bt == nil {
			r.err = errors.New("no bt module")
			return
		}
	}
	var walk func(prefix string, t *lua.LTable, depth int)
	walk = func(prefix string, t *lua.LTable, depth int) {
		t.ForEach(func(k, v lua.LValue) {
			path := prefix + k.String()
			if sub, ok := v.(*lua.LTable); ok && depth < 4 {
				walk(path+".", sub, depth+1)
				return
			}
			r.field(path, v)
		})
	}
	if s, ok := L.GetField(r.bt, "shared").(*lua.LTable); ok {
		walk("", s, 0)
	}
}

// esc makes s one word of the log: %XX for spaces, %, ~ and controls; ~
// alone is the empty string.
func esc(s string) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if c <= ' ' || c == '%' || c == '~' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return "~" // an empty word (replay.lua's unesc gives "")
	}
	return b.String()
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', 17, 64) }

var resultLine = regexp.MustCompile(`calls (\d+) errors (\d+) seconds ([\d.]+) baseline ([\d.]+) checksum (\d+)`)

// parseResult reads replay.lua's line.
func parseResult(engine, out string) (row, error) {
	m := resultLine.FindStringSubmatch(out)
	if m == nil {
		return row{}, fmt.Errorf("%s: no result in its output: %s", engine, out)
	}
	r := row{engine: engine, checksum: m[5]}
	r.calls, _ = strconv.Atoi(m[1])
	r.errors, _ = strconv.Atoi(m[2])
	r.seconds, _ = strconv.ParseFloat(m[3], 64)
	r.baseline, _ = strconv.ParseFloat(m[4], 64)
	return r, nil
}

// replayHere replays the log on a bare LState of this repository's
// gopher-lua (with its patches, without btrun's binding), timed by the
// process's CPU time around the calls (cpuclock).
func replayHere(script, logPath string, n int) (row, error) {
	return replayWith(script, logPath, n, func(*lua.LState) float64 { return cpuTime().Seconds() })
}

// replayWith is replayHere with the clock given (a test's counts work).
func replayWith(script, logPath string, n int, clock func(*lua.LState) float64) (row, error) {
	out, err := replayOut(script, logPath, n, clock, nil)
	if err != nil {
		return row{}, err
	}
	return parseResult("gopher-lua, patched, bare", out)
}

// replayOut runs replay.lua on a bare LState with the clock given, more
// arguments after the log's two and setup's changes to the globals, and
// returns what it printed.
func replayOut(script, logPath string, n int, clock func(*lua.LState) float64, setup func(*lua.LState), more ...string) (string, error) {
	L := lua.NewState()
	defer L.Close()
	var out strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		out.WriteString(L.CheckString(1))
		return 0
	}))
	argt := L.NewTable()
	for i, a := range append([]string{logPath, strconv.Itoa(n)}, more...) {
		argt.RawSetInt(i+1, lua.LString(a))
	}
	L.SetGlobal("arg", argt)
	L.SetGlobal("cpuclock", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(clock(L)))
		return 1
	}))
	if setup != nil {
		setup(L)
	}
	if err := L.DoFile(script); err != nil {
		return "", fmt.Errorf("gopher-lua: %w", err)
	}
	return out.String(), nil
}

// replayExec runs replay.lua on an engine's executable; procClock gives
// it the process's CPU time from /proc (for glua, whose os.clock is wall
// time).
func replayExec(name, bin, script, logPath string, n int, procClock bool) (row, error) {
	args := []string{script, logPath, strconv.Itoa(n)}
	if procClock {
		args = append(args, "proc")
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return row{}, fmt.Errorf("%s: %w: %s", name, err, out)
	}
	return parseResult(name, string(out))
}

// upstreamGlua builds gopher-lua's glua command from the released module
// (the version go.mod requires) into dir; "" when it cannot.
func upstreamGlua(dir string) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/yuin/gopher-lua").Output()
	if err != nil {
		return ""
	}
	version := strings.TrimSpace(string(out))
	src, err := exec.Command("go", "mod", "download", "-json", "github.com/yuin/gopher-lua@"+version).Output()
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`"Dir": "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		return ""
	}
	return buildGlua(string(m[1]), filepath.Join(dir, "glua"))
}

// buildGlua builds the glua command of the gopher-lua module in src as
// bin; "" when it cannot.
func buildGlua(src, bin string) string {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return ""
	}
	cmd := exec.Command("go", "build", "-o", abs, "./cmd/glua")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if err := cmd.Run(); err != nil {
		return ""
	}
	return abs
}

// printTable writes the ratio table: time per call, and each engine's time
// over the fastest's.
func printTable(w io.Writer, rows []row) {
	fastest := 0.0
	for _, r := range rows {
		if per := r.seconds / float64(max(r.calls, 1)); fastest == 0 || per < fastest {
			fastest = per
		}
	}
	fmt.Fprintln(w, "| engine | calls | calls that raised | ns per call | ratio to the fastest | replay loop's own ns per call (subtracted) | checksum |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		per := r.seconds / float64(max(r.calls, 1))
		base := "-"
		if r.checksum != "" {
			base = fmt.Sprintf("%.0f", r.baseline/float64(max(r.calls, 1))*1e9)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.0f | %.1f | %s | %s |\n", r.engine, r.calls, r.errors, per*1e9, per/fastest, base, r.checksum)
	}
}

// writeScript writes replay.lua, which other engines run as a file.
func writeScript(path string) error { return os.WriteFile(path, []byte(replayScript), 0o644) }
