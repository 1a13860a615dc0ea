package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Benchmarks of plugin calls, each against the raw go-plugin gRPC round
// trip measured in the same run (BenchmarkRoundTrip_raw):
//
//	go test -run '^$' -bench . -benchtime 2s ./plugins/host

// benchFields is a benchmark agent's game data: one number field, x, held
// as a float64 and offered through NumberFields, as the Lua binding's agent
// tables offer theirs, so that the benchmark measures the calls rather than
// the boxing of numbers in a map of interfaces.
type benchFields struct{ x float64 }

func (f *benchFields) GetField(n string) (any, bool) {
	if n != "x" {
		return nil, false
	}
	return f.x, true
}

func (f *benchFields) SetField(n string, v any) error {
	if x, ok := v.(float64); ok && n == "x" {
		f.x = x
		return nil
	}
	return fmt.Errorf("benchFields: cannot set %s to %v", n, v)
}

func (f *benchFields) NumberField(n string) (float64, bool) { return f.x, n == "x" }

func (f *benchFields) SetNumberField(n string, v float64) error {
	if n != "x" {
		return fmt.Errorf("benchFields: no field %s", n)
	}
	f.x = v
	return nil
}

func benchWorld(b testing.TB, xml string, agents int, opts Options) *world {
	w := &world{}
	opts.Logger = func(string, string) {}
	set, err := Start(t0(), []Spec{helperSpec("test", "plugin")}, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { set.Close() })
	w.set = set
	return w.populate(b, xml, agents)
}

// populate binds xml to w's set and makes agents agents of it, each with
// its field x.
func (w *world) populate(b testing.TB, xml string, agents int) *world {
	reg := runtime.NewRegistry()
	if err := w.set.Register(reg); err != nil {
		b.Fatal(err)
	}
	tree, err := runtime.LoadBytes("bench.xml", []byte(xml), runtime.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if w.tree, err = runtime.Bind(tree, reg, runtime.BindOptions{}); err != nil {
		b.Fatal(err)
	}
	w.env = &runtime.Env{}
	data := make([]benchFields, agents)
	for i := range agents {
		a := w.tree.NewAgent(fmt.Sprintf("agent-%d", i+1), w.env)
		data[i].x = float64(i)
		a.SetUserData(&data[i])
		w.agents = append(w.agents, a)
	}
	return w
}

func stepAt(a *runtime.Agent) (runtime.Status, error) {
	return a.StepAt(float64(a.StepCount()+1) * 0.1)
}

// BenchmarkRoundTrip_raw is one empty gRPC call to a plugin process through
// go-plugin's connection: the floor for any plugin call.
func BenchmarkRoundTrip_raw(b *testing.B) {
	w := benchWorld(b, `<behaviorTree><action id="root" name="test.result"/></behaviorTree>`, 1, Options{})
	inst, err := w.set.plugins[0].current()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if err := inst.svc.Ping(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPluginCall_unbatched is one agent step whose only rule is a
// plugin action: the step pauses at the call, the call travels on its own
// (RunAction), the step resumes with the reply.
func BenchmarkPluginCall_unbatched(b *testing.B) {
	w := benchWorld(b, `<behaviorTree><action id="root" name="test.result"/></behaviorTree>`, 1, Options{Unbatched: true})
	out := make([]Outcome, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var err error
		out, err = StepAllInto(out, w.agents, stepAt, w.set)
		if err != nil || out[0].Status != runtime.Success {
			b.Fatal(out[0], err)
		}
	}
}

// BenchmarkBatched_10000agents steps 10,000 agents whose tree calls a plugin
// action every step (test.move: reads field x, writes it back); one op is
// one step of all of them: one batch of 10,000 calls.
func BenchmarkBatched_10000agents(b *testing.B) {
	const n = 10000
	w := benchWorld(b, `<behaviorTree><action id="root" name="test.move"/></behaviorTree>`, n, Options{CallTimeout: 10 * time.Second})
	out := make([]Outcome, n)
	pid := w.set.Plugins()[0].Pid
	b.ReportAllocs()
	b.ResetTimer()
	start, host, plugin := time.Now(), processCPU(0), processCPU(pid)
	for range b.N {
		var err error
		out, err = StepAllInto(out, w.agents, stepAt, w.set)
		if err != nil || out[0].Status != runtime.Success {
			b.Fatal(out[0], err)
		}
	}
	wall := time.Since(start)
	b.ReportMetric(float64(n*b.N)/wall.Seconds(), "calls/s")
	b.ReportMetric(float64(wall.Nanoseconds())/float64(n*b.N), "ns/call")
	// The CPU time of each process: how much of two cores a round keeps
	// busy (host and plugin taking turns use at most one).
	if host >= 0 && plugin >= 0 {
		host, plugin = processCPU(0)-host, processCPU(pid)-plugin
		b.ReportMetric(float64(host.Nanoseconds())/float64(n*b.N), "host-cpu-ns/call")
		b.ReportMetric(float64(plugin.Nanoseconds())/float64(n*b.N), "plugin-cpu-ns/call")
		b.ReportMetric(float64(host+plugin)/float64(wall), "cores")
	}
}

// processCPU is the CPU time (user and system) process pid has used, this
// one for 0, from /proc; -1 where there is none to read.
func processCPU(pid int) time.Duration {
	path := "/proc/self/stat"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/stat", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	// Fields after the command's closing parenthesis: utime and stime are
	// the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+st) * 10 * time.Millisecond
}

// TestBatched_allocatesPerRoundNotPerCall: once the rounds have reached
// their size, a step of 2,000 agents that each call a plugin action (a
// field read and written) allocates on the host a few times per round, far
// below one allocation per call; also for a set shared by workers (which
// reads each call's fields into a buffer on the stack before it locks).
func TestBatched_allocatesPerRoundNotPerCall(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		t.Run(fmt.Sprintf("concurrent=%v", concurrent), func(t *testing.T) {
			testBatchedAllocations(t, concurrent)
		})
	}
}

func testBatchedAllocations(t *testing.T, concurrent bool) {
	const n = 2000
	w := benchWorld(t, `<behaviorTree><action id="root" name="test.move"/></behaviorTree>`, n, Options{CallTimeout: time.Minute}) // a hang guard
	w.set.SetConcurrent(concurrent)
	out := make([]Outcome, n)
	step := func() {
		var err error
		out, err = StepAllInto(out, w.agents, stepAt, w.set)
		if err != nil || out[0].Status != runtime.Success {
			t.Fatal(out[0], err)
		}
	}
	for range 3 {
		step()
	}
	allocs := testing.AllocsPerRun(10, step)
	if allocs/n >= 0.5 {
		t.Errorf("%.0f allocations for %d calls: %.2f per call", allocs, n, allocs/n)
	}
	t.Logf("%.0f allocations for %d calls", allocs, n)
	if x := w.agents[7].UserData().(*benchFields).x; x != 7+14 {
		t.Errorf("agent 8's x is %v after 14 moves of 1 (3, and 1+10 by AllocsPerRun), want 21", x)
	}
}

// BenchmarkPluginCall_vsRaw alternates a raw round trip (Ping) and an
// unbatched plugin action call on the same connection, so that both see the
// same machine load, and reports both and their ratio. One op is one of
// each.
func BenchmarkPluginCall_vsRaw(b *testing.B) {
	w := benchWorld(b, `<behaviorTree><action id="root" name="test.result"/></behaviorTree>`, 1, Options{Unbatched: true})
	inst, err := w.set.plugins[0].current()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	out := make([]Outcome, 1)
	var raw, call time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := inst.svc.Ping(ctx); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		out, err = StepAllInto(out, w.agents, stepAt, w.set)
		if err != nil || out[0].Status != runtime.Success {
			b.Fatal(out[0], err)
		}
		raw += t1.Sub(t0)
		call += time.Since(t1)
	}
	b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "raw-ns/op")
	b.ReportMetric(float64(call.Nanoseconds())/float64(b.N), "call-ns/op")
	b.ReportMetric(float64(call)/float64(raw), "call/raw")
}

// BenchmarkBatched_hostInProcess is the host's side of
// BenchmarkBatched_10000agents alone: the plugin is a Service in this
// process (moveService, which does what test.move does, without a codec,
// a socket or a process), so that callgrind counts the host's own work per
// call exactly: stepping each agent to its call, queueing it, handing the
// chunks over, resuming the agents with their replies. The host's share of
// the codec is sdk's BenchmarkWire_host.
func BenchmarkBatched_hostInProcess(b *testing.B) {
	const n = 10000
	w := inProcessWorld(b, `<behaviorTree><action id="root" name="test.move"/></behaviorTree>`, n, moveService{})
	out := make([]Outcome, n)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var err error
		if out, err = StepAllInto(out, w.agents, stepAt, w.set); err != nil || out[0].Status != runtime.Success {
			b.Fatal(out[0], err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/call")
}

// inProcessWorld is benchWorld with a set whose one plugin, test, is svc
// in this process, declaring test.move: no process is started (callgrind
// cannot follow the start of one).
func inProcessWorld(b testing.TB, xml string, agents int, svc sdk.Service) *world {
	opts := Options{Logger: func(string, string) {}}
	opts.defaults()
	set := &Set{opts: opts, log: opts.Logger}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	p := &plugin{set: set, spec: Spec{Name: "test"}, desc: &sdk.Description{Plugin: "test",
		Actions: []sdk.ActionInfo{{Name: "test.move", Reads: []string{"x"}, Writes: []string{"x"}}}}}
	p.inst = &instance{svc: svc, ctx: ctx, cancel: cancel, done: make(chan struct{}), started: time.Now()}
	set.plugins = []*plugin{p}
	return (&world{set: set}).populate(b, xml, agents)
}

// moveService answers batches of test.move in this process: x+1 written,
// success; the replies' writes in the arrays out already holds.
type moveService struct{ sdk.Service }

func (moveService) RunBatch(_ context.Context, b *sdk.Batch, out []sdk.Reply) ([]sdk.Reply, error) {
	if cap(out) < len(b.Calls) {
		out = make([]sdk.Reply, len(b.Calls))
	}
	out = out[:len(b.Calls)]
	for i := range b.Calls {
		w := append(out[i].Writes[:0], sdk.Value{Kind: sdk.ValueNumber, Num: b.Calls[i].Fields[0].Num + 1})
		out[i] = sdk.Reply{Status: sdk.Success, Writes: w}
	}
	return out, nil
}
