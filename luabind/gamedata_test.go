package luabind

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// unit is a game's own data for one agent: Go fields, not a Lua table.
type unit struct {
	X, Y   float64
	Name   string
	Armed  bool
	writes int
}

func (u *unit) Field(name string) runtime.Value {
	switch name {
	case "x":
		return runtime.Number(u.X)
	case "y":
		return runtime.Number(u.Y)
	case "name":
		return runtime.String(u.Name)
	case "armed":
		return runtime.Bool(u.Armed)
	}
	return runtime.Value{}
}

func (u *unit) SetField(name string, v runtime.Value) error {
	u.writes++
	switch {
	case name == "x" && v.Kind == runtime.NumberValue:
		u.X = v.Num
	case name == "y" && v.Kind == runtime.NumberValue:
		u.Y = v.Num
	case name == "name" && v.Kind == runtime.StringValue:
		u.Name = v.Str
	case name == "armed" && v.Kind == runtime.BoolValue:
		u.Armed = v.Bool
	default:
		return fmt.Errorf("a unit has no field %s of that type", name)
	}
	return nil
}

func (u *unit) MarshalBinary() ([]byte, error) { return json.Marshal(u) }
func (u *unit) UnmarshalBinary(b []byte) error { return json.Unmarshal(b, u) }

const gameDataScripts = `local bt = require("bt")
bt.action("advance", function(ctx, params)
  ctx.agent.x = ctx.agent.x + 1
  ctx.memory.seen = ctx.agent.name .. "@" .. ctx.agent.x
  if ctx.agent.missing ~= nil then error("missing field is not nil") end
  return bt.RUNNING
end)
bt.action("rename", function(ctx, params) ctx.agent.name = 42 return bt.SUCCESS end)
`

func TestGameData_luaReadsAndWritesTheGamesGoValues(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": gameDataScripts})
	f.bind(tree(`<action id="go" name="advance"/>`))
	u := &unit{X: 1, Name: "scout"}
	a := f.tree.NewAgent("scout-1", f.env)
	if err := f.e.AttachData(a, u); err != nil {
		t.Fatal(err)
	}
	plain := f.agent("plain-1") // a Lua table, as before
	f.do(`ok = true`)
	for range 3 {
		if got := step(t, a); got != "running" {
			t.Fatal(got)
		}
	}
	if u.X != 4 {
		t.Errorf("x = %v after three steps, want 4 (written through to the Go value)", u.X)
	}
	if a.Data() != runtime.AgentData(u) {
		t.Errorf("Agent.Data is %v, want the unit", a.Data())
	}
	st, _ := f.e.Data(a)
	if got := st.Memory().RawGetString("seen").String(); got != "scout@4" {
		t.Errorf("memory.seen = %q", got)
	}
	// The plugin host's access goes to the same values.
	if x, ok := st.NumberField("x"); !ok || x != 4 {
		t.Errorf("NumberField(x) = %v %v", x, ok)
	}
	if err := st.SetNumberField("y", 7); err != nil || u.Y != 7 {
		t.Errorf("SetNumberField(y): %v, y = %v", err, u.Y)
	}
	if err := st.SetField("armed", true); err != nil || !u.Armed {
		t.Errorf("SetField(armed): %v", err)
	}
	if v, ok := st.GetField("name"); !ok || v != "scout" {
		t.Errorf("GetField(name) = %v %v", v, ok)
	}
	if plain.Data() != nil {
		t.Errorf("an agent without game data has Data %v", plain.Data())
	}
	// Lua's table stays the default for the agent without data.
	if got := step(t, plain); !strings.Contains(got, "cannot perform add operation between nil and number") {
		t.Errorf("plain agent: %s (its ctx.agent is an empty Lua table)", got)
	}
}

func TestGameData_aRefusedWriteIsALuaErrorAtTheScriptLine(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": gameDataScripts})
	f.bind(tree(`<action id="go" name="rename"/>`))
	a := f.tree.NewAgent("scout-1", f.env)
	must(t, f.e.AttachData(a, &unit{}))
	got := step(t, a)
	wantContains(t, got, "a.lua:8:", "ctx.agent.name: a unit has no field name of that type")
}

func TestGameData_savedThroughTheGamesOwnBytes(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": gameDataScripts})
	f.bind(tree(`<action id="go" name="advance"/>`))
	u := &unit{X: 10, Name: "scout"}
	a := f.tree.NewAgent("scout-1", f.env)
	must(t, f.e.AttachData(a, u))
	step(t, a)
	data, err := runtime.SaveAgents([]*runtime.Agent{a}, f.e)
	if err != nil {
		t.Fatal(err)
	}
	// A new engine and a fresh unit: the restore fills it from the save.
	g := newFixture(t, map[string]string{"a.lua": gameDataScripts})
	g.bind(tree(`<action id="go" name="advance"/>`))
	u2 := &unit{}
	b := g.tree.NewAgent("scout-1", g.env)
	must(t, g.e.AttachData(b, u2))
	if _, err := runtime.RestoreAgents(data, []*runtime.Agent{b}, g.e); err != nil {
		t.Fatal(err)
	}
	if *u2 != (unit{X: 11, Name: "scout"}) {
		t.Errorf("restored unit %+v, want x 11 and the name", *u2)
	}
	if got := step(t, b); got != "running" || u2.X != 12 {
		t.Errorf("after the restore: %s, x = %v", got, u2.X)
	}
	st, _ := g.e.Data(b)
	if got := st.Memory().RawGetString("seen").String(); got != "scout@12" {
		t.Errorf("memory.seen = %q (memory is still saved as a Lua table)", got)
	}

	// An agent whose ctx.agent is a Lua table cannot take game data, nor the
	// other way round; the restore changes nothing.
	c := g.tree.NewAgent("scout-1", g.env)
	must(t, g.e.Attach(c))
	if _, err := runtime.RestoreAgents(data, []*runtime.Agent{c}, g.e); !errors.Is(err, runtime.ErrCorrupt) || !strings.Contains(err.Error(), "the save holds the game's own data") {
		t.Errorf("restoring game data into a Lua table: %v", err)
	}
	plainSave, err := runtime.SaveAgents([]*runtime.Agent{c}, g.e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.RestoreAgents(plainSave, []*runtime.Agent{b}, g.e); !errors.Is(err, runtime.ErrCorrupt) || !strings.Contains(err.Error(), "holds a Lua table as its ctx.agent") {
		t.Errorf("restoring a Lua table into game data: %v", err)
	}
	if u2.X != 12 {
		t.Errorf("a refused restore changed the unit: %+v", *u2)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzRestoreGameData feeds host Values of any shape to CheckHost and
// RestoreHost of an agent whose ctx.agent is the game's own data: no
// panic, and what passes the check restores.
func FuzzRestoreGameData(f *testing.F) {
	str := func(s string) runtime.Value { return runtime.String(s) }
	tbl := func(fs ...runtime.Field) runtime.Value { return runtime.Value{Kind: runtime.TableValue, Table: fs} }
	good := tbl(runtime.Field{Key: str("data"), Val: tbl(runtime.Field{Key: str("go"), Val: str(`{"X":1}`)})},
		runtime.Field{Key: str("memory"), Val: tbl()})
	encode := func(v runtime.Value) []byte {
		enc := savecodec.NewEncoder()
		for _, s := range dataStrings {
			enc.String(s) // fix the string table's order
		}
		body := len(enc.Bytes())
		runtime.EncodeValue(enc, v)
		return enc.Bytes()[body:]
	}
	f.Add(encode(good))
	f.Add(encode(tbl(runtime.Field{Key: str("data"), Val: tbl()}, runtime.Field{Key: str("memory"), Val: tbl()})))
	f.Add(encode(tbl(runtime.Field{Key: str("data"), Val: tbl(runtime.Field{Key: str("go"), Val: runtime.Number(1)})},
		runtime.Field{Key: str("agent"), Val: tbl()}, runtime.Field{Key: str("memory"), Val: tbl()})))
	ff, _ := streamFixture(&testing.T{}, 0)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := savecodec.NewDecoder(data, dataStrings)
		d.SkipValue()
		if d.Done() != nil {
			return
		}
		a := ff.tree.NewAgent("unit", nil)
		u := &unit{}
		if err := ff.e.AttachData(a, u); err != nil {
			t.Fatal(err)
		}
		defer ff.e.Detach(a)
		if err := ff.e.CheckHost(a, savecodec.NewDecoder(data, dataStrings)); err != nil {
			return
		}
		if err := ff.e.RestoreHost(a, savecodec.NewDecoder(data, dataStrings)); err != nil && !strings.Contains(err.Error(), "restoring its game data") {
			t.Fatalf("RestoreHost after CheckHost passed: %v", err)
		}
	})
}

// dataStrings is the string table of FuzzRestoreGameData's inputs.
var dataStrings = []string{"data", "go", "agent", "memory", "state", `{"X":1}`, "x"}
