package game

import (
	"strconv"
	"strings"

	"github.com/btrun/btrun/runtime"
)

// Leaf translations: an [[agents]] entry with translate = { Attack =
// "gruntAttack" } runs its tree bound to its own actions. The tree is
// loaded once and shared; each translating entry gets a binding of its own,
// kept with the trees' bindings under a key no tree name can have
// (boundKey), so that everything that looks a tree up by name (the trace,
// saves, the live view, lints) sees the tree, and only the making of an
// agent picks its kind's binding.

// kindKey is the key of the binding of the k-th [[agents]] entry.
func kindKey(k int) string { return "\x00agents#" + strconv.Itoa(k) }

// boundKey is the key of the binding agent ga runs: its kind's when its
// [[agents]] entry translates leaves, else its tree's.
func (g *Game) boundKey(ga *gameAgent) string {
	if ga.kind > 0 {
		return kindKey(int(ga.kind) - 1)
	}
	return g.treeName(ga)
}

// bindKinds binds the tree of each translating [[agents]] entry with its
// translations into trees (under kindKey); the errors name the rule and
// both names.
func (g *Game) bindKinds(trees map[string]*runtime.BoundTree, loaded map[string]*runtime.Tree, reg *runtime.Registry, lua *scripts) []error {
	var errs []error
	for k, ac := range g.cfg.Agents {
		if len(ac.Translate) == 0 || loaded[ac.Tree] == nil {
			continue
		}
		opts := runtime.BindOptions{Lenient: !g.cfg.Run.Strict, Trees: treeSource(loaded), Translate: ac.Translate}
		if lua != nil {
			opts.Skip = lua.unloaded
		}
		b, err := runtime.Bind(loaded[ac.Tree], reg, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		trees[kindKey(k)] = b
	}
	return errs
}

// kindOf is the kind (1 + the index of its [[agents]] entry) of an agent
// made after the game opened, by AddAgent or from a save, when that entry
// translates leaves; 0 otherwise. The agent is of an entry's kind when it
// runs the entry's tree and its id is one the entry's ids continue
// (BASE-N, BASE the entry's name, or its tree's when it has none): so
// "sniper-7" added to tree t is a sniper, and a save that holds it makes
// it a sniper again.
func (g *Game) kindOf(tree, id string) int32 {
	for k, ac := range g.cfg.Agents {
		if len(ac.Translate) == 0 || ac.Tree != tree {
			continue
		}
		base := ac.Name
		if base == "" {
			base = ac.Tree
		}
		n, ok := strings.CutPrefix(id, base+"-")
		if !ok || n == "" || n[0] == '0' {
			continue
		}
		if _, err := strconv.ParseUint(n, 10, 31); err == nil {
			return int32(k) + 1
		}
	}
	return 0
}
