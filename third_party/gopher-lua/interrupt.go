package lua

// btrun patch "interrupt" (third_party/PATCHES.md): a stop flag that the VM
// checks before every instruction, as an alternative to SetContext. A
// context is checked with a select on its Done channel before every
// instruction, which costs about a tenth of a script's time; an atomic load
// of one pointer costs next to nothing (a plain load on amd64 and arm64).

import "sync/atomic"

// Interrupt stops the Lua code an LState runs from another goroutine: once
// Stop is called, the VM raises an error with Stop's message before the next
// instruction it runs (a Go function that is running is not interrupted:
// the check happens between VM instructions). It stays stopped until Reset.
// One Interrupt may be shared by several LStates (a state's threads share
// its Interrupt).
type Interrupt struct {
	msg atomic.Pointer[string]
}

// Stop asks the LStates using the Interrupt to raise msg at their next
// instruction. It is safe to call from any goroutine.
func (in *Interrupt) Stop(msg string) { in.msg.Store(&msg) }

// Reset clears the request, so that the LStates run on.
func (in *Interrupt) Reset() { in.msg.Store(nil) }

// Stopped reports whether Stop was called since the last Reset.
func (in *Interrupt) Stopped() bool { return in.msg.Load() != nil }

// SetInterrupt makes the LState check in before every instruction; nil
// removes the check. It replaces a context set with SetContext (the state
// checks one or the other), and SetContext replaces it; threads made by
// NewThread afterwards share it.
func (ls *LState) SetInterrupt(in *Interrupt) {
	ls.interrupt = in
	ls.ctx, ls.ctxCancelFn = nil, nil
	if in != nil {
		ls.mainLoop = mainLoopWithInterrupt
	} else {
		ls.mainLoop = mainLoop
	}
}

// mainLoopWithInterrupt is mainLoop with the Interrupt's check before every
// instruction, as mainLoopWithContext checks its context.
func mainLoopWithInterrupt(L *LState, baseframe *callFrame) {
	var inst uint32
	var cf *callFrame

	if L.stack.IsEmpty() {
		return
	}

	L.currentFrame = L.stack.Last()
	if L.currentFrame.Fn.IsG {
		callGFunction(L, false)
		return
	}

	in := L.interrupt
	for {
		cf = L.currentFrame
		inst = cf.Fn.Proto.Code[cf.Pc]
		cf.Pc++
		if msg := in.msg.Load(); msg != nil {
			L.RaiseError("%s", *msg)
			return
		}
		if jumpTable[int(inst>>26)](L, inst, baseframe) == 1 {
			return
		}
	}
}
