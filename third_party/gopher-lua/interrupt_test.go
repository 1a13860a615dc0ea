package lua

// btrun patch "interrupt": its tests.

import (
	"strings"
	"testing"
	"time"
)

func TestInterrupt_stopsARunawayLoopAndResets(t *testing.T) {
	L := NewState()
	defer L.Close()
	in := &Interrupt{}
	L.SetInterrupt(in)
	go func() {
		time.Sleep(20 * time.Millisecond)
		in.Stop("stopped from outside")
	}()
	err := L.DoString("local n = 0\nwhile true do n = n + 1 end")
	if err == nil || !strings.Contains(err.Error(), "<string>:2: stopped from outside") {
		t.Fatalf("got %v, want the stop message at line 2", err)
	}
	if !in.Stopped() {
		t.Fatal("Stopped() = false after Stop")
	}
	if err := L.DoString("x = 1"); err == nil {
		t.Fatal("a stopped state ran on before Reset")
	}
	in.Reset()
	if err := L.DoString("x = 2"); err != nil || L.GetGlobal("x") != LNumber(2) {
		t.Fatalf("after Reset: %v, x = %v", err, L.GetGlobal("x"))
	}
}

func TestInterrupt_coroutinesShareTheStatesInterrupt(t *testing.T) {
	L := NewState()
	defer L.Close()
	in := &Interrupt{}
	L.SetInterrupt(in)
	in.Stop("stop")
	err := L.DoString(`local co = coroutine.create(function() while true do end end)
local ok, msg = coroutine.resume(co)
if ok then error("the coroutine ran") end
result = msg`)
	// The main chunk is stopped at its first instruction already.
	if err == nil || !strings.Contains(err.Error(), "stop") {
		t.Fatalf("got %v", err)
	}
	in.Reset()
	co, _ := L.NewThread()
	if co.interrupt != in {
		t.Fatal("a new thread does not share the Interrupt")
	}
}

func TestInterrupt_contextAndInterruptReplaceEachOther(t *testing.T) {
	L := NewState()
	defer L.Close()
	in := &Interrupt{}
	L.SetInterrupt(in)
	L.RemoveContext()
	in.Stop("stop")
	if err := L.DoString("x = 1"); err == nil {
		t.Fatal("RemoveContext dropped the Interrupt")
	}
	L.SetInterrupt(nil)
	if err := L.DoString("x = 1"); err != nil {
		t.Fatalf("after SetInterrupt(nil): %v", err)
	}
}
