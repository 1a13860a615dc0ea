package runtime

import (
	"testing"
	"unsafe"
)

// TestAgent_isSmall keeps the per-agent struct inside the 112-byte size
// class: a thousand agents on one tree cost a thousand small structs.
func TestAgent_isSmall(t *testing.T) {
	if size := unsafe.Sizeof(Agent{}); size > 112 {
		t.Errorf("Agent is %d bytes, want at most 112", size)
	}
}
