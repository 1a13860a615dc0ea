package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modes runs a test with the system's notifications and with polling.
func modes(t *testing.T, f func(t *testing.T, opts Options)) {
	for _, m := range []struct {
		name string
		opts Options
	}{{"notify", Options{}}, {"poll", Options{Poll: 20 * time.Millisecond}}} {
		t.Run(m.name, func(t *testing.T) { f(t, m.opts) })
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next batch (up to 10 s: a loaded machine).
func next(t *testing.T, w *Watcher) []string {
	t.Helper()
	select {
	case b := <-w.Changes():
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no batch within 10 s")
	}
	return nil
}

// none checks that no batch comes within d.
func none(t *testing.T, w *Watcher, d time.Duration) {
	t.Helper()
	select {
	case b := <-w.Changes():
		t.Fatalf("unexpected batch %q", b)
	case <-time.After(d):
	}
}

func start(t *testing.T, paths []string, opts Options) *Watcher {
	t.Helper()
	w, err := New(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestWatch_anEditorSaveIsOneBatch: a save the way editors do it (a
// backup, a temporary file written and renamed over the file, a swap file)
// is one batch naming the file; files next to it that are not watched
// count for nothing.
func TestWatch_anEditorSaveIsOneBatch(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		tree := filepath.Join(dir, "grunt.xml")
		write(t, tree, "<behaviorTree/>")
		write(t, filepath.Join(dir, "notes.txt"), "x")
		w := start(t, []string{tree}, opts)
		if w.Mode() != map[bool]string{true: "poll", false: "notify"}[opts.Poll > 0] {
			t.Errorf("mode %s", w.Mode())
		}
		write(t, filepath.Join(dir, "grunt.xml~"), "old")
		write(t, filepath.Join(dir, ".grunt.xml.swp"), "swap")
		tmp := filepath.Join(dir, "grunt.xml.tmp123")
		write(t, tmp, "<behaviorTree><success/></behaviorTree>")
		if err := os.Rename(tmp, tree); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "notes.txt"), "y")
		if got := next(t, w); strings.Join(got, ",") != tree {
			t.Errorf("batch %q, want [%s]", got, tree)
		}
		none(t, w, 400*time.Millisecond)
	})
}

// TestWatch_burstsAreDebounced: writes in quick succession to several
// files are one batch; a later write is another.
func TestWatch_burstsAreDebounced(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.lua"), filepath.Join(dir, "sub", "b.lua")
		write(t, a, "1")
		write(t, b, "1")
		opts.Debounce = 300 * time.Millisecond
		w := start(t, []string{dir}, opts)
		for i := range 5 {
			write(t, a, strings.Repeat("x", i+2))
			write(t, b, strings.Repeat("y", i+2))
			time.Sleep(10 * time.Millisecond)
		}
		if got := next(t, w); strings.Join(got, ",") != a+","+b {
			t.Errorf("batch %q", got)
		}
		// touch: a change of the modification time alone counts.
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(a, later, later); err != nil {
			t.Fatal(err)
		}
		if got := next(t, w); strings.Join(got, ",") != a {
			t.Errorf("batch %q", got)
		}
	})
}

// TestWatch_newFoldersAndRelevance: a folder created inside a watched one
// is watched too, and the files made in it count; Relevant filters.
func TestWatch_newFoldersAndRelevance(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		opts.Relevant = func(p string) bool { return strings.HasSuffix(p, ".go") }
		w := start(t, []string{dir}, opts)
		write(t, filepath.Join(dir, "README.md"), "x")
		none(t, w, 400*time.Millisecond)
		nested := filepath.Join(dir, "pkg", "deep", "x.go")
		write(t, nested, "package deep")
		if got := next(t, w); strings.Join(got, ",") != nested {
			t.Errorf("batch %q", got)
		}
		write(t, nested, "package deep // 2")
		if got := next(t, w); strings.Join(got, ",") != nested {
			t.Errorf("batch %q", got)
		}
	})
}

// TestWatch_setReplacesThePaths: after Set, a file watched before no longer
// counts and a new one does (a reloaded tree includes other files).
func TestWatch_setReplacesThePaths(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		old, added := filepath.Join(dir, "old.xml"), filepath.Join(dir, "new.xml")
		write(t, old, "1")
		w := start(t, []string{old}, opts)
		if err := w.Set([]string{added}); err != nil {
			t.Fatal(err)
		}
		write(t, old, "2")
		none(t, w, 400*time.Millisecond)
		write(t, added, "1")
		if got := next(t, w); strings.Join(got, ",") != added {
			t.Errorf("batch %q", got)
		}
	})
}

// TestWatch_pollSetKeepsWhatItSaw: with polling, a change made between
// the last scan and Set (a file saved while the game reloads) is still
// reported.
func TestWatch_pollSetKeepsWhatItSaw(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.xml"), filepath.Join(dir, "b.xml")
	write(t, a, "1")
	w := start(t, []string{a}, Options{Poll: time.Hour}) // scans only when Set or a test says
	write(t, a, "22")
	if err := w.Set([]string{a, b}); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	changed := diff(w.state, w.scan())
	w.mu.Unlock()
	if strings.Join(changed, ",") != a {
		t.Errorf("changed %q, want [%s]", changed, a)
	}
}
