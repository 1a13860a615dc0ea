//go:build unix

package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it does not return in d: the cases
// below used to hang or exhaust memory. d is a hang guard, minutes, that a
// busy machine does not reach: what a case costs is measured by benchmarks,
// never judged here.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v: hangs", d)
	}
}

// TestLoad_hostileFilesAreCleanErrors: a tree or subtree file that is a
// device, a named pipe or too big is an error at its position, at once.
func TestLoad_hostileFilesAreCleanErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := write("huge.xml", "")
	if err := os.Truncate(huge, 33<<20); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	// Paths outside the root show relative to it ("../../dev/zero"), so the
	// cases name what the message starts with and the reason it gives.
	for _, tc := range []struct {
		name, file, start, reason string
	}{
		{"main file is /dev/zero", "/dev/zero", "", "dev/zero: cannot read tree file: a character device, not a regular file; a tree file must be a regular file"},
		{"main file is /dev/urandom", "/dev/urandom", "", "dev/urandom: cannot read tree file: a character device, not a regular file"},
		{"main file is a named pipe", filepath.Join(dir, "pipe.xml"), "pipe.xml: ", "cannot read tree file: a named pipe, not a regular file"},
		{"main file is too big", huge, "huge.xml: ", "cannot read tree file: larger than 32 MB, the limit for a tree file"},
		{"subtree is /dev/zero", write("zero.xml", bt("\n<subtree>/dev/zero</subtree>")),
			"zero.xml:2:1: cannot read subtree file ", "dev/zero: a character device, not a regular file; a tree file must be a regular file"},
		{"subtree is a named pipe", write("fifo.xml", bt("\n  <subtree>pipe.xml</subtree>")),
			"fifo.xml:2:3: ", "cannot read subtree file pipe.xml: a named pipe, not a regular file"},
		{"subtree is too big", write("big.xml", bt("<sequence id='r'>\n<subtree>huge.xml</subtree></sequence>")),
			"big.xml:2:1: ", "cannot read subtree file huge.xml: larger than 32 MB, the limit for a tree file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			within(t, 2*time.Minute, func() {
				_, err := LoadFile(tc.file, LoadOptions{Root: dir})
				if err == nil || !strings.HasPrefix(err.Error(), tc.start) || !strings.Contains(err.Error(), tc.reason) || strings.Contains(err.Error(), "\n") {
					t.Errorf("got  %v\nwant %s...%s", err, tc.start, tc.reason)
				}
			})
		})
	}
}

// TestLoad_idBytesAreBounded: ids that grow with the ids around them stop
// at a limit with an error at the rule, however the growth comes: deep
// nesting of ".a" (the fixture dotted_ids_deep.xml holds a short one) or a
// subtree file of long ids included many times.
func TestLoad_idBytesAreBounded(t *testing.T) {
	t.Run("dotted ids 9998 deep", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("<behaviorTree>\n")
		for range 9998 {
			b.WriteString("<sequence id='.a'>\n")
		}
		b.WriteString("<success/>")
		for range 9998 {
			b.WriteString("</sequence>")
		}
		b.WriteString("</behaviorTree>")
		within(t, 2*time.Minute, func() {
			_, err := loadMem(t, map[string]string{"main.xml": b.String()})
			want := "main.xml:514:1: id .a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a... (written .a) is 1026 bytes long"
			if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "\n") != 0 {
				t.Errorf("got  %.300v\nwant %s...", err, want)
			}
		})
	})
	t.Run("long ids through many subtrees", func(t *testing.T) {
		var sub, main strings.Builder
		sub.WriteString("<behaviorTree><sequence id='s'>")
		long := strings.Repeat("x", 1000)
		for i := range 1000 {
			sub.WriteString("<success id='" + long + "-" + itoa(i) + "'/>")
		}
		sub.WriteString("</sequence></behaviorTree>")
		main.WriteString("<behaviorTree><sequence id='r'>\n")
		for i := range 100 {
			main.WriteString("<subtree id='t" + itoa(i) + "'>sub.xml</subtree>\n")
		}
		main.WriteString("</sequence></behaviorTree>")
		within(t, 2*time.Minute, func() {
			_, err := loadMem(t, map[string]string{"main.xml": main.String(), "sub.xml": sub.String()})
			want := "sub.xml:1:"
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "the tree's ids and labels add up to more than 64 MB") {
				t.Errorf("got  %.300v\nwant %s... ids and labels add up ...", err, want)
			}
		})
	})
}
