package game

import (
	"fmt"
	"strings"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// lintUnsetVars reports each variable a condition of tree t reads (a name
// or a comparison's operand) that nothing in the game can set: no signal
// line sets it, no bt.variable.set names it, and no script names it (a
// string constant of the scripts, or a quoted name in inline Lua), in any
// of the game's trees (a tree grafted into a slot reads what its host's
// lines set). Such a condition always reads the default: a designer lost
// an afternoon to one. set is what the game sets (varSetters). One finding
// per variable, at the first condition reading it.
func lintUnsetVars(t *runtime.Tree, set func(string) bool) []Lint {
	var out []Lint
	reported := map[string]bool{}
	for i := range t.Rules {
		r := &t.Rules[i]
		if l, ok := neverRuns(t, r, set); ok {
			out = append(out, l)
		}
		for _, c := range r.Conds {
			for _, name := range condVars(t, &c) {
				if reported[name] || set(name) {
					continue
				}
				reported[name] = true
				vi, _ := t.VarIndex(name)
				out = append(out, Lint{c.Pos.String(), fmt.Sprintf(
					"rule %s: condition %q reads variable %q, which nothing in the game sets (no <signal> line, no bt.variable.set, no script names it): it always reads its default, %s",
					r.Label, c.Name, name, t.Vars[vi].DefaultValue())})
			}
		}
	}
	return out
}

// varSetters says which variable names something in the game sets: the
// trees' signal lines and bt.variable.set rules, and the names scripts
// write (strs, the scripts' string constants; quoted names in inline Lua).
func (g *Game) varSetters(trees []*runtime.Tree, strs map[string]bool) func(string) bool {
	set := map[string]bool{}
	var inline []string
	for _, t := range trees {
		setters(t, set, &inline)
	}
	return func(name string) bool {
		if set[name] || strs[name] {
			return true
		}
		for _, code := range inline {
			if strings.Contains(code, `"`+name+`"`) || strings.Contains(code, `'`+name+`'`) {
				return true
			}
		}
		return false
	}
}

func setters(t *runtime.Tree, set map[string]bool, inline *[]string) {
	for _, s := range t.Signals {
		for _, line := range s.Sets {
			if line.Var >= 0 {
				set[t.Vars[line.Var].Name] = true
			}
		}
	}
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Kind != runtime.KindAction {
			continue
		}
		switch r.Action {
		case "bt.variable.set":
			if name, ok := r.Params.Get("variable.name"); ok {
				set[name] = true
			}
		case luabind.InlineName:
			for _, p := range r.Params {
				*inline = append(*inline, p.Value)
			}
		}
	}
}

// condVars lists the declared variables a condition reads.
func condVars(t *runtime.Tree, c *runtime.Cond) []string {
	if c.Cmp != nil {
		var out []string
		for _, name := range c.Cmp.Vars() {
			if _, ok := t.VarIndex(name); ok {
				out = append(out, name)
			}
		}
		return out
	}
	if _, ok := t.VarIndex(c.Name); ok {
		return []string{c.Name}
	}
	return nil
}

// neverRuns finds a rule that can never run: a condition that reads only
// variables nothing sets has the same value at every step (their
// defaults), and decides the rule's mode against it (false in allTrue,
// true in allFalse).
func neverRuns(t *runtime.Tree, r *runtime.Rule, set func(string) bool) (Lint, bool) {
	if r.Mode != runtime.AllTrue && r.Mode != runtime.AllFalse {
		return Lint{}, false
	}
	for _, c := range r.Conds {
		vars := condVars(t, &c)
		if len(vars) == 0 || (c.Cmp != nil && len(vars) != len(c.Cmp.Vars())) {
			continue // not only declared variables: it may change
		}
		fixed := true
		for _, name := range vars {
			fixed = fixed && !set(name)
		}
		if !fixed {
			continue
		}
		v, ok := defaultValue(t, &c)
		if !ok {
			continue
		}
		if c.Negate {
			v = !v
		}
		if v == (r.Mode == runtime.AllFalse) {
			var defs []string
			for _, name := range vars {
				vi, _ := t.VarIndex(name)
				defs = append(defs, fmt.Sprintf("%s (default %s)", name, t.Vars[vi].DefaultValue()))
			}
			return Lint{c.Pos.String(), fmt.Sprintf("rule %s can never run: its condition %q is always %t, since nothing in the game sets %s",
				r.Label, condText(&c), v, strings.Join(defs, ", "))}, true
		}
	}
	return Lint{}, false
}

// defaultValue is a condition's value (before its !) when its variables
// hold their defaults.
func defaultValue(t *runtime.Tree, c *runtime.Cond) (bool, bool) {
	value := func(name string) (runtime.VarValue, bool) {
		vi, ok := t.VarIndex(name)
		if !ok {
			return runtime.VarValue{}, false
		}
		return t.Vars[vi].DefaultValue(), true
	}
	if c.Cmp != nil {
		return c.Cmp.Eval(value)
	}
	v, ok := value(c.Name)
	switch {
	case !ok:
		return false, false
	case v.Type == runtime.VarNumber:
		return v.Num > 0, true
	case v.Type == runtime.VarBoolean:
		return v.Bool, true
	}
	return false, false
}

func condText(c *runtime.Cond) string {
	if c.Negate {
		return "!" + c.Name
	}
	return c.Name
}

// gameTrees are the game's trees in config order; with t set, t stands for
// the tree called name (a version being edited in the live view).
func (g *Game) gameTrees(name string, t *runtime.Tree) []*runtime.Tree {
	var trees []*runtime.Tree
	for _, tc := range g.cfg.Trees {
		switch b := g.trees[tc.Name]; {
		case t != nil && tc.Name == name:
			trees = append(trees, t)
		case b != nil:
			trees = append(trees, b.Tree)
		}
	}
	return trees
}

// behaviourLints are the checks of tree t that catch a rule that cannot
// behave as written: a variable nothing sets, a rule that never runs. set
// is what the game sets (varSetters); strs the scripts' strings. A tree
// whose agents run a plugin's code is not checked: a plugin sets variables
// and jumps by names no lint sees.
func (g *Game) behaviourLints(t *runtime.Tree, set func(string) bool, strs map[string]bool) []Lint {
	if g.goCode() || g.runsPlugin(t) {
		return nil
	}
	return append(lintUnsetVars(t, set), lintUnreachable(t, func(id string) bool { return strs[id] })...)
}

// goCode reports whether Go code registered an action, condition, hook or
// scorer (a program embedding the game): Go sets variables and jumps by
// names no lint sees, from those and from its own loop, so the lints that
// need every setter or every jump stay silent rather than be wrong. (The
// rules btrun ships are Go too, but decide only which child runs.)
func (g *Game) goCode() bool {
	for _, d := range g.reg.Actions() {
		if d.Origin.Kind == "go" {
			return true
		}
	}
	for _, d := range g.reg.Conditions() {
		if d.Origin.Kind == "go" {
			return true
		}
	}
	for _, d := range g.reg.Hooks() {
		if d.Origin.Kind == "go" {
			return true
		}
	}
	for _, d := range g.reg.Scorers() {
		if d.Origin.Kind == "go" {
			return true
		}
	}
	return false
}

// runsPlugin reports whether the agents of tree t may run a plugin's code:
// an action, condition or hook t names (or an agent kind translates one of
// its actions to) comes from a plugin, or t has a slot, whose grafted tree
// may.
func (g *Game) runsPlugin(t *runtime.Tree) bool {
	plugin := func(o runtime.Origin) bool { return o.Kind == "plugin" }
	action := func(name string) bool {
		d, ok := g.reg.LookupAction(name)
		return ok && plugin(d.Origin)
	}
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Kind == runtime.KindSlot {
			return true
		}
		if r.Kind == runtime.KindAction {
			if action(r.Action) {
				return true
			}
			for _, ac := range g.cfg.Agents {
				if to, ok := ac.Translate[r.Action]; ok && action(to) {
					return true
				}
			}
		}
		for _, c := range r.Conds {
			if d, ok := g.reg.LookupCondition(c.Name); ok && plugin(d.Origin) {
				return true
			}
		}
		for _, h := range [2]string{r.Enter, r.Exit} {
			if d, ok := g.reg.LookupHook(h); h != "" && ok && plugin(d.Origin) {
				return true
			}
		}
	}
	return false
}
