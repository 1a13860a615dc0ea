package game

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// guardsGame opens the live view's test game (Lua, a world script,
// signals, interruption) with a trace file and people's output in out.
func guardsGame(t *testing.T, trace string, out io.Writer) *Game {
	t.Helper()
	cfg, err := LoadConfig("../liveview/testdata/guards/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Trace: trace, Stdout: out, Stderr: out, SaveEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.OpenTrace(); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	return g
}

func steps(t *testing.T, g *Game, n int) {
	t.Helper()
	for range n {
		if _, err := g.runStep(); err != nil {
			t.Fatal(err)
		}
	}
}

func state(t *testing.T, g *Game) []byte {
	t.Helper()
	s, err := g.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSaveState_restoreGoesOnExactly: a state restored in memory goes on
// as the run it was saved from did.
func TestSaveState_restoreGoesOnExactly(t *testing.T) {
	g := guardsGame(t, "", io.Discard)
	steps(t, g, 30)
	at30 := state(t, g)
	steps(t, g, 20)
	at50 := state(t, g)
	if err := g.RestoreState(at30); err != nil {
		t.Fatal(err)
	}
	if g.Step() != 30 || !bytes.Equal(state(t, g), at30) {
		t.Fatalf("restored at step %d; the state differs from the one saved", g.Step())
	}
	steps(t, g, 20)
	if !bytes.Equal(state(t, g), at50) {
		t.Error("20 steps after the restore, the state differs from the run's")
	}
	if err := g.RestoreState(at30[:len(at30)-1]); err == nil || g.Step() != 50 {
		t.Errorf("a truncated state: %v, at step %d", err, g.Step())
	}
}

// TestQuietly_leavesNoTrace: steps replayed quietly, and a rewind, write
// nothing to the trace or the output; CutTrace takes lines back so that
// the trace goes on as a straight run's.
func TestQuietly_leavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	path := filepath.Join(dir, "trace.jsonl")
	g := guardsGame(t, path, &out)
	steps(t, g, 10)
	at10, off10 := state(t, g), g.host().TraceOffset()
	steps(t, g, 25) // past the Alarm at step 20: signals, logs, changes
	printed, written := out.Len(), g.host().TraceOffset()
	if err := g.host().Rewind(at10); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if err := g.host().ReplayStep(); err != nil {
			t.Fatal(err)
		}
	}
	if out.Len() != printed || g.host().TraceOffset() != written {
		t.Fatalf("quiet steps wrote %d bytes of output and %d of trace", out.Len()-printed, g.host().TraceOffset()-written)
	}
	if err := g.host().Rewind(at10); err != nil {
		t.Fatal(err)
	}
	if err := g.host().CutTrace(off10); err != nil {
		t.Fatal(err)
	}
	steps(t, g, 40)
	g.FlushTrace()
	got, _ := os.ReadFile(path)

	straightPath := filepath.Join(dir, "straight.jsonl")
	s := guardsGame(t, straightPath, io.Discard)
	steps(t, s, 50)
	s.FlushTrace()
	want, _ := os.ReadFile(straightPath)
	if !bytes.Equal(got, want) {
		t.Errorf("after a rewind and a cut, the trace (%d bytes) differs from a straight run's (%d bytes)", len(got), len(want))
	}
	if g.host().TraceKind() != "file" || s.host().TraceKind() != "file" {
		t.Errorf("trace kind %q", g.host().TraceKind())
	}
}

// TestCutTrace_stdoutCannotBeCut: a trace on standard output cannot be
// taken back.
func TestCutTrace_stdoutCannotBeCut(t *testing.T) {
	g := guardsGame(t, "-", io.Discard)
	steps(t, g, 3)
	if g.host().TraceKind() != "stdout" || g.host().CutTrace(0) != ErrTraceNotCut {
		t.Errorf("kind %q, cut %v", g.host().TraceKind(), g.host().CutTrace(0))
	}
}
