//go:build !unix

package main

import "time"

// cpuTime is 0 where the process's CPU time is not read: the harness's
// btrun row then says nothing (it is measured on Linux).
func cpuTime() time.Duration { return 0 }
