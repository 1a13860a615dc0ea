package host

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// TestBatching_chunksKeepTheTrace sends the rounds' batches in pipelined
// chunks (made small, so that 60 agents' rounds are several chunks) and
// whole: the traces and the agents' data are identical, and the chunks
// are round trips of their own.
func TestBatching_chunksKeepTheTrace(t *testing.T) {
	defer func(c int) { chunkCalls = c }(chunkCalls)
	chunkCalls = 1 << 30
	whole, ws := runMixedN(t, 60, false)
	chunkCalls = 7
	chunked, cs := runMixedN(t, 60, false)
	if chunked != whole {
		cl, wl := strings.Split(chunked, "\n"), strings.Split(whole, "\n")
		for i := range min(len(cl), len(wl)) {
			if cl[i] != wl[i] {
				t.Fatalf("traces differ at line %d:\nchunked: %s\nwhole:   %s", i+1, cl[i], wl[i])
			}
		}
		t.Fatalf("traces differ in length: %d and %d lines", len(cl), len(wl))
	}
	if cs.Calls != ws.Calls || cs.RoundTrips <= ws.RoundTrips {
		t.Errorf("chunked %+v, whole %+v: the same calls, in more round trips, should travel", cs, ws)
	}
	t.Logf("whole: %d calls in %d round trips; chunked: %d round trips", ws.Calls, ws.RoundTrips, cs.RoundTrips)
}

func TestChunkCount(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 1}, {1, 1}, {chunkCalls, 1}, {2*chunkCalls - 1, 1}, {2 * chunkCalls, 2},
		{3*chunkCalls + 3, 3}, {100 * chunkCalls, maxChunks},
	} {
		if got := chunkCount(c.n); got != c.want {
			t.Errorf("chunkCount(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestFault_crashDuringChunkedBatch: the plugin dies while a batch sent in
// chunks is in flight. The batch fails as a whole, as one sent at once
// does: every agent's call fails with the crash, none with a reply.
func TestFault_crashDuringChunkedBatch(t *testing.T) {
	defer func(c int) { chunkCalls = c }(chunkCalls)
	chunkCalls = 2
	marker := filepath.Join(t.TempDir(), "crashed")
	xml := `<behaviorTree><sequence id="root"><action id=".go" name="test.crash"/></sequence></behaviorTree>`
	w := newWorld(t, xml, []Spec{helperSpec("test", "plugin", markerEnv+"="+marker)},
		Options{RestartMin: 20 * time.Millisecond}, 8, nil)
	before := w.set.Stats()
	for i, o := range w.step() {
		if o.Status != runtime.Errored || !errors.Is(o.Err, ErrCrashed) {
			t.Errorf("agent %d: %v %v, want the crash", i+1, o.Status, o.Err)
		}
	}
	if st := w.set.Stats(); st.Calls-before.Calls != 8 {
		t.Errorf("%d calls sent, want 8", st.Calls-before.Calls)
	}
}
