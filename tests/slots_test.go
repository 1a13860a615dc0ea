package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSlots_workersGiveTheSameTraceAndSave: the slots fixture (grafts from
// Lua, composites bound on whichever worker needs them first) gives a
// byte-identical trace and save on 1, 2 and 3 workers.
func TestSlots_workersGiveTheSameTraceAndSave(t *testing.T) {
	dir := t.TempDir()
	var wantTrace, wantSave []byte
	for _, n := range []string{"1", "2", "3"} {
		trace, save := filepath.Join(dir, n+".trace"), filepath.Join(dir, n+".save")
		if r := run(t, "", "run", "-config", fixture("slots"), "-workers", n, "-trace", trace, "-save", save, "-quiet"); r.code != 0 {
			t.Fatalf("-workers %s: exit %d: %s", n, r.code, r.stderr)
		}
		gotTrace, _ := os.ReadFile(trace)
		gotSave, _ := os.ReadFile(save)
		if !bytes.Contains(gotTrace, []byte(`"use.man.fire.aim.load"`)) {
			t.Fatalf("-workers %s: no grafted rule in the trace", n)
		}
		if wantTrace == nil {
			wantTrace, wantSave = gotTrace, gotSave
			continue
		}
		if !bytes.Equal(gotTrace, wantTrace) || !bytes.Equal(gotSave, wantSave) {
			t.Errorf("-workers %s: the trace or the save differs from -workers 1's", n)
		}
	}
}
