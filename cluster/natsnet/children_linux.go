package natsnet

import "syscall"

// childAttr makes a shard process die with the conductor: Linux sends it
// SIGKILL when the thread that started it ends, which in a Go program is
// when the process ends (btrun starts processes from no goroutine locked to
// its thread).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
