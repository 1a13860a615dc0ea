package host

import (
	"os/exec"
	"syscall"
)

// Processes btrun starts die with it, however it dies (a crash, SIGKILL):
// Linux sends them SIGKILL when btrun's thread that started them ends
// (the parent-death signal, set at exec, so it holds before the plugin
// runs a line of its own: a plugin that hangs before sdk.Serve dies too).
// The Go runtime does not end its threads while the process runs, except
// for goroutines locked to one, which btrun does not start processes from.
//
// A `go build` runs in a process group of its own: when the build is
// cancelled (btrun stops) the whole group is killed, the compilers it
// started included. When btrun is killed outright, the go command dies
// with it and starts nothing more; a compiler already running finishes its
// one package and exits.

// pluginAttr is the SysProcAttr of a plugin process.
func pluginAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// toolCommand prepares a go command (build, list, env) to die with btrun
// and, when cancelled, to take its process group along.
func toolCommand(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay
}
