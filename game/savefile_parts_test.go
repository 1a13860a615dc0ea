package game

import (
	"bytes"
	goruntime "runtime"
	"sync/atomic"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// splitCount counts the agents a host writes on one goroutine and in parts.
type splitCount struct {
	runtime.SplitHost
	one, parts atomic.Int64
}

func (h *splitCount) EncodeHost(e *savecodec.Encoder, a *runtime.Agent) error {
	h.one.Add(1)
	return h.SplitHost.EncodeHost(e, a)
}

func (h *splitCount) HostParts(agents []*runtime.Agent, n int) []runtime.HostPart {
	ps := h.SplitHost.HostParts(agents, n)
	for k, p := range ps {
		ps[k] = partCount{p, &h.parts}
	}
	return ps
}

type partCount struct {
	runtime.HostPart
	n *atomic.Int64
}

func (p partCount) EncodeHost(e *savecodec.Encoder, a *runtime.Agent) error {
	p.n.Add(1)
	return p.HostPart.EncodeHost(e, a)
}

// inParts reports whether g's agents are saved in n parts, none again on
// one goroutine (a save declined or failed in parts is made on one).
func inParts(t *testing.T, g *Game, n int) bool {
	t.Helper()
	agents := g.Agents()
	host, ok := g.hostStateOf(agents).(runtime.SplitHost)
	if !ok {
		return false
	}
	l := g.current()
	l.beginSave()
	defer l.endSave()
	h := &splitCount{SplitHost: host}
	if err := runtime.EncodeAgentsOn(savecodec.NewEncoder(), agents, h, n); err != nil {
		t.Fatal(err)
	}
	return h.one.Load() == 0 && h.parts.Load() == int64(len(agents))
}

// TestSave_onGoroutinesIsTheSaveOfOne: the games of the workers tests (Lua
// state, signals and stimuli, gates, lanes, slots, plugins' state, the
// example game), run on one worker and on two (agents in two Lua states),
// save the same bytes on 2, 3 and 4 goroutines as on one; and a save made
// on four loads, and saves again as it was.
func TestSave_onGoroutinesIsTheSaveOfOne(t *testing.T) {
	for _, tc := range workersGames {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{1, 2} {
				s := openWithWorkers(t, tc.config, tc.scale, workers)
				s.run(tc.steps / 2)
				want, err := s.g.encodeSaveOn(1)
				want = bytes.Clone(want) // the next save writes over it
				if err != nil {
					t.Fatal(err)
				}
				if g := s.g; g.lua != nil && !inParts(t, g, 3) {
					t.Fatalf("%d workers: the agents are not saved in parts", workers)
				}
				for _, n := range []int{2, 3, 4} {
					got, err := s.g.encodeSaveOn(n)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%d workers, %d goroutines: %d bytes, not the %d of one goroutine", workers, n, len(got), len(want))
					}
				}
				four, _ := s.g.encodeSaveOn(4)
				four = bytes.Clone(four) // restored from: the next save writes over it
				if err := s.g.RestoreState(four); err != nil {
					t.Fatal(err)
				}
				if again, err := s.g.encodeSaveOn(4); err != nil || !bytes.Equal(again, want) {
					t.Fatalf("%d workers: saved on 4 goroutines, loaded and saved again: %v, the same bytes: %v", workers, err, bytes.Equal(again, want))
				}
			}
		})
	}
}

// TestSave_ofAGameSavingAgainTakesLittleMemory: a save into the bytes of a
// save file (Save's) reuses the memory of the game's last save: under 24
// bytes allocated per agent (the lists of the game's agents that a save
// makes take 16), against the 180-odd a save takes (its size), on one
// goroutine and on several.
func TestSave_ofAGameSavingAgainTakesLittleMemory(t *testing.T) {
	g := exampleGame(t, 2000, 30)
	for _, n := range []int{1, 2} {
		if _, err := g.encodeSaveOn(n); err != nil { // the first takes the memory
			t.Fatal(err)
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		const saves = 5
		for range saves {
			if _, err := g.encodeSaveOn(n); err != nil {
				t.Fatal(err)
			}
		}
		goruntime.ReadMemStats(&after)
		if per := float64(after.TotalAlloc-before.TotalAlloc) / saves / 2000; per > 24 {
			t.Errorf("%d goroutines: %.1f bytes allocated per agent saved; want under 24", n, per)
		} else {
			t.Logf("%d goroutines: %.1f bytes allocated per agent saved", n, per)
		}
	}
}

// TestLoad_ofTheGamesOwnSaveTakesLittleMemory: loading the save a game
// just wrote (a rewind, a checkpoint) reuses the memory of its last load
// (the plans, the agents' slabs), keeps the Lua numbers and strings that
// did not change, and keeps no copy of the agents' bookkeeping: under 120
// bytes allocated per agent (214 before, 77 after), mostly the cancel hooks the
// load runs and the save's string table.
func TestLoad_ofTheGamesOwnSaveTakesLittleMemory(t *testing.T) {
	g := exampleGame(t, 2000, 30)
	data, err := g.encodeSave()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.decodeSave(data); err != nil { // the first takes the memory
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	const loads = 5
	for range loads {
		if _, err := g.decodeSave(data); err != nil {
			t.Fatal(err)
		}
	}
	goruntime.ReadMemStats(&after)
	if per := float64(after.TotalAlloc-before.TotalAlloc) / loads / 2000; per > 120 {
		t.Errorf("%.1f bytes allocated per agent loaded; want under 120", per)
	} else {
		t.Logf("%.1f bytes allocated per agent loaded", per)
	}
}
