package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

const orderTree = `<behaviorTree>
<variables><variable name="Odd" default="false"/></variables>
<choice id="root">
  <action id=".count" name="test.count"><parameter name="count.n">1</parameter><condition>Odd</condition></action>
  <action id=".move" name="test.move"><parameter name="move.dx">0.5</parameter></action>
</choice>
</behaviorTree>`

// TestConcurrent_aRoundsCallsGoInConfigOrder: agents stepped on several
// goroutines queue their calls in any order; the batch a plugin receives
// lists the calls, and the sites, in the order of the round's agents, and
// each reply still reaches its own agent.
func TestConcurrent_aRoundsCallsGoInConfigOrder(t *testing.T) {
	const n = 6
	data := make([]fields, n)
	w := newWorld(t, orderTree, []Spec{helperSpec("test", "plugin")}, Options{}, n, func(i int) fields {
		data[i] = fields{"x": float64(i)}
		return data[i]
	})
	w.set.SetConcurrent(true)
	for i, a := range w.agents {
		if i%2 == 1 {
			if err := a.SetVar("Odd", true); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := n - 1; i >= 0; i-- { // the workers reach the agents last first
		if _, err := w.agents[i].StepAt(0.1); err != nil {
			t.Fatal(err)
		}
		if !w.agents[i].Paused() {
			t.Fatalf("a%d did not pause at its plugin call", i+1)
		}
	}
	q := &w.set.plugins[0].queue
	if got := batchOrder(q); !strings.HasPrefix(got, "a6:test.count ") {
		t.Fatalf("queued before ordering: %s", got)
	}
	w.set.inConfigOrder(w.agents)
	if got, want := batchOrder(q), "a1:test.move a2:test.count a3:test.move a4:test.count a5:test.move a6:test.count"; got != want {
		t.Errorf("batch after ordering:\n got  %s\n want %s", got, want)
	}
	if q.batch.Sites[0].Name != "test.move" || q.sites[0].info.Name != "test.move" || q.sites[1].idx != 1 {
		t.Errorf("sites not placed by first use: %+v", q.batch.Sites)
	}
	if err := w.set.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{3, 0, 5, 1, 4, 2} { // workers resume in any order
		st, err, ok := w.set.Continue(w.agents[i])
		if !ok || err != nil {
			t.Fatalf("a%d: %v %v", i+1, ok, err)
		}
		if st != runtime.Success {
			t.Errorf("a%d: %v", i+1, st)
		}
	}
	for i, d := range data {
		want := fields{"x": float64(i) + 0.5}
		if i%2 == 1 {
			want = fields{"x": float64(i), "count": 1.0}
		}
		if fmt.Sprint(d) != fmt.Sprint(want) {
			t.Errorf("a%d's fields %v, want %v", i+1, d, want)
		}
	}
}

// batchOrder lists a round's calls as agent:action.
func batchOrder(q *round) string {
	var b []string
	for _, c := range q.batch.Calls {
		b = append(b, c.Agent+":"+q.batch.Sites[c.Site].Name)
	}
	return strings.Join(b, " ")
}
