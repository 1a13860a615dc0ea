//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A plugin killed with SIGKILL cannot remove its Unix socket; before, each
// left a file in the system's temporary folder (thousands after a day of
// tests). The Set's plugins make their sockets in a folder of the Set's,
// which Close removes.
func TestClose_leavesNoSocketsBehind(t *testing.T) {
	tmp, err := os.MkdirTemp("", "s") // short: a socket's path is at most 103 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMPDIR", tmp)
	set, err := Start(t0(), []Spec{helperSpec("test", "plugin")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sockets, _ := filepath.Glob(filepath.Join(tmp, "btrun-sock.tmp-*", "plugin*"))
	if len(sockets) != 1 {
		t.Errorf("the plugin's socket is not in the Set's folder: %v", sockets)
	}
	if err := syscall.Kill(set.Plugins()[0].Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	set.Close()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "go-build") { // the helper is this test binary, not built here
			left = append(left, e.Name())
		}
	}
	if len(left) != 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}

// A temporary folder whose path leaves no room for a folder of ours: the
// Set's folder is made in /tmp instead, and removed by Close.
func TestStart_longTemporaryFolder(t *testing.T) {
	base := t.TempDir() // already long when TMPDIR is: pad it to 60 bytes at least
	tmp := filepath.Join(base, strings.Repeat("d", max(1, 60-len(base))))
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	set, err := Start(t0(), []Spec{helperSpec("test", "plugin")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := set.opts.socketDir
	if filepath.Dir(dir) != "/tmp" {
		t.Errorf("the sockets' folder is %q, not in /tmp", dir)
	}
	if err := syscall.Kill(set.Plugins()[0].Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	set.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is left: %v", dir, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}
