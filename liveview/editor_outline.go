package liveview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/btrun/btrun/rules"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/formatspec"
)

// The outline: what the editor page draws of a tree file's text, read
// from the scan (editor_source.go): its rules in document order with
// their labels, attributes, parameters and conditions, and its
// declarations. Which tags are rules, which hold rules, and where each
// declaration goes come from formatspec.Tags, the description of the
// format that the loader, docs/reference.md and the XSD share: a tag or
// attribute added there shows here with no change to the editor.

// formatIndex is formatspec.TagsFor a game's registry, indexed: the
// built-in tags and the rules registered from Go (package rules, and a
// program's own through game.Options.Register). Each Debugger builds its
// game's (Debugger.format); tagFormat is the one of the btrun binary's
// registry, for an outline read without a game.
type formatIndex struct {
	specs   []formatspec.Tag
	tag     map[string]*formatspec.Tag
	rule    map[string]bool   // rule tags
	list    map[string]bool   // rule tags that hold rules
	detail  map[string]bool   // parameter, condition, conditionMode
	blockOf map[string]string // declaration tag -> its block's tag
	block   map[string]bool
}

var tagFormat = sync.OnceValue(func() *formatIndex {
	reg := runtime.NewRegistry()
	_ = rules.Register(reg) // btrun's own: it cannot conflict with the built-ins
	return newFormatIndex(reg)
})

// format is the tags of d's game.
func (d *Debugger) format() *formatIndex { return d.tags }

// newFormatIndex indexes the format's tags with reg's rules.
func newFormatIndex(reg *runtime.Registry) *formatIndex {
	f := &formatIndex{specs: formatspec.TagsFor(reg), tag: map[string]*formatspec.Tag{}, rule: map[string]bool{},
		list: map[string]bool{}, detail: map[string]bool{}, blockOf: map[string]string{}, block: map[string]bool{}}
	for i := range f.specs {
		s := &f.specs[i]
		f.tag[s.Tag] = s
		switch s.Kind {
		case "rule":
			f.rule[s.Tag] = true
		case "detail":
			f.detail[s.Tag] = true
		case "block":
			f.block[s.Tag] = true
			for _, in := range s.Inside {
				f.blockOf[in] = s.Tag
			}
		}
	}
	for i := range f.specs {
		s := &f.specs[i]
		if f.rule[s.Tag] && slices.ContainsFunc(s.Inside, func(t string) bool { return f.rule[t] }) {
			f.list[s.Tag] = true
		}
	}
	return f
}

// takes reports whether tag takes attribute name.
func (f *formatIndex) takes(tag, name string) bool {
	s := f.tag[tag]
	return s != nil && slices.ContainsFunc(s.Attrs, func(a formatspec.Attr) bool { return a.Name == name })
}

// attrNames lists the attributes tag takes.
func (f *formatIndex) attrNames(tag string) string {
	s := f.tag[tag]
	if s == nil || len(s.Attrs) == 0 {
		return "none"
	}
	names := make([]string, len(s.Attrs))
	for i, a := range s.Attrs {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// outline is the editor's view of a file (GET .../source, POST .../edit).
type outline struct {
	File     string        `json:"file"`
	Encoding string        `json:"encoding"`
	Line     int           `json:"line"` // the <behaviorTree> element
	Col      int           `json:"col"`
	Rules    []outlineRule `json:"rules"`
	Top      []int         `json:"top"` // the file's top-level rules
	Decls    []outlineDecl `json:"decls"`

	doc    *srcDoc
	enc    runtime.TextEncoding
	nodes  []*srcNode       // per rule
	labels map[string][]int // label -> rules
	// Labels grow with the ids around them (".x" inside "a" is "a.x"), so
	// rules nested deep could make labels whose total length grows with
	// the square of the depth: the outline stops where the loader stops,
	// at runtime.MaxIDBytes an id and runtime.MaxLabelBytes in all.
	labelBytes int
	err        error        // the first limit reached; reading stops there
	format     *formatIndex // the tags of the game's format
}

// outlineRule is one rule of a file, in document order.
type outlineRule struct {
	Index      int         `json:"index"`
	Tag        string      `json:"tag"`
	ID         string      `json:"id,omitempty"` // the full id, as the file makes it (without a including subtree's prefix)
	Label      string      `json:"label"`
	Line       int         `json:"line"`
	Col        int         `json:"col"`
	Parent     int         `json:"parent"` // -1 at the file's top level
	Children   []int       `json:"children"`
	Depth      int         `json:"depth"`
	Attrs      [][2]string `json:"attrs"`      // as written, in their order
	Params     [][2]string `json:"params"`     // as written, in their order
	Conditions []string    `json:"conditions"` // as written, "!" included
	Mode       string      `json:"mode,omitempty"`
	Text       string      `json:"text,omitempty"` // a subtree's path
	Other      []string    `json:"other,omitempty"`
	// States are a stateMachine's states, in document order: the page
	// draws each with its transitions over its rule.
	States []outlineState `json:"states,omitempty"`
}

// outlineState is one <state> of a state machine.
type outlineState struct {
	Name        string              `json:"name"`
	Line        int                 `json:"line"`
	Col         int                 `json:"col"`
	Initial     bool                `json:"initial,omitempty"` // the state the machine enters first
	Rule        int                 `json:"rule"`              // its rule's index in the outline; -1 when it has none
	Transitions []outlineTransition `json:"transitions"`
}

// outlineTransition is one <transition> of a state, as written.
type outlineTransition struct {
	Signal string `json:"signal,omitempty"`
	Result string `json:"result,omitempty"`
	To     string `json:"to"`
}

// outlineDecl is one declaration line (<variable>, <signal>, ...).
type outlineDecl struct {
	Tag   string      `json:"tag"`
	Block string      `json:"block"` // the block it is in (<variables>, ...)
	Attrs [][2]string `json:"attrs"`
	Line  int         `json:"line"`
	Col   int         `json:"col"`
}

// newOutline reads the rules and declarations of a scanned file. The
// error is a limit on ids the file goes beyond (at its rule), as the
// loader reports it.
func newOutline(f *formatIndex, d *srcDoc, file string, enc runtime.TextEncoding) (*outline, error) {
	o := &outline{format: f, File: file, Encoding: enc.Name(), Rules: []outlineRule{}, Top: []int{}, Decls: []outlineDecl{},
		doc: d, enc: enc, labels: map[string][]int{}}
	o.Line, o.Col = d.pos(d.root.start)
	for _, c := range d.root.elements() {
		switch {
		case f.rule[c.name]:
			i := o.addRule(c, -1, 0, "")
			if o.err != nil {
				return nil, o.err
			}
			o.Top = append(o.Top, i)
		case f.block[c.name]:
			for _, dl := range c.elements() {
				line, col := d.pos(dl.start)
				o.Decls = append(o.Decls, outlineDecl{Tag: dl.name, Block: c.name, Attrs: o.attrsOf(dl), Line: line, Col: col})
			}
		}
	}
	return o, nil
}

func (o *outline) attrsOf(n *srcNode) [][2]string {
	out := make([][2]string, len(n.attrs))
	for i := range n.attrs {
		out[i] = [2]string{n.attrs[i].name, o.doc.attrValue(&n.attrs[i])}
	}
	return out
}

// addRule adds rule element n and its rules; dot is the full id of the
// closest enclosing rule that holds rules and has an id (the id rules).
// At a limit it sets o.err and returns -1.
func (o *outline) addRule(n *srcNode, parent, depth int, dot string) int {
	d, f := o.doc, o.format
	i := len(o.Rules)
	line, col := d.pos(n.start)
	r := outlineRule{Index: i, Tag: n.name, Line: line, Col: col, Parent: parent, Depth: depth,
		Children: []int{}, Params: [][2]string{}, Conditions: []string{}}
	if a, ok := n.attr("id"); ok {
		written := d.attrValue(a)
		// The length is checked before the id is made: a long prefix is
		// not copied into an id that is refused.
		full := len(written)
		if strings.HasPrefix(written, ".") {
			full += len(dot)
		}
		if full > runtime.MaxIDBytes {
			o.err = o.idTooLong(n, dot, written, full)
			return -1
		}
		r.ID = written
		if strings.HasPrefix(written, ".") {
			r.ID = dot + written
		}
		r.Label = r.ID
	} else {
		r.Label = positionLabel(n.name, o.File, line, col)
	}
	if o.labelBytes += len(r.Label); o.labelBytes > runtime.MaxLabelBytes {
		o.err = fmt.Errorf("%s:%d:%d: the file's ids and labels add up to more than %d MB; check for deeply nested rules whose ids start with \".\"",
			o.File, line, col, runtime.MaxLabelBytes>>20)
		return -1
	}
	r.Attrs = o.attrsOf(n)
	if spec := f.tag[n.name]; spec != nil && spec.Text != "" {
		r.Text = d.textOf(n)
	}
	o.Rules = append(o.Rules, r)
	o.nodes = append(o.nodes, n)
	o.labels[r.Label] = append(o.labels[r.Label], i)
	inner := dot
	if r.ID != "" && (f.list[n.name] || n.name == "stateMachine") {
		inner = r.ID
	}
	for _, c := range n.elements() {
		switch {
		case c.name == "parameter":
			name := ""
			if a, ok := c.attr("name"); ok {
				name = d.attrValue(a)
			}
			o.Rules[i].Params = append(o.Rules[i].Params, [2]string{name, d.textOf(c)})
		case c.name == "condition":
			o.Rules[i].Conditions = append(o.Rules[i].Conditions, d.textOf(c))
		case c.name == "conditionMode":
			o.Rules[i].Mode = d.textOf(c)
		case f.rule[c.name]:
			k := o.addRule(c, i, depth+1, inner)
			if o.err != nil {
				return -1
			}
			o.Rules[i].Children = append(o.Rules[i].Children, k)
		case c.name == "state" && n.name == "stateMachine":
			// A state's rule is its machine's child, as the loader
			// builds it; the state itself (its name, its transitions)
			// is edited in the source, and shown with the rule.
			line, col := d.pos(c.start)
			st := outlineState{Line: line, Col: col, Rule: -1, Transitions: []outlineTransition{}}
			if a, ok := c.attr("name"); ok {
				st.Name = d.attrValue(a)
			}
			for _, g := range c.elements() {
				switch {
				case g.name == "transition":
					var tr outlineTransition
					for _, at := range []struct {
						name string
						to   *string
					}{{"signal", &tr.Signal}, {"result", &tr.Result}, {"to", &tr.To}} {
						if a, ok := g.attr(at.name); ok {
							*at.to = d.attrValue(a)
						}
					}
					st.Transitions = append(st.Transitions, tr)
				case f.rule[g.name]:
					k := o.addRule(g, i, depth+1, inner)
					if o.err != nil {
						return -1
					}
					o.Rules[i].Children = append(o.Rules[i].Children, k)
					if st.Rule < 0 {
						st.Rule = k
					}
				}
			}
			o.Rules[i].States = append(o.Rules[i].States, st)
			o.Rules[i].Other = append(o.Rules[i].Other, c.name)
		default:
			o.Rules[i].Other = append(o.Rules[i].Other, c.name)
		}
	}
	o.markInitial(i, n)
	return i
}

// markInitial marks the state a stateMachine rule i enters first: the one
// its initial= names, else its first.
func (o *outline) markInitial(i int, n *srcNode) {
	states := o.Rules[i].States
	if len(states) == 0 {
		return
	}
	k := 0
	if a, ok := n.attr("initial"); ok {
		name := o.doc.attrValue(a)
		k = slices.IndexFunc(states, func(s outlineState) bool { return s.Name == name })
	}
	if k >= 0 {
		states[k].Initial = true
	}
}

// idTooLong is the loader's error for an id longer than
// runtime.MaxIDBytes, at rule n.
func (o *outline) idTooLong(n *srcNode, dot, written string, full int) error {
	line, col := o.doc.pos(n.start)
	if full == len(written) {
		return fmt.Errorf("%s:%d:%d: id %s... is %d bytes long; an id may be at most %d bytes",
			o.File, line, col, cutID(written, 40), full, runtime.MaxIDBytes)
	}
	return fmt.Errorf("%s:%d:%d: id %s... (written %s) is %d bytes long with the prefixes of the rules around it; a full id may be at most %d bytes",
		o.File, line, col, cutID(dot+cutID(written, 40), 40), cutID(written, 40), full, runtime.MaxIDBytes)
}

// cutID is the first n bytes of an id, at a character boundary, for a
// message.
func cutID(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// positionLabel is TAG@FILE:LINE:COL, the label of a rule without an id.
func positionLabel(tag, file string, line, col int) string {
	return tag + "@" + file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

// find resolves a rule given by its label: its full id, or TAG@FILE:LINE:COL
// (which names any rule, with an id or not).
func (o *outline) find(label string) (int, error) {
	switch rs := o.labels[label]; {
	case len(rs) == 1:
		return rs[0], nil
	case len(rs) > 1:
		var at []string
		for _, r := range rs {
			at = append(at, fmt.Sprintf("line %d", o.Rules[r].Line))
		}
		return 0, fmt.Errorf("%q names %d rules (%s): name one by TAG@FILE:LINE:COL", label, len(rs), strings.Join(at, ", "))
	}
	if at := strings.LastIndexByte(label, '@'); at > 0 {
		parts := strings.Split(label[at+1:], ":")
		if len(parts) >= 3 {
			line, err1 := strconv.Atoi(parts[len(parts)-2])
			col, err2 := strconv.Atoi(parts[len(parts)-1])
			file := strings.Join(parts[:len(parts)-2], ":")
			if err1 == nil && err2 == nil && file == o.File {
				for i, r := range o.Rules {
					if r.Line == line && r.Col == col && r.Tag == label[:at] {
						return i, nil
					}
				}
			}
		}
	}
	return 0, fmt.Errorf("no rule %q in %s (a rule is named by its full id, or by TAG@FILE:LINE:COL)", label, o.File)
}

// ruleAt returns the rule whose start tag is at line:col, or -1.
func (o *outline) ruleAt(line, col int) int {
	for i, r := range o.Rules {
		if r.Line == line && r.Col == col {
			return i
		}
	}
	return -1
}
