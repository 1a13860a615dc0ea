package runtime

import "strings"

// CryEngine's behavior selection trees (BHS): <SelectionTree> with the
// Variables, SignalVariables and LeafTranslations sections and one root
// <Priority>. A Priority is a choice whose children's conditions are
// watched (abort="both"): the tree keeps the agent in the first leaf, in
// document order, whose conditions hold, as the selection tree's
// evaluation at every update does. A Leaf calls its behaviour, the action
// registered under its name or under the name LeafTranslations maps it
// to. Blocks of shared sections and subtrees (<Blocks><Block name="...">)
// come from the document itself or from block files the root names
// (blocks="Common.xml other.xml", paths relative to the document), and a
// <Ref name="..."/> (or <ref>) puts a block's content in its place.

// maxRefDepth bounds blocks that refer to blocks, and maxRefElems the
// elements that references put in place in all: blocks that refer to
// blocks twice over would otherwise double at each level.
const (
	maxRefDepth = 32
	maxRefElems = 50_000
)

func (t *native) bhs(root *elem, blockFiles func(Pos, string) *elem) *elem {
	m := t.attrMap(root, "name", "type", "blocks", "xmlns")
	t.noText(root)
	t.blocks = map[string]*elem{}
	t.leaves = map[string]string{}
	if files, ok := m["blocks"]; ok && blockFiles != nil {
		for _, f := range strings.Fields(files) {
			if b := blockFiles(root.pos, f); b != nil {
				t.addBlocks(b)
			}
		}
	}
	for _, ch := range root.children {
		if ch.name == "Blocks" {
			t.addBlocks(ch)
		}
	}
	// LeafTranslations first: a leaf anywhere may use them.
	for _, ch := range root.children {
		if ch.name == "LeafTranslations" {
			t.declBlock(ch, "Map", t.leafMap)
		}
	}
	var comments []*elem
	var rule *elem
	var rootPos Pos
	for _, ch := range root.children {
		switch ch.name {
		case commentTag:
			comments = append(comments, ch)
		case "Variables":
			t.declBlock(ch, "Variable", t.variable)
		case "SignalVariables":
			t.declBlock(ch, "Signal", t.signal)
		case "LeafTranslations", "Blocks":
		case "Priority":
			if rootPos.Line != 0 {
				t.errorf(ch.pos, "second root <Priority> in BHS <SelectionTree> (the first is at %s); a selection tree has one", rootPos)
				continue
			}
			rootPos = ch.pos
			rule = t.bhsNode(ch, false, 0)
		default:
			t.errorf(ch.pos, "unknown element <%s> in BHS <SelectionTree>; expected one of Variables, SignalVariables, LeafTranslations, Blocks, Priority", ch.name)
		}
	}
	if rootPos.Line == 0 {
		t.errorf(root.pos, "BHS <SelectionTree> has no <Priority>; expected a root <Priority> holding the tree's leaves")
	}
	return t.document(root, comments, rule)
}

// addBlocks records the blocks of a <Blocks> element by name.
func (t *native) addBlocks(e *elem) {
	t.attrMap(e)
	for _, b := range e.children {
		switch {
		case b.name == commentTag:
		case b.name != "Block":
			t.errorf(b.pos, "<%s> in BHS <Blocks>; expected <Block name=\"...\">", b.name)
		default:
			m := t.attrMap(b, "name")
			if name, ok := t.need(b, m, "name", "the name a <Ref> uses"); ok {
				if old, dup := t.blocks[name]; dup {
					t.errorf(b.pos, "BHS block %q is defined twice: here and at %s", name, old.pos)
					continue
				}
				t.blocks[name] = b
			}
		}
	}
}

// ref puts the content of the block a <Ref> names in its place: each of its
// elements goes to each.
func (t *native) ref(e *elem, line string, each func(*elem)) {
	t.refDepth(e, 0, func(ch *elem) {
		if ch.name != line {
			t.errorf(ch.pos, "<%s> in a block used by the <Ref> at %s; here the block must hold <%s> elements", ch.name, e.pos, line)
			return
		}
		each(ch)
	})
}

func (t *native) refDepth(e *elem, depth int, each func(*elem)) {
	m := t.attrMap(e, "name")
	name, ok := t.need(e, m, "name", "the name of a <Block>")
	if !ok {
		return
	}
	b, ok := t.blocks[name]
	switch {
	case !ok:
		t.errorf(e.pos, "BHS <Ref> names block %q, which no <Blocks> defines; blocks come from this document and the files its blocks= attribute names", name)
		return
	case t.expanding[name]:
		t.errorf(e.pos, "BHS <Ref> to %q inside block %q itself; a block cannot hold itself", name, name)
		return
	case depth >= maxRefDepth:
		t.errorf(e.pos, "BHS <Ref> to %q: blocks refer to blocks more than %d deep", name, maxRefDepth)
		return
	case t.refElems > maxRefElems:
		if !t.refFull {
			t.refFull = true
			t.errorf(e.pos, "BHS <Ref> to %q: the references put more than %d elements in place; blocks that refer to blocks several times over multiply", name, maxRefElems)
		}
		return
	}
	if t.expanding == nil {
		t.expanding = map[string]bool{}
	}
	t.expanding[name] = true
	defer delete(t.expanding, name)
	for _, ch := range b.children {
		switch {
		case ch.name == commentTag:
		case strings.EqualFold(ch.name, "ref"):
			t.refDepth(ch, depth+1, each)
		default:
			t.refElems += countElems(ch)
			each(ch)
		}
	}
}

// countElems counts e and the elements inside it.
func countElems(e *elem) int {
	n := 1
	for _, k := range e.children {
		n += countElems(k)
	}
	return n
}

func (t *native) leafMap(e *elem) {
	m := t.attrMap(e, "node", "target")
	node, ok1 := t.need(e, m, "node", "the leaf name used in the tree")
	target, ok2 := t.need(e, m, "target", "the behaviour (action) it runs")
	if ok1 && ok2 {
		t.leaves[node] = target
	}
}

// bhsNode translates a Priority or Leaf; inChoice says its parent is a
// Priority. depth counts the Refs followed to reach it.
func (t *native) bhsNode(e *elem, inChoice bool, depth int) *elem {
	t.noText(e)
	var r *elem
	var m map[string]string
	switch e.name {
	case "Priority":
		m = t.attrMap(e, "name", "condition")
		r = mk("choice", e.pos)
		for _, ch := range e.children {
			switch {
			case ch.name == commentTag:
				r.children = append(r.children, ch)
			case strings.EqualFold(ch.name, "ref"):
				t.refDepth(ch, depth, func(k *elem) {
					if k := t.bhsNode(k, true, depth+1); k != nil {
						r.children = append(r.children, k)
					}
				})
			default:
				if k := t.bhsNode(ch, true, depth); k != nil {
					r.children = append(r.children, k)
				}
			}
		}
	case "Leaf":
		m = t.attrMap(e, "name", "condition")
		name, ok := t.need(e, m, "name", "the behaviour it selects (or a name LeafTranslations maps)")
		if !ok {
			return nil
		}
		if to, ok := t.leaves[name]; ok {
			name = to
		}
		r = mk("action", e.pos, "name", name)
		t.noKids(e)
	default:
		t.errorf(e.pos, "unknown element <%s> in a BHS selection tree; expected <Priority>, <Leaf> or <Ref>", e.name)
		return nil
	}
	if c, ok := m["condition"]; ok && t.conditions(r, e, "condition", c) {
		if inChoice {
			setAttr(r, "abort", "both")
		} else {
			setAttr(r, "abort", "self")
		}
	}
	return t.origin(r, e)
}
