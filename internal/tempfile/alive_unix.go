//go:build unix

package tempfile

import (
	"errors"
	"syscall"
)

// alive reports whether a process with this id may exist (a process of
// another user answers EPERM: it exists).
func alive(pid int) bool {
	if pid <= 0 || pid > 1<<22 {
		return false // beyond the largest process id Linux hands out
	}
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}
