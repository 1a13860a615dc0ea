package lua

// btrun patch "boxedkeys": its test.

import "testing"

func TestBoxedKeys_newConstantKeysAllocateNothing(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`function fill(t) t.alpha = 1; t.beta = 2; t.gamma = 3; rawset(t, "delta", 4) end`); err != nil {
		t.Fatal(err)
	}
	fill := L.GetGlobal("fill")
	const runs = 100
	tables := make([]*LTable, runs+1)
	for i := range tables {
		// Storage made beforehand: what is counted is setting four keys
		// new to the table (a table reused after a reset, as btrun's
		// ctx.state, has it).
		tb := newLTable(0, 4)
		tb.skeys, tb.svals = make([]string, 0, 4), make([]LValue, 0, 4)
		tb.keys, tb.k2i = make([]LValue, 0, 4), make(map[LValue]int, 4)
		tb.k2i[LTrue] = 0 // a Go map makes its storage at its first entry
		clear(tb.k2i)
		tables[i] = tb
	}
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		if err := L.CallByParam(P{Fn: fill, Protect: true}, tables[i]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations to set 4 new constant keys; want 0 (each boxed once, by the compiler)", allocs)
	}
	if tables[0].RawGetString("gamma") != LNumber(3) || tables[0].RawGetString("delta") != LNumber(4) {
		t.Error("keys not set")
	}
}
