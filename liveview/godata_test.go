package liveview

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// npc is a Go game's own data for an agent, with a nested struct, a list
// and a map.
type npc struct {
	HP     float64
	Name   string
	Pos    struct{ X, Y float64 }
	Bag    []string
	Skills map[string]int
	secret int
}

func (n *npc) Field(name string) runtime.Value             { return runtime.Value{} }
func (n *npc) SetField(name string, v runtime.Value) error { return nil }
func (n *npc) MarshalBinary() ([]byte, error)              { return nil, nil }
func (n *npc) UnmarshalBinary([]byte) error                { return nil }

type walkParams struct {
	Legs int `param:"walk.legs"`
}

type walkState struct {
	Leg  int
	Note string
}

// TestView_showsTheGamesGoDataAndATypedActionsState: the agent view shows
// ctx.agent's Go data field by field (it said "the game's own data") and a
// typed Go action's state decoded (it said "plugin state", N bytes).
func TestView_showsTheGamesGoDataAndATypedActionsState(t *testing.T) {
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "npc", File: "npc.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "npc", Count: 1}}
	files := fstest.MapFS{"npc.xml": {Data: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<behaviorTree><action id="walk" name="walk"><parameter name="walk.legs">9</parameter></action></behaviorTree>`)}}
	data := &npc{HP: 12.5, Name: "Ann", Bag: []string{"rope"}, Skills: map[string]int{"swim": 3}, secret: 7}
	data.Pos.X = 4
	g, err := game.Open(cfg, game.Options{Files: files, Stdout: io.Discard, Stderr: io.Discard,
		AgentData: func(id, tree string) runtime.AgentData { return data },
		Register: func(reg *runtime.Registry) error {
			return runtime.TypedAction[walkParams, walkState]{Name: "walk",
				Run: func(a *runtime.Agent, p *walkParams, s *walkState) (runtime.Status, error) {
					s.Leg++
					s.Note = "left"
					return runtime.Running, nil
				}}.Register(reg)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	d := New(g, Options{Embedded: true})
	defer d.Close()
	for range 2 {
		if ok, err := g.Advance(); !ok || err != nil {
			t.Fatalf("Advance: %v %v", ok, err)
		}
	}
	v, err := d.cmdAgent(g.Agents()[0].ID())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	for _, want := range []string{
		`"agent":{"go":"*liveview.npc","table":[["HP",12.5],["Name","Ann"],["Pos",{"table":[["X",4],["Y",0]]}],["Bag",{"table":[[1,"rope"]]}],["Skills",{"table":[["swim",3]]}]]}`,
		`"state":{"table":[["Leg",2],["Note","left"]]}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the agent view lacks\n%s\nin\n%s", want, got)
		}
	}
	if strings.Contains(got, "plugin state") || strings.Contains(got, "secret") {
		t.Errorf("the agent view shows plugin state or an unexported field:\n%s", got)
	}
}

// tagged is agent data through bt tags (runtime.DeclareData).
type tagged struct {
	HP   float64 `bt:"hp"`
	Kind string  `bt:"kind"`
}

// TestView_showsATaggedStructsFields: the view shows the game's struct,
// not the runtime's wrapper around it.
func TestView_showsATaggedStructsFields(t *testing.T) {
	typ, err := runtime.DeclareData[tagged]()
	if err != nil {
		t.Fatal(err)
	}
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "npc", File: "npc.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "npc", Count: 1}}
	files := fstest.MapFS{"npc.xml": {Data: []byte(`<behaviorTree><action id="idle" name="bt.wait"><parameter name="wait.seconds">9</parameter></action></behaviorTree>`)}}
	g, err := game.Open(cfg, game.Options{Files: files, Stdout: io.Discard, Stderr: io.Discard,
		AgentData: func(id, tree string) runtime.AgentData { return typ.Of(&tagged{HP: 3, Kind: "orc"}) }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	d := New(g, Options{Embedded: true})
	defer d.Close()
	v, err := d.cmdAgent(g.Agents()[0].ID())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"agent":{"go":"*liveview.tagged","table":[["HP",3],["Kind","orc"]]}`; !strings.Contains(string(raw), want) {
		t.Errorf("the agent view lacks\n%s\nin\n%s", want, raw)
	}
}
