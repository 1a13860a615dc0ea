package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// TestStart_startedLinesInTheirOrder: the plugins start at once, but their
// "started" lines come in the plugins' order, whichever was ready first
// (here the first waits before it serves), so a run's output is the same
// every time.
func TestStart_startedLinesInTheirOrder(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	set, err := Start(context.Background(), []Spec{
		helperSpec("a", "plugin", prefixEnv+"=a.", serveDelayEnv+"=700ms"),
		helperSpec("b", "plugin", prefixEnv+"=b."),
	}, Options{RestartMinSteps: 1, Logger: func(level, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if level == "info" && strings.Contains(msg, ": started: ") {
			lines = append(lines, msg[:strings.Index(msg, ":")])
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(lines, ", ") != "plugin a, plugin b" {
		t.Errorf("started lines of %q", lines)
	}
}

// TestRelay_answersCrossAsBytes: an answer carries each call's reply and
// the error of each call that failed, which still wraps its sentinel; bad
// bytes, or an answer to another number of calls, are errors.
func TestRelay_answersCrossAsBytes(t *testing.T) {
	replies := []sdk.Reply{{Status: sdk.Success, Effects: []sdk.Effect{{Kind: sdk.EffectLog, Name: "hi"}}}, {}, {OK: true}}
	errs := []error{nil, newErr("host: plugin p crashed during the call (exit status 3); it is restarted", ErrCrashed), nil}
	b, err := marshalAnswer(replies, errs)
	if err != nil {
		t.Fatal(err)
	}
	got, gotErrs, err := unmarshalAnswer(b, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Status != sdk.Success || len(got[0].Effects) != 1 || got[0].Effects[0].Name != "hi" || !got[2].OK {
		t.Errorf("replies %+v", got)
	}
	if gotErrs[0] != nil || gotErrs[2] != nil || gotErrs[1] == nil || gotErrs[1].Error() != errs[1].Error() || !errors.Is(gotErrs[1], ErrCrashed) {
		t.Errorf("errors %v", gotErrs)
	}
	if _, _, err := unmarshalAnswer(b, 2); err == nil {
		t.Error("an answer of 3 replies taken for 2 calls")
	}
	for i := range b {
		unmarshalAnswer(b[:i], 3) // no panic, whatever is cut
	}
	if _, err := sdk.UnmarshalBatch([]byte{0x12, 0x02, 0x10, 0x05}); err == nil {
		t.Error("a call naming a site the batch does not have")
	}
}

// TestRelay_declaredPluginStartsNoProcess: a plugin whose path holds its
// declarations (where it runs elsewhere) starts no process: it declares
// what the file says and is relayed. Declarations naming a cancel hook,
// or that are not JSON, are refused, naming the plugin.
func TestRelay_declaredPluginStartsNoProcess(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, d *sdk.Description) {
		b, err := Declarations(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("d", &sdk.Description{Plugin: "d", Actions: []sdk.ActionInfo{{Name: "d.act"}}, Conditions: []sdk.ConditionInfo{{Name: "d.cond"}}})
	var logged []string
	set, err := Start(context.Background(), []Spec{{Name: "d", Path: "d", Dir: dir}}, Options{Logger: func(level, msg string) { logged = append(logged, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	info := set.Plugins()[0]
	if info.Pid != 0 || info.Executable != "" || len(info.Description.Actions) != 1 || !set.plugins[0].relayed {
		t.Errorf("%+v, relayed %v", info, set.plugins[0].relayed)
	}
	if len(logged) != 1 || logged[0] != "plugin d: runs elsewhere: 1 action, 1 condition" {
		t.Errorf("logged %q", logged)
	}
	reg := runtime.NewRegistry()
	if err := set.Register(reg); err != nil {
		t.Fatal(err)
	}

	write("c", &sdk.Description{Plugin: "c", Actions: []sdk.ActionInfo{{Name: "c.act", HasCancel: true}}})
	if _, err := Start(context.Background(), []Spec{{Name: "c", Path: "c", Dir: dir}}, Options{}); !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "cancel hook (action c.act)") {
		t.Errorf("a cancel hook: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad"), []byte(declarationsMagic+"{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(context.Background(), []Spec{{Name: "bad", Path: "bad", Dir: dir}}, Options{}); !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "plugin bad: the declarations at ") {
		t.Errorf("bad declarations: %v", err)
	}
}

// relayVia is a resolver that relays a set's calls to another set, as a
// cluster's shard and conductor do: the held rounds go to RunRelayed as
// parts, and their answers back.
type relayVia struct {
	t                *testing.T
	shard, conductor *Set
}

func (r relayVia) EndRound(round []*runtime.Agent) error {
	if err := r.shard.EndRound(round); err != nil {
		return err
	}
	held, err := r.shard.Held(nil)
	if err != nil {
		return err
	}
	parts := make([]Part, len(held))
	for i, h := range held {
		if h.First == nil {
			r.t.Errorf("held round of %d calls without its first agent", h.Calls)
		}
		parts[i] = Part{Plugin: h.Plugin, Data: h.Data}
	}
	if err := r.conductor.RunRelayed(parts); err != nil {
		return err
	}
	for i, h := range held {
		if err := r.shard.Answer(h.Plugin, parts[i].Answer); err != nil {
			return err
		}
	}
	return nil
}

func (r relayVia) Continue(a *runtime.Agent) (runtime.Status, error, bool) {
	return r.shard.Continue(a)
}

// TestRelay_sameAsSent: agents whose plugin calls are relayed to another
// set (a plugin action with state bytes, a signal, a timestamp and field
// writes; a condition reading a field) step as those whose calls the set
// sends itself: the same trace and fields, step after step. Without the
// answer, an agent's call fails rather than resume with nothing.
func TestRelay_sameAsSent(t *testing.T) {
	data := func(i int) fields { return fields{"flag": i%2 == 0, "x": float64(i)} }
	specs := []Spec{helperSpec("test", "plugin")}
	plain := newWorld(t, countTree, specs, Options{}, 4, data)
	shard := newWorld(t, countTree, specs, Options{}, 4, data)
	conductor, err := Start(t0(), specs, Options{CallTimeout: time.Minute, StartTimeout: 2 * time.Minute, Logger: shard.logs.log})
	if err != nil {
		t.Fatal(err)
	}
	defer conductor.Close()
	if err := shard.set.Relay("test"); err != nil {
		t.Fatal(err)
	}
	rounds := runtime.Rounds{Resolvers: []runtime.Resolver{relayVia{t, shard.set, conductor}}}
	for range 5 {
		plain.step()
		if _, err := rounds.Step(shard.agents, func(a *runtime.Agent) (runtime.Status, error) {
			return a.StepAt(float64(a.StepCount()+1) * 0.1)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(plain.trace) < 20 {
		t.Fatalf("a trace of %d lines shows little", len(plain.trace))
	}
	if got, want := strings.Join(shard.trace, "\n"), strings.Join(plain.trace, "\n"); got != want {
		t.Errorf("relayed:\n%s\nwant\n%s", got, want)
	}
	for i := range plain.agents {
		if got, want := fmt.Sprint(shard.agents[i].UserData()), fmt.Sprint(plain.agents[i].UserData()); got != want {
			t.Errorf("agent %d: fields %s, want %s", i, got, want)
		}
	}
	if conductor.Stats().RoundTrips == 0 || shard.set.Stats().RoundTrips != 0 {
		t.Errorf("round trips: %d by the conductor's set, %d by the shard's", conductor.Stats().RoundTrips, shard.set.Stats().RoundTrips)
	}

	// A held round that gets no answer fails its agents' calls.
	shard.set.Relay("test")
	a := shard.agents[0]
	a.StepAt(float64(a.StepCount()+1) * 0.1)
	if err := shard.set.EndRound([]*runtime.Agent{a}); err != nil {
		t.Fatal(err)
	}
	if st, err, ok := shard.set.Continue(a); !ok || st != runtime.Errored || err == nil || !strings.Contains(err.Error(), "relayed and no answer came") {
		t.Errorf("no answer: %v %v %v", st, err, ok)
	}
}

// FuzzRelay_answer: an answer's bytes, whatever they are, are read or
// refused, never a panic, and what is read is one reply and one error
// slot per call.
func FuzzRelay_answer(f *testing.F) {
	good, err := marshalAnswer([]sdk.Reply{{Status: sdk.Running, State: []byte("s")}, {Err: "no"}},
		[]error{nil, newErr("host: plugin p did not answer", ErrTimeout)})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, 2)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, b []byte, calls int) {
		calls = calls & 0xff
		replies, errs, err := unmarshalAnswer(b, calls)
		if err == nil && (len(replies) != calls || len(errs) != calls) {
			t.Errorf("%d replies, %d errors for %d calls", len(replies), len(errs), calls)
		}
	})
}
