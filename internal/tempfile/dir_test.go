//go:build unix

package tempfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A shard killed with SIGKILL leaves its folder; the next Dir of that name
// removes it, and leaves the folders of live processes and other names.
func TestDir_removesTheFoldersOfDeadProcesses(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	folders := map[string]bool{ // name -> removed
		"btrun-shard.tmp-" + dead + "-abc":                       true,
		"btrun-shard.tmp-" + strconv.Itoa(os.Getppid()) + "-abc": false, // alive
		"btrun-shard.tmp-notapid":                                false,
		"btrun-cluster.tmp-" + dead + "-abc":                     false, // another name
	}
	for name := range folders {
		p := filepath.Join(tmp, name, "plugins")
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "nav"), []byte("binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A file of a dead process is not a folder of Dir's: left alone.
	file := filepath.Join(tmp, "btrun-shard.tmp-"+dead+"-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := Dir("btrun-shard")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "btrun-shard.tmp-"+strconv.Itoa(os.Getpid())+"-") || filepath.Dir(dir) != tmp {
		t.Errorf("Dir made %s", dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v %v", dir, fi, err)
	}
	for name, removed := range folders {
		_, err := os.Stat(filepath.Join(tmp, name))
		if removed != os.IsNotExist(err) {
			t.Errorf("%s: removed %v, want %v", name, os.IsNotExist(err), removed)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("a file was removed: %v", err)
	}
	// This process's own folder survives the next Dir.
	if _, err := Dir("btrun-shard"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a live process's folder was removed: %v", err)
	}
}
