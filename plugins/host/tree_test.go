package host

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// fields is an agent's game data as a plugin sees it (FieldAccess).
type fields map[string]any

func (f fields) GetField(n string) (any, bool) { v, ok := f[n]; return v, ok }
func (f fields) SetField(n string, v any) error {
	if v == nil {
		delete(f, n)
	} else {
		f[n] = v
	}
	return nil
}

// world is a set of agents on one tree with their plugins.
type world struct {
	t      *testing.T
	set    *Set
	tree   *runtime.BoundTree
	env    *runtime.Env
	agents []*runtime.Agent
	trace  []string
	logs   logCapture
}

type traceObserver struct{ w *world }

func (o traceObserver) StepDone(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	var b strings.Builder
	fmt.Fprintf(&b, "t=%.1f %s:", a.Time(), a.ID())
	if in, ok := a.LastInterrupt(); ok {
		fmt.Fprintf(&b, " [%s %s]", in.Kind, a.Tree().Tree.Rules[in.Rule].Label)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, " %s=%s", a.Tree().Tree.Rules[r.Rule].Label, r.Status)
	}
	fmt.Fprintf(&b, " -> %s", st)
	if err != nil {
		fmt.Fprintf(&b, " (%v)", err)
	}
	o.w.trace = append(o.w.trace, b.String())
}

type agentLog struct{ w *world }

func (l agentLog) Log(a *runtime.Agent, label, msg string) {
	l.w.trace = append(l.w.trace, fmt.Sprintf("log %s %s: %s", a.ID(), label, msg))
}

// worldTrees are the trees newWorld's slots may run (slots_test.go).
var worldTrees runtime.TreeSource

func newWorld(t *testing.T, xml string, specs []Spec, opts Options, agents int, data func(i int) fields) *world {
	t.Helper()
	w := &world{t: t}
	if opts.Logger == nil {
		opts.Logger = w.logs.log
	}
	// Unless a test is about them, the timeouts only guard against a hang:
	// a loaded machine may take seconds to start a process or answer.
	if opts.CallTimeout == 0 {
		opts.CallTimeout = time.Minute
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	set, err := Start(t0(), specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	w.set = set
	reg := runtime.NewRegistry()
	if err := set.Register(reg); err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.LoadBytes("test.xml", []byte(xml), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.tree, err = runtime.Bind(tree, reg, runtime.BindOptions{Trees: worldTrees})
	if err != nil {
		t.Fatal(err)
	}
	w.env = &runtime.Env{Observer: traceObserver{w}, Logger: agentLog{w}}
	for i := range agents {
		a := w.tree.NewAgent(fmt.Sprintf("a%d", i+1), w.env)
		if data != nil {
			a.SetUserData(data(i))
		}
		w.agents = append(w.agents, a)
	}
	return w
}

// step steps every agent once (dt 0.1) in rounds and returns the outcomes.
func (w *world) step() []Outcome {
	w.t.Helper()
	out, err := StepAll(w.agents, func(a *runtime.Agent) (runtime.Status, error) {
		return a.StepAt(float64(a.StepCount()+1) * 0.1)
	}, w.set)
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

const countTree = `<behaviorTree>
<variables><variable name="Done" default="false"/></variables>
<signals><signal name="Counted" variable="Done" value="true"/></signals>
<timestamps><timestamp name="CountedAt"/></timestamps>
<sequence id="root">
  <action id=".count" name="test.count">
    <parameter name="count.n">3</parameter>
    <parameter name="count.signal">Counted</parameter>
    <parameter name="count.stamp">CountedAt</parameter>
  </action>
  <action id=".move" name="test.move">
    <parameter name="move.dx">2.5</parameter>
    <condition>test.flag</condition>
    <condition>Done</condition>
  </action>
</sequence>
</behaviorTree>`

// TestPlugin_actionAndConditionInRealTree runs a plugin action with state
// bytes and effects, and a plugin condition reading a field, in a real
// subprocess; the reply's field writes, signal and timestamp reach the agent.
func TestPlugin_actionAndConditionInRealTree(t *testing.T) {
	data := fields{"x": 1.0, "flag": true}
	w := newWorld(t, countTree, []Spec{helperSpec("test", "plugin")}, Options{}, 1, func(int) fields { return data })
	a := w.agents[0]
	for i, want := range []runtime.Status{runtime.Running, runtime.Running, runtime.Success} {
		if out := w.step(); out[0].Status != want || out[0].Err != nil {
			t.Fatalf("step %d: %+v, want %v", i+1, out[0], want)
		}
	}
	if data["x"] != 3.5 || data["count"] != 3.0 {
		t.Errorf("fields after the run: %v", data)
	}
	if done, _ := a.Var("Done"); !done {
		t.Error("the plugin's signal did not set Done")
	}
	if at, ok, _ := a.Stamp("CountedAt"); !ok || at != 0.30000000000000004 && at != 0.3 {
		t.Errorf("CountedAt = %v %v, want 0.3", at, ok)
	}
	want := []string{
		"t=0.1 a1: root=moved root.count=running -> running",
		"t=0.2 a1: root.count=running -> running",
		"t=0.3 a1: root.count=success root=moved root.move=success root=success -> success",
	}
	if got := strings.Join(w.trace, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// Without the flag the condition fails: the action is not called.
	data["flag"] = false
	w.step()
	w.step()
	w.step()
	if data["x"] != 3.5 {
		t.Errorf("x = %v: test.move ran although test.flag was false", data["x"])
	}
	if st := w.set.Stats(); st.RoundTrips != st.Calls || st.Calls == 0 {
		t.Errorf("stats: %+v; one agent: every round is one call", st)
	}
}

// TestPlugin_errorNamesAgentRuleAndPlugin shows an action's error as the
// step's error, with the tree position, agent, rule and plugin.
func TestPlugin_errorNamesAgentRuleAndPlugin(t *testing.T) {
	w := newWorld(t, `<behaviorTree><sequence id="root"><action id=".fail" name="test.fail"/></sequence></behaviorTree>`,
		[]Spec{helperSpec("test", "plugin")}, Options{}, 1, nil)
	out := w.step()
	want := `test.xml:1:35: agent a1: rule root.fail: action "test.fail": host: plugin test: the path is blocked`
	if out[0].Status != runtime.Errored || out[0].Err == nil || out[0].Err.Error() != want {
		t.Fatalf("got %v %v\nwant %s", out[0].Status, out[0].Err, want)
	}
	if !errors.Is(out[0].Err, ErrCall) || !errors.Is(out[0].Err, runtime.ErrAction) {
		t.Errorf("error does not wrap ErrCall and runtime.ErrAction: %v", out[0].Err)
	}
}

// TestPlugin_jumpAndCancel: a reply's jump moves the cursor (the finished
// result is discarded, the target runs in the same step), and leaving a
// running plugin action calls its cancel hook in the plugin.
func TestPlugin_jumpAndCancel(t *testing.T) {
	xml := `<behaviorTree><choice id="root">
  <action id=".wait" name="test.cancellable"><condition>test.flag</condition></action>
  <action id=".jump" name="test.jump"><parameter name="jump.to">root.land</parameter></action>
  <action id=".skipped" name="test.result"/>
  <action id=".land" name="test.result"><parameter name="result.is">failure</parameter></action>
</choice></behaviorTree>`
	data := fields{"flag": true}
	w := newWorld(t, xml, []Spec{helperSpec("test", "plugin")}, Options{}, 1, func(int) fields { return data })
	if out := w.step(); out[0].Status != runtime.Running {
		t.Fatalf("step 1: %+v", out[0])
	}
	data["flag"] = false // the running action's condition fails: cancel, then on
	if out := w.step(); out[0].Status != runtime.Failure || out[0].Err != nil {
		t.Fatalf("step 2: %+v", out[0])
	}
	if data["cancelled"] != true {
		t.Errorf("the cancel hook did not run: %v", data)
	}
	want := []string{
		"t=0.1 a1: root=moved root.wait=running -> running",
		"log a1 root.wait: cancelled by the runtime",
		"t=0.2 a1: root.wait=failure root=moved root.jump=success root.land=failure root=failure -> failure",
	}
	if got := strings.Join(w.trace, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestFault_crashMidCall: the plugin process dies during a call. The call
// fails with an error naming agent, rule and plugin; the plugin is
// restarted; the run goes on and later calls succeed.
func TestFault_crashMidCall(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "crashed")
	xml := `<behaviorTree><sequence id="root"><action id=".go" name="test.crash"/></sequence></behaviorTree>`
	w := newWorld(t, xml, []Spec{helperSpec("test", "plugin", markerEnv+"="+marker)},
		Options{RestartMin: 20 * time.Millisecond}, 2, nil)
	pid := w.set.Plugins()[0].Pid
	out := w.step()
	for i, o := range out {
		want := fmt.Sprintf(`agent a%d: rule root.go: action "test.crash": host: plugin test crashed during the call (exit status 7); it is restarted`, i+1)
		if o.Status != runtime.Errored || o.Err == nil || !strings.Contains(o.Err.Error(), want) || !errors.Is(o.Err, ErrCrashed) {
			t.Errorf("agent %d: %v %v\nwant an error containing %s", i+1, o.Status, o.Err, want)
		}
	}
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: the restart comes after 20 ms
	for {
		out = w.step()
		if out[0].Status == runtime.Success && out[1].Status == runtime.Success {
			break
		}
		for _, o := range out {
			if o.Err != nil && !errors.Is(o.Err, ErrDown) {
				t.Fatalf("while restarting: %v", o.Err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plugin was not restarted: %+v\n%s", out, w.logs.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := w.set.Plugins()[0].Pid; p == pid || p == 0 {
		t.Errorf("pid %d after restart, was %d", p, pid)
	}
	if !strings.Contains(w.logs.text(), "warn: plugin test: its process exited (exit status 7); restarting it in 20ms") {
		t.Errorf("log:\n%s", w.logs.text())
	}
}

// TestFault_restartCountedInSteps: with the backoff in steps, a plugin that
// crashed during step 1 is down for the rest of that step and restarted by
// Advance(2) before step 2 runs, however little time has passed; its calls
// then succeed.
func TestFault_restartCountedInSteps(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "crashed")
	xml := `<behaviorTree><sequence id="root"><action id=".go" name="test.crash"/></sequence></behaviorTree>`
	w := newWorld(t, xml, []Spec{helperSpec("test", "plugin", markerEnv+"="+marker)},
		Options{RestartMin: time.Hour, RestartMinSteps: 1}, 2, nil) // a time backoff would never end in this test
	w.set.Advance(1)
	for _, o := range w.step() {
		if !errors.Is(o.Err, ErrCrashed) {
			t.Fatalf("step 1: %+v, want a crash", o)
		}
	}
	if _, err := w.set.plugins[0].current(); err == nil || !strings.Contains(err.Error(), "restarting it at step 2") {
		t.Errorf("while down: %v", err)
	}
	w.set.Advance(2)
	for _, o := range w.step() {
		if o.Status != runtime.Success || o.Err != nil {
			t.Fatalf("step 2: %+v, want success from the restarted plugin\n%s", o, w.logs.text())
		}
	}
	for _, want := range []string{
		"warn: plugin test: its process exited (exit status 7) at step 1; restarting it at step 2",
		"info: plugin test: restarted at step 2",
	} {
		if !strings.Contains(w.logs.text(), want) {
			t.Errorf("log lacks %q:\n%s", want, w.logs.text())
		}
	}
}

// TestFault_hangTimesOutWithoutBlockingOthers: one plugin hangs; its call
// fails after the call timeout and the plugin is restarted, while another
// plugin's calls in the same round succeed. The hanging plugin's timeout
// is 300 ms, the others' a minute: it always times out (it never answers),
// they never do, however loaded the machine.
func TestFault_hangTimesOutWithoutBlockingOthers(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hung")
	xml := `<behaviorTree><choice id="root">
  <action id=".slow" name="slow.hang"><condition>test.flag</condition></action>
  <action id=".fast" name="fast.result"/>
</choice></behaviorTree>`
	specs := []Spec{
		helperSpec("slow", "plugin", markerEnv+"="+marker, prefixEnv+"=slow."),
		helperSpec("fast", "plugin", prefixEnv+"=fast."),
	}
	// test.flag is nobody's: declare it through a third plugin's prefix.
	specs = append(specs, helperSpec("flags", "plugin", prefixEnv+"=test."))
	timeout := 300 * time.Millisecond
	w := newWorld(t, xml, specs, Options{CallTimeout: time.Minute, RestartMin: 20 * time.Millisecond,
		callTimeouts: map[string]time.Duration{"slow": timeout}}, 2,
		func(i int) fields { return fields{"flag": i == 0} })
	out := w.step()
	want := `agent a1: rule root.slow: action "slow.hang": host: plugin slow did not answer within 300ms (the call timeout); it is killed and restarted`
	if out[0].Err == nil || !strings.Contains(out[0].Err.Error(), want) || !errors.Is(out[0].Err, ErrTimeout) {
		t.Errorf("a1: %v %v\nwant %s", out[0].Status, out[0].Err, want)
	}
	if out[1].Status != runtime.Success || out[1].Err != nil {
		t.Errorf("a2 (fast plugin only): %+v", out[1])
	}
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: the restart comes after 20 ms
	for out = w.step(); out[0].Status != runtime.Success; out = w.step() {
		if time.Now().After(deadline) {
			t.Fatalf("the hung plugin was not replaced: %+v\n%s", out, w.logs.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, info := range w.set.Plugins() {
		if info.Pid == 0 {
			t.Errorf("plugin %s is down", info.Name)
		}
	}
}

// TestPlugin_logsReachTheHostLogger: what a plugin logs, and writes to its
// standard streams after serving, reaches Options.Logger with its level and
// the plugin's name.
func TestPlugin_logsReachTheHostLogger(t *testing.T) {
	w := newWorld(t, `<behaviorTree><action id="root" name="test.log"/></behaviorTree>`,
		[]Spec{helperSpec("test", "plugin")}, Options{}, 1, nil)
	if out := w.step(); out[0].Status != runtime.Success {
		t.Fatal(out[0])
	}
	want := []string{"info: plugin test: hello from a1", "warn: plugin test: careful, a1",
		"info: plugin test stderr: a raw line on stderr", "info: plugin test stdout: a raw line on stdout"}
	deadline := time.Now().Add(time.Minute) // a hang guard: the lines come as they are written
	for _, line := range want {
		for !strings.Contains(w.logs.text(), line) {
			if time.Now().After(deadline) {
				t.Fatalf("log lacks %q:\n%s", line, w.logs.text())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestSupervise_backoffDoubles: restarts wait RestartMin (RestartMinSteps),
// then twice as long after each failure in a row, up to RestartMax
// (RestartMaxSteps).
func TestSupervise_backoffDoubles(t *testing.T) {
	o := Options{RestartMin: time.Hour, RestartMax: 10 * time.Hour, RestartMinSteps: 3, RestartMaxSteps: 20}
	want := []int{1, 2, 4, 8, 10, 10}
	wantSteps := []uint64{3, 6, 12, 20, 20, 20}
	for f := 1; f <= 6; f++ {
		if got := o.backoff(f); got != time.Duration(want[f-1])*time.Hour {
			t.Errorf("failure %d: %v, want %vh", f, got, want[f-1])
		}
		if got := o.backoffSteps(f); got != wantSteps[f-1] {
			t.Errorf("failure %d: %d steps, want %d", f, got, wantSteps[f-1])
		}
	}
}
