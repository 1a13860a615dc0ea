package sdk

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

var logger atomic.Pointer[hclog.Logger]

func setLogger(l hclog.Logger) { logger.Store(&l) }

// Logf writes a message to the host's log (at info level), through the
// plugin's original standard error: the host routes it to its own logger.
// Use it instead of printing; standard output is the handshake channel.
func Logf(format string, args ...any) { logf("info", format, args...) }

// Warnf is Logf at warning level.
func Warnf(format string, args ...any) { logf("warn", format, args...) }

func logf(level, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l := logger.Load()
	if l == nil {
		fmt.Fprintf(os.Stderr, "[%s] %s\n", level, msg)
		return
	}
	(*l).Log(hclog.LevelFromString(level), msg)
}
