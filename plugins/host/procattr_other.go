//go:build !linux

package host

import (
	"os/exec"
	"syscall"
)

// Without Linux's parent-death signal, a plugin learns that btrun is gone
// through its lifeline (once it runs sdk.Serve) and a go build through its
// cancelled context.

func pluginAttr() *syscall.SysProcAttr { return nil }

func toolCommand(cmd *exec.Cmd) { cmd.WaitDelay = waitDelay }
