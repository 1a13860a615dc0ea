package rules

import (
	"github.com/btrun/btrun/runtime"
)

// NoRepeatTag is the tag of the "random without repeats" choice.
const NoRepeatTag = "noRepeat"

// noRepeatState is what a <noRepeat> remembers for an agent: the child it
// started with last time (1-based; 0 before the first time), and the
// children tried since it was entered, a bit each.
type noRepeatState struct {
	Last  int    // the child started with last time, from 1; 0 before the first time
	Tried uint64 // the children tried since it was entered, a bit each
}

// maxNoRepeatKids bounds a <noRepeat>'s children: its tried set is one
// word of state.
const maxNoRepeatKids = 64

// NoRepeat is <noRepeat>: a choice that tries its children one at a time
// in a random order, drawn from the agent's generator, whose first child
// is never the one it started with the time before (with two children or
// more): an idle guard does not look about twice in a row. It succeeds
// when a child succeeds and fails when every child failed. What it started
// with last is the agent's state: saved, and carried by a hot reload.
var NoRepeat = runtime.TypedRule[struct{}, noRepeatState]{
	Tag:         NoRepeatTag,
	Doc:         "tries its children one at a time in a random order that never starts with the child it started with the time before; succeeds when one succeeds, fails when all failed",
	MaxChildren: maxNoRepeatKids,
	Enter: func(a *runtime.Agent, _ *struct{}, s *noRepeatState, n int) (runtime.Next, error) {
		skip := uint64(0)
		if s.Last > 0 && n > 1 {
			skip = 1 << (s.Last - 1)
		}
		k := draw(a, n, skip)
		s.Last, s.Tried = k+1, 1<<k
		return runtime.RunChild(k), nil
	},
	ChildDone: func(a *runtime.Agent, _ *struct{}, s *noRepeatState, n, child int, res runtime.Status) (runtime.Next, error) {
		s.Tried |= 1 << child
		if res == runtime.Success || s.Tried == all(n) {
			return runtime.Finish(res), nil
		}
		return runtime.RunChild(draw(a, n, s.Tried)), nil
	},
}

// all is the tried set of n children, all tried.
func all(n int) uint64 {
	if n == 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// draw picks one of the n children not in the set out, uniformly, with one
// draw of the agent's generator: the k-th of them, k = floor(float() × m)
// for the m children left.
func draw(a *runtime.Agent, n int, out uint64) int {
	m := 0
	for i := range n {
		if out&(1<<i) == 0 {
			m++
		}
	}
	k := int(a.Rand().Float64() * float64(m))
	for i := range n {
		if out&(1<<i) != 0 {
			continue
		}
		if k == 0 {
			return i
		}
		k--
	}
	return n - 1 // not reached: m > 0 children are left
}

// Register registers the rule set in reg.
func Register(reg *runtime.Registry) error {
	d, err := NoRepeat.Def()
	if err != nil {
		return err
	}
	d.Origin = runtime.Origin{Kind: "go", Where: "btrun rules"}
	return reg.AddRule(d)
}
