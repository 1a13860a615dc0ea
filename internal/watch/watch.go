// Package watch reports changes to files and folders, for `btrun run
// -watch`: it tells the game loop which of the files it loaded changed, in
// batches, once an editor is done saving.
//
// Editors save in bursts: a temporary file written and renamed over the
// old one, a backup, a change of mode. A batch is reported once no change
// came for Options.Debounce (or Options.MaxDelay after its first change,
// for a file written continuously), so one save is one batch. Files are
// watched through their folder, which sees a file renamed over the old one
// as well as one written in place.
//
// The system's file notifications (fsnotify: inotify, kqueue,
// ReadDirectoryChangesW) are used where they work; where they do not (no
// support, or a limit on watches reached), the watched paths are polled.
//
// A notification watch is on a folder, and it ends when that folder is
// removed or renamed: a `git checkout` that deletes and recreates a
// folder, an editor or a script that moves it away and back. A watched
// folder (or the folder of a watched file) whose watch ended is lost: the
// Watcher says so on Notices, looks for it at every poll interval, and once
// it is there again watches it again, says so, and reports every watched
// file in it as changed (any of them may have changed meanwhile).
//
// A Watcher's methods are safe for concurrent use; batches come on the
// Changes channel, which the game loop reads between steps.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options tune a Watcher. Zero values take the defaults.
type Options struct {
	// Debounce is the quiet time after the last change before a batch is
	// reported. Default 150ms.
	Debounce time.Duration
	// MaxDelay bounds how long a batch waits after its first change while
	// changes keep coming. Default 2s.
	MaxDelay time.Duration
	// Poll, when > 0, polls every Poll instead of using the system's
	// notifications. Where notifications do not work, polling is every
	// 250ms.
	Poll time.Duration
	// Relevant says which changed files count; nil: every file under the
	// watched paths. Names of hidden files (.name) and editor backups
	// (name~, .swp, .swx) never count.
	Relevant func(path string) bool
}

// defaultPoll is the polling interval where notifications do not work.
const defaultPoll = 250 * time.Millisecond

// Watcher watches files and folders (folders with everything below them)
// and reports batches of changed files.
type Watcher struct {
	opts    Options
	changes chan []string
	done    chan struct{}
	wg      sync.WaitGroup

	mu    sync.Mutex
	files map[string]bool // watched files, by clean absolute path
	dirs  []string        // watched folders (recursive), clean absolute paths
	fsw   *fsnotify.Watcher
	mode  string
	state map[string]fileState // poll mode: what each file looked like at the last scan

	events  chan string     // changed paths, from notifications or polling
	retry   chan struct{}   // look for lost anchors now
	lost    map[string]bool // notify mode: anchors whose watch ended (see the package comment)
	notices chan Notice
	closed  bool
}

// fileState is what polling compares.
type fileState struct {
	size int64
	mod  int64 // modification time, ns
	perm fs.FileMode
}

// New starts watching paths: each a file or a folder (recursively).
// Paths that do not exist yet are watched through their folder.
func New(paths []string, opts Options) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.MaxDelay < opts.Debounce {
		opts.MaxDelay = max(2*time.Second, opts.Debounce)
	}
	w := &Watcher{opts: opts, changes: make(chan []string), done: make(chan struct{}), events: make(chan string, 64),
		files: map[string]bool{}, lost: map[string]bool{}, notices: make(chan Notice, noticesLen), retry: make(chan struct{}, 1)}
	if opts.Poll <= 0 {
		if fsw, err := fsnotify.NewWatcher(); err == nil {
			w.fsw, w.mode = fsw, "notify"
		}
	}
	if w.fsw == nil {
		w.mode = "poll"
		w.state = map[string]fileState{}
	}
	if err := w.Set(paths); err != nil {
		w.Close()
		return nil, err
	}
	w.wg.Add(1)
	go w.loop()
	if w.fsw != nil {
		w.wg.Add(1)
		go w.forward()
	}
	return w, nil
}

// Changes delivers batches of changed files (absolute paths, sorted), each
// once an editor's save is over.
func (w *Watcher) Changes() <-chan []string { return w.changes }

// Notices delivers what people should know about the watch: a watched
// folder lost (removed or renamed) and watched again. It keeps the latest
// few when nobody reads it.
func (w *Watcher) Notices() <-chan Notice { return w.notices }

// A Notice says that a watched folder (or the folder of a watched file)
// was lost, removed or renamed away, or that it is there again and watched
// again.
type Notice struct {
	Path string // the folder, a clean absolute path
	Lost bool   // lost; else watched again
}

// Text is the notice for people, with the folder named as given.
func (n Notice) Text(name string) string {
	if n.Lost {
		return "watch: " + name + " was removed or renamed; watching for it to come back"
	}
	return "watch: " + name + " is there again; watching it again"
}

// noticesLen is how many notices wait to be read.
const noticesLen = 16

// notice hands a notice to Notices, dropping the oldest when it is full.
func (w *Watcher) notice(n Notice) {
	for {
		select {
		case w.notices <- n:
			return
		default:
		}
		select {
		case <-w.notices:
		default:
		}
	}
}

// Mode says how changes are seen: "notify" (the system's notifications) or
// "poll".
func (w *Watcher) Mode() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode
}

// Set makes paths the watched files and folders, replacing the earlier
// ones (a reloaded tree may include other files).
func (w *Watcher) Set(paths []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	files := map[string]bool{}
	var dirs []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		// A watched folder that is not there now (deleted by a checkout
		// that makes it again) stays a folder: a file would not see what
		// is made in it.
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() || err != nil && slices.Contains(w.dirs, abs) {
			dirs = append(dirs, abs)
		} else {
			files[abs] = true
		}
	}
	w.files, w.dirs = files, dirs
	if w.fsw != nil {
		if err := w.addNotify(); err != nil {
			// A limit on watches, or notifications that do not work here:
			// poll instead.
			w.fsw.Close()
			w.fsw, w.mode, w.state = nil, "poll", map[string]fileState{}
		}
	}
	if w.fsw == nil {
		// The baseline of the paths watched from now on: what exists now is
		// not a change, but a path watched before keeps the state it was
		// last seen in, so that a change made since the last scan is seen.
		next := w.scan()
		for p, old := range w.state {
			if _, ok := next[p]; ok || w.watchedLocked(p) {
				next[p] = old // a file gone since is then seen gone at the next scan
			}
		}
		w.state = next
	}
	return nil
}

// addNotify adds a notification watch on every anchor: the folder of each
// file, and each watched folder with its subfolders. An anchor that is not
// there is lost (looked for later). w.mu is held.
func (w *Watcher) addNotify() error {
	var errs []error
	lost := w.lost
	w.lost = map[string]bool{}
	for a := range w.anchors() {
		if lost[a] { // still lost: reestablish says when it is back
			w.lost[a] = true
			continue
		}
		if err := w.addAnchor(a); errors.Is(err, fs.ErrNotExist) {
			w.lost[a] = true
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// anchors are the folders a notification watch must be on: the folder of
// each watched file, and each watched folder (its subfolders are added
// with it). w.mu is held.
func (w *Watcher) anchors() map[string]bool {
	out := map[string]bool{}
	for f := range w.files {
		out[filepath.Dir(f)] = true
	}
	for _, d := range w.dirs {
		out[d] = true
	}
	return out
}

// addAnchor watches an anchor: a watched folder with its subfolders, or
// the folder of watched files. w.mu is held.
func (w *Watcher) addAnchor(a string) error {
	if slices.Contains(w.dirs, a) {
		if _, err := os.Stat(a); err != nil {
			return err
		}
		return w.addTree(a)
	}
	return w.fsw.Add(a)
}

// anchorGone notes that a notification named an anchor as removed or
// renamed away: its watch has ended (the system ends it, and fsnotify
// forgets it), so it is lost until it is watched again.
func (w *Watcher) anchorGone(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || !w.anchors()[p] || w.lost[p] {
		return
	}
	w.lost[p] = true
	w.notice(Notice{Path: p, Lost: true})
}

// reestablish watches again the lost anchors that are there again, and
// returns the watched files in them: each may have changed while it was
// not watched.
func (w *Watcher) reestablish() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fsw == nil || len(w.lost) == 0 {
		return nil
	}
	var changed []string
	for a := range w.lost {
		if fi, err := os.Stat(a); err != nil || !fi.IsDir() || w.addAnchor(a) != nil {
			continue
		}
		delete(w.lost, a)
		w.notice(Notice{Path: a})
		for f := range w.files {
			if filepath.Dir(f) == a {
				changed = append(changed, f)
			}
		}
		if slices.Contains(w.dirs, a) {
			filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					changed = append(changed, p)
				}
				return nil
			})
		}
	}
	return changed
}

// addTree watches a folder and its subfolders. w.mu is held.
func (w *Watcher) addTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile
			}
			return err
		}
		if d.IsDir() {
			if p != root && ignored(p) {
				return filepath.SkipDir
			}
			return w.fsw.Add(p)
		}
		return nil
	})
}

// forward turns notifications into changed paths.
func (w *Watcher) forward() {
	defer w.wg.Done()
	w.mu.Lock()
	fsw := w.fsw
	w.mu.Unlock()
	for {
		select {
		case ev, ok := <-fsw.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				if w.isLost(ev.Name) { // a lost folder is back
					w.poke()
					continue
				}
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && w.under(ev.Name) {
					// A new folder: watch it, and report what was created
					// in it before the watch was in place.
					w.mu.Lock()
					if w.fsw == fsw {
						w.addTree(ev.Name)
					}
					w.mu.Unlock()
					filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
						if err == nil && !d.IsDir() {
							w.send(p)
						}
						return nil
					})
					continue
				}
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				w.anchorGone(ev.Name)
				w.poke()
			}
			w.send(ev.Name)
		case _, ok := <-fsw.Errors:
			if !ok {
				return
			}
			// An overflow of the event queue loses changes: say that every
			// watched path may have changed.
			w.mu.Lock()
			paths := slices.Collect(mapKeys(w.files))
			paths = append(paths, w.dirs...)
			w.mu.Unlock()
			for _, p := range paths {
				w.send(p)
			}
		case <-w.done:
			return
		}
	}
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// isLost reports whether p is a lost anchor (reestablish watches it).
func (w *Watcher) isLost(p string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost[p]
}

// poke asks the loop to look for lost anchors now rather than at its next
// poll: a folder renamed away and back is there again at once.
func (w *Watcher) poke() {
	select {
	case w.retry <- struct{}{}:
	default:
	}
}

// send passes a changed path to the loop.
func (w *Watcher) send(p string) {
	select {
	case w.events <- p:
	case <-w.done:
	}
}

// under reports whether p is inside a watched folder.
func (w *Watcher) under(p string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.underLocked(p)
}

func (w *Watcher) underLocked(p string) bool {
	for _, d := range w.dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// watchedLocked reports whether p is a watched file or inside a watched
// folder. w.mu is held.
func (w *Watcher) watchedLocked(p string) bool { return w.files[p] || w.underLocked(p) }

// counts reports whether a changed path counts: a watched file, or a file
// inside a watched folder, that is not a hidden file or a backup, and that
// Options.Relevant accepts.
func (w *Watcher) counts(p string) bool {
	if ignored(p) {
		return false
	}
	w.mu.Lock()
	watched := w.files[p]
	w.mu.Unlock()
	if !watched && !w.under(p) {
		return false
	}
	return w.opts.Relevant == nil || w.opts.Relevant(p)
}

// ignored reports names that are never a change: hidden files and editor
// backups and swap files.
func ignored(p string) bool {
	base := filepath.Base(p)
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") ||
		strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".swx")
}

// loop gathers changed paths into batches and hands them out.
func (w *Watcher) loop() {
	defer w.wg.Done()
	b := batcher{debounce: w.opts.Debounce, maxDelay: w.opts.MaxDelay, pending: map[string]bool{}}
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	poll := w.opts.Poll
	if poll <= 0 {
		poll = defaultPoll
	}
	ticker := time.NewTicker(poll) // scans only while polling (notifications may fail over to it), and looks for lost folders
	defer ticker.Stop()
	ready := false // the batch is ready: it is offered, and changes join it until it is taken
	wake := func() {
		if due, ok := b.due(); ok && !ready {
			quiet.Reset(max(0, time.Until(due)))
		}
	}
	add := func(paths ...string) {
		for _, p := range paths {
			if w.counts(p) {
				b.add(p, time.Now())
			}
		}
		wake()
	}
	for {
		var out chan []string
		var batch []string
		if ready {
			out = w.changes
			batch = b.sorted()
		}
		select {
		case p := <-w.events:
			add(p)
		case now := <-quiet.C:
			if due, ok := b.due(); ok && !now.Before(due) {
				ready = true
			} else {
				wake()
			}
		case out <- batch:
			b.clear()
			ready = false
		case <-w.retry:
			add(w.reestablish()...)
		case <-ticker.C:
			w.mu.Lock()
			var changed []string
			if w.fsw == nil {
				next := w.scan()
				changed = diff(w.state, next)
				w.state = next
			}
			w.mu.Unlock()
			add(append(changed, w.reestablish()...)...)
		case <-w.done:
			return
		}
	}
}

// batcher gathers changed paths into a batch and says when it is ready:
// once no change came for debounce, or maxDelay after its first change
// while changes keep coming (one save is one batch, and a file written
// continuously is still reported). It reads no clock: the loop passes the
// time of each change, and the tests pass theirs.
type batcher struct {
	debounce, maxDelay time.Duration
	pending            map[string]bool
	first, last        time.Time // of the pending batch's first and last change
}

func (b *batcher) add(p string, now time.Time) {
	if len(b.pending) == 0 {
		b.first = now
	}
	b.pending[p] = true
	b.last = now
}

// due is when the pending batch is ready; false when nothing is pending.
func (b *batcher) due() (time.Time, bool) {
	if len(b.pending) == 0 {
		return time.Time{}, false
	}
	due := b.last.Add(b.debounce)
	if limit := b.first.Add(b.maxDelay); limit.Before(due) {
		due = limit
	}
	return due, true
}

// sorted is the pending batch, sorted.
func (b *batcher) sorted() []string { return slices.Sorted(mapKeys(b.pending)) }

// clear starts a new batch.
func (b *batcher) clear() { clear(b.pending) }

// scan records the state of every watched file. w.mu is held.
func (w *Watcher) scan() map[string]fileState {
	out := map[string]fileState{}
	look := func(p string, fi fs.FileInfo) {
		out[p] = fileState{size: fi.Size(), mod: fi.ModTime().UnixNano(), perm: fi.Mode()}
	}
	for f := range w.files {
		if fi, err := os.Stat(f); err == nil {
			look(f, fi)
		}
	}
	for _, d := range w.dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				if p != d && ignored(p) {
					return filepath.SkipDir
				}
				return nil
			}
			if fi, err := e.Info(); err == nil {
				look(p, fi)
			}
			return nil
		})
	}
	return out
}

// diff lists the files created, removed or changed between two scans.
func diff(old, cur map[string]fileState) []string {
	var out []string
	for p, s := range cur {
		if o, ok := old[p]; !ok || o != s {
			out = append(out, p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// Close stops watching.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	fsw := w.fsw
	w.mu.Unlock()
	close(w.done)
	var err error
	if fsw != nil {
		err = fsw.Close()
	}
	w.wg.Wait()
	return err
}
