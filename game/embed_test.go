package game_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// The embedding API as a Go program sees it: a game assembled from Go
// values (a Config made in Go, sources in memory, Go actions, the game's
// own agent data), stepped from the program's loop, agents added and
// removed, signals sent from Go, saved and restored, reloaded.

const guardTree = `<?xml version="1.0" encoding="UTF-8"?>
<behaviorTree>
  <variables><variable name="Alert" default="false"/></variables>
  <signals>
    <signal name="Alarm" variable="Alert" value="true"/>
    <signal name="Calm" variable="Alert" value="false"/>
  </signals>
  <choice id="root">
    <sequence id="alarm">
      <condition>Alert</condition>
      <action id=".flee" name="flee"><parameter name="flee.speed">20</parameter></action>
    </sequence>
    <action id="patrol" name="patrol"><parameter name="patrol.legs">3</parameter></action>
  </choice>
</behaviorTree>`

const guardLua = `local bt = require("bt")
-- flee runs from the alarm, on the game's own data (ctx.agent is the unit).
bt.action("flee", function(ctx, params)
  ctx.agent.x = ctx.agent.x - params:number("flee.speed", 1) * ctx.dt
  if ctx.agent.x < -2 then
    ctx:send(ctx.agent.buddy, "Alarm")
    return bt.SUCCESS
  end
  return bt.RUNNING
end)
`

const worldLua = `return {
  spawn = function(ctx) ctx.agent.x = 1 end,
  tick = function(game) if game.step == 4 then game.signal("guard-1", "Alarm") end end,
}`

// guardFiles are the game's sources, in memory.
func guardFiles() fstest.MapFS {
	return fstest.MapFS{
		"ai/guard.xml": {Data: []byte(guardTree)},
		"ai/guard.lua": {Data: []byte(guardLua)},
		"ai/world.lua": {Data: []byte(worldLua)},
	}
}

// unit is the game's own data for an agent.
type unit struct {
	X     float64 `json:"x"`
	Legs  int     `json:"legs"`
	Buddy string  `json:"buddy"`
}

func (u *unit) Field(name string) runtime.Value {
	switch name {
	case "x":
		return runtime.Number(u.X)
	case "buddy":
		return runtime.String(u.Buddy)
	}
	return runtime.Value{}
}

func (u *unit) SetField(name string, v runtime.Value) error {
	if name != "x" || v.Kind != runtime.NumberValue {
		return fmt.Errorf("unit: field %s cannot be set", name)
	}
	u.X = v.Num
	return nil
}

func (u *unit) MarshalBinary() ([]byte, error) { return json.Marshal(u) }
func (u *unit) UnmarshalBinary(b []byte) error { return json.Unmarshal(b, u) }

type guardPatrolParams struct {
	Legs int `param:"patrol.legs,required" doc:"legs walked before the patrol succeeds"`
}

type guardPatrolState struct{ Leg int }

// registerGuard registers the game's Go action: patrol walks legs, one a
// call, on the unit's data.
func registerGuard(registered *int) func(*runtime.Registry) error {
	return func(reg *runtime.Registry) error {
		*registered++
		return runtime.TypedAction[guardPatrolParams, guardPatrolState]{Name: "patrol", Doc: "walks its legs",
			Run: func(a *runtime.Agent, p *guardPatrolParams, s *guardPatrolState) (runtime.Status, error) {
				if u, ok := a.Data().(*unit); ok { // an agent added without data has none
					u.X++
					u.Legs++
				}
				s.Leg++
				if s.Leg < p.Legs {
					return runtime.Running, nil
				}
				return runtime.Success, nil
			}}.Register(reg)
	}
}

// embedded is a game opened the way a program opens it, and its units.
type embedded struct {
	g     *game.Game
	units map[string]*unit
	trace bytes.Buffer
	out   bytes.Buffer
	regs  int
}

func openGuards(t *testing.T, workers int, fromSave bool) *embedded {
	t.Helper()
	e := &embedded{units: map[string]*unit{}}
	cfg := game.NewConfig("")
	cfg.Run.Workers = workers
	cfg.Scripts.Paths = []string{"ai"}
	cfg.Scripts.World = "ai/world.lua"
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "guard", Count: 3}}
	g, err := game.Open(cfg, game.Options{Files: guardFiles(), Register: registerGuard(&e.regs), TraceTo: &e.trace,
		Stdout: &e.out, Stderr: &e.out, AgentsFromSave: fromSave,
		AgentData: func(id, tree string) runtime.AgentData { return e.unit(id) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	must(t, g.OpenTrace())
	must(t, g.Start())
	e.g = g
	return e
}

// unit is the game's unit of an agent, made on first use; each has the
// next guard as its buddy.
func (e *embedded) unit(id string) *unit {
	if u := e.units[id]; u != nil {
		return u
	}
	var n int
	fmt.Sscanf(id, "guard-%d", &n)
	u := &unit{Buddy: fmt.Sprintf("guard-%d", n+1)}
	e.units[id] = u
	return u
}

func (e *embedded) advance(t *testing.T, n int) {
	t.Helper()
	for range n {
		stepped, err := e.g.Advance()
		if err != nil || !stepped {
			t.Fatalf("Advance: %v %v", stepped, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEmbed_goConfigInMemoryStepsAsTheSameConfigFileRun: a game assembled
// in Go, its sources in memory, stepped with Advance, writes the trace
// that `btrun run` (Run) writes for the same game as files on disk.
func TestEmbed_goConfigInMemoryStepsAsTheSameConfigFileRun(t *testing.T) {
	e := openGuards(t, 1, false)
	e.advance(t, 20)
	must(t, e.g.FlushTrace())

	dir := t.TempDir()
	for name, f := range guardFiles() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, f.Data, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`[run]
steps = 20
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "guard"
file = "ai/guard.xml"
[[agents]]
tree = "guard"
count = 3
`), 0o644))
	cfg, err := game.LoadConfig(filepath.Join(dir, "config.toml"))
	must(t, err)
	other := &embedded{units: map[string]*unit{}}
	var trace bytes.Buffer
	g, err := game.Open(cfg, game.Options{Register: registerGuard(&other.regs), TraceTo: &trace, Stdout: io.Discard, Stderr: io.Discard,
		AgentData: func(id, tree string) runtime.AgentData { return other.unit(id) }})
	must(t, err)
	defer g.Close()
	must(t, g.OpenTrace())
	must(t, g.Start())
	must(t, g.Run(20))
	if trace.String() != e.trace.String() {
		t.Errorf("traces differ:\nAdvance, sources in memory:\n%s\nRun, files on disk:\n%s", e.trace.String(), trace.String())
	}
	for _, want := range []string{`"agent":"guard-1","signal":"Alarm","from":"world"`, `"agent":"guard-2","signal":"Alarm","from":"guard-1"`, `["alarm.flee","success"]`, `["patrol","success"]`} {
		if !strings.Contains(e.trace.String(), want) {
			t.Errorf("the trace lacks %s: the game does not exercise what it should", want)
		}
	}
	// The Go action and Lua's flee moved the units: the game's own values.
	if u := e.units["guard-1"]; u.Legs == 0 || u.X >= 0 {
		t.Errorf("guard-1's unit %+v: walked no legs, or never fled", *u)
	}
	if e.regs != 1 {
		t.Errorf("Register called %d times, want once (one registry)", e.regs)
	}
}

// TestEmbed_addRemoveAndSignalSameForAnyWorkers adds and removes agents
// and sends signals from Go between steps; the trace and the save are the
// same on one worker and on two, and the added agents run their spawn.
func TestEmbed_addRemoveAndSignalSameForAnyWorkers(t *testing.T) {
	run := func(workers int) (string, []byte, *embedded) {
		e := openGuards(t, workers, false)
		e.advance(t, 3)
		if _, err := e.g.AddAgent("guard-4", "guard", e.unit("guard-4")); err != nil {
			t.Fatal(err)
		}
		if x := e.units["guard-4"].X; x != 1 {
			t.Errorf("guard-4's x = %v when it is added, want 1: the world's spawn sets it", x)
		}
		if _, err := e.g.AddAgent("guard-5", "guard", nil); err != nil { // a Lua table for ctx.agent
			t.Fatal(err)
		}
		e.advance(t, 2)
		must(t, e.g.Signal("guard-3", "Alarm", runtime.String("from the program")))
		must(t, e.g.RemoveAgent("guard-2"))
		e.advance(t, 6)
		must(t, e.g.Signal("all", "Calm", runtime.Value{}))
		e.advance(t, 3)
		data, err := e.g.SaveState()
		must(t, err)
		must(t, e.g.FlushTrace())
		return e.trace.String(), data, e
	}
	trace1, save1, e := run(1)
	trace2, save2, _ := run(2)
	if trace1 != trace2 {
		t.Errorf("traces differ between 1 and 2 workers:\n%s\n---\n%s", trace1, trace2)
	}
	if !bytes.Equal(save1, save2) {
		t.Errorf("saves differ between 1 and 2 workers")
	}
	for _, want := range []string{`"agent":"guard-3","signal":"Alarm","from":"game"`, `"step":4,"time":0.4,"agent":"guard-4"`, `"agent":"guard-5","runs"`, `"signal":"Calm","from":"game"`} {
		if !strings.Contains(trace1, want) {
			t.Errorf("the trace lacks %s", want)
		}
	}
	if strings.Contains(trace1[strings.Index(trace1, `"step":6,`):], `"agent":"guard-2"`) {
		t.Errorf("guard-2 still steps after its removal")
	}
	if got := e.units["guard-4"].X; got == 0 {
		t.Errorf("guard-4's unit never moved: x = %v (spawn set 1, patrol adds)", got)
	}
	if e.g.Agent("guard-2") != nil || e.g.Agent("guard-5") == nil {
		t.Errorf("Agent: guard-2 %v, guard-5 %v", e.g.Agent("guard-2"), e.g.Agent("guard-5"))
	}
	var ids []string
	for _, a := range e.g.Agents() {
		ids = append(ids, a.ID())
	}
	if got := strings.Join(ids, " "); got != "guard-1 guard-3 guard-4 guard-5" {
		t.Errorf("agents %s", got)
	}
}

// TestEmbed_refusals: what the embedding API refuses, and why.
func TestEmbed_refusals(t *testing.T) {
	e := openGuards(t, 1, false)
	g := e.g
	for what, err := range map[string]error{
		"duplicate id":       second(g.AddAgent("guard-1", "guard", nil)),
		"unknown tree":       second(g.AddAgent("guard-9", "sentry", nil)),
		"reserved id":        second(g.AddAgent("all", "guard", nil)),
		"no such agent":      g.RemoveAgent("nobody"),
		"signal to nobody":   g.Signal("nobody", "Alarm", runtime.Value{}),
		"function-like data": g.Signal("guard-1", "Alarm", runtime.Value{Kind: 9}),
		"bad data key": g.Signal("guard-1", "Alarm", runtime.Value{Kind: runtime.TableValue,
			Table: []runtime.Field{{Key: runtime.Bool(true), Val: runtime.Number(1)}}}),
		"deep data":      g.Signal("guard-1", "Alarm", nested(17)),
		"data too big":   g.Signal("guard-1", "Alarm", runtime.String(strings.Repeat("x", runtime.MaxDataSize+1))),
		"watch an fs.FS": g.Watch(),
	} {
		if err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	if err := g.Signal("guard-1", "Alarm", nested(16)); err != nil {
		t.Errorf("data 16 deep: %v", err)
	}
	// During a step (from an action), the game's agents cannot change.
	busy := &embedded{units: map[string]*unit{}}
	var gg *game.Game
	var inStep []error
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "guard", Count: 1}}
	cfg.Scripts.Paths = []string{"ai"}
	gg, err := game.Open(cfg, game.Options{Files: guardFiles(), Stdout: io.Discard, Stderr: io.Discard,
		AgentData: func(id, tree string) runtime.AgentData { return busy.unit(id) },
		Register: func(reg *runtime.Registry) error {
			return reg.RegisterAction("patrol", runtime.ActionFunc(func(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
				inStep = append(inStep, gg.Signal("guard-1", "Calm", runtime.Value{}), second(gg.AddAgent("x", "guard", nil)), gg.RemoveAgent("guard-1"))
				return runtime.Running, nil
			}))
		}})
	must(t, err)
	defer gg.Close()
	must(t, gg.Start())
	if _, err := gg.Advance(); err != nil {
		t.Fatal(err)
	}
	if len(inStep) != 3 {
		t.Fatalf("the action ran %d times", len(inStep)/3)
	}
	for _, err := range inStep {
		if !errors.Is(err, game.ErrBusy) {
			t.Errorf("during a step: %v, want ErrBusy", err)
		}
	}
	// A config made in Go is checked as a file is.
	bad := game.NewConfig("")
	bad.Run.Dt = -1
	bad.Trees = []game.TreeConfig{{Name: "guard", File: "ai/missing.xml"}}
	if _, err := game.Open(bad, game.Options{Files: guardFiles()}); err == nil ||
		!strings.Contains(err.Error(), "run.dt = -1") || !strings.Contains(err.Error(), `file "ai/missing.xml": no such file`) {
		t.Errorf("a bad Go config: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

func nested(depth int) runtime.Value {
	v := runtime.Number(1)
	for range depth {
		v = runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{{Key: runtime.String("in"), Val: v}}}
	}
	return v
}

// TestEmbed_saveRestoresTheSavedAgents: a game that added and removed
// agents saves; a new one, opened with the config's agents, loads the save
// (Options.AgentsFromSave) and goes on exactly as the saved one does, its
// units restored through their own bytes. On 1 and on 2 workers.
func TestEmbed_saveRestoresTheSavedAgents(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			a := openGuards(t, workers, true)
			a.advance(t, 3)
			_, err := a.g.AddAgent("guard-7", "guard", a.unit("guard-7"))
			must(t, err)
			must(t, a.g.RemoveAgent("guard-1"))
			a.advance(t, 4)
			path := filepath.Join(t.TempDir(), "game.save")
			must(t, a.g.Save(path))

			b := openGuards(t, workers, true)
			if _, err := b.g.Load(path); err != nil {
				t.Fatal(err)
			}
			if b.g.Agent("guard-1") != nil || b.g.Agent("guard-7") == nil {
				t.Fatalf("after the load: guard-1 %v, guard-7 %v", b.g.Agent("guard-1"), b.g.Agent("guard-7"))
			}
			if *b.units["guard-7"] != *a.units["guard-7"] {
				t.Errorf("guard-7's unit: restored %+v, saved %+v", *b.units["guard-7"], *a.units["guard-7"])
			}
			must(t, a.g.FlushTrace())
			a.trace.Reset()
			b.trace.Reset()
			a.advance(t, 10)
			b.advance(t, 10)
			must(t, a.g.FlushTrace())
			must(t, b.g.FlushTrace())
			if a.trace.String() != b.trace.String() || a.trace.Len() == 0 {
				t.Errorf("the restored game goes on otherwise:\n%s\n---\n%s", a.trace.String(), b.trace.String())
			}
			sa, err := a.g.SaveState()
			must(t, err)
			sb, err := b.g.SaveState()
			must(t, err)
			if !bytes.Equal(sa, sb) {
				t.Errorf("saves differ after 10 more steps")
			}
		})
	}
	// Without AgentsFromSave, a save of other agents is refused, the game
	// untouched.
	a := openGuards(t, 1, false)
	_, err := a.g.AddAgent("guard-7", "guard", nil)
	must(t, err)
	data, err := a.g.SaveState()
	must(t, err)
	b := openGuards(t, 1, false)
	if err := b.g.RestoreState(data); err == nil || !strings.Contains(err.Error(), "the save is of another game") {
		t.Errorf("a save of other agents: %v", err)
	}
	// With it, a save naming a tree the game lacks is refused.
	c := openGuards(t, 1, true)
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/other.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "guard", Count: 1}}
	cfg.Scripts.Paths = []string{"ai"}
	files := guardFiles()
	files["ai/other.xml"] = files["ai/guard.xml"]
	other, err := game.Open(cfg, game.Options{Files: files, Register: registerGuard(new(int)), Stdout: io.Discard, Stderr: io.Discard})
	must(t, err)
	defer other.Close()
	foreign, err := other.SaveState()
	must(t, err)
	if err := c.g.RestoreState(foreign); err == nil || !strings.Contains(err.Error(), "runs tree ai/other.xml") {
		t.Errorf("a save of an unknown tree: %v", err)
	}
	if len(c.g.Agents()) != 3 {
		t.Errorf("a refused load changed the agents: %d", len(c.g.Agents()))
	}
}

// TestEmbed_reloadFromGoWithNewSources reloads the game with new sources
// given in memory: the agents keep their places and data, the Go actions
// are registered again, the new Lua runs.
func TestEmbed_reloadFromGoWithNewSources(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := openGuards(t, workers, false)
			e.advance(t, 6) // guard-1 flees
			before := e.regs
			files := guardFiles()
			files["ai/guard.lua"] = &fstest.MapFile{Data: []byte(strings.Replace(guardLua, "return bt.RUNNING", "ctx:log('fleeing') return bt.RUNNING", 1))}
			rep, err := e.g.Reload(game.ReloadOptions{Files: files})
			must(t, err)
			if rep.Kept != 3 || len(rep.Restarted) != 0 {
				t.Errorf("reload: %+v", rep)
			}
			if e.regs-before != workers {
				t.Errorf("Register called %d times by the reload, want %d (one registry per worker)", e.regs-before, workers)
			}
			x := e.units["guard-1"].X
			e.advance(t, 1)
			if !strings.Contains(e.out.String(), "fleeing") {
				t.Errorf("the new script did not run:\n%s", e.out.String())
			}
			if e.units["guard-1"].X >= x {
				t.Errorf("guard-1 stopped fleeing after the reload: x %v -> %v", x, e.units["guard-1"].X)
			}
			// A reload that does not bind changes nothing, and the files stay.
			bad := guardFiles()
			bad["ai/guard.xml"] = &fstest.MapFile{Data: []byte(strings.Replace(guardTree, `name="patrol"`, `name="patrl"`, 1))}
			if _, err := e.g.Reload(game.ReloadOptions{Files: bad}); !errors.Is(err, game.ErrReload) {
				t.Errorf("a reload that does not bind: %v", err)
			}
			if _, err := e.g.Reload(game.ReloadOptions{}); err != nil {
				t.Errorf("a reload of the files kept: %v", err)
			}
		})
	}
}

// mover is a unit the nav plugin moves: it reads x and y and writes x, y
// and heading.
type mover struct{ X, Y, Heading float64 }

func (m *mover) Field(name string) runtime.Value {
	switch name {
	case "x":
		return runtime.Number(m.X)
	case "y":
		return runtime.Number(m.Y)
	}
	return runtime.Value{}
}

func (m *mover) SetField(name string, v runtime.Value) error {
	switch name {
	case "x":
		m.X = v.Num
	case "y":
		m.Y = v.Num
	case "heading":
		m.Heading = v.Num
	default:
		return fmt.Errorf("mover: no field %s", name)
	}
	return nil
}

func (m *mover) MarshalBinary() ([]byte, error) { return json.Marshal(m) }
func (m *mover) UnmarshalBinary(b []byte) error { return json.Unmarshal(b, m) }

// TestEmbed_aPluginMovesTheGamesOwnUnitsOnAnyWorkers: the nav plugin reads
// and writes the program's units (no Lua table at all: a game without
// scripts), batched over the agents of two workers as of one; the units
// end where they end on one worker, and a save holds them.
func TestEmbed_aPluginMovesTheGamesOwnUnitsOnAnyWorkers(t *testing.T) {
	run := func(workers int) (string, []*mover, []byte) {
		cfg := game.NewConfig("..") // the plugin's path is relative to the repository
		cfg.Run.Workers = workers
		cfg.Trees = []game.TreeConfig{{Name: "walker", File: "walker.xml"}}
		cfg.Plugins = []game.PluginConfig{{Name: "nav", Path: "plugins/nav"}}
		files := fstest.MapFS{"walker.xml": {Data: []byte(`<behaviorTree>
  <action id="go" name="nav.moveTo"><parameter name="nav.target">20,15</parameter><parameter name="nav.speed">3</parameter></action>
</behaviorTree>`)}}
		var units []*mover
		var trace bytes.Buffer
		g, err := game.Open(cfg, game.Options{Files: files, TraceTo: &trace, Stdout: io.Discard, Stderr: io.Discard})
		must(t, err)
		defer g.Close()
		must(t, g.OpenTrace())
		must(t, g.Start())
		for i := range 6 {
			m := &mover{X: 2 + float64(i), Y: 2}
			units = append(units, m)
			if _, err := g.AddAgent(fmt.Sprintf("walker-%d", i+1), "walker", m); err != nil {
				t.Fatal(err)
			}
		}
		for range 12 {
			if _, err := g.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		must(t, g.FlushTrace())
		save, err := g.SaveState()
		must(t, err)
		return trace.String(), units, save
	}
	trace1, units1, save1 := run(1)
	trace2, units2, save2 := run(2)
	if trace1 != trace2 || !bytes.Equal(save1, save2) {
		t.Errorf("one worker and two differ:\n%s\n---\n%s", trace1, trace2)
	}
	for i, m := range units1 {
		if *m != *units2[i] {
			t.Errorf("walker-%d: %+v on one worker, %+v on two", i+1, *m, *units2[i])
		}
		if m.X <= 2+float64(i) || m.Y <= 2 || m.Heading == 0 {
			t.Errorf("walker-%d did not move towards (20, 15): %+v", i+1, *m)
		}
	}
	if !bytes.Contains(save1, []byte(`"X":`)) {
		t.Errorf("the save does not hold the units' own bytes")
	}
}

// TestEmbed_lintsKnowTheGoActionsDeclarations: a parameter that no reader
// of its rule declares (a typo of a typed Go action's parameter) is a
// warning, as for the built-ins; the declared ones are not.
func TestEmbed_lintsKnowTheGoActionsDeclarations(t *testing.T) {
	files := guardFiles()
	files["ai/guard.xml"] = &fstest.MapFile{Data: []byte(strings.Replace(guardTree,
		`<parameter name="patrol.legs">3</parameter>`, `<parameter name="patrol.legs">3</parameter><parameter name="patrol.lgs">4</parameter>`, 1))}
	cfg := game.NewConfig("")
	cfg.Scripts.Paths = []string{"ai"}
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	g, err := game.Open(cfg, game.Options{Files: files, Register: registerGuard(new(int)), Stdout: io.Discard})
	must(t, err)
	defer g.Close()
	var lints []string
	for _, l := range g.Lints() {
		lints = append(lints, l.String())
	}
	all := strings.Join(lints, "\n")
	want := `ai/guard.xml:13:5: rule patrol: parameter "patrol.lgs" is read by nothing: not by action "patrol" (they read patrol.legs); did you mean "patrol.legs"?`
	if all != want {
		t.Errorf("lints:\n%s\nwant a warning about patrol.lgs alone", all)
	}
}
