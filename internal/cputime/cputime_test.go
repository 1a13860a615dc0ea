package cputime

import (
	"os"
	"runtime"
	"testing"
)

// The CPU time read grows with work done, not with time waited, and a
// process that is not there is not read.
func TestSelf_growsWithWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before, ok := Self()
	if !ok {
		t.Fatal("cannot read this process's CPU time")
	}
	x := 0
	for i := 0; ; i++ { // work until the clock's 10 ms tick has passed at least twice
		x += i % 7
		if i%(1<<20) == 0 {
			if now, _ := Self(); now-before >= 20e6 {
				break
			}
		}
	}
	_ = x
	if byPid, ok := Of(os.Getpid()); !ok || byPid < before {
		t.Errorf("by pid: %v %v", byPid, ok)
	}
	if _, ok := Of(1 << 30); ok {
		t.Error("a process that does not exist was read")
	}
}
