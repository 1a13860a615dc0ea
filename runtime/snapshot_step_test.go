package runtime

import (
	"math"
	"strings"
	"testing"
)

// TestSnapshot_stepBeyondTheLimitIsCorrupt: an agent snapshot whose step is
// beyond 2^53 (a crafted save) does not decode; it used to wrap to 0 at the
// agent's next step.
func TestSnapshot_stepBeyondTheLimitIsCorrupt(t *testing.T) {
	for _, step := range []uint64{math.MaxUint64, maxSavedStep + 1} {
		e := NewEncoder()
		e.Snapshot(&Snapshot{Tree: "t.xml", Cursor: "root", Step: step})
		d := NewDecoder(e.Bytes(), e.Strings())
		d.Snapshot()
		if err := d.Err(); err == nil || !strings.Contains(err.Error(), "beyond step 9007199254740992") {
			t.Errorf("step %d: %v", step, err)
		}
	}
	e := NewEncoder()
	e.Snapshot(&Snapshot{Tree: "t.xml", Cursor: "root", Step: maxSavedStep})
	d := NewDecoder(e.Bytes(), e.Strings())
	if s := d.Snapshot(); d.Err() != nil || s.Step != maxSavedStep {
		t.Errorf("step 2^53: %v", d.Err())
	}
}
