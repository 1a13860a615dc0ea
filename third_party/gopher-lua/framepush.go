package lua

// btrun patch "framepush" (third_party/PATCHES.md): a call frame is pushed
// straight into the fixed-size frame stack, the one an LState has unless
// Options.MinimizeStackMemory is set. Upstream pushes it through the
// callFrameStack interface: a dynamic call of IsFull, Push (which copies
// the frame, about a hundred bytes, as an argument and again into the
// stack) and Last at every call of a function, which the Go compiler cannot
// inline (about 250 of the example game's ~13,000 instructions per
// agent-step).

// pushFrame pushes a copy of cf on the state's frame stack and returns it.
func (ls *LState) pushFrame(cf *callFrame) *callFrame {
	if fs, ok := ls.stack.(*fixedCallFrameStack); ok {
		if fs.sp == len(fs.array) {
			ls.RaiseError("stack overflow")
		}
		f := &fs.array[fs.sp]
		*f = *cf
		f.Idx = fs.sp
		fs.sp++
		return f
	}
	if ls.stack.IsFull() {
		ls.RaiseError("stack overflow")
	}
	ls.stack.Push(*cf)
	return ls.stack.Last()
}
