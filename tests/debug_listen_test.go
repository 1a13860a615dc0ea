package tests

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDebug_warnsOnlyWhenOthersCanReachIt: `-debug` warns when the live
// view listens where other machines reach it (all interfaces), and not for
// a loopback address, given as an address or as the name localhost.
func TestDebug_warnsOnlyWhenOthersCanReachIt(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{{"localhost:0", false}, {"127.0.0.1:0", false}, {"0.0.0.0:0", true}} {
		t.Run(c.addr, func(t *testing.T) {
			out := runDebugToQuit(t, "run", "-config", "testdata/fixtures/alarm/config.toml", "-steps", "1", "-debug", c.addr)
			warned := strings.Contains(out, "warning: the live view listens on")
			if warned != c.warn {
				t.Errorf("-debug %s: warned %v, want %v; output:\n%s", c.addr, warned, c.warn, out)
			}
		})
	}
}

// runDebugToQuit runs btrun with the live view, quits the run through the
// API once btrun says where the view is, and returns everything btrun
// wrote to its standard output and error.
func runDebugToQuit(t *testing.T, args ...string) string {
	t.Helper()
	cmd := command(args...)
	pr, pw := io.Pipe()
	all := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(pw, all), all
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	found := liveViewURL(pr)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	select {
	case url := <-found:
		resp, err := http.Post(url+"api/quit", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %sapi/quit: %s", url, resp.Status)
		}
	case err := <-done:
		t.Fatalf("btrun ended before it served the live view (%v):\n%s", err, all.String())
	case <-time.After(2 * time.Minute): // a hang guard only
		t.Fatalf("btrun did not say where the live view is:\n%s", all.String())
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("btrun: %v\n%s", err, all.String())
		}
	case <-time.After(2 * time.Minute): // a hang guard only
		t.Fatal("btrun did not end after quit")
	}
	return all.String()
}

// lockedBuffer is a bytes.Buffer that two streams may write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
