//go:build unix

package runtime_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, all threads (the garbage
// collector's included); ok is false where it cannot be read.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
