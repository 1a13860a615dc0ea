package game

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// `btrun validate`'s checks beyond loading and binding. What they find is
// legal, so a run goes on with it, but likely a mistake; they are warnings
// (`validate -strict` makes them errors):
//
//   - a rule that can keep running without an id: saving while it runs
//     fails (a save needs the current rule's id), only at the end of a long
//     run;
//   - a parameter of a rule that nothing reads (its action, its conditions,
//     the runtime), with what they do read ("did you mean");
//   - a signal sent (by a script with a literal name, a bt.signal.send, the
//     schedule) that no tree declares or waits for: it has no effect;
//   - a variable or timestamp a script names literally that no tree
//     declares: the call fails whenever it runs;
//   - a signal handler (an action's on = {...}, a Go SignalHandler) or a
//     script's ctx:stimulus / ctx:forget for a signal that no tree
//     declares or waits for and nothing sends: it never runs, or never
//     finds a stimulus;
//   - inline Lua (bt.lua) whose code has no statement;
//   - a variable a condition reads that nothing in the game sets, and a
//     rule that can never run (lint_vars.go, lint_unreachable.go).

// Lint is one finding of Lints.
type Lint struct {
	Pos string // FILE:LINE:COL (tree) or FILE:LINE (script), relative to the config's folder
	Msg string
}

func (l Lint) String() string { return l.Pos + ": " + l.Msg }

// Lints runs the checks on an opened game. Findings come per tree in config
// order and rule order, then the scripts' in file and line order, then the
// schedule's.
func (g *Game) Lints() []Lint {
	var out []Lint
	strs := g.stringConstants()
	declared := g.knownSignals("", nil)
	signals := g.listenedSignals(declared)
	trees := g.gameTrees("", nil)
	set := g.varSetters(trees, strs) // lint_vars.go
	for _, t := range trees {
		out = append(out, g.treeLints(t, signals, strs)...)
		out = append(out, g.behaviourLints(t, set, strs)...)
	}
	out = append(out, g.lintScripts(signals)...)
	for i, sc := range g.cfg.Signals {
		if !signals[sc.Signal] {
			out = append(out, Lint{fmt.Sprintf("%s:%d", g.cfg.Path, newKeyFinder(g.cfgText()).lineIn(i, "signals", "signal")),
				fmt.Sprintf("signals[%d] schedules %s", i, unknownSignal(sc.Signal, signals))})
		}
	}
	return append(out, g.lintHandlers(declared)...)
}

// listenedSignals are the signals something reacts to: those trees declare
// or wait for, those an action has a handler for, and those a script reads
// the stimulus of (with a literal name).
func (g *Game) listenedSignals(declared map[string]bool) map[string]bool {
	out := maps.Clone(declared)
	for _, d := range g.reg.Actions() {
		for _, name := range d.Handles {
			out[name] = true
		}
	}
	if g.lua != nil {
		for _, l := range g.lua.engine.Literals() {
			if l.Kind == "stimulus" {
				out[l.Name] = true
			}
		}
	}
	return out
}

// heardSignals are the signals an agent can receive: those trees declare or
// wait for, and those something sends (a script with a literal name, a
// bt.signal.send, the schedule).
func (g *Game) heardSignals(declared map[string]bool) map[string]bool {
	heard := maps.Clone(declared)
	for _, b := range g.trees {
		for _, r := range b.Tree.Rules {
			if r.Kind == runtime.KindAction && r.Action == "bt.signal.send" {
				if name, ok := r.Params.Get("signal.name"); ok {
					heard[name] = true
				}
			}
		}
	}
	for _, sc := range g.cfg.Signals {
		heard[sc.Signal] = true
	}
	if g.lua != nil {
		for _, l := range g.lua.engine.Literals() {
			if l.Kind == "signal" {
				heard[l.Name] = true
			}
		}
	}
	return heard
}

// lintHandlers reports the signal handlers of registered actions, and the
// stimuli scripts read, for signals no agent can receive.
func (g *Game) lintHandlers(declared map[string]bool) []Lint {
	var heard map[string]bool
	// never says, for a signal no agent can receive, what the finding is
	// about and a likely name it was meant to be.
	never := func(name string) (string, string, bool) {
		if heard == nil {
			heard = g.heardSignals(declared)
		}
		if heard[name] {
			return "", "", false
		}
		hint := ""
		if s := runtime.Suggest(name, keys(heard)); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		return fmt.Sprintf("signal %q, which no tree declares or waits for and nothing sends", name), hint, true
	}
	var out []Lint
	for _, d := range g.reg.Actions() {
		for _, name := range d.Handles {
			if what, hint, ok := never(name); ok {
				out = append(out, Lint{d.Origin.Where, fmt.Sprintf("action %q has a handler for %s: it never runs%s", d.Name, what, hint)})
			}
		}
	}
	if g.lua != nil {
		for _, l := range g.lua.engine.Literals() {
			if l.Kind != "stimulus" {
				continue
			}
			if what, hint, ok := never(l.Name); ok {
				out = append(out, Lint{fmt.Sprintf("%s:%d", l.File, l.Line), fmt.Sprintf("%s reads the stimulus of %s: the agent never holds one%s", l.Call, what, hint)})
			}
		}
	}
	return out
}

// stringConstants are the strings the scripts write (a Lua action that
// declares no parameters may read any of them); nil without scripts.
func (g *Game) stringConstants() map[string]bool {
	if g.lua == nil {
		return nil
	}
	return g.lua.engine.StringConstants()
}

// treeLints runs the checks of one tree's rules, in rule order.
func (g *Game) treeLints(t *runtime.Tree, signals, strs map[string]bool) []Lint {
	var out []Lint
	for i := range t.Rules {
		r := &t.Rules[i]
		out = append(out, lintRule(g.reg, t, int32(i), strs)...)
		if r.Kind == runtime.KindAction && r.Action == "bt.signal.send" {
			if name, ok := r.Params.Get("signal.name"); ok && !signals[name] {
				out = append(out, Lint{r.Pos.String(), fmt.Sprintf("rule %s: bt.signal.send sends %s", r.Label, unknownSignal(name, signals))})
			}
		}
	}
	return out
}

// TreeLints runs the checks that need only a tree and a registry, for a
// tree checked on its own (`btrun validate -tree`): names the registry does
// not know (a script's or a plugin's) are not checked, and no script's
// strings count as reading a parameter.
func TreeLints(t *runtime.Tree, reg *runtime.Registry) []Lint {
	var out []Lint
	for i := range t.Rules {
		out = append(out, lintRule(reg, t, int32(i), nil)...)
	}
	return out
}

// lintRule runs the checks of one rule that need no scripts: ids, unread
// parameters and empty inline Lua.
func lintRule(reg *runtime.Registry, t *runtime.Tree, i int32, strs map[string]bool) []Lint {
	r := &t.Rules[i]
	out := lintIDs(reg, t, i)
	out = append(out, lintParams(reg, t, i, strs)...)
	if r.Kind == runtime.KindAction && r.Action == luabind.InlineName {
		if code, ok := r.Params.Get(luabind.ParamRun); ok && luabind.IsEmptyCode(code) {
			out = append(out, Lint{r.Pos.String(), fmt.Sprintf("rule %s: %s holds no Lua statement (only blanks and comments): the rule does nothing", r.Label, luabind.ParamRun)})
		}
	}
	return out
}

// lintIDs reports a rule without an id that can be the current rule when a
// step ends: the root (after the tree finished), running and yield rules,
// parallels (while their lanes run), and actions that do not say they never
// return running.
func lintIDs(reg *runtime.Registry, t *runtime.Tree, i int32) []Lint {
	r := &t.Rules[i]
	if r.ID != "" {
		return nil
	}
	why := ""
	switch {
	case i == runtime.Root:
		why = "it is the root: the current rule after the tree finished"
	case r.Kind == runtime.KindRunning || r.Kind == runtime.KindYield:
		why = "it returns running"
	case r.Kind == runtime.KindParallel:
		why = "it is a parallel: the current rule while its lanes run"
	case r.Kind == runtime.KindAction:
		if d, ok := reg.LookupAction(r.Action); ok && !d.Instant {
			why = fmt.Sprintf("action %q can return running", r.Action)
		}
	}
	if why == "" {
		return nil
	}
	return []Lint{{r.Pos.String(), fmt.Sprintf("rule %s has no id, but %s: saving the game while it is the current rule fails; give it an id", r.Label, why)}}
}

// lintParams reports a rule's parameters that none of its readers reads.
// A reader that declares its parameters says exactly; a Lua action or
// condition that does not may read any name written as a string in the
// scripts; any other reader that does not declare them (a Go action, an
// older plugin) could read anything, and the rule is not checked.
func lintParams(reg *runtime.Registry, t *runtime.Tree, i int32, strs map[string]bool) []Lint {
	r := &t.Rules[i]
	if len(r.Params) == 0 {
		return nil
	}
	read := map[string]bool{}
	var known, families []string // families: the part of a Family name before its placeholder
	readsScripts := false
	take := func(ps []runtime.ParamSpec, origin runtime.Origin) bool {
		if ps == nil {
			if origin.Kind != "lua" {
				return false
			}
			readsScripts = true
			return true
		}
		for _, p := range ps {
			read[p.Name] = true
			known = append(known, p.Name)
			if p.Family {
				families = append(families, p.Name[:strings.LastIndexByte(p.Name, '.')+1])
			}
		}
		return true
	}
	var ruleReads []string // the runtime's own: read, but not named in the message
	for _, p := range t.RuleReads(i) {
		read[p.Name] = true
		ruleReads = append(ruleReads, p.Name)
	}
	if r.Kind == runtime.KindAction {
		d, ok := reg.LookupAction(r.Action)
		if !ok || !take(d.Params, d.Origin) {
			return nil
		}
	}
	if r.Kind == runtime.KindCustom { // a rule registered from Go reads its declared parameters
		d, ok := reg.LookupRule(r.Tag)
		if !ok || !take(d.Params, d.Origin) {
			return nil
		}
	}
	for k, name := range [2]string{r.Enter, r.Exit} { // a hook reads the rule's parameters too
		if name == "" || k == 1 && name == r.Enter {
			continue
		}
		d, ok := reg.LookupHook(name)
		if !ok || !take(d.Params, d.Origin) {
			return nil
		}
	}
	for _, c := range r.Conds {
		if ps, ok := t.DeclaredParams(c.Name); ok {
			take(ps, runtime.Origin{Kind: "builtin"})
			continue
		}
		d, ok := reg.LookupCondition(c.Name)
		if !ok || !take(d.Params, d.Origin) {
			return nil
		}
	}
	var out []Lint
	for _, p := range r.Params {
		if read[p.Name] || readsScripts && strs[p.Name] || hasAnyPrefix(p.Name, families) || inlineNames(r, p.Name) {
			continue
		}
		cands := append(known[:len(known):len(known)], ruleReads...)
		if readsScripts {
			for s := range strs {
				if strings.Contains(s, ".") {
					cands = append(cands, s)
				}
			}
			sort.Strings(cands)
		}
		msg := fmt.Sprintf("rule %s: parameter %q is read by nothing: not by %s", r.Label, p.Name, readers(r))
		if len(known) > 0 {
			msg += fmt.Sprintf(" (they read %s)", strings.Join(known, ", "))
		}
		if s := runtime.Suggest(p.Name, cands); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		out = append(out, Lint{r.Pos.String(), msg})
	}
	return out
}

// readers names what reads a rule's parameters, for a message.
func readers(r *runtime.Rule) string {
	var w []string
	if r.Kind == runtime.KindAction {
		w = append(w, fmt.Sprintf("action %q", r.Action))
	}
	if r.Kind == runtime.KindCustom {
		w = append(w, fmt.Sprintf("rule <%s>", r.Tag))
	}
	for _, c := range r.Conds {
		w = append(w, fmt.Sprintf("condition %q", c.Name))
	}
	if r.Enter != "" {
		w = append(w, fmt.Sprintf("enter hook %q", r.Enter))
	}
	if r.Exit != "" && r.Exit != r.Enter {
		w = append(w, fmt.Sprintf("exit hook %q", r.Exit))
	}
	if len(w) == 0 {
		return "the rule (it has no action or condition)"
	}
	return strings.Join(w, ", ")
}

// knownSignals are the signals some tree declares (signal lines and
// setOnSignal) or waits for with bt.signal.wait; with tree set, tree
// stands for the game's tree of that name (a version being edited).
func (g *Game) knownSignals(name string, tree *runtime.Tree) map[string]bool {
	known := map[string]bool{}
	add := func(t *runtime.Tree) {
		for _, s := range t.Signals {
			known[s.Name] = true
		}
		for _, r := range t.Rules {
			if r.Kind == runtime.KindAction && r.Action == "bt.signal.wait" {
				if name, ok := r.Params.Get("signal.name"); ok {
					known[name] = true
				}
			}
		}
	}
	for n, b := range g.trees {
		if tree == nil || n != name {
			add(b.Tree)
		}
	}
	if tree != nil {
		add(tree)
	}
	return known
}

func unknownSignal(name string, known map[string]bool) string {
	msg := fmt.Sprintf("signal %q, which no tree declares or waits for, no handler handles and no script reads: it has no effect", name)
	if s := runtime.Suggest(name, keys(known)); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// lintScripts checks the names scripts write as literals.
func (g *Game) lintScripts(signals map[string]bool) []Lint {
	if g.lua == nil {
		return nil
	}
	vars, stamps, gates := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, b := range g.trees {
		for _, v := range b.Tree.Vars {
			vars[v.Name] = true
		}
		for _, s := range b.Tree.Stamps {
			stamps[s.Name] = true
		}
		for _, gd := range b.Tree.Gates {
			gates[gd.Name] = true
		}
	}
	var out []Lint
	for _, l := range g.lua.engine.Literals() {
		pos := fmt.Sprintf("%s:%d", l.File, l.Line)
		switch l.Kind {
		case "signal":
			if !signals[l.Name] {
				out = append(out, Lint{pos, fmt.Sprintf("%s sends %s", l.Call, unknownSignal(l.Name, signals))})
			}
		case "variable", "timestamp", "gate":
			known := map[string]map[string]bool{"variable": vars, "timestamp": stamps, "gate": gates}[l.Kind]
			if known[l.Name] {
				continue
			}
			msg := fmt.Sprintf("%s(%q): no tree declares a %s %q, so the call fails whenever it runs", l.Call, l.Name, l.Kind, l.Name)
			if s := runtime.Suggest(l.Name, keys(known)); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			out = append(out, Lint{pos, msg})
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cfgText is the config file's text, to find the lines of its entries.
func (g *Game) cfgText() string {
	data, _ := readfile.Read(g.cfg.Path, readfile.ConfigLimit, "config")
	return string(data)
}

// hasAnyPrefix reports whether s begins with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
