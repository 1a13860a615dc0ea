package runtime

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Conversion is a native document (MBT, BHS or a Drag[en]gine state
// machine) written in the format
// (btrun convert): the translation the loader runs, as text.
type Conversion struct {
	// Text is the tree file: the document's comments kept in place, each
	// rule preceded by a comment naming its origin (<!-- MBT Selector,
	// line 12 -->), and a last comment listing Actions.
	Text []byte
	// Actions are the names of the actions the tree calls that a game must
	// register (its leaves), sorted; the built-ins (bt.*) are not among
	// them.
	Actions []string
}

// Convert translates the native document at path (its content data) into
// the format. The document must load: any problem LoadBytes finds is
// returned instead, as an ErrorList. A file that is not a native document
// is an error wrapping ErrInvalidTree. BHS block files are read through
// opts.ReadFile, as a load reads them; their content is written in place
// of each <Ref>.
func Convert(path string, data []byte, opts LoadOptions) (*Conversion, error) {
	if _, err := LoadBytes(path, data, opts); err != nil {
		return nil, err
	}
	l := newLoader(opts)
	display := l.display(path)
	root, outer, errs := readComments(display, data)
	if len(errs) > 0 {
		return nil, errs
	}
	if !isNativeRoot(root.name) {
		return nil, ErrorList{{Pos: root.pos, Msg: fmt.Sprintf("root element is <%s>; btrun convert reads <%s> (MBT), <%s> (BHS) and Drag[en]gine <%s> documents", root.name, mbtRoot, bhsRoot, desmRoot), Err: ErrInvalidTree}}
	}
	origins := map[*elem]string{}
	blockFiles := func(pos Pos, rel string) *elem {
		p := subtreePath(path, rel)
		b, err := l.readFile(p)
		if err != nil {
			errs = append(errs, &Error{Pos: pos, Msg: "cannot read file " + l.display(p), Err: fmt.Errorf("%w: %w", ErrInvalidTree, err)})
			return nil
		}
		r, _, e := readComments(l.display(p), b)
		errs = append(errs, e...)
		return r
	}
	doc := translateNative(display, root, &errs, origins, blockFiles)
	if len(errs) > 0 {
		return nil, errs
	}
	w := &treeWriter{origins: origins, actions: map[string]bool{}}
	w.b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(&w.b, "<!-- Converted by btrun convert from %s (%s). -->\n", display, map[string]string{mbtRoot: "Lumberyard MBT", bhsRoot: "CryEngine BHS", desmRoot: "a Drag[en]gine state machine"}[root.name])
	for _, c := range outer {
		w.elem(c, 0)
	}
	w.elem(doc, 0)
	conv := &Conversion{}
	for name := range w.actions {
		conv.Actions = append(conv.Actions, name)
	}
	slices.Sort(conv.Actions)
	if len(conv.Actions) > 0 {
		fmt.Fprintf(&w.b, "<!-- Actions this tree expects to be registered (by a script or a plugin): %s -->\n", strings.Join(conv.Actions, ", "))
	}
	conv.Text = w.b.Bytes()
	return conv, nil
}

// readComments reads a document keeping its comments (xmlReading.comments);
// outer holds the comments outside the root element.
func readComments(display string, data []byte) (root *elem, outer []*elem, errs ErrorList) {
	text, derr := decodeText(data)
	if derr != nil {
		return nil, nil, ErrorList{{Pos: Pos{File: display, Line: derr.line, Col: derr.col}, Msg: derr.msg, Err: ErrInvalidTree}}
	}
	b := newXMLBuilder(display, text, newStrTable(), nil, xmlReading{comments: true})
	root = decodeXML(b)
	errs = append(errs, b.errs...)
	if root == nil && len(errs) == 0 {
		errs = append(errs, &Error{Pos: Pos{File: display}, Msg: "the file holds no element", Err: ErrInvalidTree})
	}
	return root, b.outer, errs
}

// treeWriter writes translated elements as a tree file.
type treeWriter struct {
	b       bytes.Buffer
	origins map[*elem]string
	actions map[string]bool
}

func (w *treeWriter) indent(depth int) {
	for range depth {
		w.b.WriteString("  ")
	}
}

func (w *treeWriter) elem(e *elem, depth int) {
	if e.name == commentTag {
		w.indent(depth)
		w.b.WriteString("<!--" + e.text + "-->\n")
		return
	}
	if o, ok := w.origins[e]; ok {
		w.indent(depth)
		w.b.WriteString("<!-- " + o + " -->\n")
	}
	if e.name == "action" {
		for _, a := range e.attrs {
			if a.Name.Local == "name" && !strings.HasPrefix(a.Value, "bt.") {
				w.actions[a.Value] = true
			}
		}
	}
	w.indent(depth)
	w.b.WriteString("<" + e.name)
	for _, a := range e.attrs {
		w.b.WriteString(" " + a.Name.Local + "=\"")
		escapeXML(&w.b, a.Value, true)
		w.b.WriteByte('"')
	}
	switch {
	case len(e.children) == 0 && e.text == "":
		w.b.WriteString("/>\n")
	case len(e.children) == 0:
		w.b.WriteByte('>')
		escapeXML(&w.b, e.text, false)
		w.b.WriteString("</" + e.name + ">\n")
	default:
		w.b.WriteString(">\n")
		// A rule's parameters and conditions first, as people write them.
		for _, details := range []bool{true, false} {
			for _, k := range e.children {
				if index(ruleDetails, k.name) >= 0 == details {
					w.elem(k, depth+1)
				}
			}
		}
		w.indent(depth)
		w.b.WriteString("</" + e.name + ">\n")
	}
}

// escapeXML writes s as XML text, or as an attribute value (attr), whose
// line breaks and tabs must be references to survive reading.
func escapeXML(b *bytes.Buffer, s string, attr bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '"' && attr:
			b.WriteString("&quot;")
		case c == '\n' && attr:
			b.WriteString("&#xA;")
		case c == '\r':
			b.WriteString("&#xD;")
		case c == '\t' && attr:
			b.WriteString("&#x9;")
		default:
			b.WriteByte(c)
		}
	}
}
