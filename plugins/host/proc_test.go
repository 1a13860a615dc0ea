package host

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// alive reports whether a process exists and is not a zombie (a process
// re-parented to an init that does not reap stays a zombie: it is gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	// pid (comm) STATE ...; comm may hold spaces, so split after the last ')'.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
