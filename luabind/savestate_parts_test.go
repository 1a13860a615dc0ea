package luabind

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// partsFixture binds a tree whose agents keep Lua state of every kind a
// save writes: strings shared by every agent and strings of their own,
// numbers, nested tables, a table of 200 entries (whose count needs two
// bytes), removed keys, ctx.state and the ctx.state of two lanes of a
// parallel; with src run in each agent's first action call (after the
// rest).
func partsFixture(t *testing.T, n int, src string) (*fixture, []*runtime.Agent) {
	t.Helper()
	f := newFixture(t, map[string]string{"parts.lua": `
local bt = require("bt")
bt.action("fill", function(ctx, params)
  local m = ctx.memory
  m.kind = "grunt"
  m.name = "n-" .. ctx.id
  m.count = (m.count or 0) + 1
  m.gone = 1
  m.gone = nil
  m.pos = {x = #ctx.id, y = 2.5, tags = {"a", ctx.id}}
  if #ctx.id % 3 == 0 then
    local big = {}
    for i = 1, 200 do big["k" .. i] = i end
    m.big = big
  end
  ctx.agent.hp = #ctx.id * 7
  ` + src + `
  return bt.SUCCESS
end)
bt.action("lane", function(ctx, params)
  ctx.state.lane = params.which .. ctx.id
  return bt.RUNNING
end)`})
	f.bind(`<behaviorTree><sequence id="root">
  <action id="fill" name="fill"/>
  <parallel id="p" success="all">
    <action id="l1" name="lane"><parameter name="which">one</parameter></action>
    <action id="l2" name="lane"><parameter name="which">two</parameter></action>
  </parallel>
</sequence></behaviorTree>`)
	var agents []*runtime.Agent
	for i := range n {
		a := f.agent(fmt.Sprintf("a%d", i+1))
		step(t, a)
		agents = append(agents, a)
	}
	return f, agents
}

// countingHost counts the agents written on one goroutine and by parts.
type countingHost struct {
	*Engine
	one, parts atomic.Int64
}

func (h *countingHost) EncodeHost(e *savecodec.Encoder, a *runtime.Agent) error {
	h.one.Add(1)
	return h.Engine.EncodeHost(e, a)
}

func (h *countingHost) HostParts(agents []*runtime.Agent, n int) []runtime.HostPart {
	ps := h.Engine.HostParts(agents, n)
	for k, p := range ps {
		ps[k] = countingPart{p, &h.parts}
	}
	return ps
}

type countingPart struct {
	runtime.HostPart
	n *atomic.Int64
}

func (p countingPart) EncodeHost(e *savecodec.Encoder, a *runtime.Agent) error {
	p.n.Add(1)
	return p.HostPart.EncodeHost(e, a)
}

// saveOn saves agents on n goroutines within a save session, as a game
// does; it returns the container's bytes (body and string table).
// When the global world is set, it is saved first, as a game saves its
// world's state.
func saveOn(e *Engine, host runtime.HostState, agents []*runtime.Agent, n int) ([]byte, error) {
	e.BeginSave()
	defer e.EndSave()
	enc := savecodec.NewEncoder()
	enc.String("before the agents")
	if w := e.L.GetGlobal("world"); w != lua.LNil {
		if err := e.encodeValue(enc, w, "world main.lua", "save()"); err != nil {
			return nil, err
		}
	}
	if err := runtime.EncodeAgentsOn(enc, agents, host, n); err != nil {
		return nil, err
	}
	return savecodec.WriteContainer(runtime.AgentsMagic, runtime.AgentsVersion, enc), nil
}

// TestSaveHost_onGoroutinesWritesTheBytesOfOne: agents with Lua state saved
// on 2, 3 and 4 goroutines give the bytes of one, every agent written by a
// part (none again on one goroutine).
func TestSaveHost_onGoroutinesWritesTheBytesOfOne(t *testing.T) {
	f, agents := partsFixture(t, 37, "")
	want, err := saveOn(f.e, f.e, agents, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"onea37", "twoa36", "k200", "tags"} { // lanes' states, the big table, nested ones
		if !strings.Contains(string(want), s) {
			t.Fatalf("the save has no %q", s)
		}
	}
	for _, n := range []int{2, 3, 4} {
		h := &countingHost{Engine: f.e}
		got, err := saveOn(f.e, h, agents, n)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%d goroutines: %d bytes, not the %d of one", n, len(got), len(want))
		}
		if h.one.Load() != 0 || h.parts.Load() != int64(len(agents)) {
			t.Fatalf("%d goroutines: %d agents written by parts and %d on one goroutine; want all %d by parts", n, h.parts.Load(), h.one.Load(), len(agents))
		}
	}
}

// TestSaveHost_onGoroutinesFailsAsOneDoes: what one goroutine refuses (a
// table reachable from two agents, whichever parts they are in; a value a
// save cannot hold, a table of the world's) is refused on several with the
// same error.
func TestSaveHost_onGoroutinesFailsAsOneDoes(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"shared", `shared = shared or {}; if ctx.id == "a3" or ctx.id == "a30" then ctx.memory.s = shared end`,
			"agent a30: memory.s: the table is also reachable from agent a3 memory.s"},
		{"world", `world = world or {}; if ctx.id == "a31" then ctx.memory.w = world end`,
			"agent a31: memory.w: the table is also reachable from world main.lua save()"},
		{"function", `if ctx.id == "a29" then ctx.memory.f = print end`, "agent a29: memory.f: a function cannot be saved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, agents := partsFixture(t, 37, c.src)
			_, one := saveOn(f.e, f.e, agents, 1)
			if one == nil || !strings.Contains(one.Error(), c.want) {
				t.Fatalf("on one goroutine: %v, want ...%s...", one, c.want)
			}
			for _, n := range []int{2, 4} {
				if _, err := saveOn(f.e, f.e, agents, n); err == nil || err.Error() != one.Error() {
					t.Fatalf("%d goroutines: %v\nwant %v", n, err, one)
				}
			}
		})
	}
}

// overlapping is a host whose last part always reports an overlap: the
// save is made again on one goroutine.
type overlapping struct{ *Engine }

func (h overlapping) HostParts(agents []*runtime.Agent, n int) []runtime.HostPart {
	ps := h.Engine.HostParts(agents, n)
	ps[n-1] = overlapPart{ps[n-1]}
	return ps
}

type overlapPart struct{ runtime.HostPart }

func (overlapPart) Overlaps() bool { return true }

// TestSaveHost_aSaveMadeAgainOnOneGoroutineIsTheSame: parts that report
// an overlap make the save again on one goroutine, which writes what it
// writes when nothing was tried before it.
func TestSaveHost_aSaveMadeAgainOnOneGoroutineIsTheSame(t *testing.T) {
	f, agents := partsFixture(t, 37, "")
	want, err := saveOn(f.e, f.e, agents, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 4} {
		if got, err := saveOn(f.e, overlapping{f.e}, agents, n); err != nil || string(got) != string(want) {
			t.Fatalf("%d goroutines, made again on one: %v, the same bytes: %v", n, err, string(got) == string(want))
		}
	}
}
