package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashy runs the crashy fixture (a plugin that exits in the middle of the
// calls at t = 0.5 and 0.6) and returns the trace and the people's output
// without the closing summary (which reports wall-clock timings).
func crashy(t *testing.T, args ...string) (trace, people string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace.jsonl")
	r := run(t, "", append([]string{"run", "-config", fixture("crashy"), "-trace", out}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	people, _, _ = strings.Cut(r.stdout, "btrun: steps ")
	return string(data), people
}

// TestPlugin_crashedPluginRestartsWithinSteps: in a headless run whose steps
// take microseconds, a plugin that crashes during step 5 is restarted at
// step 6 (one step later), crashes again there, is restarted at step 8
// (the backoff doubles, in steps), and serves every call after that.
func TestPlugin_crashedPluginRestartsWithinSteps(t *testing.T) {
	trace, people := crashy(t)
	for _, want := range []string{
		"t=0.50 plugins warn: plugin crashy: its process exited (exit status 3) at step 5; restarting it at step 6\n",
		"t=0.60 plugins info: plugin crashy: restarted at step 6\n",
		"t=0.60 plugins warn: plugin crashy: its process exited (exit status 3) at step 6; restarting it at step 8\n",
		"t=0.80 plugins info: plugin crashy: restarted at step 8\n",
	} {
		if !strings.Contains(people, want) {
			t.Errorf("output lacks %q:\n%s", want, people)
		}
	}
	lines := strings.Split(strings.TrimSpace(trace), "\n")
	errorsAt := map[string]int{}
	for _, l := range lines {
		if strings.Contains(l, `"result":"error"`) {
			errorsAt[l[:strings.Index(l, ",")]]++
		}
	}
	want := map[string]int{`{"step":5`: 2, `{"step":6`: 2, `{"step":7`: 2}
	if len(errorsAt) != len(want) || errorsAt[`{"step":5`] != 2 || errorsAt[`{"step":6`] != 2 || errorsAt[`{"step":7`] != 2 {
		t.Errorf("error lines by step %v, want %v (both agents at steps 5, 6 and 7 only)", errorsAt, want)
	}
	for _, want := range []string{
		`{"step":5,"time":0.5,"agent":"worker-1","runs":[],"result":"error","cursor":"root","error":"ai/worker.xml:6:5: agent worker-1: rule root.work: action \"crashy.work\": host: plugin crashy crashed during the call (exit status 3); it is restarted"}`,
		`{"step":7,"time":0.7,"agent":"worker-2","runs":[],"result":"error","cursor":"root","error":"ai/worker.xml:6:5: agent worker-2: rule root.work: action \"crashy.work\": host: plugin crashy is not running (its process exited (exit status 3)); restarting it at step 8"}`,
		`{"step":8,"time":0.8,"agent":"worker-1","runs":[["root.work","success"],["root.ping","success"],["root.rest","running"]],"result":"running","cursor":"root.rest"}`,
	} {
		if !strings.Contains(trace, want+"\n") {
			t.Errorf("trace lacks %s", want)
		}
	}
}

// TestPlugin_crashingPluginGivesOneTrace: three runs with the same crashing
// plugin give byte-identical traces, and the same output for people (all
// but the closing summary's timings): failures and restarts are counted in
// steps, not wall-clock time.
func TestPlugin_crashingPluginGivesOneTrace(t *testing.T) {
	trace, people := crashy(t)
	for i := 2; i <= 3; i++ {
		tr, pe := crashy(t)
		if tr != trace {
			t.Errorf("run %d: the trace differs: %s", i, firstDifference(tr, trace))
		}
		if pe != people {
			t.Errorf("run %d: the output differs: %s", i, firstDifference(pe, people))
		}
	}
}

// TestPlugin_signalsAPluginSendsAreTraced: a signal a plugin sends for the
// agent to itself comes before the agent's step line, from the agent; one
// to another agent after every step line of the step, from the sender.
func TestPlugin_signalsAPluginSendsAreTraced(t *testing.T) {
	trace, people := crashy(t)
	want := `{"step":1,"time":0.1,"agent":"worker-1","signal":"Pinged","from":"worker-1"}
{"step":1,"time":0.1,"agent":"worker-1","runs":[["root.work","success"],["root.ping","success"],["root.rest","running"]],"result":"running","cursor":"root.rest"}
{"step":1,"time":0.1,"agent":"worker-2","signal":"Pinged","from":"worker-2"}
{"step":1,"time":0.1,"agent":"worker-2","signal":"Poked","from":"worker-2"}
{"step":1,"time":0.1,"agent":"worker-2","var":"Poked","value":true}
{"step":1,"time":0.1,"agent":"worker-2","runs":[["root.work","success"],["root.ping","success"],["root.rest","running"]],"result":"running","cursor":"root.rest"}
{"step":1,"time":0.1,"agent":"worker-2","signal":"Poked","from":"worker-1"}
`
	if !strings.HasPrefix(trace, want) {
		t.Errorf("trace starts\n%s\nwant\n%s", trace[:min(len(trace), len(want))], want)
	}
	// c.Log takes many values, like Lua's ctx:log.
	if !strings.Contains(people, "t=0.10 worker-1 log root.ping: pinged at 0.1 first run: true\n") {
		t.Errorf("output:\n%s", people)
	}
}
