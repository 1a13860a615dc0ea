//go:build !unix

package runtime_test

import "time"

// cpuTime is the CPU time the process has used; not read on this system.
func cpuTime() (time.Duration, bool) { return 0, false }
