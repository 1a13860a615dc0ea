package game

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

func TestAppendString_isValidJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "new\nline\ttab\x01", "caf\u00e9 \u2603", "bad\xffbyte"} {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%q -> %s: %v", s, b, err)
			continue
		}
		if want := string([]rune(s)); back != want && s != "bad\xffbyte" {
			t.Errorf("%q -> %s -> %q", s, b, back)
		}
	}
}

func TestAppendTime_hidesFloatNoise(t *testing.T) {
	for in, want := range map[float64]string{3 * 0.1: "0.3", 0: "0", 2: "2", 60 * 0.1: "6", 1.25: "1.25"} {
		if got := string(AppendTime(nil, in)); got != want {
			t.Errorf("%v -> %s, want %s", in, got, want)
		}
	}
}

// TestTrace_interruptFollowsTheAgent: an interrupted step's line carries
// "interrupt" right after "agent"; other lines have no such key.
func TestTrace_interruptFollowsTheAgent(t *testing.T) {
	tree, err := runtime.LoadBytes("t.xml", []byte(`<behaviorTree><choice id="root">
<action id="alarm" name="bt.log" abort="lower"><condition>Alarm</condition><parameter name="log.message">!</parameter></action>
<action id="idle" name="bt.wait"><parameter name="wait.seconds">9</parameter></action>
</choice><variables><variable name="Alarm"/></variables></behaviorTree>`), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.Bind(tree, runtime.NewRegistry(), runtime.BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	w := NewTraceWriter(&out)
	var runs []runtime.RuleRun
	env := &runtime.Env{Logger: nopLogger{}, Observer: observerFunc(func(a *runtime.Agent, r []runtime.RuleRun, st runtime.Status, err error) {
		runs = append(runs[:0], r...)
	})}
	a := b.NewAgent("g-1", env)
	for s := uint64(1); s <= 2; s++ {
		if s == 2 {
			a.SetVar("Alarm", true)
		}
		st, err := a.StepAt(float64(s) * 0.5)
		w.Step(s, float64(s)*0.5, a, runs, st, err)
	}
	w.Flush()
	want := `{"step":1,"time":0.5,"agent":"g-1","runs":[["alarm","failure"],["idle","running"]],"result":"running","cursor":"idle"}
{"step":2,"time":1,"agent":"g-1","interrupt":["alarm","preempt"],"runs":[["alarm","success"]],"result":"success","cursor":"root"}
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

type nopLogger struct{}

func (nopLogger) Log(*runtime.Agent, string, string) {}

type observerFunc func(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error)

func (f observerFunc) StepDone(a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) {
	f(a, runs, st, err)
}
