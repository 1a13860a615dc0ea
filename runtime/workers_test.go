package runtime

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// workersTree exercises everything that could make a parallel step differ
// from a serial one: a gate of two users with a cooldown, a random choice
// order (each agent's own generator), calls answered in the next round
// (as plugin calls are), a signal that some agents send to themselves, and
// typed variables a comparison reads (counted turns, a string).
const workersTree = `<behaviorTree>
<gates><gate name="g" users="2" cooldown="0.5"/></gates>
<variables><variable name="poked"/><variable name="turns" type="number"/><variable name="who" type="string"/></variables>
<choice id="root" loop="true">
  <sequence id="take" gate="g">
    <action id="p1" name="pend"/>
    <action id="count" name="bt.variable.set" doNotFail="true"><condition>!turns &gt;= 2</condition><parameter name="variable.name">turns</parameter><parameter name="variable.add">1</parameter></action>
    <action id="name" name="bt.variable.set" doNotFail="true"><condition>who == ""</condition><parameter name="variable.name">who</parameter><parameter name="variable.value">named</parameter></action>
    <action id="w1" name="spin"/>
    <action id="p2" name="pend"/>
  </sequence>
  <choice id="pick" order="random">
    <action id="a" name="spin"/>
    <action id="b" name="pend"/>
    <action id="c" name="poke"/>
  </choice>
</choice>
</behaviorTree>`

// workersWorld is one set of agents of workersTree, stepped either by Rounds
// (n = 0) or by Workers with n workers, each worker with its own Env.
type workersWorld struct {
	tree   *BoundTree
	gates  *Gates
	agents []*Agent
	envs   []*Env
	rounds Rounds
	w      *Workers
	pend   *lockedPend
	lines  []string // one per agent: its last step
	mu     sync.Mutex
}

// lockedPend answers "pend" calls in the round after the call; it is used
// from several goroutines at once, as a plugin set is.
type lockedPend struct {
	mu      sync.Mutex
	waiting map[*Agent]int
}

func (p *lockedPend) EndRound(round []*Agent) error { return nil }

func (p *lockedPend) Continue(a *Agent) (Status, error, bool) {
	p.mu.Lock()
	n, ok := p.waiting[a]
	delete(p.waiting, a)
	p.mu.Unlock()
	if !ok {
		return 0, nil, false
	}
	st := Success
	if n%3 == 2 {
		st = Failure
	}
	s, err := a.CompleteAction(st, nil)
	return s, err, true
}

type workersObserver struct {
	w   *workersWorld
	idx map[*Agent]int
}

func (o *workersObserver) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s:", a.ID(), st, a.CursorLabel())
	for _, r := range runs {
		fmt.Fprintf(&b, " %s=%s", a.bound.Tree.Rules[r.Rule].Label, r.Status)
	}
	for _, ev := range a.GateEvents() {
		fmt.Fprintf(&b, " %v", ev)
	}
	o.w.lines[o.idx[a]] = b.String()
}

func newWorkersWorld(t *testing.T, n, agents int) *workersWorld {
	t.Helper()
	reg := NewRegistry()
	w := &workersWorld{pend: &lockedPend{waiting: map[*Agent]int{}}, lines: make([]string, agents)}
	var calls sync.Map // per agent call counter, *int, touched only on the agent's worker
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	counter := func(a *Agent) *int {
		v, _ := calls.LoadOrStore(a, new(int))
		return v.(*int)
	}
	must(reg.RegisterAction("pend", ActionFunc(func(a *Agent, p Params) (Status, error) {
		c := counter(a)
		*c++
		w.pend.mu.Lock()
		w.pend.waiting[a] = *c
		w.pend.mu.Unlock()
		return 0, ErrPending
	})))
	must(reg.RegisterAction("spin", ActionFunc(func(a *Agent, p Params) (Status, error) {
		c := counter(a)
		*c++
		if *c%4 == 0 {
			return Success, nil
		}
		return Running, nil
	})))
	must(reg.RegisterAction("poke", ActionFunc(func(a *Agent, p Params) (Status, error) {
		a.Signal("poked")
		return Success, nil
	})))
	tree, err := LoadBytes("w.xml", []byte(workersTree), LoadOptions{})
	must(err)
	w.tree, err = Bind(tree, reg, BindOptions{})
	must(err)
	w.gates = NewGates()
	must(w.gates.Add(w.tree))
	obs := &workersObserver{w: w, idx: map[*Agent]int{}}
	envs := max(n, 1)
	for k := 0; k < envs; k++ {
		w.envs = append(w.envs, &Env{Observer: obs, Gates: w.gates, Seed: 7})
	}
	of := make([]int32, agents)
	for i := 0; i < agents; i++ {
		k := (i * 7 / 3) % envs // an uneven spread: workers' agents interleave
		of[i] = int32(k)
		a := w.tree.NewAgent(fmt.Sprintf("a%d", i), w.envs[k])
		obs.idx[a] = i
		w.agents = append(w.agents, a)
	}
	if n == 0 {
		w.rounds.Resolvers = []Resolver{w.gates, w.pend}
	} else {
		w.w = NewWorkers(n, w.gates, w.pend)
		w.w.Of = of
	}
	return w
}

// step runs one step and describes it, agents in order.
func (w *workersWorld) step(t *testing.T, at float64) string {
	var out []Outcome
	var err error
	if w.w == nil {
		out, err = w.rounds.StepAt(w.agents, at)
	} else {
		out, err = w.w.StepAt(w.agents, at)
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Err != nil {
			t.Fatalf("agent %d: %v", i, o.Err)
		}
	}
	return strings.Join(w.lines, "\n")
}

func (w *workersWorld) save(t *testing.T) []byte {
	data, err := SaveAgents(w.agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// oneGoroutineRun steps the workers world of agents agents on Rounds (one
// goroutine) and returns each step's description and the final save: what
// any number of workers must give.
func oneGoroutineRun(t *testing.T, agents, steps int) ([]string, []byte) {
	t.Helper()
	want := newWorkersWorld(t, 0, agents)
	var wantSteps []string
	for s := 1; s <= steps; s++ {
		wantSteps = append(wantSteps, want.step(t, float64(s)*0.1))
	}
	return wantSteps, want.save(t)
}

func TestWorkers_anyNumberOfWorkersStepsAsOneGoroutineDoes(t *testing.T) {
	const agents, steps = 23, 60
	wantSteps, wantSave := oneGoroutineRun(t, agents, steps)
	for _, n := range []int{1, 2, 3, 8, -3} { // -3: three workers run one after the other (Serial)
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			w := newWorkersWorld(t, max(n, -n), agents)
			w.w.Serial = n < 0
			for s := 1; s <= steps; s++ {
				if got := w.step(t, float64(s)*0.1); got != wantSteps[s-1] {
					t.Fatalf("step %d differs:\n got %s\nwant %s", s, got, wantSteps[s-1])
				}
			}
			if got := w.save(t); !bytes.Equal(got, wantSave) {
				t.Fatalf("the save differs from the one of one goroutine")
			}
		})
	}
}

func TestWorkers_theRoundsMergeEveryWorkersAgentsInOrder(t *testing.T) {
	var seen [][]string
	rec := resolverFunc(func(round []*Agent) {
		var ids []string
		for _, a := range round {
			ids = append(ids, a.ID())
		}
		seen = append(seen, ids)
	})
	w := newWorkersWorld(t, 3, 10)
	w.w.Resolvers = append(w.w.Resolvers, rec)
	w.step(t, 0.1)
	if len(seen) < 2 {
		t.Fatalf("rounds = %d, want at least 2 (pend calls)", len(seen))
	}
	if got := strings.Join(seen[0], " "); got != "a0 a1 a2 a3 a4 a5 a6 a7 a8 a9" {
		t.Fatalf("first round = %s, want every agent in order", got)
	}
	for _, r := range seen[1:] {
		for k := 1; k < len(r); k++ {
			var prev, cur int
			fmt.Sscanf(r[k-1], "a%d", &prev)
			fmt.Sscanf(r[k], "a%d", &cur)
			if prev >= cur {
				t.Fatalf("round %v is not in the order of agents", r)
			}
		}
	}
}

func TestWorkers_anAgentGivenNoWorkerIsAnError(t *testing.T) {
	w := newWorkersWorld(t, 2, 4)
	w.w.Of = w.w.Of[:2]
	if _, err := w.w.StepAt(w.agents, 0.1); err == nil || !strings.Contains(err.Error(), "runtime: workers:") {
		t.Fatalf("err = %v, want a runtime: workers: error", err)
	}
	w.w.Of = []int32{0, 1, 2, 0}
	if _, err := w.w.StepAt(w.agents, 0.1); err == nil || !strings.Contains(err.Error(), "worker 2 of 2") {
		t.Fatalf("err = %v, want one naming worker 2 of 2", err)
	}
}

func TestWorkers_aPanicInAStepIsRaisedOnTheCallersGoroutine(t *testing.T) {
	w := newWorkersWorld(t, 2, 4)
	w.w.Step = func(a *Agent, t float64) (Status, error) {
		if a.ID() == "a1" {
			panic("boom in a1")
		}
		return a.StepAt(t)
	}
	defer func() {
		if p := recover(); p != "boom in a1" {
			t.Fatalf("recovered %v, want the step's panic", p)
		}
	}()
	w.w.StepAt(w.agents, 0.1)
	t.Fatal("StepAt returned")
}

// resolverFunc sees every round's agents and answers nothing.
type resolverFunc func(round []*Agent)

func (f resolverFunc) EndRound(round []*Agent) error           { f(round); return nil }
func (f resolverFunc) Continue(a *Agent) (Status, error, bool) { return 0, nil, false }

// BenchmarkWorkers_seedTree steps 10,000 agents of the seed tree with Go
// actions on 1, 2 and 4 workers (each with its own Env); one op is one
// agent-step. What the runtime alone gives on more cores: compare the
// ns/op of the workers counts in one run.
func BenchmarkWorkers_seedTree(b *testing.B) {
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			const agents = 10000
			bound := loadSeed(b)
			w := NewWorkers(n)
			w.Of = make([]int32, agents)
			all := make([]*Agent, 0, agents)
			for k := range n {
				part := seedAgents(bound, agents/n, &Env{})
				for i := range part {
					w.Of[len(all)+i] = int32(k)
				}
				all = append(all, part...)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; done += len(all) {
				if _, err := w.StepAt(all, 0.1*float64(done/len(all)+1)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWorkers_actionCost steps 10,000 agents whose one action costs
// about 0, 100 or 1,000 loop iterations, on 1 and 2 workers; one op is one
// agent-step. How much work a step needs before a second thread pays for
// the cost of waking it each round.
func BenchmarkWorkers_actionCost(b *testing.B) {
	for _, spin := range []int{0, 100, 1000} {
		reg := NewRegistry()
		reg.RegisterAction("spin", ActionFunc(func(a *Agent, p Params) (Status, error) {
			x := 0
			for i := range spin {
				x += i * i
			}
			if x == 1 {
				return Success, nil
			}
			return Running, nil
		}))
		tree, err := LoadBytes("s.xml", []byte(`<behaviorTree><action id="s" name="spin"/></behaviorTree>`), LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		bound, err := Bind(tree, reg, BindOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1, 2} {
			b.Run(fmt.Sprintf("spin=%d/workers=%d", spin, n), func(b *testing.B) {
				const agents = 10000
				w := NewWorkers(n)
				w.Of = make([]int32, agents)
				envs := make([]*Env, n)
				all := make([]*Agent, agents)
				for i := range all {
					k := i * n / agents
					if envs[k] == nil {
						envs[k] = &Env{}
					}
					w.Of[i] = int32(k)
					all[i] = bound.NewAgent(fmt.Sprintf("a%d", i), envs[k])
				}
				b.ResetTimer()
				for done := 0; done < b.N; done += agents {
					if _, err := w.StepAt(all, float64(done/agents+1)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
