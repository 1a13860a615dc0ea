//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package luabind

import "time"

// cpuTime is unknown here: the watchdog counts every tick as busy.
func cpuTime() (time.Duration, bool) { return 0, false }
