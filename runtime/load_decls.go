package runtime

import (
	"fmt"
	"strings"
)

// This file merges the declaration lines of every tree file into
// Tree.Vars, Tree.Signals, Tree.Stamps and Tree.Gates, in first-declaration
// order.
// Repeating a declaration identically is allowed (a subtree file may
// repeat what its parent declares); repeating it differently is an error.

// decls is the loader's declaration state.
type decls struct {
	varIdx, signalIdx, stampIdx, gateIdx map[string]int32
	signalVars                           map[signalVar]signalSetAt // the value each (signal, variable) pair sets
}

type signalVar struct{ signal, variable string }

// signalSetAt is the value a signal line sets and where that line is.
type signalSetAt struct {
	value, from string
	pos         Pos
}

// pendingSet is a signal line whose variable is looked up at the end of
// its file, so that a file may declare the variable after the signal.
type pendingSet struct {
	signal, set int32 // Tree.Signals[signal].Sets[set]
	variable    string
	line        *signalLine
}

func newDecls() decls {
	return decls{
		varIdx:     make(map[string]int32),
		signalIdx:  make(map[string]int32),
		stampIdx:   make(map[string]int32),
		gateIdx:    make(map[string]int32),
		signalVars: make(map[signalVar]signalSetAt),
	}
}

// declare merges one declaration line of file f.
func (l *loader) declare(f *treeFile, it item) {
	t := l.tree
	switch {
	case it.variable != nil:
		v := it.variable
		if v.name == "" {
			return // reported by the checker
		}
		if i, ok := l.varIdx[v.name]; ok {
			if old := t.Vars[i]; old.Type != v.typ {
				l.errorf(v.pos, "variable %q declared again with type=\"%s\" (first declared at %s with type=\"%s\"); "+
					"declare it once, or each time with the same type and default", v.name, v.typ, old.Pos, old.Type)
			} else if old.Default != v.def || !old.Init.Equal(v.init) {
				l.errorf(v.pos, "variable %q declared again with default=\"%s\" (first declared at %s with default=\"%s\"); "+
					"declare it once, or each time with the same default", v.name, v.decl().DefaultValue().Text(), old.Pos, old.DefaultValue().Text())
			}
			return
		}
		l.varIdx[v.name] = int32(len(t.Vars))
		t.Vars = append(t.Vars, v.decl())

	case it.signal != nil:
		s := it.signal
		if s.name == "" {
			return
		}
		si := l.signalDecl(s.name, s.pos)
		if s.expires > 0 {
			sig := &t.Signals[si]
			switch {
			case sig.Expires == 0:
				sig.Expires, sig.ExpiresPos = s.expires, s.pos
			case sig.Expires != s.expires:
				l.errorf(s.pos, "signal %q declared again with expires=\"%s\" (declared at %s with expires=\"%s\"); a signal's stimulus expires after one time",
					s.name, formatSeconds(s.expires), sig.ExpiresPos, formatSeconds(sig.Expires))
			}
		}
		if s.variable == "" {
			return
		}
		key := signalVar{s.name, s.variable}
		if old, ok := l.signalVars[key]; ok {
			if old.value != s.value || old.from != s.from {
				l.errorf(s.pos, "signal %q sets variable %q to %s here but to %s at %s; a signal sets a variable to one value",
					s.name, s.variable, s.setText(), (&signalLine{value: old.value, from: old.from}).setText(), old.pos)
			}
			return
		}
		l.signalVars[key] = signalSetAt{s.value, s.from, s.pos}
		sig := &t.Signals[si]
		f.pending = append(f.pending, pendingSet{signal: si, set: int32(len(sig.Sets)), variable: s.variable, line: s})
		sig.Sets = append(sig.Sets, SignalSet{Var: -1, Pos: s.pos})

	case it.stamp != nil:
		s := it.stamp
		if s.name == "" {
			return
		}
		if i, ok := l.stampIdx[s.name]; ok {
			old := t.Stamps[i]
			var now, then []string
			if old.SetOnSignal != s.setOnSignal {
				now = append(now, fmt.Sprintf("setOnSignal=%q", s.setOnSignal))
				then = append(then, fmt.Sprintf("setOnSignal=%q", old.SetOnSignal))
			}
			if old.ExclusiveTo != s.exclusiveTo {
				now = append(now, fmt.Sprintf("exclusiveTo=%q", s.exclusiveTo))
				then = append(then, fmt.Sprintf("exclusiveTo=%q", old.ExclusiveTo))
			}
			if len(now) > 0 {
				l.errorf(s.pos, "timestamp %q declared again with %s (first declared at %s with %s); "+
					"declare it once, or each time with the same settings",
					s.name, strings.Join(now, " "), old.Pos, strings.Join(then, " "))
			}
			return
		}
		l.stampIdx[s.name] = int32(len(t.Stamps))
		t.Stamps = append(t.Stamps, StampDecl{Name: s.name, SetOnSignal: s.setOnSignal, ExclusiveTo: s.exclusiveTo, Pos: s.pos})

	case it.gate != nil:
		g := it.gate
		if g.name == "" {
			return
		}
		if i, ok := l.gateIdx[g.name]; ok {
			if old := t.Gates[i]; old.Users != g.users || old.Cooldown != g.cooldown {
				l.errorf(g.pos, "gate %q declared again with %s (first declared at %s with %s); "+
					"declare it once, or each time with the same settings",
					g.name, gateSettings(g.users, g.cooldown), old.Pos, gateSettings(old.Users, old.Cooldown))
			}
			return
		}
		l.gateIdx[g.name] = int32(len(t.Gates))
		t.Gates = append(t.Gates, GateDecl{Name: g.name, Users: g.users, Cooldown: g.cooldown, Pos: g.pos})
	}
}

// signalDecl returns the index of the named signal, declaring it at pos if
// it is new.
func (l *loader) signalDecl(name string, pos Pos) int32 {
	if i, ok := l.signalIdx[name]; ok {
		return i
	}
	i := int32(len(l.tree.Signals))
	l.signalIdx[name] = i
	l.tree.Signals = append(l.tree.Signals, SignalDecl{Name: name, Pos: pos})
	return i
}

// resolveSignals looks up the variables that file f's signal lines set,
// once f has been read to its end (its subtree files included): a signal
// may name a variable declared later in the same file, or in any file read
// before this point.
func (l *loader) resolveSignals(f *treeFile) {
	for _, p := range f.pending {
		vi, ok := l.varIdx[p.variable]
		if !ok {
			l.errorf(p.line.pos, "signal %q sets variable %q, which is not declared; declare it with "+
				"<variable name=%q/> in this file or in a file read before it", p.line.name, p.variable, p.variable)
			continue
		}
		set := &l.tree.Signals[p.signal].Sets[p.set]
		set.Var = vi
		l.signalValue(set, &l.tree.Vars[vi], p.line)
	}
	f.pending = nil
}

// signalValue reads a signal line's value= against its variable's type,
// or keeps its from= path.
func (l *loader) signalValue(set *SignalSet, v *VarDecl, s *signalLine) {
	if s.noValue {
		return
	}
	if s.from != "" {
		set.From = strings.Split(s.from, ".")
		set.Typed = VarValue{Type: v.Type}
		return
	}
	val, err := ParseVarValue(v.Type, s.value)
	if err != nil {
		if v.Type == VarBoolean {
			l.errorf(s.pos, "value=%q on <signal> is not a boolean; expected true or false", s.value)
		} else {
			l.errorf(s.pos, "value=%q on <signal> for %s variable %q: %s", s.value, v.Type, v.Name, badValueMsg(err))
		}
		return
	}
	set.Value = val.Bool
	if v.Type != VarBoolean {
		set.Typed = val
	}
}

// finishDecls resolves what may refer to any file of the tree: the signals
// that set timestamps, exclusiveTo, which is symmetric, and the gates that
// rules take. A gate may not share its name with a variable or a timestamp:
// G.open would be ambiguous with a timestamp's conditions, and a designer
// reading the name would not know which it is.
func (l *loader) finishDecls() {
	t := l.tree
	for _, g := range t.Gates {
		if i, ok := l.varIdx[g.Name]; ok {
			l.errorf(g.Pos, "gate %q has the name of the variable declared at %s; a gate, a variable and a timestamp each need a name of their own",
				g.Name, t.Vars[i].Pos)
		}
		if i, ok := l.stampIdx[g.Name]; ok {
			l.errorf(g.Pos, "gate %q has the name of the timestamp declared at %s; a gate, a variable and a timestamp each need a name of their own",
				g.Name, t.Stamps[i].Pos)
		}
	}
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Gate == "" {
			continue
		}
		if _, ok := l.gateIdx[r.Gate]; !ok {
			hint := fmt.Sprintf("declare it in one of the tree's files with <gates><gate name=%q users=\"1\"/></gates>", r.Gate)
			names := make([]string, len(t.Gates))
			for k, g := range t.Gates {
				names[k] = g.Name
			}
			if s := suggest(r.Gate, names); s != "" {
				hint = fmt.Sprintf("did you mean %q? (or %s)", s, hint)
			}
			l.errorf(r.Pos, "gate=%q on <%s>: no gate %q is declared; %s", r.Gate, r.Tag, r.Gate, hint)
		}
	}
	for i := range t.Stamps {
		if name := t.Stamps[i].SetOnSignal; name != "" {
			si := l.signalDecl(name, t.Stamps[i].Pos)
			t.Signals[si].Stamps = append(t.Signals[si].Stamps, int32(i))
		}
	}
	l.checkHeld()
	for i := range t.Stamps {
		s := &t.Stamps[i]
		if s.ExclusiveTo == "" {
			continue
		}
		j, ok := l.stampIdx[s.ExclusiveTo]
		switch {
		case s.ExclusiveTo == s.Name:
			l.errorf(s.Pos, "timestamp %q is exclusiveTo itself; expected the name of another timestamp", s.Name)
		case !ok:
			l.errorf(s.Pos, "timestamp %q is exclusiveTo %q, which is not a declared timestamp; expected the name of a <timestamp>",
				s.Name, s.ExclusiveTo)
		default:
			addExclusive(s, j)
			addExclusive(&t.Stamps[j], int32(i))
		}
	}
}

// addExclusive records that setting s clears timestamp j.
func addExclusive(s *StampDecl, j int32) {
	for _, k := range s.Exclusive {
		if k == j {
			return
		}
	}
	s.Exclusive = append(s.Exclusive, j)
}

// gateSettings writes a gate's settings as its declaration would.
func gateSettings(users int, cooldown float64) string {
	return fmt.Sprintf("users=\"%d\" cooldown=\"%s\"", users, formatSeconds(cooldown))
}

// checkHeld reports the conditions S.held (a signal S holds a stimulus,
// stimuli.go) whose name a reader could take for something else: S is also
// a timestamp's or a gate's name (a timestamp or a gate "held"?), or a
// variable is named S.held itself (the variable would win). A signal may
// share its name with a variable, as is usual (<signal name="Alarm"
// variable="Alarm" .../>): Alarm and Alarm.held cannot be confused.
func (l *loader) checkHeld() {
	t := l.tree
	for i := range t.Rules {
		for _, c := range t.Rules[i].Conds {
			sig, ok := strings.CutSuffix(c.Name, ".held")
			if !ok {
				continue
			}
			if _, ok := l.signalIdx[sig]; !ok {
				continue
			}
			what := ""
			if j, ok := l.stampIdx[sig]; ok {
				what = fmt.Sprintf("timestamp %q (declared at %s)", sig, t.Stamps[j].Pos)
			} else if j, ok := l.gateIdx[sig]; ok {
				what = fmt.Sprintf("gate %q (declared at %s)", sig, t.Gates[j].Pos)
			} else if j, ok := l.varIdx[c.Name]; ok {
				what = fmt.Sprintf("variable %q (declared at %s)", c.Name, t.Vars[j].Pos)
			} else {
				continue
			}
			l.errorf(c.Pos, "condition %q: %s is also the %s; a signal whose stimulus a tree tests with .held needs a name no timestamp or gate has, and no variable may be named %q",
				c.Name, sig, what, c.Name)
		}
	}
}

// decl is the declaration a variable line makes.
func (v *varLine) decl() VarDecl {
	d := VarDecl{Name: v.name, Default: v.def, Type: v.typ, Pos: v.pos}
	if v.typ != VarBoolean {
		d.Init = v.init
	}
	return d
}

// setText is what a signal line sets its variable to, as messages say it.
func (s *signalLine) setText() string {
	if s.from != "" {
		return fmt.Sprintf("the data at %q", s.from)
	}
	return s.value
}
