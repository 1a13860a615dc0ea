package runtime

import (
	"testing"
	"unsafe"
)

// TestAgent_isSmall keeps the per-agent struct inside the 128-byte size
// class (two cache lines): a thousand agents on one tree cost a thousand
// small structs. (It was 112 until the host's value, read at every call of
// a host's action or condition, moved in from the extension.)
func TestAgent_isSmall(t *testing.T) {
	if size := unsafe.Sizeof(Agent{}); size > 128 {
		t.Errorf("Agent is %d bytes, want at most 128", size)
	}
}
