package cluster

import (
	"bytes"
	"testing"
)

// TestOut_keep: Keep's copies stay as they were when the writer's buffer
// is reused and when Keep's own buffer grows, until Reset; an empty line
// is nil.
func TestOut_keep(t *testing.T) {
	var o Out
	buf := []byte("first")
	first := o.Keep(buf)
	copy(buf, "XXXXX")
	big := bytes.Repeat([]byte("b"), 10000) // beyond the first buffer
	second := o.Keep(big)
	third := o.Keep([]byte("third"))
	if string(first) != "first" || !bytes.Equal(second, big) || string(third) != "third" {
		t.Fatalf("kept %q, %d bytes, %q", first, len(second), third)
	}
	if cap(first) != len(first) {
		t.Errorf("a kept copy has room %d past its end: an append to it would write over the next", cap(first)-len(first))
	}
	if o.Keep(nil) != nil || o.Keep([]byte{}) != nil {
		t.Error("an empty line kept as a slice, want nil")
	}
	o.Reset()
	again := o.Keep([]byte("again"))
	if string(again) != "again" || string(second[:1]) != "b" {
		t.Errorf("after Reset: %q, the last buffer's copy %q", again, second[:1])
	}
}
