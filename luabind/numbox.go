package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// numbers turns float64 values into lua.LValue without one heap allocation
// per value. Storing an LNumber in an interface makes Go allocate 8 bytes
// each time; on the hot path (ctx.time every step, params:number,
// bt.random) that would be several allocations per agent-step. Like
// gopher-lua's own allocator (alloc.go), numbers carves the values out of a
// slab of float64s and points the interface's data word at them: one
// allocation per slabSize values. Small whole numbers come from a shared
// table and allocate nothing.
//
// A slab is kept alive by any value that points into it; at 2 KiB a slab
// that is no longer wanted is cheap to keep.
type numbers struct {
	slab []float64
}

const slabSize = 256

// eface mirrors the layout of an interface value with methods: the itab
// pointer, then the data pointer.
type eface struct {
	itab unsafe.Pointer
	data unsafe.Pointer
}

var smallNumbers [256]lua.LValue

func init() {
	for i := range smallNumbers {
		smallNumbers[i] = lua.LNumber(i)
	}
}

// box returns v as a lua.LValue.
func (n *numbers) box(v float64) lua.LValue {
	if v >= 0 && v < float64(len(smallNumbers)) {
		if i := int(v); float64(i) == v && !(v == 0 && 1/v < 0) {
			return smallNumbers[i]
		}
	}
	if len(n.slab) == cap(n.slab) {
		n.slab = make([]float64, 0, slabSize)
	}
	n.slab = append(n.slab, v)
	var out lua.LValue = lua.LNumber(0) // a constant: Go stores no new value for it
	(*eface)(unsafe.Pointer(&out)).data = unsafe.Pointer(&n.slab[len(n.slab)-1])
	return out
}

// texts does for strings what numbers does for float64s: storing an
// LString in an interface makes Go allocate its 16-byte header each time.
type texts struct {
	slab []string
}

// box returns v as a lua.LValue.
func (t *texts) box(v string) lua.LValue {
	if v == "" {
		return lua.LString("")
	}
	if len(t.slab) == cap(t.slab) {
		t.slab = make([]string, 0, slabSize)
	}
	t.slab = append(t.slab, v)
	var out lua.LValue = lua.LString("") // a constant: Go stores no new value for it
	(*eface)(unsafe.Pointer(&out)).data = unsafe.Pointer(&t.slab[len(t.slab)-1])
	return out
}
