package game

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/btrun/btrun/luabind"
)

// budgetGame is a game of agents agents of a one-action tree whose world is
// worldLua, with extra lines in [run].
func budgetGame(t *testing.T, agents int, worldLua, run string) string {
	t.Helper()
	return writeGame(t, map[string]string{
		"config.toml": fmt.Sprintf(`[run]
%s
[scripts]
paths = ["ai"]
world = "ai/world.lua"

[[trees]]
name = "t"
file = "t.xml"

[[agents]]
tree = "t"
count = %d
`, run, agents),
		"t.xml":        `<behaviorTree><action id="root" name="ok"/></behaviorTree>`,
		"ai/act.lua":   `bt.action("ok", function() return bt.SUCCESS end)`,
		"ai/world.lua": worldLua,
	})
}

// startGame opens and starts a config, printing for people to out; it
// returns Start's error.
func startGame(t *testing.T, config string, out io.Writer) (*Game, error) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Stdout: out, Stderr: out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, g.Start()
}

// spinnerEnv makes this test binary a spinner process (TestMain-less
// helper-process pattern: the test re-runs itself with it set).
const spinnerEnv = "BTRUN_TEST_SPINNER"

// TestSpinnerProcess is not a test: run with spinnerEnv set, it burns a
// core until it is killed.
func TestSpinnerProcess(t *testing.T) {
	if os.Getenv(spinnerEnv) != "1" {
		t.Skip("a helper process of TestWorldInit_workOf200000AgentsStartsOnABusyMachine")
	}
	for n := uint64(0); ; n++ {
		if n == ^uint64(0) {
			fmt.Fprint(io.Discard, n)
		}
	}
}

// busyMachine keeps every core busy for the rest of the test: a spinner
// process per core (other programs on the machine, not counted in this
// process's CPU time) and a spinner goroutine per core (work of this very
// process, which is: the harder case for a budget kept in the process's
// CPU time).
func busyMachine(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cores := goruntime.NumCPU()
	for range cores {
		cmd := exec.Command(exe, "-test.run=^TestSpinnerProcess$")
		cmd.Env = append(os.Environ(), spinnerEnv+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range cores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
			}
		}()
	}
	t.Cleanup(func() { stop.Store(true); wg.Wait() })
}

// perAgentWorld is a world whose init does per agent what the example
// world's does (a pattern match of its id), for as many agents as the
// test names.
const perAgentWorld = `
local world = {}
function world.init(game)
  local n = 0
  for i = 1, %d do
    local id = "grunt-" .. i
    if id:match("^medic%%-") then n = n + 1 end
  end
  game.shared = {medics = n}
end
return world
`

// TestWorldInit_workOf200000AgentsStartsOnABusyMachine: a world init that
// does the example world's work for 200,000 agents starts while every core
// is kept busy by other processes and by goroutines of this one; it is held
// to the budget of init for 200,000 agents, not to the call timeout of an
// action (100 ms, which that much work outlasts on any machine). The
// verdict is that it starts, never a time.
func TestWorldInit_workOf200000AgentsStartsOnABusyMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps the machine busy for a few seconds")
	}
	const agents = 200_000
	// The game has two agents (200,000 would take the test most of a
	// minute to make); its init budget is what a game of 200,000 gets by
	// default, set as the config would set it.
	init, _ := (&RunConfig{LuaCallTimeout: Duration{100 * time.Millisecond}}).worldTimeouts(agents)
	cfg := budgetGame(t, 2, fmt.Sprintf(perAgentWorld, agents), fmt.Sprintf("world_init_timeout = %q", init))
	busyMachine(t)
	g, err := startGame(t, cfg, io.Discard)
	if err != nil {
		t.Fatalf("the world's init with the work of %d agents did not start on a busy machine: %v", agents, err)
	}
	if v := g.lua.game.RawGetString("shared"); v.Type().String() != "table" {
		t.Fatalf("init did not finish: game.shared is %v", v)
	}
}

// TestWorldInit_runawayIsStoppedAtItsLineNamingTheKey: an endless init is
// still stopped, with the script's line and the key that raises its budget
// (the default budget is finite too: TestWorldTimeouts_growWithTheAgents);
// so is an endless tick, under its own key, and the run goes on after it.
func TestWorldInit_runawayIsStoppedAtItsLineNamingTheKey(t *testing.T) {
	endlessInit := "local world = {}\nfunction world.init(game)\n  while true do end\nend\nreturn world\n"
	_, err := startGame(t, budgetGame(t, 2, endlessInit, `world_init_timeout = "50ms"`), io.Discard)
	if !errors.Is(err, luabind.ErrTimeout) {
		t.Fatalf("endless init: got %v, want a timeout", err)
	}
	wantIn(t, err.Error(), "ai/world.lua:3: script ran longer than the world's init timeout (50ms); raise run.world_init_timeout")

	// tick under its default budget, for two agents.
	endlessTick := "local world = {}\nfunction world.tick(game)\n  if game.step == 1 then\n    while true do end\n  end\nend\nreturn world\n"
	var out syncBuffer
	g, err := startGame(t, budgetGame(t, 2, endlessTick, ""), &out)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Run(3); err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.String(), "ai/world.lua:4: script ran longer than the world's tick timeout (100.02ms); raise run.world_tick_timeout")
	if g.lua.errors != 1 || g.step != 3 {
		t.Errorf("%d world errors, at step %d; want one, and the run at step 3", g.lua.errors, g.step)
	}
}

// TestWorldTimeouts_growWithTheAgents: the defaults are a base plus an
// allowance per agent, never under the call timeout nor over the limit of
// a timeout; a key the config sets is taken as it is.
func TestWorldTimeouts_growWithTheAgents(t *testing.T) {
	r := RunConfig{LuaCallTimeout: Duration{100 * time.Millisecond}}
	for _, c := range []struct {
		agents     int
		init, tick time.Duration
	}{
		{0, time.Second, 100 * time.Millisecond},
		{12, time.Second + 600*time.Microsecond, 100*time.Millisecond + 120*time.Microsecond},
		{200_000, 11 * time.Second, 2100 * time.Millisecond},
		{MaxAgents, 51 * time.Second, 10100 * time.Millisecond},
	} {
		if init, tick := r.worldTimeouts(c.agents); init != c.init || tick != c.tick {
			t.Errorf("%d agents: init %v, tick %v; want %v, %v", c.agents, init, tick, c.init, c.tick)
		}
	}
	slow := RunConfig{LuaCallTimeout: Duration{time.Minute}}
	if init, tick := slow.worldTimeouts(10); init != time.Minute || tick != time.Minute {
		t.Errorf("under a call timeout of 1m: %v, %v", init, tick)
	}
	set := RunConfig{LuaCallTimeout: Duration{time.Hour}, WorldInitTimeout: Duration{time.Millisecond}, WorldTickTimeout: Duration{2 * time.Millisecond}}
	if init, tick := set.worldTimeouts(MaxAgents); init != time.Millisecond || tick != 2*time.Millisecond {
		t.Errorf("set: %v, %v", init, tick)
	}
}

func wantIn(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", got, want)
	}
}

// syncBuffer is a buffer the game's output goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLuaMemory_defaultGrowsWithTheAgents: left out, the memory budget of
// a Lua state is the default or an allowance per agent, whichever is more
// (200,000 agents of the example game hold more than the default by
// themselves); written in the config, even as the default's value, it is
// taken as it is.
func TestLuaMemory_defaultGrowsWithTheAgents(t *testing.T) {
	dir := configDir(t)
	for _, c := range []struct {
		run  string
		want int64
	}{
		{"", 200_000 * LuaMemoryPerAgent},
		{"lua_memory = \"256MB\"\n", 256 << 20},
		{"lua_memory = \"64MB\"\n", 64 << 20},
	} {
		cfg, err := ParseConfig(dir+"/config.toml", []byte("[run]\n"+c.run+minimalConfig+"count = 200000\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := (&Game{cfg: cfg}).luaMemory(); got != c.want {
			t.Errorf("%q: budget %d, want %d", c.run, got, c.want)
		}
	}
	// A config made in Go holding the default, agents added by the program.
	g := &Game{cfg: NewConfig(dir), agents: make([]*gameAgent, 100_000)}
	if got := g.luaMemory(); got != 100_000*LuaMemoryPerAgent {
		t.Errorf("Go config: %d", got)
	}
	g.agents = g.agents[:10]
	if got := g.luaMemory(); got != DefaultLuaMemory {
		t.Errorf("10 agents: %d, want the default", got)
	}
}
