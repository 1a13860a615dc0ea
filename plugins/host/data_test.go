package host

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

type routes struct{ sent []string }

func (r *routes) Route(from *runtime.Agent, to, signal string, data runtime.Value) error {
	r.sent = append(r.sent, from.ID()+"->"+to+":"+signal+"="+runtime.DataText(data, 200))
	return nil
}

const relayTree = `<behaviorTree>
<signals><signal name="Order"/></signals>
<sequence id="root">
  <action id=".relay" name="test.relay"><parameter name="relay.to">a2</parameter></action>
</sequence>
</behaviorTree>`

// TestPlugin_stimuliInAndDataOut: an action's calls carry the stimuli it
// declares (sdk.Action.Stimuli) that the agent holds; its effects' data
// reach the agent and other agents (batched and one call at a time).
func TestPlugin_stimuliInAndDataOut(t *testing.T) {
	for _, unbatched := range []bool{false, true} {
		w := newWorld(t, relayTree, []Spec{helperSpec("test", "plugin")}, Options{Unbatched: unbatched}, 1, nil)
		r := &routes{}
		w.env.Router = r
		a := w.agents[0]
		if out := w.step(); out[0].Status != runtime.Running {
			t.Fatalf("without an order: %+v", out[0])
		}
		order := runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{
			{Key: runtime.Value{Kind: runtime.StringValue, Str: "x"}, Val: runtime.Value{Kind: runtime.NumberValue, Num: 3}},
			{Key: runtime.Value{Kind: runtime.StringValue, Str: "to"}, Val: runtime.Value{Kind: runtime.StringValue, Str: "gate"}}}}
		if err := a.SignalData("Order", order); err != nil { // at 0.1
			t.Fatal(err)
		}
		if out := w.step(); out[0].Status != runtime.Success || out[0].Err != nil { // at 0.2
			t.Fatalf("unbatched %v: %+v", unbatched, out[0])
		}
		echo, _, ok := a.Stimulus("Echo")
		if got, want := runtime.DataText(echo, 200), `{age = 0.1, all = {x = 3, to = "gate"}, x = 3}`; !ok || got != want {
			t.Errorf("unbatched %v: Echo = %s, want %s", unbatched, got, want)
		}
		if got := strings.Join(r.sent, " "); got != `a1->a2:Relay={[1] = "hop", [2] = 1, [3] = true}` {
			t.Errorf("unbatched %v: routed %s", unbatched, got)
		}
	}
}

// TestPlugin_dataTooDeepFailsTheCall: data the runtime refuses fails the
// call, naming the plugin, the signal and why; the effects before it
// applied, as with any effect that fails.
func TestPlugin_dataTooDeepFailsTheCall(t *testing.T) {
	w := newWorld(t, `<behaviorTree><action id="d" name="test.deep"/></behaviorTree>`, []Spec{helperSpec("test", "plugin")}, Options{}, 1, nil)
	out := w.step()
	if out[0].Status != runtime.Errored || !errors.Is(out[0].Err, runtime.ErrData) ||
		!strings.Contains(out[0].Err.Error(), `reply cannot send signal "Deep" to "self"`) ||
		!strings.Contains(out[0].Err.Error(), "tables nested more than 16 deep") {
		t.Fatalf("got %+v", out[0])
	}
	if w.agents[0].Held("Deep") || !w.agents[0].Held("Plain") {
		t.Error("Deep was delivered, or Plain (before it) was not")
	}
}
