package watch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests with real files wait for what they expect (a batch naming a
// file, a notice) as long as a loaded machine takes, up to a guard against
// a hang; none judges how long anything took. What is not reported is
// shown by a later change that is: batches come in the order of the
// changes, so a change that counted would have come with or before it. The
// debounce itself is the batcher's, tested with times the test gives.

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

// hang bounds every wait: nothing here takes a second unless it is stuck.
const hang = time.Minute

// until reads batches until every path in want has been reported, and
// returns every path reported meanwhile.
func until(t *testing.T, w *Watcher, want ...string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	timeout := time.After(hang)
	for {
		missing := slices.DeleteFunc(slices.Clone(want), func(p string) bool { return seen[p] })
		if len(missing) == 0 {
			return seen
		}
		select {
		case b := <-w.Changes():
			if !slices.IsSorted(b) {
				t.Errorf("batch %q is not sorted", b)
			}
			for _, p := range b {
				seen[p] = true
			}
		case <-timeout:
			t.Fatalf("%q not reported within %v (reported: %v)", missing, hang, seen)
		}
	}
}

// never fails if any of paths was reported.
func never(t *testing.T, seen map[string]bool, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if seen[p] {
			t.Errorf("%s was reported: %v", p, seen)
		}
	}
}

// notice waits for a notice containing text.
func notice(t *testing.T, w *Watcher, text string) {
	t.Helper()
	timeout := time.After(hang)
	var got []string
	for {
		select {
		case n := <-w.Notices():
			s := n.Text(n.Path)
			if strings.Contains(s, text) {
				return
			}
			got = append(got, s)
		case <-timeout:
			t.Fatalf("no notice with %q within %v (notices: %q)", text, hang, got)
		}
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

// TestWatch_anEditorSaveNamesTheFile: a save the way editors do it (a
// backup, a temporary file written and renamed over the file, a swap file)
// reports the file and nothing else; a file next to it that is not watched
// counts for nothing.
func TestWatch_anEditorSaveNamesTheFile(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		tree := filepath.Join(dir, "grunt.xml")
		write(t, tree, "<behaviorTree/>")
		notes := filepath.Join(dir, "notes.txt")
		write(t, notes, "x")
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
		seen := until(t, w, tree)
		write(t, notes, "y")
		write(t, tree, "<behaviorTree><failure/></behaviorTree>") // reported after notes.txt would be
		for p := range until(t, w, tree) {
			seen[p] = true
		}
		if len(seen) != 1 {
			t.Errorf("reported %v, want only %s", seen, tree)
		}
	})
}

// TestWatch_changesInAFolderAreReported: writes to files in a watched
// folder and its subfolder are reported, and so is a change of the
// modification time alone (a touch).
func TestWatch_changesInAFolderAreReported(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.lua"), filepath.Join(dir, "sub", "b.lua")
		write(t, a, "1")
		write(t, b, "1")
		w := start(t, []string{dir}, opts)
		for i := range 5 {
			write(t, a, strings.Repeat("x", i+2))
			write(t, b, strings.Repeat("y", i+2))
		}
		until(t, w, a, b)
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(a, later, later); err != nil {
			t.Fatal(err)
		}
		until(t, w, a)
	})
}

// TestWatch_newFoldersAndRelevance: a folder created inside a watched one
// is watched too, and the files made in it count; Relevant filters.
func TestWatch_newFoldersAndRelevance(t *testing.T) {
	modes(t, func(t *testing.T, opts Options) {
		dir := t.TempDir()
		opts.Relevant = func(p string) bool { return strings.HasSuffix(p, ".go") }
		w := start(t, []string{dir}, opts)
		readme := filepath.Join(dir, "README.md")
		write(t, readme, "x")
		nested := filepath.Join(dir, "pkg", "deep", "x.go")
		write(t, nested, "package deep")
		never(t, until(t, w, nested), readme)
		write(t, readme, "y")
		write(t, nested, "package deep // 2")
		never(t, until(t, w, nested), readme)
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
		write(t, added, "1")
		never(t, until(t, w, added), old)
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

// TestWatch_lostFolderIsWatchedAgain: a watched folder (with a subfolder),
// and the folder of a watched file, renamed away and back or deleted and
// made again (as a git checkout does) are watched again: the notices say
// so, the files in them are reported (they may have changed), and later
// edits are reported as before.
func TestWatch_lostFolderIsWatchedAgain(t *testing.T) {
	for _, how := range []string{"renamedAwayAndBack", "deletedAndMadeAgain"} {
		t.Run(how, func(t *testing.T) {
			modes(t, func(t *testing.T, opts Options) {
				dir := t.TempDir()
				ai, trees := filepath.Join(dir, "ai"), filepath.Join(dir, "trees")
				lua, deep, tree := filepath.Join(ai, "a.lua"), filepath.Join(ai, "sub", "b.lua"), filepath.Join(trees, "t.xml")
				files := map[string]string{lua: "1", deep: "1", tree: "<behaviorTree/>"}
				for p, text := range files {
					write(t, p, text)
				}
				w := start(t, []string{ai, tree}, opts)
				for _, folder := range []string{ai, trees} {
					switch how {
					case "renamedAwayAndBack":
						if err := os.Rename(folder, folder+".away"); err != nil {
							t.Fatal(err)
						}
						if opts.Poll == 0 {
							notice(t, w, "watch: "+folder+" was removed or renamed")
						}
						if err := os.Rename(folder+".away", folder); err != nil {
							t.Fatal(err)
						}
					case "deletedAndMadeAgain":
						if err := os.RemoveAll(folder); err != nil {
							t.Fatal(err)
						}
						if opts.Poll == 0 {
							notice(t, w, "watch: "+folder+" was removed or renamed")
						}
						// The game reloads on the files gone, and sets the
						// paths again while the folder is not there.
						if err := w.Set([]string{ai, tree}); err != nil {
							t.Fatal(err)
						}
						for p, text := range files {
							if strings.HasPrefix(p, folder+string(filepath.Separator)) {
								write(t, p, text+" again")
							}
						}
					}
					if opts.Poll == 0 {
						notice(t, w, "watch: "+folder+" is there again; watching it again")
					}
				}
				// Edits after the watches are back: a new file, and files
				// edited in place (each reported by a live watch; a file
				// made after the watch came back was not in its report).
				fresh := filepath.Join(ai, "sub", "c.lua")
				write(t, fresh, "new")
				until(t, w, fresh)
				write(t, deep, "edited")
				write(t, tree, "<behaviorTree><success/></behaviorTree>")
				until(t, w, deep, tree)
				fresh2 := filepath.Join(trees, "t2.xml")
				write(t, fresh2, "<behaviorTree/>") // not watched: only t.xml is
				write(t, lua, "edited")
				never(t, until(t, w, lua), fresh2)
			})
		})
	}
}

// TestBatcher_aBurstIsOneBatch: changes that follow each other closer than
// the debounce make one batch, ready the debounce after the last; a change
// after it was taken starts another.
func TestBatcher_aBurstIsOneBatch(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	b := batcher{debounce: 300 * time.Millisecond, maxDelay: 2 * time.Second, pending: map[string]bool{}}
	if _, ok := b.due(); ok {
		t.Fatal("an empty batcher has a batch due")
	}
	for i := range 5 { // two files written five times, 10 ms apart
		b.add("/g/a.lua", t0.Add(time.Duration(2*i)*10*time.Millisecond))
		b.add("/g/sub/b.lua", t0.Add(time.Duration(2*i+1)*10*time.Millisecond))
	}
	if due, ok := b.due(); !ok || !due.Equal(t0.Add(390*time.Millisecond)) {
		t.Errorf("due at %v (%v), want 390ms after the first change", due.Sub(t0), ok)
	}
	if got := b.sorted(); strings.Join(got, ",") != "/g/a.lua,/g/sub/b.lua" {
		t.Errorf("batch %q", got)
	}
	b.clear()
	b.add("/g/a.lua", t0.Add(5*time.Second))
	if due, ok := b.due(); !ok || !due.Equal(t0.Add(5300*time.Millisecond)) || strings.Join(b.sorted(), ",") != "/g/a.lua" {
		t.Errorf("the next batch: due at %v (%v), %q", due.Sub(t0), ok, b.sorted())
	}
}

// TestBatcher_aFileWrittenContinuouslyIsReported: changes that never stop
// still make a batch, MaxDelay after the first.
func TestBatcher_aFileWrittenContinuouslyIsReported(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	b := batcher{debounce: 150 * time.Millisecond, maxDelay: 2 * time.Second, pending: map[string]bool{}}
	for i := range 30 { // every 100 ms for 3 s: never quiet for the debounce
		now := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		b.add("/g/log.lua", now)
		due, _ := b.due()
		if want := min(now.Sub(t0)+150*time.Millisecond, 2*time.Second); due.Sub(t0) != want {
			t.Fatalf("after a change at %v: due at %v, want %v", now.Sub(t0), due.Sub(t0), want)
		}
	}
}
