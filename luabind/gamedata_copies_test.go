package luabind

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// squad is agent data with a table-valued field: pos = {x=, y=}, and a
// list of names the game refuses to take back.
type squad struct {
	X, Y float64
	sets int
}

func (s *squad) Field(name string) runtime.Value {
	switch name {
	case "pos":
		return runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{
			{Key: runtime.String("x"), Val: runtime.Number(s.X)},
			{Key: runtime.String("y"), Val: runtime.Number(s.Y)}}}
	case "tags":
		return runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{{Key: runtime.Number(1), Val: runtime.String("a")}}}
	}
	return runtime.Value{}
}

func (s *squad) SetField(name string, v runtime.Value) error {
	if name != "pos" || v.Kind != runtime.TableValue {
		return fmt.Errorf("the game's %s cannot change", name)
	}
	s.sets++
	for _, f := range v.Table {
		switch f.Key.Str {
		case "x":
			s.X = f.Val.Num
		case "y":
			s.Y = f.Val.Num
		}
	}
	return nil
}

func (s *squad) MarshalBinary() ([]byte, error) { return json.Marshal(s) }
func (s *squad) UnmarshalBinary(b []byte) error { return json.Unmarshal(b, s) }

const tableFieldScripts = `local bt = require("bt")
bt.action("move", function(ctx, params)
  ctx.agent.pos.x = ctx.agent.pos.x + 1
  local p = ctx.agent.pos
  p.y = p.x * 10
  if ctx.agent.pos.y ~= p.y then error("a second read lost the first read's write") end
  return bt.RUNNING
end)
bt.action("look", function(ctx, params)
  local n = 0
  for _ in pairs(ctx.agent.pos) do n = n + 1 end
  return n == 2 and bt.SUCCESS or bt.FAILURE
end)
bt.action("tag", function(ctx, params)
  ctx.agent.tags[2] = "b"
  return bt.RUNNING
end)
`

// TestGameData_aWriteIntoATableFieldReachesTheGame: ctx.agent.pos.x = 5
// changes the game's value (it used to change a copy and be lost); a
// table field only read is not written back; a write the game refuses is
// an error of the action, naming the field.
func TestGameData_aWriteIntoATableFieldReachesTheGame(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": tableFieldScripts})
	f.bind(tree(`<action id="go" name="move"/>`))
	s := &squad{X: 1}
	a := f.tree.NewAgent("squad-1", f.env)
	if err := f.e.AttachData(a, s); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := step(t, a); got != "running" {
			t.Fatal(got)
		}
	}
	if s.X != 3 || s.Y != 30 || s.sets != 2 {
		t.Errorf("pos = (%v, %v) after %d writes back, want (3, 30) after 2: Lua's writes into ctx.agent.pos reach the game", s.X, s.Y, s.sets)
	}

	f.bind(tree(`<action id="go" name="look"/>`))
	b := f.tree.NewAgent("squad-2", f.env)
	only := &squad{X: 1}
	if err := f.e.AttachData(b, only); err != nil {
		t.Fatal(err)
	}
	if got := step(t, b); got != "success" || only.sets != 0 {
		t.Errorf("reading pos: %s with %d writes back, want success with none", got, only.sets)
	}

	f.bind(tree(`<action id="go" name="tag"/>`))
	c := f.tree.NewAgent("squad-3", f.env)
	if err := f.e.AttachData(c, &squad{}); err != nil {
		t.Fatal(err)
	}
	if got := step(t, c); !strings.Contains(got, "ctx.agent.tags") || !strings.Contains(got, "cannot change") || !strings.Contains(got, "a.lua") {
		t.Errorf("a refused write into ctx.agent.tags: %s, want an error naming the field and the script", got)
	}
}

// TestGameData_spawnWritesIntoATableField: the world's spawn(ctx), a call
// of its own, gives its table writes back too.
func TestGameData_spawnWritesIntoATableField(t *testing.T) {
	f := newFixture(t, map[string]string{
		"world.lua": `return {spawn = function(ctx) ctx.agent.pos.y = 8 end}`,
		"act.lua":   `bt.action("ok", function() return bt.SUCCESS end)`})
	f.bind(tree(`<action id='a' name='ok'/>`))
	w, err := f.e.LoadWorld("world.lua")
	if err != nil {
		t.Fatal(err)
	}
	s := &squad{X: 1}
	a := f.tree.NewAgent("squad-1", f.env)
	if err := f.e.AttachData(a, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Spawn(a); err != nil {
		t.Fatal(err)
	}
	if s.X != 1 || s.Y != 8 || s.sets != 1 {
		t.Errorf("pos = (%v, %v) after %d writes back, want (1, 8) after 1", s.X, s.Y, s.sets)
	}
}
