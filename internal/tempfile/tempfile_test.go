//go:build unix

package tempfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
)

func TestRemoveStale_removesOnlyTheLeftoversOfDeadProcesses(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, ".run.save")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	files := map[string]bool{ // name -> removed
		".run.save.tmp-" + dead + "-abc123":                        true,
		".run.save.tmp-4073709551":                                 true, // an older btrun's name
		".run.save.tmp-" + strconv.Itoa(os.Getppid()) + "-abc":     false,
		".run.save.tmp-" + strconv.Itoa(os.Getpid()) + "-abc":      false,
		".run.save.tmp-notapid":                                    false,
		".other.save.tmp-" + dead + "-abc":                         false,
		"run.save":                                                 false,
		".run.save.tmp-" + dead + "-fifo":                          false, // not a regular file
		".run.save.tmp-99999999999999999999999999999999999999-abc": true,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		var err error
		if name == ".run.save.tmp-"+dead+"-fifo" {
			err = syscall.Mkfifo(p, 0o644)
		} else {
			err = os.WriteFile(p, []byte("x"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := 0
	for _, removed := range files {
		if removed {
			want++
		}
	}
	if n := RemoveStale(prefix); n != want {
		t.Errorf("removed %d, want %d", n, want)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	sort.Strings(left)
	for name, removed := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if removed != os.IsNotExist(err) {
			t.Errorf("%s: removed %v, want %v (left: %v)", name, os.IsNotExist(err), removed, left)
		}
	}
}

func TestCreate_namesTheWriter(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "nav")
	f, err := Create(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pid, ok := writer(f.Name()[len(prefix+".tmp-"):]); !ok || pid != os.Getpid() {
		t.Errorf("%s: writer %d %v", f.Name(), pid, ok)
	}
}
