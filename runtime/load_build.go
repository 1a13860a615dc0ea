package runtime

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file builds Tree.Rules from checked nodes: pre-order indices, parent,
// child and sibling links, depth, full ids and labels, and the rules of
// subtree files.

// idScope is what the id rules need to know about where a rule sits.
type idScope struct {
	// dot is the full id of the closest enclosing sequence or choice with an
	// id, in the same file; "" when there is none. An id starting with "."
	// is appended to it.
	dot string
	// sub is "S." inside a subtree rule whose full id is S (the closest one
	// with an id); "" outside. Every other id is prefixed with it.
	sub string
}

// fullID applies the id rules to an id as written.
func (l *loader) fullID(s idScope, id string) string {
	if strings.HasPrefix(id, ".") {
		return l.strs.concat(s.dot, id)
	}
	if s.sub == "" {
		return id
	}
	return l.strs.concat(s.sub, id)
}

// addFile adds a file's top-level items: its rules become children of
// parent (top-level rules of the tree when parent is -1), and its
// declarations join the tree's the first time the file is added.
func (l *loader) addFile(f *treeFile, parent, depth int32, scope idScope) {
	merge := !f.merged
	f.merged = true
	var first *node
	prev := int32(-1)
	for _, it := range f.items {
		switch {
		case it.rule != nil:
			if parent < 0 && first != nil {
				l.errs = append(l.errs, &Error{Pos: it.rule.pos, Err: ErrSeveralRoots, Msg: fmt.Sprintf("second top-level rule <%s> in the main tree file (the root is <%s> at %s); "+
					"the main file holds one root rule: put these rules inside a <sequence> or <choice>",
					it.rule.tag, first.tag, first.pos)})
			}
			if first == nil {
				first = it.rule
			}
			child := l.build(f, it.rule, parent, depth, scope)
			if parent >= 0 {
				l.link(parent, &prev, child)
			}
		case it.include != nil:
			if merge {
				l.include(f, it.include)
			}
		case merge:
			l.declare(f, it)
		}
	}
	if merge {
		l.resolveSignals(f)
	}
}

// link appends child to parent's children; prev is the last child so far.
func (l *loader) link(parent int32, prev *int32, child int32) {
	if child < 0 {
		return
	}
	if *prev < 0 {
		l.tree.Rules[parent].FirstChild = child
	} else {
		l.tree.Rules[*prev].Next = child
	}
	*prev = child
}

// build appends the rule for n and its descendants to Tree.Rules and returns
// its index, or -1 when building has stopped at a limit.
func (l *loader) build(f *treeFile, n *node, parent, depth int32, scope idScope) int32 {
	if l.full {
		return -1
	}
	if depth > maxDepth {
		l.errorf(n.pos, "rules nested more than %d deep (through subtree files); a tree nests at most %d rules", maxDepth, maxDepth)
		l.full = true
		return -1
	}
	if len(l.tree.Rules) >= maxRules {
		l.errorf(n.pos, "the tree grows beyond %d rules (subtree files included); check for subtree files included many times over", maxRules)
		l.full = true
		return -1
	}
	idx := int32(len(l.tree.Rules))
	// The rule is made in place (a Rule is big); on a problem that stops
	// building it is taken off again.
	l.tree.Rules = append(l.tree.Rules, Rule{
		Kind: n.kind, Tag: n.tag, Pos: n.pos, Action: n.action, Subtree: n.subtree, Default: n.def,
		Loop: n.loop, DoNotFail: n.doNotFail, Abort: n.abort, Order: n.order, SuccessAt: n.successAt, FailureAt: n.failureAt, Timeout: n.timeout, Cooldown: n.cooldown, Gate: n.gate,
		Repeat: n.repeat, Attempts: n.attempts, Enter: n.enter, Exit: n.exit,
		Conds: n.conds, Mode: n.mode, Params: n.params,
		Parent: parent, FirstChild: -1, Next: -1, Depth: depth,
	})
	r := &l.tree.Rules[idx]
	if n.hasID {
		r.ID = l.fullID(scope, n.id)
		if !l.idFits(n, r.ID) {
			l.tree.Rules = l.tree.Rules[:idx]
			return -1
		}
		if first, dup := l.ids[r.ID]; dup {
			l.duplicateID(n, r.ID, first, parent)
		} else {
			l.ids[r.ID] = idx
		}
		r.Label = r.ID
	} else {
		r.Label = l.label(n.tag, n.pos)
	}
	if l.labelBytes += len(r.Label); l.labelBytes > maxLabelBytes {
		l.errorf(n.pos, "the tree's ids and labels add up to more than %d MB; check for deeply nested rules whose ids start with \".\" or subtree files included many times over",
			maxLabelBytes>>20)
		l.full = true
		l.tree.Rules = l.tree.Rules[:idx]
		return -1
	}

	if n.tag == "subtree" || n.tag == "subTree" {
		if n.subtree != "" {
			l.expand(f, n, idx, depth, scope)
		}
		return idx
	}
	inner := scope
	if r.ID != "" && n.kind.IsList() {
		inner.dot = r.ID
	} // r is not used below: building the children moves Tree.Rules
	prev := int32(-1)
	var states []int32 // a state machine's states' rules
	for _, c := range n.children {
		child := l.build(f, c, idx, depth+1, inner)
		l.link(idx, &prev, child)
		if n.kind == KindStateMachine && child >= 0 {
			states = append(states, child)
		}
	}
	if n.kind == KindStateMachine {
		l.addMachine(n, idx, states)
	}
	return idx
}

// Ids grow with the ids around them (".x" inside "a" is "a.x", and every id
// of a subtree file is prefixed with the subtree's), so rules nested deep
// could make ids whose total length grows with the square of the depth.
// These limits stop that with an error long before it costs memory; real
// ids are a few dozen bytes.
const (
	maxIDLen      = 1024     // bytes of one full id
	maxLabelBytes = 64 << 20 // bytes of all ids and labels of a tree
)

// idFits reports whether a full id is within maxIDLen; if not, it reports
// the error at the rule and stops building.
func (l *loader) idFits(n *node, id string) bool {
	if len(id) <= maxIDLen {
		return true
	}
	if id == n.id {
		l.errorf(n.pos, "id %s... is %d bytes long; an id may be at most %d bytes", cutText(id, 40), len(id), maxIDLen)
	} else {
		l.errorf(n.pos, "id %s... (written %s) is %d bytes long with the prefixes of the rules around it; a full id may be at most %d bytes",
			cutText(id, 40), cutText(n.id, 40), len(id), maxIDLen)
	}
	l.full = true
	return false
}

// cutText shortens s to about n bytes for a message, at a character
// boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// expand makes the top-level rules of a subtree file the children of the
// subtree rule at idx.
func (l *loader) expand(from *treeFile, n *node, idx, depth int32, scope idScope) {
	f := l.open(subtreePath(from.path, n.subtree), nil)
	if f.readErr != nil {
		l.readError(n.pos, f)
		return
	}
	if !f.ok {
		return // its problems are already reported
	}
	for i, g := range l.chain {
		if g == f {
			names := make([]string, 0, len(l.chain)+1)
			for _, h := range l.chain[i:] {
				names = append(names, h.display)
			}
			names = append(names, f.display)
			l.errorf(n.pos, "subtree cycle: %s; a tree file cannot include itself, directly or through other files",
				strings.Join(names, " -> "))
			return
		}
	}
	// The subtree rule is not a parent for the dot rule inside the file (its
	// top-level ".x" stays ".x"), but its id prefixes every other id there.
	inner := idScope{sub: scope.sub}
	if id := l.tree.Rules[idx].ID; id != "" {
		inner.sub = id + "."
	}
	l.chain = append(l.chain, f)
	l.addFile(f, idx, depth+1, inner)
	l.chain = l.chain[:len(l.chain)-1]
}

// duplicateID reports a second rule with the full id of rule first. The new
// rule is not in Tree.Rules yet; parent is its parent.
func (l *loader) duplicateID(n *node, id string, first, parent int32) {
	fr := &l.tree.Rules[first]
	written := ""
	if n.id != id {
		written = " (written " + n.id + ")"
	}
	hint := "ids must be unique in the whole tree"
	if fr.Pos == n.pos {
		// The same line of a file included twice.
		if strings.HasPrefix(n.id, ".") {
			hint = `a top-level id starting with "." in a subtree file gets no prefix, so that file can be included only once`
		} else {
			hint = "the file is included more than once: give each <subtree> its own id so their ids get different prefixes"
		}
	}
	l.errorf(n.pos, "duplicate id %s%s%s: <%s> at %s%s has it already; %s",
		id, written, l.via(parent), fr.Tag, fr.Pos, l.via(fr.Parent), hint)
}

// via describes the subtree rule whose file holds a rule, given the rule's
// parent: " (through <subtree> at POS)", or "" outside subtree files.
func (l *loader) via(parent int32) string {
	for i := parent; i >= 0; i = l.tree.Rules[i].Parent {
		if r := &l.tree.Rules[i]; r.Subtree != "" {
			return fmt.Sprintf(" (through <%s> at %s)", r.Tag, r.Pos)
		}
	}
	return ""
}

// label is TAG@FILE:LINE:COL, the label of a rule without id. Built by hand
// into the string table's chunks: most rules of a big tree have no id, and
// fmt is slow here.
func (l *loader) label(tag string, pos Pos) string {
	b := append(l.strs.buf[:0], tag...)
	b = append(b, '@')
	b = append(b, pos.File...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(pos.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(pos.Col), 10)
	l.strs.buf = b
	return l.strs.copy(b)
}
