package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func t0() context.Context { return context.Background() }

// logCapture collects log lines, for tests to assert on.
type logCapture struct {
	mu    sync.Mutex
	lines []string
}

func (l *logCapture) log(level, msg string) {
	l.mu.Lock()
	l.lines = append(l.lines, level+": "+msg)
	l.mu.Unlock()
}

func (l *logCapture) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func TestStart_describesAndStops(t *testing.T) {
	var logs logCapture
	set, err := Start(t0(), []Spec{helperSpec("test", "plugin")}, Options{Logger: logs.log})
	if err != nil {
		t.Fatal(err)
	}
	info := set.Plugins()
	if len(info) != 1 || info[0].Pid == 0 || len(info[0].Description.Actions) != 13 || len(info[0].Description.Conditions) != 1 {
		t.Fatalf("plugins: %+v", info)
	}
	pid := info[0].Pid
	set.Close()
	if alive(pid) {
		t.Errorf("plugin pid %d still alive after Close", pid)
	}
	if strings.Contains(logs.text(), "[TRACE]") || strings.Contains(logs.text(), "@level") {
		t.Errorf("go-plugin's raw output leaked into the log:\n%s", logs.text())
	}
	if !strings.Contains(logs.text(), "info: plugin test: started") {
		t.Errorf("no start message in the log:\n%s", logs.text())
	}
}

// TestStart_badHandshakes starts programs that are not proper btrun plugins
// and checks that each error says what is wrong in plain words.
func TestStart_badHandshakes(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello"), 0o644)
	script := filepath.Join(dir, "hang.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755)
	cases := []struct {
		name string
		spec Spec
		want []string
	}{
		{"stdout before serving", helperSpec("chatty", "stdout"),
			[]string{"plugin chatty", `wrote "hello, I print before serving" on standard output where the go-plugin handshake was expected`, "before sdk.Serve"}},
		{"wrong protocol version", helperSpec("old", "version99"),
			[]string{"plugin old", "speaks btrun plugin protocol version 99, but this btrun speaks version 1", "rebuild the plugin"}},
		{"net/rpc", helperSpec("rpc", "netrpc"),
			[]string{"plugin rpc", "speaks the netrpc protocol; btrun plugins speak gRPC only"}},
		{"another application's plugin", helperSpec("alien", "othercookie"),
			[]string{"plugin alien", "is a go-plugin plugin of another application"}},
		{"not a plugin: exits silently", helperSpec("quiet", "silent-exit"),
			[]string{"plugin quiet", "is not a btrun plugin", "ended without the go-plugin handshake (exit status 0)"}},
		{"not a plugin: never answers", Spec{Name: "sleepy", Path: script},
			[]string{"plugin sleepy", "did not complete the go-plugin handshake in time: it is not a btrun plugin"}},
		{"not executable", Spec{Name: "text", Path: text},
			[]string{"plugin text", "is not executable"}},
		{"missing", Spec{Name: "gone", Path: "nowhere/plugin", Dir: dir},
			[]string{"plugin gone", "no such file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The case that never answers always reaches its start timeout,
			// however short; for the others it is a hang guard that the start
			// of a race-built helper on a loaded machine does not reach (5 s
			// was not always enough).
			timeout := 2 * time.Minute
			if c.spec.Name == "sleepy" {
				timeout = time.Second
			}
			set, err := Start(t0(), []Spec{c.spec}, Options{StartTimeout: timeout, Logger: func(string, string) {}})
			if err == nil {
				set.Close()
				t.Fatal("started")
			}
			if !errors.Is(err, ErrStart) {
				t.Errorf("error does not wrap ErrStart: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
