package game

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
)

// The game's tree files as an editor sees them (the live view's editor,
// `btrun run -debug ADDR -edit`): which files make a tree, a tree loaded
// and checked with some of its files replaced by text not written yet, and
// a file written in place. Files are named as labels and positions name
// them: by their path relative to the config's folder, with forward
// slashes. A check does what a reload would do to the tree: load it, bind
// it against the game's registry with the config's strictness, and run
// `btrun validate`'s lints on it.

// ErrNoTree marks a tree name the config does not have.
var ErrNoTree = errors.New("game: no such tree")

// TreeFiles returns the files tree name is loaded from, as of its last
// load: its main file first, then its subtree files in load order.
func (h *debugHost) TreeFiles(name string) ([]string, error) {
	g := (*Game)(h)
	b := g.trees[name]
	if b == nil {
		return nil, fmt.Errorf("%w %q: the config's trees are %s", ErrNoTree, name, strings.Join(g.TreeNames(), ", "))
	}
	return slices.Clone(b.Tree.Files), nil
}

// treePath is the path on disk of a file named relative to the config's
// folder.
func (g *Game) treePath(file string) string { return treePath(g.cfg, file) }

func treePath(cfg *Config, file string) string {
	p := cfg.Abs(filepath.FromSlash(file))
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// ErrTreesNotFiles marks an edit of a game whose sources are an fs.FS
// (Options.Files): the editor reads and writes files on disk.
var ErrTreesNotFiles = errors.New("game: the game's sources are an fs.FS (Options.Files), not files on disk an editor can write")

// EditableTrees says whether the game's tree files can be edited in place
// (read, checked and written by ReadTreeFile, CheckTree and WriteTreeFile):
// nil when they are files on disk, ErrTreesNotFiles when the game reads
// its sources from Options.Files, where the editor would read and write
// other files than those the game runs.
func (h *debugHost) EditableTrees() error {
	g := (*Game)(h)
	if g.opts.Files != nil {
		return ErrTreesNotFiles
	}
	return nil
}

// ReadTreeFile reads a file named relative to the config's folder, as the
// loader reads tree files (within [scripts] root when the config confines
// the game, at most the tree file limit).
func (h *debugHost) ReadTreeFile(file string) ([]byte, error) {
	g := (*Game)(h)
	confine, _ := newConfinement(g.cfg) // checked with the config
	return confine.reader(readfile.TreeLimit, "tree file")(g.treePath(file))
}

// TreeLoader loads a game's trees from their files, from any goroutine: it reads only the config, which does not change while the
// game runs, and the files. An editor loads its candidate texts with it
// without holding the game's goroutine (a tree of thousands of rules takes
// a while to load).
type TreeLoader struct {
	cfg   *Config
	rules []runtime.RuleDecl // the custom rules the game's registry holds (Options.Register, package rules)
}

// TreeLoader returns the game's TreeLoader.
func (h *debugHost) TreeLoader() TreeLoader {
	g := (*Game)(h)
	return TreeLoader{cfg: g.cfg, rules: g.reg.RuleDecls()}
}

// LoadTree loads tree name from its files, those named in override (by
// path relative to the config's folder) replaced by the bytes given.
func (l TreeLoader) LoadTree(name string, override map[string][]byte) (*runtime.Tree, error) {
	tc, ok := l.cfg.treeConfig(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoTree, name)
	}
	byPath := make(map[string][]byte, len(override))
	for f, data := range override {
		byPath[treePath(l.cfg, f)] = data
	}
	confine, _ := newConfinement(l.cfg)
	read := confine.reader(readfile.TreeLimit, "tree file")
	return runtime.LoadFile(treePath(l.cfg, tc.File), runtime.LoadOptions{Root: l.cfg.Dir, Rules: l.rules,
		ReadFile: func(path string) ([]byte, error) {
			if abs, err := filepath.Abs(path); err == nil {
				if data, ok := byPath[abs]; ok {
					return data, nil
				}
			}
			return read(path)
		}})
}

// LoadTreeFile loads a file on its own, as a <subtree> would include it
// (a new subtree file, which no tree includes yet).
func (l TreeLoader) LoadTreeFile(file string, data []byte) (*runtime.Tree, error) {
	confine, _ := newConfinement(l.cfg)
	return runtime.LoadBytes(treePath(l.cfg, file), data, runtime.LoadOptions{Root: l.cfg.Dir, Subtree: true, Rules: l.rules,
		ReadFile: confine.reader(readfile.TreeLimit, "tree file")})
}

func (g *Game) treeConfig(name string) (TreeConfig, bool) { return g.cfg.treeConfig(name) }

func (c *Config) treeConfig(name string) (TreeConfig, bool) {
	for _, tc := range c.Trees {
		if tc.Name == name {
			return tc, true
		}
	}
	return TreeConfig{}, false
}

// TreeProblem is one problem CheckTree finds: an error (the tree would
// not load or bind) or a warning (a lint, or a name strict = false lets
// through).
type TreeProblem struct {
	Pos     runtime.Pos
	Rule    string // the rule's label, when the problem is a rule's
	Msg     string // without the position and the rule
	Warning bool
}

// CheckTree checks tree name as it would be with override (LoadTree):
// loaded, bound against the game's registry (the scripts and plugins it
// runs), and linted as `btrun validate` does. It returns the loaded tree
// (nil when it does not load) and every problem, in the order validate
// prints them.
func (h *debugHost) CheckTree(name string, override map[string][]byte) (*runtime.Tree, []TreeProblem) {
	g := (*Game)(h)
	t, err := h.TreeLoader().LoadTree(name, override)
	if err != nil {
		return nil, ProblemsOf(err)
	}
	opts := runtime.BindOptions{Lenient: !g.cfg.Run.Strict, Trees: g.treeSource(name, t)}
	if g.lua != nil {
		opts.Skip = g.lua.unloaded
	}
	b, err := runtime.Bind(t, g.reg, opts)
	if err != nil {
		return t, ProblemsOf(err)
	}
	var out []TreeProblem
	for _, w := range b.Warnings {
		for _, p := range ProblemsOf(w) {
			p.Warning = true
			out = append(out, p)
		}
	}
	signals := g.listenedSignals(g.knownSignals(name, t))
	strs := g.stringConstants()
	lints := g.treeLints(t, signals, strs)
	lints = append(lints, g.behaviourLints(t, g.varSetters(g.gameTrees(name, t), strs), strs)...)
	for _, l := range lints {
		out = append(out, lintProblem(t, l))
	}
	return t, out
}

// ProblemsOf lists the problems an error holds: each runtime.Error of a
// load, a bind or a reload at its position (joined and wrapped errors
// looked into); an error holding none, a problem a line.
func ProblemsOf(err error) []TreeProblem {
	var out []TreeProblem
	var walk func(error)
	walk = func(err error) {
		var re *runtime.Error
		if !errors.As(err, &re) { // nothing with a position inside: its text
			if err != ErrReload { // the reload's own word, not a problem
				for _, l := range strings.Split(err.Error(), "\n") {
					if l != "" {
						out = append(out, TreeProblem{Msg: l})
					}
				}
			}
			return
		}
		switch e := err.(type) {
		case *runtime.Error:
			out = append(out, TreeProblem{Pos: e.Pos, Rule: e.Label, Msg: e.Msg})
		case interface{ Unwrap() []error }: // an ErrorList, a join
			for _, x := range e.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// lintProblem turns a tree's lint (FILE:LINE:COL, "rule LABEL: ...") into
// a problem at its rule.
func lintProblem(t *runtime.Tree, l Lint) TreeProblem {
	p := TreeProblem{Msg: l.Msg, Warning: true, Pos: runtime.Pos{File: l.Pos}}
	if i := strings.LastIndexByte(l.Pos, ':'); i > 0 {
		if j := strings.LastIndexByte(l.Pos[:i], ':'); j > 0 {
			line, err1 := strconv.Atoi(l.Pos[j+1 : i])
			col, err2 := strconv.Atoi(l.Pos[i+1:])
			if err1 == nil && err2 == nil {
				p.Pos = runtime.Pos{File: l.Pos[:j], Line: line, Col: col}
			}
		}
	}
	for i := range t.Rules {
		r := &t.Rules[i]
		if !atRule(r, p.Pos) {
			continue
		}
		if rest, ok := strings.CutPrefix(p.Msg, "rule "+r.Label+": "); ok {
			p.Rule, p.Msg = r.Label, rest
			break
		}
		if rest, ok := strings.CutPrefix(p.Msg, "rule "+r.Label+" "); ok {
			p.Rule, p.Msg = r.Label, rest
			break
		}
	}
	return p
}

// atRule reports whether pos is rule r's start tag or one of its
// conditions (where a lint about a condition points).
func atRule(r *runtime.Rule, pos runtime.Pos) bool {
	if r.Pos == pos {
		return true
	}
	for _, c := range r.Conds {
		if c.Pos == pos {
			return true
		}
	}
	return false
}

// WriteTreeFile writes data to a file named relative to the config's
// folder, atomically (a temporary file renamed over it: the file is the
// old or the new text, never half of one). create says the file must not
// exist yet.
func (h *debugHost) WriteTreeFile(file string, data []byte, create bool) error {
	g := (*Game)(h)
	if err := h.EditableTrees(); err != nil {
		return fmt.Errorf("game: writing %s: %w", file, err)
	}
	path := g.treePath(file)
	confine, _ := newConfinement(g.cfg)
	dir := filepath.Dir(path)
	existing := dir // the folder, or the closest one above it that exists
	for {
		if _, err := os.Stat(existing); err == nil || filepath.Dir(existing) == existing {
			break
		}
		existing = filepath.Dir(existing)
	}
	if err := confine.check(existing); err != nil {
		return fmt.Errorf("game: writing %s: %w", file, err)
	}
	if create {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("game: %s exists already: %w", file, fs.ErrExist)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("game: writing %s: %w", file, err)
		}
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("game: writing %s: %w", file, err)
	}
	if err := os.Chmod(path, mode); err != nil { // the temporary file was its writer's only
		return fmt.Errorf("game: writing %s: %w", file, err)
	}
	return nil
}

// RemoveTreeFile removes a file WriteTreeFile created, when what followed
// failed.
func (h *debugHost) RemoveTreeFile(file string) error {
	g := (*Game)(h)
	return os.Remove(g.treePath(file))
}

// treeSource gives slots the game's trees, by [[trees]] name.
func treeSource(loaded map[string]*runtime.Tree) runtime.TreeSource {
	return func(name string) (*runtime.Tree, bool) {
		t := loaded[name]
		return t, t != nil
	}
}

// treeSource gives slots the game's running trees, with tree name checked
// as t (CheckTree).
func (g *Game) treeSource(name string, t *runtime.Tree) runtime.TreeSource {
	return func(n string) (*runtime.Tree, bool) {
		if n == name {
			return t, true
		}
		if b := g.trees[n]; b != nil {
			return b.Tree, true
		}
		return nil, false
	}
}
