package liveview

import (
	"testing"

	"github.com/btrun/btrun/runtime"
)

// stepRuns keeps the runs of each step an agent takes.
type stepRuns struct{ runs []runtime.RuleRun }

func (o *stepRuns) StepDone(_ *runtime.Agent, runs []runtime.RuleRun, _ runtime.Status, _ error) {
	o.runs = append(o.runs[:0], runs...)
}

// TestNoteLanes_parallelEnteredAndFinishedInOneStep: a parallel that is
// entered and finishes in the same step (one lane succeeds at once, the
// other is cancelled) still shows its lanes: the succeeded one done, the
// cancelled one as a lane that ran (shown as cancelled, its parallel being
// no longer active). The runtime records the parallel's run once, with its
// result, followed by its lanes' runs.
func TestNoteLanes_parallelEnteredAndFinishedInOneStep(t *testing.T) {
	reg := runtime.NewRegistry()
	reg.RegisterAction("ok", runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) { return runtime.Success, nil }))
	reg.RegisterAction("run", runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) { return runtime.Running, nil }))
	tree, err := runtime.LoadBytes("p.xml", []byte(`<behaviorTree><sequence id="root">
  <parallel id="p" success="1"><action id="a" name="ok"/><action id="b" name="run"/></parallel>
  <running id="r"/></sequence></behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := &stepRuns{}
	a := b.NewAgent("x", &runtime.Env{Observer: o})
	if st, err := a.Step(1); st != runtime.Running || err != nil || a.CursorLabel() != "r" {
		t.Fatalf("step: %v %v at %s; want running at r, p finished", st, err, a.CursorLabel())
	}
	var d Debugger
	r := d.newAgentRec(a, "t")
	d.noteLanes(r, o.runs)
	ia, _ := tree.RuleIndex("a")
	ib, _ := tree.RuleIndex("b")
	if r.lanes[ia] != laneSucceeded || r.lanes[ib] != laneRunning {
		t.Errorf("lanes a=%d b=%d; want a done with success (%d), b running then cancelled (%d)", r.lanes[ia], r.lanes[ib], laneSucceeded, laneRunning)
	}
}
