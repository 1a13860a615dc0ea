package lua

// btrun patch "framepush": its test.

import (
	"strings"
	"testing"
)

// Both frame stacks: calls nest and return, frames know their index (error
// positions and tracebacks walk them), and a runaway recursion is a stack
// overflow at the frame stack's end.
func TestPushFrame_bothStacks(t *testing.T) {
	for _, minimize := range []bool{false, true} {
		L := NewState(Options{CallStackSize: 64, MinimizeStackMemory: minimize})
		err := L.DoString(`
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
result = depth(40)
local function where() error("here") end
ok, msg = pcall(function() where() end)`)
		if err != nil {
			t.Fatalf("minimize %v: %v", minimize, err)
		}
		if got := L.GetGlobal("result"); got != LNumber(40) {
			t.Errorf("minimize %v: depth(40) = %v", minimize, got)
		}
		if msg := L.GetGlobal("msg").String(); !strings.Contains(msg, "<string>:4: here") {
			t.Errorf("minimize %v: error at %q", minimize, msg)
		}
		if fs, ok := L.stack.(*fixedCallFrameStack); ok {
			for i := 0; i < len(fs.array); i++ {
				if fs.array[i].Fn != nil && fs.array[i].Idx != i {
					t.Errorf("frame %d has index %d", i, fs.array[i].Idx)
				}
			}
		}
		err = L.DoString(`local function f() return 1 + f() end f()`)
		if err == nil || !strings.Contains(err.Error(), "stack overflow") {
			t.Errorf("minimize %v: runaway recursion: %v", minimize, err)
		}
		if L.stack.Sp() != 0 {
			t.Errorf("minimize %v: %d frames left", minimize, L.stack.Sp())
		}
		L.Close()
	}
}
