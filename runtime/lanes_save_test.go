package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// lanesTree uses parallels every way: nested, with thresholds, timeouts and
// cooldowns on and in lanes, a random order in a lane, a watched priority
// around them, built-in state (bt.wait) and state bytes in lanes, and jumps
// inside a lane, between lanes, into its parallel and out of it.
const lanesTree = `<behaviorTree>
<choice id="root">
  <sequence id="alarm" abort="lower" cooldown="1.2">
    <condition>alert</condition>
    <action id=".react" name="work" timeout="0.6"/>
  </sequence>
  <parallel id="duty" success="2" failure="2" timeout="4">
    <sequence id="walk" loop="true">
      <action id=".step" name="stride"/>
      <action id=".pause" name="bt.wait"><parameter name="wait.seconds">0.3</parameter></action>
    </sequence>
    <choice id="look" order="random" loop="true">
      <action id=".left" name="work" cooldown="0.5" abort="lower"><condition>alert</condition></action>
      <action id=".right" name="work"/>
      <action id=".up" name="hop"/>
    </choice>
    <parallel id="watch" success="any" abort="self">
      <condition>calm</condition>
      <action id=".scan" name="work" timeout="0.4"/>
      <action id=".listen" name="work"/>
    </parallel>
  </parallel>
  <action id="rest" name="work"/>
</choice>
</behaviorTree>`

// hopTargets are where hop jumps: inside its lane, into another lane
// (the parallel starts again), into a nested lane, to its parallel, out.
var hopTargets = []string{"look.right", "walk.pause", "watch.listen", "duty", "rest", "alarm.react"}

// lanesRun is a group of agents on lanesTree whose actions and conditions
// draw from the agents' generators, with a trace of every step: its
// interrupt, the rules run, the result, the cursor and the lanes.
type lanesRun struct {
	agents []*Agent
	trace  *strings.Builder
}

func newLanesRun(t testing.TB, trace *strings.Builder) *lanesRun {
	t.Helper()
	tree, err := LoadBytes("lanes.xml", []byte(lanesTree), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, lanesRegistry(), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &lanesRun{trace: trace}
	env := &Env{Seed: 5, Observer: r, Logger: r}
	for _, id := range []string{"l-1", "l-22", "l-333"} {
		r.agents = append(r.agents, b.NewAgent(id, env))
	}
	return r
}

// lanesRegistry has lanesTree's actions and conditions.
func lanesRegistry() *Registry {
	reg := NewRegistry()
	reg.RegisterAction("work", ActionFunc(func(a *Agent, p Params) (Status, error) {
		switch u := a.Rand().Float64(); {
		case u < 0.7:
			return Running, nil
		case u < 0.9:
			return Success, nil
		}
		return Failure, nil
	}))
	// stride keeps a count of its runs in its state bytes: a lane's own.
	reg.RegisterAction("stride", ActionFunc(func(a *Agent, p Params) (Status, error) {
		n := len(a.RuleBytes())
		a.SetRuleBytes(append(a.RuleBytes(), byte('a'+n)))
		if n >= 2+int(a.Rand().Float64()*3) {
			return Success, nil
		}
		return Running, nil
	}))
	reg.RegisterAction("hop", ActionFunc(func(a *Agent, p Params) (Status, error) {
		u := a.Rand().Float64()
		if u < 0.25 {
			if err := a.Jump(hopTargets[int(u*100)%len(hopTargets)]); err != nil {
				return 0, err
			}
		}
		if u < 0.12 || u > 0.8 {
			return Running, nil
		}
		return Success, nil
	}))
	reg.RegisterCondition("alert", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.Rand().Float64() < 0.06, nil }))
	reg.RegisterCondition("calm", ConditionFunc(func(a *Agent, p Params) (bool, error) { return a.Rand().Float64() < 0.9, nil }))
	return reg
}

func (r *lanesRun) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	rules := a.bound.Tree.Rules
	fmt.Fprintf(r.trace, "%d %s", a.StepCount(), a.ID())
	if in, ok := a.LastInterrupt(); ok {
		fmt.Fprintf(r.trace, " [%s %s]", in.Kind, rules[in.Rule].Label)
	}
	for _, run := range runs {
		fmt.Fprintf(r.trace, " %s=%s", rules[run.Rule].Label, run.Status)
	}
	fmt.Fprintf(r.trace, " -> %s @%s%s", st, a.CursorLabel(), laneView(a))
	if err != nil {
		fmt.Fprintf(r.trace, " (%v)", err)
	}
	r.trace.WriteByte('\n')
}

func (r *lanesRun) Log(a *Agent, label, msg string) {
	fmt.Fprintf(r.trace, "log %s %s: %s\n", a.ID(), label, msg)
}

func (r *lanesRun) steps(from, to int) {
	for s := from; s <= to; s++ {
		for _, a := range r.agents {
			a.StepAt(float64(s) * 0.1)
		}
	}
}

// TestSave_lanesContinueExactly: k steps, a save, a restore into new agents
// and the rest of the run give the same trace as the run without a save,
// for every k: every lane's cursor, flags, rule word and state bytes, nested
// lanes, lanes that are done, clocks, cooldowns and orders inside lanes.
func TestSave_lanesContinueExactly(t *testing.T) {
	const n = 200
	var whole strings.Builder
	newLanesRun(t, &whole).steps(1, n)
	for _, want := range []string{"@duty{", "{walk.step", "watch{", "=success", "[timeout duty]", "[preempt alarm]", "[abort watch]", "[timeout watch.scan]", "[preempt look.left]"} {
		if !strings.Contains(whole.String(), want) {
			t.Fatalf("the run never shows %q; the test does not exercise what it should:\n%s", want, whole.String())
		}
	}
	var nested, done, withBytes int
	for k := 1; k < n; k++ {
		var first, second strings.Builder
		r := newLanesRun(t, &first)
		r.steps(1, k)
		for _, a := range r.agents {
			s, err := a.Snapshot()
			if err != nil {
				t.Fatalf("k=%d: %v", k, err)
			}
			for _, l := range s.Lanes {
				nested += len(l.Lanes)
				if l.Status != Running {
					done++
				}
				if len(l.RuleBytes) > 0 {
					withBytes++
				}
			}
		}
		data, err := SaveAgents(r.agents, nil)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		fresh := newLanesRun(t, &second)
		if warnings, err := RestoreAgents(data, fresh.agents, nil); err != nil || len(warnings) > 0 {
			t.Fatalf("k=%d: %v %v", k, warnings, err)
		}
		fresh.steps(k+1, n)
		if got := first.String() + second.String(); got != whole.String() {
			t.Fatalf("k=%d: the restored run differs:\n%s", k, firstDiff(got, whole.String()))
		}
	}
	if nested == 0 || done == 0 || withBytes == 0 {
		t.Errorf("saves held %d nested lanes, %d lanes done, %d with state bytes: the cuts must fall there", nested, done, withBytes)
	}
}

// TestActive_lanesLeaveEveryRuleOnce: with lanes, through their runs,
// thresholds, cancels, jumps across them, interrupts, resets and the
// agent's close, every rule that becomes active is left once before it
// becomes active again, and after every step the active rules are exactly
// the paths of the agent's own cursor and of its running lanes.
func TestActive_lanesLeaveEveryRuleOnce(t *testing.T) {
	var trace strings.Builder
	r := newLanesRun(t, &trace)
	active := map[*Agent]map[int32]bool{}
	var problems []string
	trackAll(r.agents[0].bound) // every rule let in and left through admit and leave, which the spy sees
	r.agents[0].env.spy = func(a *Agent, rule int32, entered bool) {
		set := active[a]
		if set == nil {
			set = map[int32]bool{}
			active[a] = set
		}
		label := a.bound.Tree.Rules[rule].Label
		switch {
		case entered && set[rule]:
			problems = append(problems, fmt.Sprintf("step %d %s: %s became active twice", a.step, a.id, label))
		case !entered && !set[rule]:
			problems = append(problems, fmt.Sprintf("step %d %s: %s left while not active", a.step, a.id, label))
		}
		set[rule] = entered
	}
	ids := []string{"root", "duty", "walk.step", "look.up", "watch", "watch.scan", "rest", "alarm"}
	check := func(a *Agent, when string) {
		var want, got []string
		paths := []lanePath{{cursor: a.cursor, active: a.flags&flagActive != 0, stop: -1}}
		if a.lanesRun() {
			paths = a.lanePaths(paths, a.cursor)
		}
		for _, p := range paths {
			for x := p.cursor; x != p.stop; x = a.bound.rules[x].parent {
				if x != p.cursor || p.active {
					want = append(want, a.bound.Tree.Rules[x].Label)
				}
			}
		}
		for rule, on := range active[a] {
			if on {
				got = append(got, a.bound.Tree.Rules[rule].Label)
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			problems = append(problems, fmt.Sprintf("%s step %d %s: active %v, the paths say %v", when, a.step, a.id, got, want))
		}
	}
	for s := 1; s <= 400; s++ {
		for i, a := range r.agents {
			switch {
			case s%17 == i:
				a.Reset()
				check(a, "after a reset,")
			case s%7 == i:
				a.Jump(ids[(s/7+i)%len(ids)])
				check(a, "after a jump,")
			}
			a.StepAt(float64(s) * 0.1)
			check(a, "after")
		}
	}
	for _, a := range r.agents {
		a.Close()
		for rule, on := range active[a] {
			if on {
				problems = append(problems, fmt.Sprintf("%s: %s still active after Close", a.id, a.bound.Tree.Rules[rule].Label))
			}
		}
	}
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = problems[:10]
		}
		t.Fatalf("%s", strings.Join(problems, "\n"))
	}
}

// FuzzRestoreLanes is FuzzRestoreAgents for agents whose saves hold lanes:
// no input makes restore panic, and a failed restore leaves the agents as
// they were.
func FuzzRestoreLanes(f *testing.F) {
	var trace strings.Builder
	for _, k := range []int{2, 9, 23, 40, 77} {
		r := newLanesRun(f, &trace)
		r.steps(1, k)
		good, _ := SaveAgents(r.agents, nil)
		f.Add(good)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var trace strings.Builder
		fresh := newLanesRun(t, &trace).agents
		fresh[0].StepAt(0.1)
		before, _ := SaveAgents(fresh, nil)
		if _, err := RestoreAgents(data, fresh, nil); err != nil {
			after, _ := SaveAgents(fresh, nil)
			if !bytes.Equal(before, after) {
				t.Fatalf("a failed restore changed the agents: %v", err)
			}
			return
		}
		// A restore that worked leaves agents that step without panics.
		for s := 1; s <= 5; s++ {
			for _, a := range fresh {
				a.Step(0.1)
			}
		}
	})
}

// FuzzDecodeLanesBody feeds arbitrary snapshot bodies (behind a valid
// frame, which the checksum would otherwise keep away) to agents with
// lanes.
func FuzzDecodeLanesBody(f *testing.F) {
	var trace strings.Builder
	for _, k := range []int{9, 40} {
		r := newLanesRun(f, &trace)
		r.steps(1, k)
		e := savecodec.NewEncoder()
		EncodeAgents(e, r.agents, nil)
		f.Add(e.Bytes(), strings.Join(e.Strings(), "\x00"))
	}
	f.Fuzz(func(t *testing.T, body []byte, table string) {
		e := savecodec.RawEncoder(body, strings.Split(table, "\x00"))
		data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)
		var trace strings.Builder
		fresh := newLanesRun(t, &trace).agents
		if _, err := RestoreAgents(data, fresh, nil); err == nil {
			for s := 1; s <= 5; s++ {
				for _, a := range fresh {
					a.Step(0.1)
				}
			}
		}
	})
}

// TestRestore_lanesRejectBadData: lanes that do not fit the tree a save was
// made from are corrupt data (or, for ids, unknown ids); nothing changes.
func TestRestore_lanesRejectBadData(t *testing.T) {
	var trace strings.Builder
	r := newLanesRun(t, &trace)
	var s Snapshot
	for k := 1; ; k++ {
		r.steps(k, k)
		var err error
		if s, err = r.agents[0].Snapshot(); err != nil {
			t.Fatal(err)
		}
		if len(s.Lanes) == 3 && s.Lanes[0].Status == Running && s.Lanes[2].Status == Running && len(s.Lanes[2].Lanes) == 2 {
			break
		}
		if k > 500 {
			t.Fatal("no cut with the nested parallel's lanes running")
		}
	}
	cases := []struct {
		name   string
		change func(s *Snapshot)
		want   string
		is     error
	}{
		{"a lane saved twice", func(s *Snapshot) { s.Lanes[1] = s.Lanes[0] }, "is saved twice", ErrCorrupt},
		{"a lane missing", func(s *Snapshot) { s.Lanes = s.Lanes[:2] }, "the lane of its child watch is not saved", ErrCorrupt},
		{"a lane of another rule", func(s *Snapshot) { s.Lanes[0].Child, s.Lanes[0].Index = "rest", 99 }, "has no child of that parallel", ErrCorrupt},
		{"a bad status", func(s *Snapshot) { s.Lanes[1].Status = Paused }, "bad status", ErrCorrupt},
		{"a cursor that is no id", func(s *Snapshot) { s.Lanes[0].Cursor = "nowhere" }, `the saved cursor "nowhere" of a lane of parallel duty is not an id`, ErrUnknownID},
		{"a cursor outside its lane", func(s *Snapshot) { s.Lanes[0].Cursor = "look.right" }, "is not inside that lane's child walk", ErrUnknownID},
		{"a cursor in a nested parallel's lane", func(s *Snapshot) {
			s.Lanes[2].Cursor, s.Lanes[2].Lanes, s.Lanes[2].Running = "watch.scan", nil, false
		}, `the saved cursor "watch.scan" is inside a lane of parallel watch`, ErrUnknownID},
		{"lanes of an action", func(s *Snapshot) { s.Lanes[0].Lanes = s.Lanes[2].Lanes }, "do not belong to a parallel whose lanes run", ErrCorrupt},
		{"the agent's cursor inside a lane", func(s *Snapshot) {
			s.Cursor, s.Running, s.Lanes, s.Orders = "walk.step", false, nil, nil
		}, `the saved cursor "walk.step" is inside a lane of parallel duty`, ErrUnknownID},
		{"lanes of a cursor that is not a parallel", func(s *Snapshot) { s.Cursor, s.Orders = "rest", nil }, "do not belong to a parallel", ErrCorrupt},
		{"running lanes of a parallel that is not active", func(s *Snapshot) { s.Active = false }, "runs lanes but is not active", ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := s
			bad.Lanes = append([]LaneSnapshot(nil), s.Lanes...)
			c.change(&bad)
			e := savecodec.NewEncoder()
			e.Uvarint(1)
			EncodeSnapshot(e, &bad)
			data := savecodec.WriteContainer(AgentsMagic, AgentsVersion, e)
			fresh := newLanesRun(t, &trace)
			a := fresh.agents[:1]
			a[0].StepAt(0.1)
			before, _ := SaveAgents(a, nil)
			_, err := RestoreAgents(data, a, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if after, _ := SaveAgents(a, nil); !bytes.Equal(before, after) {
				t.Error("the agent changed although the restore failed")
			}
		})
	}
}

// TestRestore_lanesOfAnEditedTree: in a tree edited since the save, a lane
// whose child is gone is dropped and a new child's lane starts at it, with
// warnings; the agent runs on.
func TestRestore_lanesOfAnEditedTree(t *testing.T) {
	var trace strings.Builder
	r := newLanesRun(t, &trace)
	var data []byte
	for k := 1; ; k++ {
		r.steps(k, k)
		if s, _ := r.agents[0].Snapshot(); len(s.Lanes) == 3 && s.Lanes[0].Status == Running {
			data, _ = SaveAgents(r.agents[:1], nil)
			break
		}
	}
	edited := strings.Replace(lanesTree, `<sequence id="walk" loop="true">`, `<action id="hum" name="work"/><sequence id="walk" loop="true">`, 1)
	edited = strings.Replace(edited, `<parallel id="duty" success="2" failure="2"`, `<parallel id="duty" success="2" failure="3"`, 1)
	tree, err := LoadBytes("lanes.xml", []byte(edited), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(tree, lanesRegistry(), BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("l-1", &Env{Seed: 5})
	warnings, err := RestoreAgents(data, []*Agent{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(warnings, "|"); !strings.Contains(got, "parallel duty has a new child hum; its lane starts at it") {
		t.Errorf("warnings: %s", got)
	}
	if lanes := a.Lanes(nil); len(lanes) < 4 || tree.Rules[lanes[0].Cursor].ID != "hum" || lanes[0].Status != Running {
		t.Errorf("lanes after the restore: %+v", lanes)
	}
	for s := 1; s <= 20; s++ {
		if _, err := a.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
}
