package sdk

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParams_typedGetters(t *testing.T) {
	p := Params{{"a.bool", "true"}, {"a.int", "7"}, {"a.num", "2.5"}, {"a.text", "hi"}, {"bad", "x"}}
	if v := p.String("a.text", "d"); v != "hi" {
		t.Error(v)
	}
	if v, err := p.Float("a.num", 1); v != 2.5 || err != nil {
		t.Error(v, err)
	}
	if v, err := p.Float("missing", 1); v != 1 || err != nil {
		t.Error(v, err)
	}
	if v, err := p.Int("a.int", 0); v != 7 || err != nil {
		t.Error(v, err)
	}
	if v, err := p.Bool("a.bool", false); !v || err != nil {
		t.Error(v, err)
	}
	for _, err := range []error{
		func() error { _, err := p.Float("bad", 0); return err }(),
		func() error { _, err := p.Int("bad", 0); return err }(),
		func() error { _, err := p.Bool("bad", false); return err }(),
	} {
		if !errors.Is(err, ErrBadParam) || !strings.Contains(err.Error(), `parameter "bad" = "x"`) {
			t.Errorf("got %v", err)
		}
	}
}

func TestPlugin_invalidDeclarations(t *testing.T) {
	run := func(*Call) (Status, error) { return Success, nil }
	p := &Plugin{Actions: []Action{{Name: "a", Run: run}, {Name: "a", Run: run}, {Name: "b"}, {Name: "c", Run: run, Writes: []string{"x", "x"}}},
		Conditions: []Condition{{Name: ""}}, Scorers: []Scorer{{Name: "s"}, {Name: "s", Score: func(*Call) (float64, error) { return 1, nil }}}}
	_, err := NewTester(p)
	for _, want := range []string{`action "a" is declared twice`, `action "b" has no Run function`, `Writes lists "x" twice`, "condition 0 has no name", "condition \"\" has no Test function",
		`scorer "s" has no Score function`, `scorer "s" is declared twice`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if !errors.Is(err, ErrInvalidPlugin) {
		t.Errorf("not ErrInvalidPlugin: %v", err)
	}
}

// counter is a plugin exercising every part of a call.
func counter() *Plugin {
	return &Plugin{Name: "t", Actions: []Action{
		{Name: "count", Reads: []string{"n"}, Writes: []string{"n", "gone"},
			Start: func(c *Call) error { c.Log("start at", c.Rule, 1.5, true); return nil },
			Run: func(c *Call) (Status, error) {
				var st struct{ Runs int }
				if err := c.LoadState(&st); err != nil {
					return 0, err
				}
				st.Runs++
				if err := c.SaveState(st); err != nil {
					return 0, err
				}
				n, _ := c.FieldFloat("n")
				if err := c.SetField("n", n+1); err != nil {
					return 0, err
				}
				if err := c.SetField("gone", nil); err != nil {
					return 0, err
				}
				if st.Runs < 3 {
					return Running, nil
				}
				c.Signal("Counted")
				c.Send("all", "Heard")
				c.SetVar("Done", true)
				c.SetStamp("At")
				c.ClearStamp("Before")
				c.Jump("root.next")
				return Success, nil
			},
			Cancel: func(c *Call) error { return c.SetField("n", -1.0) }},
		{Name: "undeclared", Run: func(c *Call) (Status, error) { return Success, c.SetField("z", 1) }},
		{Name: "panics", Run: func(c *Call) (Status, error) { panic("boom") }},
		{Name: "badStatus", Run: func(c *Call) (Status, error) { return 9, nil }},
	}, Conditions: []Condition{
		{Name: "big", Reads: []string{"n"}, Test: func(c *Call) (bool, error) {
			n, _ := c.FieldFloat("n")
			lim, err := c.Params.Float("big.limit", 2)
			return n > lim, err
		}},
		{Name: "meddles", Test: func(c *Call) (bool, error) { c.Signal("x"); return true, nil }},
	}, Scorers: []Scorer{
		{Name: "urge", Reads: []string{"n"}, Score: func(c *Call) (float64, error) {
			n, _ := c.FieldFloat("n")
			w, err := c.Params.Float("urge.weight", 1)
			return n * w, err
		}},
		{Name: "pushy", Score: func(c *Call) (float64, error) { c.Jump("elsewhere"); return 1, nil }},
	}}
}

func TestTester_stateFieldsEffectsAndCancel(t *testing.T) {
	tt, err := NewTester(counter())
	if err != nil {
		t.Fatal(err)
	}
	ag := NewTestAgent("a1", map[string]any{"n": 1.0, "gone": "x"})
	for i, want := range []Status{Running, Running, Success} {
		st, err := tt.Run(ag, "count", nil, 0.1)
		if err != nil || st != want {
			t.Fatalf("run %d: %v %v", i+1, st, err)
		}
	}
	if ag.Fields["n"] != 4.0 || ag.Fields["gone"] != nil || len(ag.State) != 0 || !ag.FirstRun {
		t.Errorf("after success: %+v", ag)
	}
	kinds := []EffectKind{}
	for _, e := range ag.Effects {
		kinds = append(kinds, e.Kind)
	}
	want := []EffectKind{EffectLog, EffectSignal, EffectSignal, EffectSetVar, EffectSetStamp, EffectClearStamp}
	if len(kinds) != len(want) || ag.Effects[0].Name != "start at test.count 1.5 true" || ag.Effects[2].To != "all" {
		t.Errorf("effects %+v", ag.Effects)
	}
	if len(ag.Jumps) != 1 || ag.Jumps[0] != "root.next" {
		t.Errorf("jumps %v", ag.Jumps)
	}
	if ok, err := tt.Test(ag, "big", map[string]string{"big.limit": "3"}); !ok || err != nil {
		t.Errorf("big: %v %v", ok, err)
	}
	if v, err := tt.Score(ag, "urge", map[string]string{"urge.weight": "0.5"}); v != 2 || err != nil {
		t.Errorf("urge: %v %v", v, err)
	}
	tt.Run(ag, "count", nil, 0.1)
	if err := tt.Cancel(ag, "count", nil); err != nil || ag.Fields["n"] != -1.0 {
		t.Errorf("cancel: %v %v", err, ag.Fields)
	}
}

func TestTester_faultsBecomeErrors(t *testing.T) {
	tt, _ := NewTester(counter())
	ag := NewTestAgent("a1", nil)
	cases := map[string]string{
		"undeclared": `action "undeclared" cannot set field "z": it is not in its Writes`,
		"panics":     `action "panics" panicked: boom`,
		"badStatus":  `returned status 9`,
		"nothing":    `no action "nothing"`,
	}
	for name, want := range cases {
		if _, err := tt.Run(ag, name, nil, 0.1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if _, err := tt.Test(ag, "meddles", nil); err == nil || !strings.Contains(err.Error(), "only actions can") {
		t.Errorf("meddles: %v", err)
	}
	if _, err := tt.Test(ag, "big", map[string]string{"big.limit": "lots"}); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("big: %v", err)
	}
	if _, err := tt.Score(ag, "pushy", nil); err == nil || !strings.Contains(err.Error(), `scorer "pushy" tried to change the agent`) {
		t.Errorf("pushy: %v", err)
	}
	if _, err := tt.Score(ag, "absent", nil); err == nil || !strings.Contains(err.Error(), `no scorer "absent"`) {
		t.Errorf("absent: %v", err)
	}
}

// TestBatch_repliesInOrder runs a batch large enough to be spread over
// goroutines and checks every reply lands at its call's index.
func TestBatch_repliesInOrder(t *testing.T) {
	d, _ := newDispatcher(counter())
	b := &Batch{Sites: []Site{{Name: "count", Rule: "r"}, {Name: "big", Rule: "r"}}}
	for i := range 2000 {
		kind, site := KindAction, uint32(0)
		if i%2 == 1 {
			kind, site = KindCondition, 1
		}
		b.Calls = append(b.Calls, Request{Kind: kind, Site: site, Agent: "a", Fields: []Value{{Kind: ValueNumber, Num: float64(i)}}})
	}
	out, err := d.RunBatch(context.Background(), b, nil)
	if err != nil || len(out) != 2000 {
		t.Fatal(len(out), err)
	}
	for i, r := range out {
		if r.Err != "" {
			t.Fatalf("%d: %s", i, r.Err)
		}
		if i%2 == 0 && (r.Status != Running || r.Writes[0].Num != float64(i+1)) {
			t.Fatalf("%d: %+v", i, r)
		}
		if i%2 == 1 && r.OK != (i > 2) {
			t.Fatalf("%d: %+v", i, r)
		}
	}
	b.Calls[0].Site = 7
	if _, err := d.RunBatch(context.Background(), b, nil); err == nil {
		t.Error("a call naming a missing site was accepted")
	}
}

// TestBatch_slowCallsShareTheCoresFromFewCalls: a batch of 64 calls that
// take 50 µs each (3.2 ms in all) runs on several goroutines once a batch
// has measured them, and 64 calls that take nothing stay on one: whether a
// batch is split depends on its work, not only on its size. The calls'
// cost is what a clock of the test's own says (each slow call moves it on
// by 50 µs), and a split batch shows by a call that waits for another to
// run beside it, so no verdict depends on the machine's speed or load.
func TestBatch_slowCallsShareTheCoresFromFewCalls(t *testing.T) {
	if goruntime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: batches are never split")
	}
	for _, c := range []struct {
		name      string
		cost      time.Duration
		wantSplit bool
	}{{"slow", 50 * time.Microsecond, true}, {"instant", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			var clock atomic.Int64 // ns
			var inFlight, most atomic.Int32
			var measured, waited atomic.Bool
			beside := make(chan struct{}) // closed once two calls run at once
			var besideOnce sync.Once
			p := &Plugin{Name: "t", Actions: []Action{{Name: "work", Run: func(*Call) (Status, error) {
				n := inFlight.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				if n >= 2 {
					besideOnce.Do(func() { close(beside) })
				}
				clock.Add(int64(c.cost))
				// Once calls are measured, one slow call waits for another
				// to run beside it: in a split batch one does, however
				// busy the machine; in a batch run on one goroutine none
				// can (the guard only ends the wait of a failing test).
				if measured.Load() && c.cost > 0 && !waited.Swap(true) {
					select {
					case <-beside:
					case <-time.After(time.Minute):
					}
				}
				inFlight.Add(-1)
				return Success, nil
			}}}}
			d, err := newDispatcher(p)
			if err != nil {
				t.Fatal(err)
			}
			d.clock = func() time.Time { return time.Unix(0, clock.Load()) }
			b := &Batch{Sites: []Site{{Name: "work", Rule: "r"}}}
			for range 64 {
				b.Calls = append(b.Calls, Request{Kind: KindAction, Agent: "a"})
			}
			for i := range 3 { // the first batch measures the calls
				if _, err := d.RunBatch(context.Background(), b, nil); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					if got := d.perCall(); got != c.cost {
						t.Fatalf("measured %v a call, want %v", got, c.cost)
					}
					most.Store(0)
					measured.Store(true)
				}
			}
			if split := most.Load() > 1; split != c.wantSplit {
				t.Fatalf("at most %d calls ran at once, want split = %v", most.Load(), c.wantSplit)
			}
		})
	}
}

func TestDataOf_convertsGoValues(t *testing.T) {
	d, err := DataOf(map[string]any{"who": "grunt-2", "pos": []float64{3, 4}, "hot": true, "n": uint8(7), "k": map[int]string{2: "b", 1: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(d.Any()); got != "map[hot:true k:[a b] n:7 pos:[3 4] who:grunt-2]" {
		t.Errorf("Any() = %s", got)
	}
	if pos, ok := d.Field("pos"); !ok {
		t.Error("no pos")
	} else if y, ok := pos.Index(2); !ok || y.Num != 4 {
		t.Errorf("pos[2] = %+v", y)
	}
	if d.Table[0].Key.Str != "hot" || d.Table[4].Key.Str != "who" {
		t.Errorf("keys are not sorted: %+v", d.Table)
	}
	for _, bad := range []any{func() {}, map[bool]int{true: 1}, map[float64]int{1.5: 1}, make(chan int)} {
		if _, err := DataOf(bad); err == nil {
			t.Errorf("DataOf(%T) converted", bad)
		}
	}
	var deep any = 1
	for range 17 {
		deep = []any{deep}
	}
	if _, err := DataOf(deep); err == nil || !strings.Contains(err.Error(), "more than 16 deep") {
		t.Errorf("17 deep: %v", err)
	}
}

func TestTester_stimuliAndSendData(t *testing.T) {
	p := &Plugin{Name: "t", Actions: []Action{{Name: "heal", Stimuli: []string{"Hurt"},
		Run: func(c *Call) (Status, error) {
			hurt, age, ok := c.Stimulus("Hurt")
			if !ok {
				return Running, nil
			}
			by, _ := hurt.Field("by")
			return Success, c.SendData(by.Str, "Thanks", map[string]any{"age": age})
		}}}}
	tt, err := NewTester(p)
	if err != nil {
		t.Fatal(err)
	}
	ag := NewTestAgent("medic-1", nil)
	if st, _ := tt.Run(ag, "heal", nil, 0.1); st != Running {
		t.Fatalf("without a stimulus: %v", st)
	}
	by, _ := DataOf(map[string]any{"by": "grunt-2"})
	ag.Stimuli = map[string]Stimulus{"Hurt": {Data: by, Age: 0.5}}
	if st, err := tt.Run(ag, "heal", nil, 0.1); st != Success || err != nil {
		t.Fatalf("with a stimulus: %v %v", st, err)
	}
	e := ag.Effects[len(ag.Effects)-1]
	if e.Kind != EffectSignal || e.To != "grunt-2" || e.Name != "Thanks" || fmt.Sprint(e.Data.Any()) != "map[age:0.5]" {
		t.Errorf("effect %+v", e)
	}
	if err := tt.d.p.validate(); err != nil {
		t.Fatal(err)
	}
	p.Actions[0].Stimuli = []string{"Hurt", "Hurt"}
	if err := p.validate(); err == nil || !strings.Contains(err.Error(), `Stimuli lists "Hurt" twice or empty`) {
		t.Errorf("validate: %v", err)
	}
}

// TestWire_deepDataIsRefused: data nested deeper than the decoder allows is
// an error, not a stack overflow.
func TestWire_deepDataIsRefused(t *testing.T) {
	d := Data{Kind: DataNumber, Num: 1}
	for range maxWireDataDepth + 5 {
		d = Data{Kind: DataTable, Table: []DataEntry{{Key: Data{Kind: DataNumber, Num: 1}, Value: d}}}
	}
	data, err := encodeReplies([]Reply{{Status: Success, Effects: []Effect{{Kind: EffectSignal, Name: "x", Data: d}}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reps batchReplies
	if err := reps.unmarshal(data); err == nil {
		t.Error("data nested too deep was read")
	}
	shallow, _ := DataOf([]any{[]any{1.5}})
	data, _ = encodeReplies([]Reply{{Status: Success, Effects: []Effect{{Kind: EffectSignal, Name: "x", Data: shallow}}}}, 0)
	if err := reps.unmarshal(data); err != nil || fmt.Sprint(reps.out[0].Effects[0].Data.Any()) != "[[1.5]]" {
		t.Errorf("shallow data: %v %+v", err, reps.out)
	}
}
