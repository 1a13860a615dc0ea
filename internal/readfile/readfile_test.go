//go:build unix

package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead_refusesWhatIsNotARegularFileOrTooLarge(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.xml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.xml")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.xml")
	if err := os.WriteFile(ok, []byte("<behaviorTree/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       error
		text       string
	}{
		{"dev zero", "/dev/zero", ErrNotRegular, "/dev/zero: a character device, not a regular file; a tree file must be a regular file"},
		{"dev urandom", "/dev/urandom", ErrNotRegular, "a character device"},
		{"named pipe without writer", fifo, ErrNotRegular, "a named pipe, not a regular file"},
		{"folder", dir, ErrNotRegular, "a folder, not a regular file"},
		{"over the limit", big, ErrTooLarge, "larger than 1 KB, the limit for a tree file"},
		{"missing", filepath.Join(dir, "nope.xml"), os.ErrNotExist, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := Read(tc.path, 1024, "tree file")
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
					t.Fatalf("got %v; want %v containing %q", err, tc.want, tc.text)
				}
			case <-time.After(time.Minute): // a hang guard: Read answers at once
				t.Fatal("Read hangs")
			}
		})
	}
	data, err := Read(ok, 1024, "tree file")
	if err != nil || string(data) != "<behaviorTree/>" {
		t.Fatalf("Read(ok) = %q, %v", data, err)
	}
}

func TestSize_readsLikeAPerson(t *testing.T) {
	for n, want := range map[int64]string{32 << 20: "32 MB", 1 << 30: "1 GB", 1536: "1536 bytes", 3 << 10: "3 KB", 1<<20 + 1: "1.0 MB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
