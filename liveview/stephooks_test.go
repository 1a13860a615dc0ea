package liveview

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/game"
	bt "github.com/btrun/btrun/runtime"
)

// A Go game whose own between-step work (a signal from Go, damage to its
// agent's Go data) is given as BeforeStep and AfterStep: time travel
// replays it with btrun's steps, so an earlier step shows the state the
// game had (it showed the agent unhurt and without the signal, and left
// the game's struct so when travelling back to the latest step, and a run
// that went on from an earlier step went on from a state it never had).

// hurt is the game's Go data of its one agent.
type hurt struct{ HP float64 }

func (h *hurt) Field(name string) bt.Value {
	if name == "hp" {
		return bt.Number(h.HP)
	}
	return bt.Value{}
}
func (h *hurt) SetField(name string, v bt.Value) error { return nil }
func (h *hurt) MarshalBinary() ([]byte, error) {
	return []byte(strconv.FormatFloat(h.HP, 'g', -1, 64)), nil
}
func (h *hurt) UnmarshalBinary(b []byte) error {
	x, err := strconv.ParseFloat(string(b), 64)
	h.HP = x
	return err
}

type noParams struct{}

type seenState struct{ Last, Sum float64 } // what the action saw of the data: at its last step, and summed over its steps

// hookedGame opens the game; with hooks, BeforeStep signals the agent at
// step 3 and AfterStep takes 1 HP each step and 10 more at step 5, and
// states[s] is the game's state (SaveState) at position s of the live run.
func hookedGame(t *testing.T, hooks bool, states map[uint64][]byte) (*game.Game, *hurt) {
	return hookedGameWith(t, hooks, states, nil)
}

// hookedGameWith is hookedGame whose BeforeStep also calls more.
func hookedGameWith(t *testing.T, hooks bool, states map[uint64][]byte, more func(*game.Game, game.StepInfo) error) (*game.Game, *hurt) {
	t.Helper()
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "npc", File: "npc.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "npc", Count: 1}}
	files := fstest.MapFS{"npc.xml": {Data: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<behaviorTree><action id="look" name="look"/></behaviorTree>`)}}
	data := &hurt{HP: 100}
	opts := game.Options{Files: files, Stdout: io.Discard, Stderr: io.Discard, Quiet: true,
		AgentData: func(id, tree string) bt.AgentData { return data },
		Register: func(reg *bt.Registry) error {
			return bt.TypedAction[noParams, seenState]{Name: "look",
				Run: func(a *bt.Agent, _ *noParams, s *seenState) (bt.Status, error) {
					s.Last = a.Data().Field("hp").Num
					s.Sum += s.Last
					return bt.Running, nil
				}}.Register(reg)
		}}
	if hooks {
		opts.BeforeStep = func(g *game.Game, s game.StepInfo) error {
			if s.Time != g.Time(s.Step) {
				return fmt.Errorf("step %d at time %v", s.Step, s.Time)
			}
			if more != nil {
				if err := more(g, s); err != nil {
					return err
				}
			}
			if s.Step == 3 {
				return g.Signal("all", "Alarm", bt.Number(7))
			}
			return nil
		}
		opts.AfterStep = func(g *game.Game, s game.StepInfo) error {
			data.HP--
			if s.Step == 5 {
				data.HP -= 10
			}
			if _, ok := states[s.Step]; !ok && !s.Replay { // the first live run's
				st, err := g.SaveState()
				states[s.Step] = st
				return err
			}
			return nil
		}
	}
	g, err := game.Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := g.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	states[0] = st
	return g, data
}

// viaAPI sends a request to the live view and steps the program's loop
// (Advance) until it is answered, as a game's loop serves the view.
func viaAPI(t *testing.T, g *game.Game, d *Debugger, method, path, body string) map[string]any {
	t.Helper()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		d.Handler().ServeHTTP(rec, httptest.NewRequest(method, "http://127.0.0.1"+path, strings.NewReader(body)))
		done <- rec
	}()
	for {
		select {
		case rec := <-done:
			var v map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil || rec.Code != http.StatusOK {
				t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
			}
			if st, ok := v["status"].(map[string]any); ok {
				return st
			}
			return v
		default:
			if _, err := g.Advance(); err != nil {
				t.Fatal(err)
			}
			runtime.Gosched()
		}
	}
}

func TestTimeTravel_replaysTheProgramsStepCallbacks(t *testing.T) {
	states := map[uint64][]byte{}
	g, data := hookedGame(t, true, states)
	d := New(g, Options{Embedded: true, Paused: true, SnapshotEvery: 4})
	defer d.Close()
	st := viaAPI(t, g, d, "POST", "/api/step", `{"steps":9}`)
	if st["step"] != 9.0 || data.HP != 100-9-10 {
		t.Fatalf("after 9 steps: step %v, HP %v", st["step"], data.HP)
	}
	if tt := st["timeTravel"].(map[string]any); tt["btrunOnly"] != false {
		t.Errorf("with step callbacks, status says time travel replays btrun's part only: %v", tt)
	}
	for _, s := range []uint64{2, 3, 6, 4, 9, 0, 5, 7, 9} {
		st := viaAPI(t, g, d, "POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s))
		if st["step"] != float64(s) {
			t.Fatalf("travel to %d: %v", s, st)
		}
		got, err := g.SaveState()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(states[s]) {
			t.Errorf("step %d: the game's state differs from what the live run had:\n%q\nwant\n%q", s, got, states[s])
		}
		want := 100 - float64(s)
		if s >= 5 {
			want -= 10
		}
		if data.HP != want {
			t.Errorf("step %d: the game's struct holds HP %v, the live run had %v", s, data.HP, want)
		}
	}
	// Going on from an earlier step runs the same steps again, live.
	viaAPI(t, g, d, "POST", "/api/travel", `{"step":6}`)
	if st := viaAPI(t, g, d, "POST", "/api/step", `{"steps":3}`); st["step"] != 9.0 {
		t.Fatalf("three steps from step 6: %v", st)
	}
	if got, err := g.SaveState(); err != nil || string(got) != string(states[9]) || data.HP != 81 {
		t.Errorf("steps 7..9 run again from step 6 end elsewhere than the first time (HP %v, error %v)", data.HP, err)
	}
	a := viaAPI(t, g, d, "GET", "/api/agents/"+g.Agents()[0].ID(), "")
	if raw, _ := json.Marshal(a); !strings.Contains(string(raw), "Alarm") {
		t.Errorf("at step 9 the agent view shows no Alarm signal from Go:\n%s", raw)
	}
}

func TestTimeTravel_saysItReplaysBtrunsPartOnlyWithoutCallbacks(t *testing.T) {
	for _, hooks := range []bool{false, true} {
		g, _ := hookedGame(t, hooks, map[uint64][]byte{})
		d := New(g, Options{Embedded: true, Paused: true})
		st := viaAPI(t, g, d, "GET", "/api/status", "")
		if got := st["timeTravel"].(map[string]any)["btrunOnly"]; got != !hooks {
			t.Errorf("step callbacks %v: btrunOnly is %v", hooks, got)
		}
		d.Close()
	}
}

// TestTimeTravel_afterAStepCallbackAddsAnAgent: an agent a BeforeStep adds
// restarts time travel after that step (as a reload does), so that no
// replay runs the callback that added it again (the replay added it a
// second time and failed).
func TestTimeTravel_afterAStepCallbackAddsAnAgent(t *testing.T) {
	states := map[uint64][]byte{}
	g, _ := hookedGameWith(t, true, states, func(g *game.Game, s game.StepInfo) error {
		if s.Step == 3 {
			_, err := g.AddAgent("npc-9", "npc", &hurt{HP: 50})
			return err
		}
		return nil
	})
	d := New(g, Options{Embedded: true, Paused: true, SnapshotEvery: 4})
	defer d.Close()
	st := viaAPI(t, g, d, "POST", "/api/step", `{"steps":7}`)
	if st["first"] != 3.0 || st["agents"] != 2.0 {
		t.Errorf("after an agent joined at step 3: time travel starts at step %v, with %v agents; want 3 and 2", st["first"], st["agents"])
	}
	for _, s := range []uint64{6, 3, 5, 7} {
		if st := viaAPI(t, g, d, "POST", "/api/travel", fmt.Sprintf(`{"step":%d}`, s)); st["step"] != float64(s) {
			t.Fatalf("travel to %d: %v", s, st)
		}
		if got, err := g.SaveState(); err != nil || string(got) != string(states[s]) {
			t.Errorf("step %d: the game's state differs from what the live run had (%v)", s, err)
		}
	}
}
