package runtime

import (
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
)

// Native documents: Lumberyard's modular behavior trees (MBT, root
// <BehaviorTree> holding <Root>) and CryEngine's behavior selection trees
// (BHS, root <SelectionTree>) load as they are. They are front-ends: a
// document is translated, element by element, into the format's own
// elements (a <behaviorTree> with declaration blocks and one root rule),
// each keeping the position of the element it came from, and then checked
// and built like any tree file. So they add no rule kinds, and stepping,
// saves, reload, the workers and the live view treat them like any tree;
// an error names the line and column of the document's own element.
//
// load_mbt.go and load_bhs.go hold the two node sets; convert.go writes a
// translation out as a tree file (btrun convert), with the comments of the
// document and each rule's origin as a comment.

// Root elements of the native documents.
const (
	mbtRoot = "BehaviorTree"
	bhsRoot = "SelectionTree"
)

// isNativeRoot reports whether a root element is a native document's.
func isNativeRoot(name string) bool { return name == mbtRoot || name == bhsRoot || name == desmRoot }

// commentTag names the pseudo-elements that carry comments through a
// translation for btrun convert; the loader's reader makes none.
const commentTag = "#comment"

// native translates one document. Errors go to errs; origins, when not nil,
// collects each made rule's origin for convert's comments.
type native struct {
	file    string // display path, for gate names
	errs    *ErrorList
	origins map[*elem]string
	kind    string // "MBT", "BHS" or "state machine", for origins
	// The declaration blocks of the translation, in the order made.
	vars, signals, stamps, gates *elem
	gateNames                    map[string]bool
	// blocks resolves a BHS <Ref name="...">; nil for MBT.
	blocks map[string]*elem
	// leaves maps BHS leaf names to behaviour (action) names.
	leaves map[string]string
	// expanding holds the blocks whose <Ref> is being put in place (a
	// block that refers to itself is an error); refElems counts the
	// elements put in place, refFull says the count went over.
	expanding map[string]bool
	refElems  int
	refFull   bool
	// comments are kept (for convert) before the root: those of
	// sections with no counterpart, such as LeafTranslations.
	comments []*elem
	// src maps each made rule to the native element it comes from.
	src map[*elem]*elem
}

func (t *native) errorf(pos Pos, format string, args ...any) {
	*t.errs = append(*t.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidTree})
}

// translateNative turns a native document's root into a <behaviorTree>
// element; nil when the root is not a native one.
func translateNative(file string, root *elem, errs *ErrorList, origins map[*elem]string, blockFiles func(Pos, string) *elem) *elem {
	t := &native{file: file, errs: errs, origins: origins, gateNames: map[string]bool{}, src: map[*elem]*elem{}}
	var doc *elem
	switch root.name {
	case mbtRoot:
		t.kind = "MBT"
		doc = t.mbt(root)
	case bhsRoot:
		t.kind = "BHS"
		doc = t.bhs(root, blockFiles)
	case desmRoot: // load_desm.go
		t.kind = "state machine"
		doc = t.desmDoc(root, blockFiles)
	default:
		return nil
	}
	t.assignIDs(doc, "")
	return doc
}

// maxIDPrefix bounds the path part of a made id; deeper rules start a new
// path at their position, so that ids stay short however deep the tree.
const maxIDPrefix = 200

// assignIDs gives every rule inside e an id: its path of node names from
// the root (Selector.LimitConcurrentUsers.ChasePlayer; a BHS Priority or
// Leaf by its name attribute; a second sibling of one name gets 2, ...).
// Saves name an agent's current rule by its id, and the path survives
// edits that move lines; labels and the trace show it too.
func (t *native) assignIDs(e *elem, prefix string) {
	taken := map[string]bool{}
	for _, k := range e.children {
		switch {
		case k.name == "state":
			name := ""
			for _, a := range k.attrs {
				if a.Name.Local == "name" {
					name = idSegment(a.Value)
				}
			}
			t.assignIDs(k, joinID(prefix, name))
		case k.name == "stateMachine" || isRuleTag(k.name):
			seg := t.segment(k)
			if len(prefix) > maxIDPrefix {
				prefix = ""
				seg = fmt.Sprintf("%s@%d:%d", seg, k.pos.Line, k.pos.Col)
			}
			base := seg
			for n := 2; taken[seg]; n++ {
				seg = base + strconv.Itoa(n)
			}
			taken[seg] = true
			id := joinID(prefix, seg)
			setAttr(k, "id", id)
			t.assignIDs(k, id)
		}
	}
}

func isRuleTag(name string) bool { _, ok := ruleKinds[name]; return ok }

func joinID(prefix, seg string) string {
	if prefix == "" {
		return seg
	}
	return prefix + "." + seg
}

// segment is a made rule's part of its id.
func (t *native) segment(k *elem) string {
	from := t.src[k]
	if from == nil {
		for _, a := range k.attrs {
			if a.Name.Local == "name" {
				return idSegment(a.Value) // a built-in action a node needed
			}
		}
		return k.name
	}
	if from.name == "Leaf" || from.name == "Priority" {
		for _, a := range from.attrs {
			if a.Name.Local == "name" && a.Value != "" {
				return idSegment(a.Value)
			}
		}
	}
	return idSegment(from.name)
}

// idSegment keeps letters, digits, _ and - of a name (others become _):
// a dot would read as a path.
func idSegment(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// mk makes an element of the format at pos, with attribute name, value
// pairs.
func mk(name string, pos Pos, attrs ...string) *elem {
	e := &elem{name: name, pos: pos}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.attrs = append(e.attrs, xml.Attr{Name: xml.Name{Local: attrs[i]}, Value: attrs[i+1]})
	}
	return e
}

// setAttr sets (or adds) an attribute of e.
func setAttr(e *elem, name, value string) {
	for i := range e.attrs {
		if e.attrs[i].Name.Local == name {
			e.attrs[i].Value = value
			return
		}
	}
	e.attrs = append(e.attrs, xml.Attr{Name: xml.Name{Local: name}, Value: value})
}

// textElem makes an element holding text, such as <parameter> or <condition>.
func textElem(name string, pos Pos, text string, attrs ...string) *elem {
	e := mk(name, pos, attrs...)
	e.text = text
	if text != "" {
		e.textPos = pos
	}
	return e
}

func paramElem(pos Pos, name, value string) *elem {
	return textElem("parameter", pos, value, "name", name)
}

// origin records where a made rule comes from.
func (t *native) origin(made, from *elem) *elem {
	if made != nil {
		t.src[made] = from
	}
	if t.origins != nil && made != nil {
		where := ""
		if from.pos.File != t.file {
			where = from.pos.File + " "
		}
		t.origins[made] = fmt.Sprintf("%s %s, %sline %d", t.kind, from.name, where, from.pos.Line)
	}
	return made
}

// attrMap reads the attributes of a native element, reporting any not in
// allowed (nil allows any) and repeated ones.
func (t *native) attrMap(e *elem, allowed ...string) map[string]string {
	m := make(map[string]string, len(e.attrs))
	for _, a := range e.attrs {
		name := qname(a.Name)
		if _, dup := m[name]; dup {
			t.errorf(e.pos, "attribute %s given twice on <%s>; give it once", name, e.name)
			continue
		}
		if allowed != nil && index(allowed, name) < 0 {
			if len(allowed) == 0 {
				t.errorf(e.pos, "unknown attribute %s on %s <%s>; it takes no attributes", name, t.kind, e.name)
			} else {
				t.errorf(e.pos, "unknown attribute %s on %s <%s>; expected %s", name, t.kind, e.name, oneOf(allowed))
			}
			continue
		}
		m[name] = a.Value
	}
	return m
}

// need returns a required attribute, reporting it when absent or empty.
func (t *native) need(e *elem, m map[string]string, name, what string) (string, bool) {
	v, ok := m[name]
	if !ok || strings.TrimSpace(v) == "" {
		t.errorf(e.pos, "%s <%s> needs a %s attribute: %s", t.kind, e.name, name, what)
		return "", false
	}
	return strings.TrimSpace(v), true
}

// boolText reads the engines' booleans: true/false in any case, 1/0.
func boolText(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes":
		return true, true
	case "false", "0", "no":
		return false, true
	}
	return false, false
}

// boolAttr reads an optional engine boolean as the format's "true"/"false".
func (t *native) boolAttr(e *elem, m map[string]string, name string) (string, bool) {
	s, ok := m[name]
	if !ok {
		return "", false
	}
	b, ok := boolText(s)
	if !ok {
		t.errorf(e.pos, "%s=%q on %s <%s> is not a boolean; expected true, false, 1 or 0", name, s, t.kind, e.name)
		return "", false
	}
	return strconv.FormatBool(b), true
}

// seconds reads a number of seconds >= 0 as written.
func (t *native) seconds(e *elem, m map[string]string, name string, required bool) (string, bool) {
	s, ok := m[name]
	if !ok {
		if required {
			t.errorf(e.pos, "%s <%s> needs a %s attribute: a number of seconds", t.kind, e.name, name)
		}
		return "", false
	}
	s = strings.TrimSpace(s)
	if x, err := strconv.ParseFloat(s, 64); err != nil || !(x >= 0) || x > 1e15 {
		t.errorf(e.pos, "%s=%q on %s <%s> is not a number of seconds; expected a finite number >= 0 such as 2 or 0.5", name, m[name], t.kind, e.name)
		return "", false
	}
	return s, true
}

// block returns the translation's declaration block of a tag, made on
// first use.
func (t *native) block(p **elem, tag string, pos Pos) *elem {
	if *p == nil {
		*p = mk(tag, pos)
	}
	return *p
}

// gate declares a gate for a LimitConcurrentUsers and returns its name: one
// per element, named after the file and position so that the agents of
// every tree loaded from the document share it.
func (t *native) gate(e *elem, users string) string {
	base := path.Base(t.file)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	name := fmt.Sprintf("%s_%s_%d_%d", strings.ToLower(e.name), base, e.pos.Line, e.pos.Col)
	if !t.gateNames[name] {
		t.gateNames[name] = true
		g := t.block(&t.gates, "gates", e.pos)
		g.children = append(g.children, mk("gate", e.pos, "name", name, "users", users))
	}
	return name
}

// document assembles the <behaviorTree>: declarations first, then the root.
func (t *native) document(from *elem, comments []*elem, root *elem) *elem {
	doc := mk("behaviorTree", from.pos)
	doc.children = append(doc.children, comments...)
	for _, b := range []*elem{t.vars, t.signals, t.stamps, t.gates} {
		if b != nil {
			doc.children = append(doc.children, b)
		}
	}
	doc.children = append(doc.children, t.comments...)
	if root != nil {
		doc.children = append(doc.children, root)
	}
	return doc
}

// addComment appends k to dst when it is a comment (for convert), and
// says whether it was.
func addComment(dst *elem, k *elem) bool {
	if k.name == commentTag {
		dst.children = append(dst.children, k)
		return true
	}
	return false
}

// noText reports text inside a native element that holds none.
func (t *native) noText(e *elem) {
	if e.textPos.Line != 0 {
		t.errorf(e.textPos, "unexpected text %s in %s <%s>; it holds only elements and comments", snippet(e.text), t.kind, e.name)
	}
}

// blockFile reads a file that the native document f names (rel is
// relative to f's folder): a BHS block file, whose <Blocks> element it
// returns, or a state machine's <import>, whose root it returns (its
// translation checks it); nil when it cannot (reported at pos). The file
// counts among the tree's files: its content is in the fingerprint and a
// reload watches it.
func (l *loader) blockFile(f *treeFile, pos Pos, rel, docRoot string) *elem {
	what := "BHS block file"
	if docRoot == desmRoot {
		what = "imported state machine file"
	}
	p := subtreePath(f.path, rel)
	display := l.display(p)
	data, err := l.readFile(p)
	if err != nil {
		l.errs = append(l.errs, &Error{Pos: pos, Msg: fmt.Sprintf("cannot read %s %s: %s", what, display, readfile.Reason(err)),
			Err: fmt.Errorf("%w: %w", ErrInvalidTree, err)})
		return nil
	}
	if _, seen := l.files[display]; !seen {
		l.files[display] = &treeFile{path: p, display: display}
		l.order = append(l.order, l.files[display])
		l.hash.Write([]byte(display))
		l.hash.Write([]byte{0})
		l.hash.Write(data)
	}
	text, derr := decodeText(data)
	if derr != nil {
		l.errorf(Pos{File: display, Line: derr.line, Col: derr.col}, "%s", derr.msg)
		return nil
	}
	root, _ := readXML(display, text, l.strs, &l.errs, xmlReading{noStream: true}, l.custom)
	if root == nil {
		return nil
	}
	if root.name != "Blocks" && docRoot != desmRoot {
		l.errorf(root.pos, "root element of BHS block file is <%s>; expected <Blocks>", root.name)
		return nil
	}
	return root
}
