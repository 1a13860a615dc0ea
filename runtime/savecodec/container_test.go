package savecodec

import (
	"strings"
	"testing"
)

// TestContainerSize_isWhatWriteContainerWrites: the size a writer checks
// against its bound is the length of the file it would write, for bodies
// and string tables whose lengths take one to several varint bytes.
func TestContainerSize_isWhatWriteContainerWrites(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 300, 20000} {
		e := NewEncoder()
		for i := range n {
			e.Uvarint(uint64(i))
			if i%7 == 0 {
				e.String(strings.Repeat("s", i%200) + string(rune('a'+i%26)) + strings.Repeat("x", i))
			}
		}
		for _, version := range []uint64{1, 200, 1 << 20} {
			if got, want := ContainerSize("BTRUNSAV", version, e), int64(len(WriteContainer("BTRUNSAV", version, e))); got != want {
				t.Errorf("%d values, version %d: ContainerSize %d, WriteContainer wrote %d", n, version, got, want)
			}
		}
	}
}

// TestContainer_isWriteContainerInReusedMemory: Encoder.Container gives
// WriteContainer's bytes, in the same memory from one call to the next.
func TestContainer_isWriteContainerInReusedMemory(t *testing.T) {
	e := NewEncoder()
	var first []byte
	for i := range 3 {
		e.Reset()
		for k := range 100 {
			e.String(string(rune('a' + k%26)))
			e.Uvarint(uint64(k))
		}
		want := WriteContainer("BTRUNSAV", 8, e)
		got := e.Container("BTRUNSAV", 8)
		if string(got) != string(want) {
			t.Fatalf("call %d: Container differs from WriteContainer", i)
		}
		if i == 0 {
			first = got[:1]
		} else if &got[0] != &first[0] {
			t.Fatalf("call %d: Container took new memory", i)
		}
	}
}
