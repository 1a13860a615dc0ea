package game_test

// The examples of docs/embedding.md: every Go block of the guide is a piece
// of this file (or of liveview's example or examples/embed), which
// TestEmbeddingGuide_blocksAreCompiled checks, so the guide's code compiles
// and runs.

import (
	"bytes"
	"fmt"
	"testing/fstest"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// files holds the game's trees and scripts. A game keeps them in its
// binary with //go:embed, or on disk; here they are in memory.
var files = fstest.MapFS{
	"ai/guard.xml": {Data: []byte(`<behaviorTree>
  <variables><variable name="Alarmed" default="false"/></variables>
  <signals><signal name="Alarm" variable="Alarmed" value="true"/></signals>
  <choice id="guard">
    <action id=".flee" name="flee" abort="lower"><condition>Alarmed</condition></action>
    <action id=".patrol" name="patrol"><parameter name="patrol.speed">2</parameter></action>
  </choice>
</behaviorTree>`)},
	"ai/guard.lua": {Data: []byte(`local bt = require("bt")
bt.action("flee", function(ctx, params)
  ctx.agent.x = ctx.agent.x - 1   -- ctx.agent is the game's Unit
  return bt.RUNNING
end)`)},
}

// Unit is the game's own data for a guard. Its bt-tagged fields are what
// Lua's ctx.agent, plugins' fields and Go actions read and write, and what
// a save holds: nothing is copied into Lua tables, no method is written.
type Unit struct {
	X float64 `bt:"x"`
}

// unitData makes a *Unit an agent's data (unitData.Of(u)); Unit's tags
// are read once, here.
var unitData = runtime.MustDeclareData[Unit]()

// patrolParams are the parameters patrol reads, parsed when the tree is
// bound: a wrong value is an error at the rule's FILE:LINE:COL.
type patrolParams struct {
	Speed float64 `param:"patrol.speed" default:"1" doc:"metres per second"`
}

// patrolState is patrol's state on its rule, which btrun keeps per agent,
// empties when the agent arrives at the rule, and saves.
type patrolState struct {
	Steps int
}

// register registers the game's Go actions. The game calls it for every
// registry it fills: one per worker, and again at each hot reload.
func register(reg *runtime.Registry) error {
	return runtime.TypedAction[patrolParams, patrolState]{
		Name: "patrol",
		Doc:  "walks on at patrol.speed",
		Run: func(a *runtime.Agent, p *patrolParams, s *patrolState) (runtime.Status, error) {
			u := runtime.DataOf[*Unit](a) // the agent's data, typed
			u.X += p.Speed * a.Dt()
			s.Steps++
			return runtime.Running, nil
		},
	}.Register(reg)
}

// kitParams are the parameters of the kit hook (docs/embedding.md, Hooks).
type kitParams struct {
	Kit string `param:"kit.name" default:"medkit"`
}

// registerKit registers a Go enter and exit hook; a rule names it with
// enter="kit" or exit="kit".
func registerKit(reg *runtime.Registry) error {
	return runtime.TypedHook[kitParams]{Name: "kit", Call: func(a *runtime.Agent, p *kitParams, how string) error {
		a.Log(p.Kit + ": " + how) // set up on "enter", clean up however the rule is left
		return nil
	}}.Register(reg)
}

var _ = registerKit // shown in the guide; the example's guard names no hook

// openGame opens the game from Go values, without any file of btrun's own.
func openGame() (*game.Game, error) {
	cfg := game.NewConfig("") // every key of config.toml at its default
	cfg.Run.Dt = 0.5
	cfg.Scripts.Paths = []string{"ai"}
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	g, err := game.Open(cfg, game.Options{
		Files:    files,    // trees and scripts: an fs.FS
		Register: register, // the Go actions
	})
	if err != nil {
		return nil, err
	}
	if err := g.Start(); err != nil { // the world script's init and spawn, if any
		g.Close()
		return nil, err
	}
	return g, nil
}

// Example is a program's own loop stepping a game with a Go action, a Lua
// action and the program's own data for its agent.
func Example() {
	g, err := openGame()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	u := &Unit{}
	if _, err := g.AddAgent("guard-1", "guard", unitData.Of(u)); err != nil {
		fmt.Println(err)
		return
	}
	for frame := 1; frame <= 3; frame++ {
		// ... the program's own frame: input, physics, rendering ...
		if _, err := g.Advance(); err != nil { // one step of every agent
			fmt.Println(err)
			return
		}
		fmt.Printf("frame %d: guard-1 at x=%v, doing %s\n", frame, u.X, g.Agent("guard-1").CursorLabel())
	}
	// Output:
	// frame 1: guard-1 at x=1, doing guard.patrol
	// frame 2: guard-1 at x=2, doing guard.patrol
	// frame 3: guard-1 at x=3, doing guard.patrol
}

// ExampleGame_Signal sends a signal from Go, between steps: it applies at
// once, as the world script's game.signal does.
func ExampleGame_Signal() {
	g, _ := openGame()
	defer g.Close()
	u := &Unit{X: 10}
	g.AddAgent("guard-1", "guard", unitData.Of(u))
	g.Advance()

	where := runtime.Table("x", 4, "who", "grunt-2") // signal data: {x = 4, who = "grunt-2"}
	if err := g.Signal("guard-1", "Alarm", where); err != nil {
		fmt.Println(err)
		return
	}
	alarmed, _ := g.Agent("guard-1").Var("Alarmed")
	fmt.Println("alarmed:", alarmed)
	g.Advance() // flee preempts patrol (abort="lower")
	g.Advance()
	fmt.Printf("guard-1 at x=%v, doing %s\n", u.X, g.Agent("guard-1").CursorLabel())
	// Output:
	// alarmed: true
	// guard-1 at x=9, doing guard.flee
}

// ExampleGame_SaveState saves a game and restores it into another, as a new
// process would: AgentsFromSave makes the agents the save's, AgentData gives
// the ones it adds their data, which the save fills.
func ExampleGame_SaveState() {
	g, _ := openGame()
	defer g.Close()
	g.AddAgent("guard-1", "guard", unitData.Of(&Unit{}))
	g.Advance()
	g.Advance()
	data, err := g.SaveState() // g.Save(path) writes a file
	if err != nil {
		fmt.Println(err)
		return
	}

	units := map[string]*Unit{}
	cfg := game.NewConfig("")
	cfg.Run.Dt = 0.5
	cfg.Scripts.Paths = []string{"ai"}
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	h, err := game.Open(cfg, game.Options{Files: files, Register: register,
		AgentsFromSave: true,
		AgentData: func(id, tree string) runtime.AgentData {
			units[id] = &Unit{}
			return unitData.Of(units[id])
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	if err := h.RestoreState(data); err != nil { // h.Load(path) reads a file
		fmt.Println(err)
		return
	}
	fmt.Printf("restored at step %d: guard-1 at x=%v\n", h.Step(), units["guard-1"].X)
	// Output:
	// restored at step 2: guard-1 at x=2
}

// ExampleGame_Reload reloads the game's sources while it runs: the agents
// keep their places, variables, data and state.
func ExampleGame_Reload() {
	g, _ := openGame()
	defer g.Close()
	u := &Unit{}
	g.AddAgent("guard-1", "guard", unitData.Of(u))
	g.Advance()

	edited := fstest.MapFS{"ai/guard.lua": files["ai/guard.lua"], // a designer made patrols faster
		"ai/guard.xml": {Data: bytes.Replace(files["ai/guard.xml"].Data, []byte(`"patrol.speed">2<`), []byte(`"patrol.speed">10<`), 1)}}
	rep, err := g.Reload(game.ReloadOptions{Files: edited})
	if err != nil {
		fmt.Println(err)
		return
	}
	g.Advance()
	fmt.Printf("%d agent kept its place; guard-1 at x=%v\n", rep.Kept, u.X)
	// Output:
	// 1 agent kept its place; guard-1 at x=6
}
