package runtime

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// waitsTree exercises every piece of agent state: variables, exclusive
// timestamps, signal marks of a pending bt.signal.wait, bt.wait's start
// time, bt.timestamp.wait, yield's firstRun, a running action.
const waitsTree = `<behaviorTree>
<variables><variable name="Alert"/><variable name="Calm" default="true"/></variables>
<signals><signal name="Go" variable="Alert" value="true"/><signal name="Stop" variable="Alert" value="false"/></signals>
<timestamps><timestamp name="Went" setOnSignal="Go" exclusiveTo="Stopped"/><timestamp name="Stopped" setOnSignal="Stop"/></timestamps>
<sequence id="root" loop="true">
  <action id="nap" name="bt.wait"><parameter name="wait.seconds">0.35</parameter></action>
  <yield id="breathe"/>
  <action id="listen" name="bt.signal.wait"><parameter name="signal.name">Go</parameter></action>
  <action id="linger" name="bt.timestamp.wait"><parameter name="timestamp.name">Went</parameter><parameter name="timestamp.moreThan">0.2</parameter></action>
  <action id="calm" name="bt.variable.set"><parameter name="variable.name">Calm</parameter><parameter name="variable.value">false</parameter></action>
  <action id="stop" name="bt.signal.send"><parameter name="signal.name">Stop</parameter></action>
</sequence></behaviorTree>`

func waitsAgents(t testing.TB, obs Observer) []*Agent {
	t.Helper()
	tree, err := LoadBytes("waits.xml", []byte(waitsTree), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, NewRegistry(), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Observer: obs}
	return []*Agent{b.NewAgent("w-1", env), b.NewAgent("w-2", env)}
}

// runWaits steps agents from step `from` to `to`; w-2 gets "Go" every 7th step.
func runWaits(agents []*Agent, from, to int) {
	for s := from; s <= to; s++ {
		if s%7 == 0 {
			agents[1].SignalAt("Go", float64(s)*0.1)
		}
		if s%5 == 0 {
			agents[0].SignalAt("Go", float64(s)*0.1)
		}
		for _, a := range agents {
			a.StepAt(float64(s) * 0.1)
		}
	}
}

// TestSave_restoredRunContinuesExactly: N steps give the same trace as k
// steps, save, restore into new agents, N-k steps, for every k.
func TestSave_restoredRunContinuesExactly(t *testing.T) {
	const n = 40
	whole := &traceObserver{}
	runWaits(waitsAgents(t, whole), 1, n)
	for k := 1; k < n; k++ {
		first := &traceObserver{}
		agents := waitsAgents(t, first)
		runWaits(agents, 1, k)
		data, err := SaveAgents(agents, nil)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		second := &traceObserver{}
		fresh := waitsAgents(t, second)
		if _, err := RestoreAgents(data, fresh, nil); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		runWaits(fresh, k+1, n)
		if got := first.b.String() + second.b.String(); got != whole.b.String() {
			t.Fatalf("k=%d: the restored run differs:\n%s", k, firstDiff(got, whole.b.String()))
		}
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "got  " + g[i] + "\nwant " + w[i]
		}
	}
	return "lengths differ"
}

// TestSave_everyFieldOfAnAgentIsSavedOrExcused fails when a field is added to
// Agent without being saved (or explained here).
func TestSave_everyFieldOfAnAgentIsSavedOrExcused(t *testing.T) {
	excused := map[string]string{
		"bound":    "the tree: the save names it and its fingerprint",
		"env":      "shared hooks, not agent state",
		"id":       "checked to match, never restored",
		"ext":      "host state (SaveHost), rule bytes and the generator (compared below)",
		"jump":     "only set during a step; saving needs an idle agent",
		"count":    "only meaningful during a step",
		"condIdx":  "only meaningful during a step",
		"childRes": "only meaningful during a step",
		"phase":    "saving needs an idle agent",
	}
	agents := waitsAgents(t, nil)
	runWaits(agents, 1, 12)
	a := agents[0]
	a.SetRuleBytes([]byte{1, 2, 3})
	a.SetVarAt(0, true)
	data, err := SaveAgents([]*Agent{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := waitsAgents(t, nil)[0]
	if _, err := RestoreAgents(data, []*Agent{b}, nil); err != nil {
		t.Fatal(err)
	}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		name := va.Type().Field(i).Name
		if _, ok := excused[name]; ok {
			continue
		}
		fa, fb := va.Field(i), vb.Field(i)
		if !reflect.DeepEqual(fieldValue(fa), fieldValue(fb)) {
			t.Errorf("field %s: %v before saving, %v after restoring", name, fieldValue(fa), fieldValue(fb))
		}
	}
	if !bytes.Equal(a.RuleBytes(), b.RuleBytes()) {
		t.Errorf("rule bytes %v, restored %v", a.RuleBytes(), b.RuleBytes())
	}
	a.Rand().Uint64()
	if _, err := RestoreAgents(mustSave(t, a), []*Agent{b}, nil); err != nil || a.Rand().State() != b.Rand().State() {
		t.Errorf("generator %x, restored %x (%v)", a.Rand().State(), b.Rand().State(), err)
	}
	// The state must be non-trivial for the comparison to mean something.
	if a.time == 0 || a.step == 0 || len(a.slab) == 0 || a.slab[0] == 0 {
		t.Errorf("the agent's state is too plain to test: %+v", a)
	}
}

// fieldValue reads an unexported field for comparison.
func fieldValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Slice:
		out := make([]uint64, v.Len())
		for i := range out {
			out[i] = v.Index(i).Uint()
		}
		return out
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	}
	return v.Kind().String()
}

func TestSave_cursorWithoutIDIsAnErrorThatSaysWhatToDo(t *testing.T) {
	a := mustAgent(t, bt(`<sequence id="root"><action name="bt.wait"><parameter name="wait.seconds">5</parameter></action></sequence>`), NewRegistry())
	a.Step(1)
	_, err := SaveAgents([]*Agent{a}, nil)
	want := `test.xml:1:35: agent a1: rule action@test.xml:1:35: cannot save: the current rule has no id; add an id to it (the root, every rule that can return running, and every jump target need ids to be saved)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestRestore_rejectsBadDataWithoutDamage: every kind of bad input is an
// error and leaves every agent exactly as it was.
func TestRestore_rejectsBadDataWithoutDamage(t *testing.T) {
	agents := waitsAgents(t, nil)
	runWaits(agents, 1, 9)
	good, err := SaveAgents(agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	reversed := waitsAgents(t, nil)
	reversed[0], reversed[1] = reversed[1], reversed[0]
	otherGame, _ := SaveAgents(reversed, nil)
	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 0x40
	newer := savecodec.WriteContainer(AgentsMagic, AgentsVersion+1, savecodec.NewEncoder())
	otherTree := mustAgent(t, bt(`<sequence id="other"><running id="x"/></sequence>`), NewRegistry())
	otherTree.id = "w-1"
	otherTree.Step(1)
	unknownID, _ := SaveAgents([]*Agent{otherTree, agents[1]}, nil)

	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "the file is empty"},
		{"truncated", good[:len(good)/2], "checksum mismatch"},
		{"one byte short", good[:len(good)-1], "checksum mismatch"},
		{"corrupted", flip, "checksum mismatch"},
		{"wrong format", []byte("<behaviorTree/>"), `not a btrun agents file`},
		{"wrong version", newer, "agents data version 10; this btrun reads versions 1 to 9"},
		{"foreign", otherGame, `the save's agent 1 is "w-2", the game's is "w-1": the save is of another game`},
		{"unknown id", unknownID, `cannot restore: the saved cursor "x" is not an id of tree waits.xml`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fresh := waitsAgents(t, nil)
			runWaits(fresh, 1, 3)
			before := [][]byte{}
			for _, a := range fresh {
				s, _ := a.Snapshot()
				e := savecodec.NewEncoder()
				EncodeSnapshot(e, &s)
				before = append(before, e.Bytes())
			}
			_, err := RestoreAgents(c.data, fresh, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnknownID) {
				t.Errorf("error wraps neither ErrCorrupt nor ErrUnknownID: %v", err)
			}
			for i, a := range fresh {
				s, _ := a.Snapshot()
				e := savecodec.NewEncoder()
				EncodeSnapshot(e, &s)
				if !bytes.Equal(e.Bytes(), before[i]) {
					t.Errorf("agent %s changed although the restore failed", a.ID())
				}
			}
		})
	}
}

func TestValue_roundTripsExactly(t *testing.T) {
	nan := Value{Kind: NumberValue, Num: nanWithPayload()}
	v := Value{Kind: TableValue, Table: []Field{
		{Value{Kind: NumberValue, Num: 1}, Value{Kind: StringValue, Str: "one"}},
		{Value{Kind: StringValue, Str: "1"}, Value{Kind: NumberValue, Num: 1.5}},
		{Value{Kind: StringValue, Str: "neg0"}, Value{Kind: NumberValue, Num: negZero()}},
		{Value{Kind: StringValue, Str: "big"}, Value{Kind: NumberValue, Num: 1 << 60}},
		{Value{Kind: StringValue, Str: "nan"}, nan},
		{Value{Kind: StringValue, Str: "inf"}, Value{Kind: NumberValue, Num: posInf()}},
		{Value{Kind: StringValue, Str: "empty"}, Value{Kind: TableValue}},
		{Value{Kind: StringValue, Str: "t"}, Value{Kind: BoolValue, Bool: true}},
		{Value{Kind: StringValue, Str: "f"}, Value{Kind: BoolValue}},
	}}
	e := savecodec.NewEncoder()
	EncodeValue(e, v)
	d := savecodec.NewDecoder(e.Bytes(), e.Strings())
	got := DecodeValue(d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	e2 := savecodec.NewEncoder()
	EncodeValue(e2, got)
	if !bytes.Equal(e.Bytes(), e2.Bytes()) || len(got.Table) != len(v.Table) {
		t.Errorf("value changed in a round trip: %+v", got)
	}
	if b := got.Table[2].Val.Num; b != 0 || !signbit(b) {
		t.Errorf("-0 came back as %v", b)
	}
	if got.Table[0].Key.Kind != NumberValue || got.Table[1].Key.Kind != StringValue {
		t.Error("number and string keys must stay apart")
	}
}

// FuzzRestoreAgents feeds arbitrary bytes to the save reader: it must never
// panic, and a failed restore must leave the agents as they were.
func FuzzRestoreAgents(f *testing.F) {
	agents := waitsAgents(f, nil)
	runWaits(agents, 1, 9)
	good, _ := SaveAgents(agents, nil)
	f.Add(good)
	f.Add(good[:20])
	f.Add([]byte(AgentsMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		fresh := waitsAgents(t, nil)
		before, _ := SaveAgents(fresh, nil)
		if _, err := RestoreAgents(data, fresh, nil); err != nil {
			after, _ := SaveAgents(fresh, nil)
			if !bytes.Equal(before, after) {
				t.Fatalf("a failed restore changed the agents: %v", err)
			}
		}
	})
}

func mustSave(t testing.TB, agents ...*Agent) []byte {
	t.Helper()
	data, err := SaveAgents(agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzRestoreFeatures is FuzzRestoreAgents for agents of a tree with
// timeouts, cooldowns and choice orders.
func FuzzRestoreFeatures(f *testing.F) {
	var trace strings.Builder
	for _, k := range []int{3, 17, 40} {
		r := newFeaturesRun(f, &trace)
		r.steps(1, k)
		good, _ := SaveAgents(r.agents, nil)
		f.Add(good)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var trace strings.Builder
		fresh := newFeaturesRun(t, &trace).agents
		before, _ := SaveAgents(fresh, nil)
		if _, err := RestoreAgents(data, fresh, nil); err != nil {
			after, _ := SaveAgents(fresh, nil)
			if !bytes.Equal(before, after) {
				t.Fatalf("a failed restore changed the agents: %v", err)
			}
		}
	})
}

// FuzzDecodeBody feeds arbitrary bodies (behind a valid frame) to the
// snapshot decoder, which the checksum would otherwise keep away.
func FuzzDecodeBody(f *testing.F) {
	agents := waitsAgents(f, nil)
	runWaits(agents, 1, 9)
	e := savecodec.NewEncoder()
	EncodeAgents(e, agents, nil)
	f.Add(e.Bytes(), strings.Join(e.Strings(), "\x00"))
	f.Fuzz(func(t *testing.T, body []byte, table string) {
		e := savecodec.RawEncoder(body, strings.Split(table, "\x00"))
		data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)
		RestoreAgents(data, waitsAgents(t, nil), nil)
	})
}

func BenchmarkSaveAgents(b *testing.B) {
	agents := manyWaitsAgents(b, 10000)
	b.ResetTimer()
	var size int
	for range b.N {
		data, err := SaveAgents(agents, nil)
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size)/float64(len(agents)), "bytes/agent")
	b.ReportMetric(float64(len(agents)*b.N)/b.Elapsed().Seconds(), "agents/s")
}

func BenchmarkRestoreAgents(b *testing.B) {
	agents := manyWaitsAgents(b, 10000)
	data, _ := SaveAgents(agents, nil)
	b.ResetTimer()
	for range b.N {
		if _, err := RestoreAgents(data, agents, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(agents)*b.N)/b.Elapsed().Seconds(), "agents/s")
}

func manyWaitsAgents(b *testing.B, n int) []*Agent {
	tree, _ := LoadBytes("waits.xml", []byte(waitsTree), LoadOptions{})
	bound, _ := Bind(tree, NewRegistry(), BindOptions{})
	env := &Env{}
	agents := make([]*Agent, n)
	for i := range agents {
		agents[i] = bound.NewAgent("w-"+string(rune('a'+i%26))+itoa(i), env)
	}
	runWaits(agents, 1, 9)
	return agents
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// TestRestore_warningsForAnEditedTreeComeOnce: ten agents of a changed tree
// give one warning, not ten.
func TestRestore_warningsForAnEditedTreeComeOnce(t *testing.T) {
	agents := waitsAgents(t, nil)
	runWaits(agents, 1, 5)
	data, err := SaveAgents(agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(waitsTree, `<yield id="breathe"/>`, `<yield id="breathe"/><success id="extra"/>`, 1)
	tree, err := LoadBytes("waits.xml", []byte(edited), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Bind(tree, NewRegistry(), BindOptions{})
	fresh := []*Agent{b.NewAgent("w-1", nil), b.NewAgent("w-2", nil)}
	warnings, err := RestoreAgents(data, fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(warnings, "|"); got != "2 agents: tree waits.xml changed since the save; every saved id still resolves" {
		t.Errorf("warnings: %q", got)
	}
}

// shallowHost writes a table of two entries as each agent's host state;
// its CheckHost reads only the table's head when short is set, as a host
// with a bug would.
type shallowHost struct{ short bool }

func (h shallowHost) EncodeHost(e *savecodec.Encoder, a *Agent) error {
	m := e.BeginTable()
	e.ValueString("a")
	e.ValueNumber(1)
	e.ValueString("b")
	e.ValueString(a.ID())
	e.EndTable(m, 2)
	return nil
}

func (h shallowHost) CheckHost(a *Agent, d *savecodec.Decoder) error {
	_, n := DecodeValueHead(d)
	if !h.short {
		for range 2 * n {
			d.SkipValue()
		}
	}
	return d.Err()
}

func (h shallowHost) RestoreHost(a *Agent, d *savecodec.Decoder) error {
	_, n := DecodeValueHead(d)
	for range 2 * n {
		d.SkipValue()
	}
	return d.Err()
}

// TestRestoreAgents_aHostThatMisreadsItsStateIsAnError: a host's CheckHost
// says where its state ends; one that stops early makes the restore fail
// with corrupt data, changing no agent, rather than read on out of step.
func TestRestoreAgents_aHostThatMisreadsItsStateIsAnError(t *testing.T) {
	agents := waitsAgents(t, nil)
	runWaits(agents, 1, 5)
	data, err := SaveAgents(agents, shallowHost{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := waitsAgents(t, nil)
	if _, err := RestoreAgents(data, fresh, shallowHost{}); err != nil {
		t.Fatalf("a host that reads its state whole: %v", err)
	}
	fresh = waitsAgents(t, nil)
	before, _ := SaveAgents(fresh, shallowHost{})
	if _, err := RestoreAgents(data, fresh, shallowHost{short: true}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a host that stops early: %v, want corrupt data", err)
	}
	if after, _ := SaveAgents(fresh, shallowHost{}); !bytes.Equal(before, after) {
		t.Error("a failed restore changed the agents")
	}
}

// TestAgentsPlan_aReusedPlanRestoresAsANewOneDoes: one AgentsPlan planned
// and applied again and again (a game that loads many times), with a
// failed plan in between, leaves the agents as a fresh RestoreAgents does,
// and the restored run continues the same.
func TestAgentsPlan_aReusedPlanRestoresAsANewOneDoes(t *testing.T) {
	saveAt := func(step int) []byte {
		agents := waitsAgents(t, nil)
		runWaits(agents, 1, step)
		return mustSaveAll(t, agents)
	}
	reversed := waitsAgents(t, nil)
	reversed[0], reversed[1] = reversed[1], reversed[0]
	foreign := mustSaveAll(t, reversed)
	var plan AgentsPlan
	reused := waitsAgents(t, nil)
	planWith := func(data []byte) error {
		_, d, err := savecodec.ReadContainer(AgentsMagic, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.Plan(d, reused, nil); err != nil {
			return err
		}
		if err := d.Done(); err != nil {
			t.Fatal(err)
		}
		return plan.Apply()
	}
	for _, step := range []int{9, 3, 17, 30} {
		if err := planWith(foreign); err == nil {
			t.Fatal("the save of another game was planned without an error")
		}
		data := saveAt(step)
		if err := planWith(data); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		fresh := waitsAgents(t, nil)
		if _, err := RestoreAgents(data, fresh, nil); err != nil {
			t.Fatal(err)
		}
		runWaits(reused, step+1, step+12)
		runWaits(fresh, step+1, step+12)
		if got, want := mustSaveAll(t, reused), mustSaveAll(t, fresh); !bytes.Equal(got, want) {
			t.Fatalf("step %d: the agents restored through the reused plan ran on differently from fresh ones", step)
		}
	}
}

func mustSaveAll(t *testing.T, agents []*Agent) []byte {
	t.Helper()
	data, err := SaveAgents(agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
