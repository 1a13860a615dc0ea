package game

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// sharedGame is a game whose world publishes in game.shared a value that
// changes every step, and whose readers of bt.shared run before the
// world's next tick publishes again: the handlers of the signal the tick
// sends before it publishes, the handlers of a signal a Go program sends
// between steps, and the tick itself, which counts from what it published
// last. A load that left bt.shared (or game.shared) as the loading game's
// init published it would show in every one of them.
func sharedGame() map[string]string {
	return map[string]string{
		"config.toml": `[run]
steps = 10
dt = 1
workers = 0
[scripts]
paths = ["ai"]
world = "ai/world.lua"
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 3
`,
		"ai/t.xml": `<behaviorTree>
  <sequence id="root" loop="true">
    <action id="watch" name="watch"/>
  </sequence>
</behaviorTree>`,
		"ai/watch.lua": `local bt = require("bt")
local function seen(ctx, what)
  local s = bt.shared
  ctx:log(what .. " n=" .. tostring(s and s.n) .. " acc=" .. tostring(s and s.acc) .. " list=" .. tostring(s and s.list and #s.list))
end
bt.action("watch", {
  run = function(ctx) seen(ctx, "run") return bt.RUNNING end,
  on = {
    tick = function(ctx) seen(ctx, "tick") end,
    poke = function(ctx) seen(ctx, "poke") end,
  },
})
`,
		"ai/world.lua": `local world = {}
function world.init(game)
  game.shared = {n = 0, acc = 100}
end
function world.tick(game)
  game.signal("all", "tick")
  local acc = game.shared and game.shared.acc or -1
  local list = {}
  for i = 1, game.step % 4 do list[i] = i * game.step end
  if game.step % 5 == 3 then
    game.shared = nil
  else
    game.shared = {n = game.step, acc = acc + game.step, list = list, [true] = "yes", [2.5] = -0.0}
  end
end
return world
`,
	}
}

// sharedRun runs the game of config for steps steps with n workers, a Go
// program's signal poke to all between steps; with saveAt > 0 the game is
// saved after that step and the rest runs in a new game restored from it.
// It returns the trace followed by the output, and the final save.
func sharedRun(t *testing.T, config string, n, steps, saveAt int) (string, []byte) {
	t.Helper()
	s := composeSession(t, config, n, nil)
	var trace, people strings.Builder
	for i := 1; i <= steps; i++ {
		if i == saveAt+1 && saveAt > 0 {
			data := s.save()
			trace.WriteString(s.trace.String())
			people.WriteString(s.people.String())
			s = composeSession(t, config, n, data)
		}
		if err := s.g.Signal("all", "poke", runtime.Value{}); err != nil {
			t.Fatal(err)
		}
		s.run(1)
	}
	trace.WriteString(s.trace.String())
	people.WriteString(s.people.String())
	return trace.String() + people.String(), s.save()
}

// TestSharedSave_readersBeforeTheFirstTickAfterALoadSeeTheSavedRun: what
// the world published in game.shared is part of the save, so that what
// reads it before the world's next tick (the handlers of signals the tick
// and a Go program send, the tick itself) reads what the saved run had:
// trace, output and final save are the same bytes as a run straight
// through, saved and restored after any step, on 1 and 2 workers.
func TestSharedSave_readersBeforeTheFirstTickAfterALoadSeeTheSavedRun(t *testing.T) {
	config := writeGame(t, sharedGame())
	const steps = 10
	out, save := sharedRun(t, config, 1, steps, 0)
	for _, want := range []string{"t-1 log watch: tick n=6 acc=14 list=2", "t-3 log watch: poke n=nil acc=nil list=nil",
		"t-2 log watch: tick n=4 acc=3 list=0", "t-2 log watch: run n=10 acc=18 list=2"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in the output:\n%s", want, out)
		}
	}
	if out2, save2 := sharedRun(t, config, 2, steps, 0); out2 != out || !bytes.Equal(save2, save) {
		t.Fatalf("2 workers differ from 1:\n%s", firstDiff(out2, out))
	}
	for k := 1; k < steps; k++ {
		for _, n := range []int{1, 2} {
			o, sv := sharedRun(t, config, n, steps, k)
			if o != out {
				t.Fatalf("%d workers, saved and restored after step %d:\n%s", n, k, firstDiff(o, out))
			}
			if !bytes.Equal(sv, save) {
				t.Fatalf("%d workers, saved and restored after step %d: the final save differs", n, k)
			}
		}
	}
}

// TestSharedSave_aRestoreIntoTheRunningGameTakesTheSavedShared: the live
// view's time travel (RestoreState into the game that is running, past
// the state restored) gives the readers of bt.shared what the restored
// step had, not what the game had published last.
func TestSharedSave_aRestoreIntoTheRunningGameTakesTheSavedShared(t *testing.T) {
	config := writeGame(t, sharedGame())
	const steps = 10
	for _, n := range []int{1, 2} {
		s := composeSession(t, config, n, nil)
		var saves [][]byte
		var ends, outs []int // the trace's and the output's lengths after each step
		for range steps {
			saves = append(saves, s.save())
			ends, outs = append(ends, s.trace.Len()), append(outs, s.people.Len())
			if err := s.g.Signal("all", "poke", runtime.Value{}); err != nil {
				t.Fatal(err)
			}
			s.run(1)
		}
		straight, out := s.trace.String(), s.people.String()
		for k := 1; k < steps; k++ {
			if err := s.g.RestoreState(saves[k]); err != nil {
				t.Fatal(err)
			}
			from, fromOut := s.trace.Len(), s.people.Len()
			for range steps - k {
				if err := s.g.Signal("all", "poke", runtime.Value{}); err != nil {
					t.Fatal(err)
				}
				s.run(1)
			}
			got := s.trace.String()[from:] + s.people.String()[fromOut:]
			if want := straight[ends[k]:] + out[outs[k]:]; got != want {
				t.Fatalf("%d workers, back to step %d from step %d:\n%s", n, k, steps, firstDiff(got, want))
			}
		}
	}
}

// TestSharedSave_aWorldThatPublishesItsOwnTableKeepsPublishingIt: a world
// that keeps the table it publishes in a local and changes it in place at
// every tick, never setting game.shared again, goes on publishing it after
// a load: the saved game.shared refills that table, as ctx.agent is.
func TestSharedSave_aWorldThatPublishesItsOwnTableKeepsPublishingIt(t *testing.T) {
	files := sharedGame()
	files["ai/world.lua"] = `local world = {}
local shared = {n = 0, acc = 100}
local keep = {}
function world.init(game)
  game.shared = shared
end
function world.tick(game)
  game.signal("all", "tick")
  shared.n = game.step
  shared.acc = shared.acc + game.step
  keep.last = game.step
end
function world.save() return keep end
function world.load(t) keep.last = t.last end
return world
`
	config := writeGame(t, files)
	const steps = 6
	out, save := sharedRun(t, config, 1, steps, 0)
	if !strings.Contains(out, "t-2 log watch: tick n=4 acc=110 list=nil") {
		t.Fatalf("the world published no change:\n%s", out)
	}
	for k := 1; k < steps; k++ {
		o, sv := sharedRun(t, config, 2, steps, k)
		if o != out || !bytes.Equal(sv, save) {
			t.Fatalf("2 workers, saved and restored after step %d:\n%s", k, firstDiff(o, out))
		}
	}
}

// TestSharedSave_aTableReachedTwiceInSharedSavesAsOneTable: bt.shared
// keeps a table game.shared reaches twice (and one that holds itself) as
// one table; a save keeps it so too, with boolean and fractional keys in
// their order: the restored world's game.shared holds one table at both
// places, the agents' bt.shared too, and the run goes on as the saved one.
func TestSharedSave_aTableReachedTwiceInSharedSavesAsOneTable(t *testing.T) {
	files := sharedGame()
	files["ai/world.lua"] = `local world = {}
function world.tick(game)
  if game.shared then
    local s = game.shared
    print("world", game.step, rawequal(s.a, s.b), rawequal(s.a.self, s.a), s.a.x)
  end
  local p = {x = game.step}
  p.self = p
  game.shared = {a = p, [true] = "yes", [2.5] = -0.0, b = p}
end
return world
`
	files["ai/watch.lua"] = `local bt = require("bt")
bt.action("watch", {
  run = function(ctx)
    local s = bt.shared
    if s then
      local keys = {}
      for k in pairs(s) do keys[#keys + 1] = tostring(k) end
      ctx:log("same=" .. tostring(rawequal(s.a, s.b)) .. " self=" .. tostring(rawequal(s.a.self, s.a)) .. " keys=" .. table.concat(keys, ","))
    end
    return bt.RUNNING
  end,
})
`
	config := writeGame(t, files)
	const steps = 5
	out, save := sharedRun(t, config, 1, steps, 0)
	for _, want := range []string{"t-1 log watch: same=true self=true keys=a,true,2.5,b", "world\t4\ttrue\ttrue\t3"} {
		if !strings.Contains(out, strings.ReplaceAll(want, "\\t", "\t")) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	for k := 1; k < steps; k++ {
		o, sv := sharedRun(t, config, 2, steps, k)
		if o != out || !bytes.Equal(sv, save) {
			t.Fatalf("saved and restored after step %d:\n%s", k, firstDiff(o, out))
		}
	}
}

// asVersion8 is a save of this btrun made into the save of the btrun
// before game.shared was saved: version 8, the shared Value cut out.
func asVersion8(t testing.TB, data []byte) []byte {
	t.Helper()
	off := len(SaveMagic)
	uvarint := func() uint64 {
		v, n := binary.Uvarint(data[off:])
		if n <= 0 {
			t.Fatal("not a save")
		}
		off += n
		return v
	}
	if v := uvarint(); v != SaveVersion {
		t.Fatalf("a save of version %d", v)
	}
	strs := make([]string, uvarint())
	for i := range strs {
		l := int(uvarint())
		strs[i] = string(data[off : off+l])
		off += l
	}
	l := int(uvarint())
	body := data[off : off+l]
	d := savecodec.NewDecoder(body, strs)
	d.Uvarint()
	d.Float()
	d.Varint()
	d.Uvarint()
	for range d.Count(2) {
		_, _ = d.String(), d.String() // a tree's name and fingerprint
	}
	for range d.Count(1) {
		d.Bool()
	}
	d.SkipValue() // the world's save()
	from := len(body) - d.Remaining()
	d.Blob() // game.shared
	to := len(body) - d.Remaining()
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	cut := append(append([]byte(nil), body[:from]...), body[to:]...)
	return savecodec.WriteContainer(SaveMagic, 8, savecodec.RawEncoder(cut, strs))
}

// TestSharedSave_aSaveOfBeforeSharedStillLoads: a version 8 save holds no
// game.shared; it loads, and game.shared and bt.shared are then what the
// loading game's init and the world's load(t) left, until the next tick.
func TestSharedSave_aSaveOfBeforeSharedStillLoads(t *testing.T) {
	config := writeGame(t, sharedGame())
	s := composeSession(t, config, 1, nil)
	s.run(4)
	old := asVersion8(t, s.save())
	b := composeSession(t, config, 2, old)
	if err := b.g.Signal("all", "poke", runtime.Value{}); err != nil {
		t.Fatal(err)
	}
	b.run(1)
	wantLines(t, "output", b.people.String(),
		"t=4.00 t-3 log watch: poke n=0 acc=100 list=nil", // init's
		"t=5.00 t-2 log watch: run n=5 acc=105 list=1")
	if got := b.save(); bytes.Equal(got[:len(SaveMagic)+1], old[:len(SaveMagic)+1]) {
		t.Error("the loaded save saves as version 8")
	}
}

// TestSharedSave_aReloadWithoutChangesKeepsShared: a hot reload runs the
// world's init again on the new Lua states; the world's game.shared is
// carried over as a load gives it back, and published again, so that a
// reload of unchanged files at any step leaves the run as it was.
func TestSharedSave_aReloadWithoutChangesKeepsShared(t *testing.T) {
	config := writeGame(t, sharedGame())
	const steps = 8
	for _, n := range []int{1, 2} {
		run := func(at int) string {
			s := composeSession(t, config, n, nil)
			for i := 1; i <= steps; i++ {
				if i == at+1 {
					if rep := s.reload(); len(rep.Warnings) > 0 {
						t.Fatalf("reload after step %d: %v", at, rep.Warnings)
					}
				}
				if err := s.g.Signal("all", "poke", runtime.Value{}); err != nil {
					t.Fatal(err)
				}
				s.run(1)
			}
			return s.trace.String() + withoutReloadLines(s.people.String())
		}
		want := run(0)
		for k := 1; k < steps; k++ {
			if got := run(k); got != want {
				t.Fatalf("%d workers, reloaded after step %d:\n%s", n, k, firstDiff(got, want))
			}
		}
	}
}
