package runtime

import "syscall"

// yieldCore lets another thread or process that is ready to run have this
// core (sched_yield); it returns at once when there is none.
func yieldCore() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
