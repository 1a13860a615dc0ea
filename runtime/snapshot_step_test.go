package runtime

import (
	"math"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// TestSnapshot_stepBeyondTheLimitIsCorrupt: an agent snapshot whose step is
// beyond 2^53 (a crafted save) does not decode; it used to wrap to 0 at the
// agent's next step.
func TestSnapshot_stepBeyondTheLimitIsCorrupt(t *testing.T) {
	for _, step := range []uint64{math.MaxUint64, maxSavedStep + 1} {
		e := savecodec.NewEncoder()
		EncodeSnapshot(e, &Snapshot{Tree: "t.xml", Cursor: "root", Step: step})
		d := savecodec.NewDecoder(e.Bytes(), e.Strings())
		DecodeSnapshot(d)
		if err := d.Err(); err == nil || !strings.Contains(err.Error(), "beyond step 9007199254740992") {
			t.Errorf("step %d: %v", step, err)
		}
	}
	e := savecodec.NewEncoder()
	EncodeSnapshot(e, &Snapshot{Tree: "t.xml", Cursor: "root", Step: maxSavedStep})
	d := savecodec.NewDecoder(e.Bytes(), e.Strings())
	if s := DecodeSnapshot(d); d.Err() != nil || s.Step != maxSavedStep {
		t.Errorf("step 2^53: %v", d.Err())
	}
}
