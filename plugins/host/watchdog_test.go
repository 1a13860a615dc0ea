package host

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchdog_pluginExitsWhenHostIsKilled starts a helper host process
// that runs a plugin, kills the host with SIGKILL (no chance to clean up),
// and checks that the plugin process goes.
func TestWatchdog_pluginExitsWhenHostIsKilled(t *testing.T) {
	killHostAndWatchPlugin(t, "host")
}

// TestWatchdog_withoutLifelineByParentPid: a plugin started by some other
// host (no lifeline) still exits when its parent dies, by its parent pid.
func TestWatchdog_withoutLifelineByParentPid(t *testing.T) {
	killHostAndWatchPlugin(t, "host-nolifeline")
}

func killHostAndWatchPlugin(t *testing.T, mode string, env ...string) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper host: %v (%q)", err, line)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "pid "))
	if err != nil || pid <= 0 {
		t.Fatalf("helper host said %q", line)
	}
	if !alive(pid) {
		t.Fatalf("plugin %d is not running before the host is killed", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The plugin goes at once (its lifeline pipe closes, or the kernel's
	// parent-death signal comes), or at its next look at its parent's pid
	// (every 250 ms). The bound is a hang guard a busy machine does not
	// reach, not a measure: a plugin that outlives its host lives on for
	// good.
	const guard = time.Minute
	killed := time.Now()
	for alive(pid) {
		if time.Since(killed) > guard {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("plugin %d still running %v after its host was killed", pid, guard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
