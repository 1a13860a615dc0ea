package game

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/btrun/btrun/internal/watch"
)

// sourceWatch is `btrun run -watch`: the files the game loaded, watched, so
// that Run reloads them (Reload) between two steps once they changed.
type sourceWatch struct {
	w       *watch.Watcher
	sources atomic.Pointer[sources] // read by the watcher's goroutine
	home    *Config                 // whose folder is watched; nil: the game's (cluster_reload_watch.go)
}

// sources are what a game is loaded from: tree files (subtree files
// included), script folders (their .lua files), and plugins (a Go
// package's folder, or an executable).
type sources struct {
	files   map[string]bool // tree files, the world script, plugin executables
	scripts []string        // script folders
	plugins map[string]string
}

// Watch starts watching the game's sources: the tree files with their
// subtree files, the script folders and the world script, and each
// plugin's Go package folder or executable. From then on Run reloads what
// changed between two steps (Reload); config.toml itself is not watched (a
// change of the config needs a new run). The watcher stops with Close.
func (g *Game) Watch() error { return g.watchAt(nil) }

// watchAt is Watch of the game's sources in home's folder (nil: the
// game's own): a conductor opened from a copy of a checkpoint's files
// watches the run's folder.
func (g *Game) watchAt(home *Config) error {
	if g.opts.Files != nil {
		return fmt.Errorf("game: the game's sources are an fs.FS (Options.Files), which cannot be watched: call Reload when they change")
	}
	src := g.sourcesAt(home)
	sw := &sourceWatch{home: home}
	sw.sources.Store(src)
	poll, err := pollInterval()
	if err != nil {
		return err
	}
	w, err := watch.New(src.paths(), watch.Options{Poll: poll, Relevant: func(p string) bool {
		return sw.sources.Load().relevant(p)
	}})
	if err != nil {
		return fmt.Errorf("game: -watch: %w", err)
	}
	sw.w = w
	g.watcher = sw
	g.out.notice(fmt.Sprintf("watching %s (%s); changes apply between two steps", src.describe(), w.Mode()))
	return nil
}

// pollEnv forces polling (a duration such as "500ms", or "1" for the
// default), for file systems whose changes the system does not notify
// (some network and virtual machine shares).
const pollEnv = "BTRUN_WATCH_POLL"

// pollInterval is what pollEnv asks for: 0 for the system's notifications.
func pollInterval() (time.Duration, error) {
	switch v := os.Getenv(pollEnv); v {
	case "", "0":
		return 0, nil
	case "1":
		return 250 * time.Millisecond, nil
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("game: -watch: %s=%q: want a duration such as 500ms, or 1", pollEnv, v)
		}
		return d, nil
	}
}

// sources lists what the game is loaded from now.
func (g *Game) sources() *sources { return g.sourcesAt(nil) }

// sourcesAt is sources with the paths in c's folder (nil: the game's
// config's): the same config's files in another folder.
func (g *Game) sourcesAt(c *Config) *sources {
	if c == nil {
		c = g.cfg
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(c.Abs(p)); err == nil {
			return a
		}
		return c.Abs(p)
	}
	s := &sources{files: map[string]bool{}, plugins: map[string]string{}}
	for _, tc := range c.Trees {
		s.files[abs(tc.File)] = true // also when it did not load: fixing it reloads
		if b := g.trees[tc.Name]; b != nil {
			for _, f := range b.Tree.Files {
				s.files[abs(f)] = true
			}
		}
	}
	for _, p := range c.Scripts.Paths {
		s.scripts = append(s.scripts, abs(p))
	}
	if c.Scripts.World != "" {
		s.files[abs(c.Scripts.World)] = true
	}
	for _, p := range c.Plugins {
		path := abs(p.Path)
		s.plugins[p.Name] = path
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			s.files[path] = true
		}
	}
	return s
}

// paths are what the watcher watches: files, and folders with everything
// below them.
func (s *sources) paths() []string {
	out := slices.Sorted(func(yield func(string) bool) {
		for f := range s.files {
			if !yield(f) {
				return
			}
		}
	})
	out = append(out, s.scripts...)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range s.plugins {
			if !yield(n) {
				return
			}
		}
	}) {
		if p := s.plugins[name]; !s.files[p] {
			out = append(out, p)
		}
	}
	return out
}

func (s *sources) describe() string {
	n := len(s.files)
	return fmt.Sprintf("%s and %s", countOf(n, "file"), countOf(len(s.scripts)+len(s.plugins)-countFiles(s), "folder"))
}

func countFiles(s *sources) int {
	n := 0
	for _, p := range s.plugins {
		if s.files[p] {
			n++
		}
	}
	return n
}

// relevant says which changed files count: the files themselves, Lua
// files in the script folders, Go sources and module files in plugin
// folders.
func (s *sources) relevant(p string) bool {
	if s.files[p] {
		return true
	}
	for _, d := range s.scripts {
		if under(p, d) && strings.HasSuffix(p, ".lua") {
			return true
		}
	}
	for _, d := range s.plugins {
		if under(p, d) && isGoSource(p) {
			return true
		}
	}
	return false
}

func isGoSource(p string) bool {
	base := filepath.Base(p)
	return strings.HasSuffix(base, ".go") || base == "go.mod" || base == "go.sum"
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// plugin names the plugin a changed file belongs to, or "".
func (s *sources) plugin(p string) string {
	for name, d := range s.plugins {
		if under(p, d) {
			return name
		}
	}
	return ""
}

// reloadChanged reloads what changed, if the watcher saw changes, and
// says when a watched folder was lost (removed, renamed) or is watched
// again.
func (g *Game) reloadChanged() {
	select {
	case n := <-g.watcher.w.Notices():
		g.out.notice(n.Text(displayPath(g.cfg, n.Path)))
	case batch := <-g.watcher.w.Changes():
		src := g.watcher.sources.Load()
		var opts ReloadOptions
		for _, p := range batch {
			if name := src.plugin(p); name != "" && !slices.Contains(opts.Plugins, name) {
				opts.Plugins = append(opts.Plugins, name)
			}
			opts.Changed = append(opts.Changed, displayPath(g.cfg, p))
		}
		g.Reload(opts) // it says what it did, or why it did not, and watches what the game now loads
	default:
	}
}

// rewatch makes the watcher, if any, watch what the game is loaded from
// now (after a reload: a tree may name a new subtree file).
func (g *Game) rewatch() {
	if g.watcher == nil {
		return
	}
	next := g.sourcesAt(g.watcher.home)
	g.watcher.sources.Store(next)
	g.watcher.w.Set(next.paths())
}

// stopWatching stops the watcher, if any.
func (g *Game) stopWatching() {
	if g.watcher != nil {
		g.watcher.w.Close()
		g.watcher = nil
	}
}

// displayPath is a path as the game's output shows it: relative to the
// config's folder when it is inside it.
func displayPath(c *Config, p string) string {
	if dir, err := filepath.Abs(c.Dir); err == nil {
		if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}
