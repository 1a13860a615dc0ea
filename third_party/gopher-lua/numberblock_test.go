package lua

// btrun patch "numberblock": its test.

import "testing"

func TestNumberBlock_oneAllocationPerBlock(t *testing.T) {
	L := NewState()
	defer L.Close()
	v := LNumber(0.5)
	allocs := testing.AllocsPerRun(10, func() {
		for range 64 {
			v += 1
			if L.alloc.LNumber2I(v) == LNil {
				t.Fatal("no value")
			}
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations for 64 numbers, want at most 1", allocs)
	}
}
