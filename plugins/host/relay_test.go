package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	set, err := Start(context.Background(), []Spec{{Name: "d", Path: "d", Dir: dir}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	info := set.Plugins()[0]
	if info.Pid != 0 || info.Executable != "" || len(info.Description.Actions) != 1 || !set.plugins[0].relayed {
		t.Errorf("%+v, relayed %v", info, set.plugins[0].relayed)
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
