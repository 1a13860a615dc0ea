package runtime_test

import (
	"fmt"
	goruntime "runtime"
	"testing"
	"unsafe"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/internal/peerwork"
)

// The peer workload (runtime/internal/peerwork): the example tree with the
// counters BehaviorTree.CPP and go-behaviortree run in the comparisons the
// documentation quotes, beside the same work as a hand-written Go switch.
//
//	go test ./runtime -run '^$' -bench PeerWorkload -benchmem

const peerTree = "../scripts/ai/dragengine-exampleapp.xml"

func loadPeer(tb testing.TB, count *peerwork.Counts) *runtime.BoundTree {
	tb.Helper()
	b, err := peerwork.Load(peerTree, peerwork.Registry(count))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestPeerWorkload_totals holds the workload to its definition: 100,000
// steps of one agent make 197,322 condition evaluations and 120,087 action
// calls, in btrun and in the hand-written switch, and the two agree step by
// step on where the agent is and how often each action was called.
func TestPeerWorkload_totals(t *testing.T) {
	var count peerwork.Counts
	g := peerwork.NewAgents(loadPeer(t, &count), 1, nil)
	a, d := g.Agents[0], &g.Data[0]
	var s peerwork.Switch
	for step := range peerwork.StepsPerAgent {
		if err := g.StepAll(); err != nil {
			t.Fatalf("step %d: %v", step+1, err)
		}
		s.Step()
		want := int32(0) // the root, where a finished step leaves the cursor
		if a.LastResult() == runtime.Running {
			want = int32(s.Cur) + 1 // the actions are rules 1-5
		}
		if s.Calls != d.Calls || s.T != d.T || a.Cursor() != want {
			t.Fatalf("step %d: btrun at rule %d with calls %v, the switch at action %d with calls %v",
				step+1, a.Cursor(), d.Calls, s.Cur, s.Calls)
		}
	}
	if count.Conditions != peerwork.TotalConditions || count.Calls != peerwork.TotalCalls {
		t.Errorf("%d condition evaluations and %d action calls, want %d and %d",
			count.Conditions, count.Calls, peerwork.TotalConditions, peerwork.TotalCalls)
	}
	var calls uint64
	for _, c := range s.Calls {
		calls += uint64(c)
	}
	if calls != peerwork.TotalCalls {
		t.Errorf("the switch made %d action calls, want %d", calls, peerwork.TotalCalls)
	}
	if size := unsafe.Sizeof(s); size != 32 {
		t.Errorf("the switch's agent is %d bytes, want 32", size)
	}
}

// TestPeerWorkload_stepDoesNotAllocate: the workload's steps allocate
// nothing once the agents exist.
func TestPeerWorkload_stepDoesNotAllocate(t *testing.T) {
	g := peerwork.NewAgents(loadPeer(t, nil), 100, &runtime.Env{})
	g.StepAll() // the env's scratch grows once
	if allocs := testing.AllocsPerRun(100, func() { g.StepAll() }); allocs != 0 {
		t.Errorf("stepping 100 agents allocates %v times, want 0", allocs)
	}
}

var peerSizes = []int{1, 1000, 10000, 100000}

// BenchmarkPeerWorkload steps n agents round-robin, in btrun and as the
// hand-written switch, in the same run; one op is one agent-step (ns/op is
// ns per agent-step). Beside
// ns/op and allocs/op it reports bytes/agent: the heap that making the
// agents (and, for btrun, their counters and first step) cost, per agent.
func BenchmarkPeerWorkload(b *testing.B) {
	bound := loadPeer(b, nil)
	for _, n := range peerSizes {
		b.Run(fmt.Sprintf("agents=%d/btrun", n), func(b *testing.B) {
			var g *peerwork.Agents
			perAgent := heapPerAgent(n, func() {
				g = peerwork.NewAgents(bound, n, &runtime.Env{})
				if err := g.StepAll(); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportAllocs()
			b.ResetTimer()
			for i, j := 0, 0; i < b.N; i++ {
				if err := g.Step(j); err != nil {
					b.Fatal(err)
				}
				if j++; j == n {
					j = 0
				}
			}
			b.ReportMetric(perAgent, "bytes/agent")
		})
		b.Run(fmt.Sprintf("agents=%d/switch", n), func(b *testing.B) {
			var agents []peerwork.Switch
			perAgent := heapPerAgent(n, func() { agents = make([]peerwork.Switch, n) })
			b.ReportAllocs()
			b.ResetTimer()
			for i, j := 0, 0; i < b.N; i++ {
				agents[j].Step()
				if j++; j == n {
					j = 0
				}
			}
			b.ReportMetric(perAgent, "bytes/agent")
		})
	}
}

// heapPerAgent runs make and returns the live heap it added, per agent.
func heapPerAgent(n int, make func()) float64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	make()
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}
