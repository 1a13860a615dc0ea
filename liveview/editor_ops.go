package liveview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/formatspec"
)

// The edit operations of POST /api/trees/NAME/edit (docs/debug.md,
// "Editing"). Each operation is computed from the scanned text's offsets as
// byte-range replacements (STYLE lesson 16: an editor changes text, not
// trees): only the elements it edits change, and an operation that changes
// nothing (a value set to what it is, a rule moved to where it is) gives
// the text back byte for byte. Operations apply one after the other, each
// to the text the previous one made, so labels name rules as they are in
// that text.

// editOp is one operation, as the page sends it.
type editOp struct {
	Op         string          `json:"op"`
	Rule       string          `json:"rule"`
	Name       string          `json:"name"`
	Value      json.RawMessage `json:"value"` // a string, or null to remove
	Conditions *[]string       `json:"conditions"`
	Mode       *string         `json:"mode"`
	Parent     *string         `json:"parent"`
	Index      *int            `json:"index"`
	XML        string          `json:"xml"`
	Tag        string          `json:"tag"`
	Line       int             `json:"line"` // undeclare: the one declaration at line:col (the outline's), not every one of the name
	Col        int             `json:"col"`
	Count      *int            `json:"count"` // wrap: how many rules, from "rule" on
	ID         string          `json:"id"`    // wrap: the new list's id (none when empty)
}

// opNames are the operations, in the order docs/debug.md lists them.
var opNames = []string{"attr", "param", "conditions", "insert", "delete", "move", "tag", "text", "duplicate", "declare", "undeclare", "wrap", "unwrap", "paste"}

// opError is an operation that cannot be applied (422), naming it; or,
// with field set, a field of the request the operations cannot be applied
// to ("source": text the editor cannot read).
type opError struct {
	index int
	op    string
	msg   string
	field string
}

func (e *opError) Error() string {
	if e.field != "" {
		return fmt.Sprintf("%q: %s", e.field, e.msg)
	}
	if e.op == "" {
		return fmt.Sprintf("op %d: %s", e.index, e.msg)
	}
	return fmt.Sprintf("op %d (%s): %s", e.index, e.op, e.msg)
}

// maxOps bounds the operations of one request.
const maxOps = 1000

// maxOpsWork bounds the text the operations of one request read again:
// each reads the text the one before made, and makes its labels. A
// request of the page (a few operations on a file of some kilobytes)
// reads a few hundred kilobytes; a thousand operations on a file of 16 kB
// read all of it.
const maxOpsWork = 16 << 20

// applyOps applies ops to text, the text of file, one after the other.
// load, when set, says why a text does not load (nil when it loads): a
// result that does not load, when text did, is refused, so that editing
// never breaks a tree that loaded. It is called once when the result
// loads (or when text did not), and when it does not, a few times more to
// find the operation to blame: each call loads a whole tree, so it is not
// made once an operation (a thousand operations would load a big tree a
// thousand times). Errors are *opError.
func applyOps(file, text string, ops []json.RawMessage, load func(string) error) (string, error) {
	return applyOpsIn(tagFormat(), file, text, ops, load)
}

// applyOpsIn is applyOps with the tags of format f (a game's: its
// registered rules included).
func applyOpsIn(f *formatIndex, file, text string, ops []json.RawMessage, load func(string) error) (string, error) {
	if len(ops) > maxOps {
		return "", &opError{index: maxOps, msg: fmt.Sprintf("at most %d operations a request", maxOps)}
	}
	if len(ops) == 0 {
		return text, nil
	}
	o, err := readSourceIn(f, file, text)
	if err != nil {
		return "", &opError{field: "source", msg: err.Error()}
	}
	work := 0
	// The texts made, for the search of the operation to blame: texts[k+1]
	// is what operation made[k] made. They add up to less than
	// maxOpsWork.
	texts := []string{text}
	var made []int
	var names []string
	for i, raw := range ops {
		var op editOp
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&op); err != nil {
			return "", &opError{index: i, msg: fmt.Sprintf("not an operation object: %v", err)}
		}
		fail := func(err error) error { return &opError{index: i, op: op.Op, msg: err.Error()} }
		next, err := applyOp(o, &op)
		if err != nil {
			return "", fail(err)
		}
		if next == text {
			continue
		}
		if work += len(next) + o.labelBytes; work > maxOpsWork {
			return "", fail(fmt.Errorf("the operations of one request read at most %d MB of text (each reads the text the one before made): send them in several requests", maxOpsWork>>20))
		}
		if o, err = readSourceIn(f, file, next); err != nil {
			return "", fail(fmt.Errorf("the result cannot be edited: %w", err))
		}
		text = next
		texts, made, names = append(texts, next), append(made, i), append(names, op.Op)
	}
	if load == nil || len(made) == 0 {
		return text, nil
	}
	lerr := load(text)
	if lerr == nil || load(texts[0]) != nil {
		return text, nil
	}
	// texts[lo] loads and texts[hi] does not: the operation between two
	// such texts is one that broke the tree.
	lo, hi := 0, len(texts)-1
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if err := load(texts[m]); err != nil {
			hi, lerr = m, err
		} else {
			lo = m
		}
	}
	return "", &opError{index: made[hi-1], op: names[hi-1], msg: fmt.Sprintf("the result would not load: %s", firstLines(lerr.Error(), 5))}
}

// firstLines is the first n lines of s, with a count of the others.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "; ")
	}
	return strings.Join(lines[:n], "; ") + fmt.Sprintf("; and %d more", len(lines)-n)
}

// opEditor computes the edits of one operation on one scanned text.
type opEditor struct {
	doc   *srcDoc
	o     *outline
	esc   escaper
	nl    string
	unit_ string // indentUnit, once asked for
	edits []textEdit
}

// unit is what the text indents a child by (srcDoc.indentUnit).
func (e *opEditor) unit() string {
	if e.unit_ == "" {
		e.unit_ = e.doc.indentUnit()
	}
	return e.unit_
}

// readSource scans text and reads its outline.
func readSource(file, text string) (*outline, error) { return readSourceIn(tagFormat(), file, text) }

// readSourceIn is readSource with the tags of format f.
func readSourceIn(f *formatIndex, file, text string) (*outline, error) {
	enc, err := runtime.SourceEncoding(file, text)
	if err != nil {
		return nil, err
	}
	doc, err := scanSource(text)
	if err != nil {
		var se *srcError
		if errors.As(err, &se) {
			d := &srcDoc{text: text}
			d.lines = []int{0}
			for i := 0; i < len(text) && i < se.off; i++ {
				if text[i] == '\n' || text[i] == '\r' && (i+1 >= len(text) || text[i+1] != '\n') {
					d.lines = append(d.lines, i+1)
				}
			}
			if strings.HasPrefix(text, "\uFEFF") {
				d.bom = 3
			}
			line, col := d.pos(min(se.off, len(text)))
			return nil, fmt.Errorf("%s:%d:%d: %s (the XML is not well formed: edit it as text)", file, line, col, se.msg)
		}
		return nil, err
	}
	if doc.root.name != "behaviorTree" {
		line, col := doc.pos(doc.root.start)
		if kind, ok := nativeDocs[doc.root.name]; ok {
			return nil, fmt.Errorf("%s:%d:%d: the root element is <%s>: a %s document, which btrun runs but the editor edits as text only; "+
				"btrun convert writes it in btrun's format", file, line, col, doc.root.name, kind)
		}
		return nil, fmt.Errorf("%s:%d:%d: the root element is <%s>; a tree file's is <behaviorTree>", file, line, col, doc.root.name)
	}
	return newOutline(f, doc, file, enc)
}

// nativeDocs are the root elements of the documents the loader translates
// (Lumberyard MBT, CryEngine BHS, Drag[en]gine state machines): the editor's operations are the format's.
var nativeDocs = map[string]string{"BehaviorTree": "Lumberyard MBT", "SelectionTree": "CryEngine BHS", "stateMachine": "Drag[en]gine state machine"}

// applyOp returns the text of o with op applied.
func applyOp(o *outline, op *editOp) (string, error) {
	e := &opEditor{doc: o.doc, o: o, esc: escaper{o.enc}, nl: o.doc.newline()}
	var err error
	switch op.Op {
	case "attr":
		err = e.opAttr(op)
	case "param":
		err = e.opParam(op)
	case "conditions":
		err = e.opConditions(op)
	case "insert":
		err = e.opInsert(op)
	case "delete":
		err = e.opDelete(op)
	case "move":
		err = e.opMove(op)
	case "tag":
		err = e.opTag(op)
	case "text":
		err = e.opText(op)
	case "duplicate":
		err = e.opDuplicate(op)
	case "declare":
		err = e.opDeclare(op)
	case "undeclare":
		err = e.opUndeclare(op)
	case "wrap":
		err = e.opWrap(op)
	case "unwrap":
		err = e.opUnwrap(op)
	case "paste":
		err = e.opPaste(op)
	case "":
		err = fmt.Errorf(`"op" is missing: one of %s`, strings.Join(opNames, ", "))
	default:
		err = fmt.Errorf("unknown op %q: one of %s", op.Op, strings.Join(opNames, ", "))
	}
	if err != nil {
		return "", err
	}
	return applyEdits(o.doc.text, e.edits), nil
}

// --- finding rules ---

func (e *opEditor) rule(label string) (*srcNode, error) {
	if label == "" {
		return nil, errors.New(`"rule" (the rule's label) is required`)
	}
	i, err := e.o.find(label)
	if err != nil {
		return nil, err
	}
	return e.o.nodes[i], nil
}

// parent resolves "parent": a rule that holds rules, or "" for the file's
// top level.
func (e *opEditor) parent(label *string) (*srcNode, error) {
	if label == nil {
		return nil, errors.New(`"parent" is required: the label of a rule that holds rules, or "" for the file's top level`)
	}
	if *label == "" {
		return e.doc.root, nil
	}
	p, err := e.rule(*label)
	if err != nil {
		return nil, err
	}
	if !e.o.format.list[p.name] {
		return nil, fmt.Errorf("rule %s is a <%s>, which holds no rules", *label, p.name)
	}
	return p, nil
}

// ruleValue resolves "rule" and reads "value" (ops that set a value).
func (e *opEditor) ruleValue(op *editOp) (*srcNode, *string, error) {
	n, err := e.rule(op.Rule)
	if err != nil {
		return nil, nil, err
	}
	v, err := e.value(op)
	return n, v, err
}

// value reads "value": a string, or nil for null; absent is an error.
func (e *opEditor) value(op *editOp) (*string, error) {
	if len(op.Value) == 0 {
		return nil, errors.New(`"value" is required: a string, or null to remove`)
	}
	if string(op.Value) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(op.Value, &s); err != nil {
		return nil, fmt.Errorf(`"value" must be a string or null, not %s`, op.Value)
	}
	return &s, nil
}

// ruleChildren are n's rule elements (but skip).
func ruleChildren(f *formatIndex, n, skip *srcNode) []*srcNode {
	var out []*srcNode
	for _, c := range n.children {
		if c.kind == srcElem && c != skip && f.rule[c.name] {
			out = append(out, c)
		}
	}
	return out
}

// lastChild is n's last element child that match accepts, or nil.
func lastChild(n *srcNode, match func(*srcNode) bool) *srcNode {
	for i := len(n.children) - 1; i >= 0; i-- {
		if c := n.children[i]; c.kind == srcElem && match(c) {
			return c
		}
	}
	return nil
}

func named(names ...string) func(*srcNode) bool {
	return func(n *srcNode) bool { return slices.Contains(names, n.name) }
}

// --- attributes ---

func (e *opEditor) opAttr(op *editOp) error {
	n, v, err := e.ruleValue(op)
	if err != nil {
		return err
	}
	if !e.o.format.takes(n.name, op.Name) {
		return fmt.Errorf("<%s> takes no attribute %q; it takes %s", n.name, op.Name, e.o.format.attrNames(n.name))
	}
	return e.setAttr(n, op.Name, v)
}

func (e *opEditor) setAttr(n *srcNode, name string, v *string) error {
	a, ok := n.attr(name)
	switch {
	case v == nil && ok:
		e.removeAttr(n, a)
	case v == nil:
	case ok:
		if e.doc.attrValue(a) == *v {
			return nil
		}
		s, err := e.esc.attr(*v, a.quote)
		if err != nil {
			return err
		}
		e.edits = append(e.edits, textEdit{a.valStart, a.valEnd, s})
	default:
		quote, at := byte('"'), n.start+1+len(n.name)
		if len(n.attrs) > 0 {
			last := &n.attrs[len(n.attrs)-1]
			quote, at = last.quote, last.end()
		}
		s, err := e.esc.attr(*v, quote)
		if err != nil {
			return err
		}
		q := string(quote)
		e.insert(at, " "+name+"="+q+s+q)
	}
	return nil
}

// removeAttr removes an attribute with the space before it.
func (e *opEditor) removeAttr(n *srcNode, a *srcAttr) {
	from := n.start + 1 + len(n.name)
	for i := range n.attrs {
		if &n.attrs[i] == a {
			break
		}
		from = n.attrs[i].end()
	}
	e.edits = append(e.edits, textEdit{from, a.end(), ""})
}

// --- parameters ---

func (e *opEditor) opParam(op *editOp) error {
	n, v, err := e.ruleValue(op)
	if err != nil {
		return err
	}
	if op.Name == "" {
		return errors.New(`"name" (the parameter's name) is required`)
	}
	var params []*srcNode
	for _, c := range n.elements() {
		if a, ok := c.attr("name"); ok && c.name == "parameter" && e.doc.attrValue(a) == op.Name {
			params = append(params, c)
		}
	}
	if v == nil {
		for _, p := range params {
			e.removeNode(p)
		}
		return nil
	}
	val := strings.Trim(*v, xmlSpaces)
	text, err := e.esc.text(val)
	if err != nil {
		return err
	}
	if len(params) > 0 { // a later one wins: it is the one to change
		p := params[len(params)-1]
		if e.doc.textOf(p) == val {
			return nil
		}
		e.setContent(p, text)
		return nil
	}
	name, err := e.esc.attr(op.Name, '"')
	if err != nil {
		return err
	}
	markup := fragment{text: `<parameter name="` + name + `">` + text + `</parameter>`, structural: true}
	after := lastChild(n, named("parameter"))
	if after == nil {
		after = lastChild(n, named("condition", "conditionMode"))
	}
	e.placeChild(n, after, markup)
	return nil
}

// setContent replaces an element's content with text.
func (e *opEditor) setContent(n *srcNode, text string) {
	if n.selfClose {
		e.edits = append(e.edits, textEdit{n.closeStart, n.end, ">" + text + "</" + n.name + ">"})
		return
	}
	e.edits = append(e.edits, textEdit{n.tagEnd, n.closeStart, text})
}

// --- conditions ---

func (e *opEditor) opConditions(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	if op.Conditions == nil {
		return errors.New(`"conditions" (the list of condition names, "!" to negate) is required`)
	}
	want := make([]string, len(*op.Conditions))
	for i, c := range *op.Conditions {
		want[i] = strings.Trim(c, xmlSpaces)
		if want[i] == "" || want[i] == "!" {
			return fmt.Errorf("condition %d is empty", i)
		}
	}
	if op.Mode != nil && *op.Mode != "" && !slices.Contains(formatspec.CondModes(), *op.Mode) {
		return fmt.Errorf("mode %q: one of %s", *op.Mode, strings.Join(formatspec.CondModes(), ", "))
	}
	var have []*srcNode
	var mode *srcNode
	for _, c := range n.elements() {
		switch c.name {
		case "condition":
			have = append(have, c)
		case "conditionMode":
			mode = c
		}
	}
	for i := 0; i < min(len(have), len(want)); i++ {
		if e.doc.textOf(have[i]) != want[i] {
			t, err := e.esc.text(want[i])
			if err != nil {
				return err
			}
			e.setContent(have[i], t)
		}
	}
	for _, c := range have[min(len(have), len(want)):] {
		e.removeNode(c)
	}
	var add []string
	for _, c := range want[min(len(have), len(want)):] {
		t, err := e.esc.text(c)
		if err != nil {
			return err
		}
		add = append(add, "<condition>"+t+"</condition>")
	}
	if op.Mode != nil {
		switch {
		case mode != nil && *op.Mode == "":
			e.removeNode(mode)
		case mode != nil && e.doc.textOf(mode) != *op.Mode:
			e.setContent(mode, *op.Mode)
		case mode == nil && *op.Mode != "" && *op.Mode != formatspec.CondModes()[0]:
			add = append(add, "<conditionMode>"+*op.Mode+"</conditionMode>")
		}
	}
	if len(add) == 0 {
		return nil
	}
	after := lastChild(n, named("condition"))
	if after != nil && len(have) > len(want) { // the last ones are removed: add after the last kept
		after = nil
		if len(want) > 0 {
			after = have[len(want)-1]
		}
	}
	for _, m := range add {
		e.placeChild(n, after, fragment{text: m, structural: true})
	}
	return nil
}

// --- rules: insert, delete, move, tag, duplicate ---

func (e *opEditor) opInsert(op *editOp) error {
	p, err := e.parent(op.Parent)
	if err != nil {
		return err
	}
	frag, err := e.newFragment(op.XML, func(tag string) bool { return e.o.format.rule[tag] },
		"insert takes one rule element (<action>, <sequence>, ...); declarations go with declare")
	if err != nil {
		return err
	}
	return e.placeRule(p, nil, op.Index, frag)
}

func (e *opEditor) opDelete(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	e.removeNode(n)
	return nil
}

func (e *opEditor) opMove(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	p, err := e.parent(op.Parent)
	if err != nil {
		return err
	}
	for q := p; q != nil; q = q.parent {
		if q == n {
			return fmt.Errorf("rule %s cannot move into itself", op.Rule)
		}
	}
	if op.Index == nil {
		return errors.New(`"index" is required: the rule's place among the parent's rules once moved (0 is first)`)
	}
	if n.parent == p && slices.Index(ruleChildren(e.o.format, p, nil), n) == *op.Index {
		return nil // where it is already
	}
	from := e.attachedStart(n)
	frag := fragment{text: e.doc.text[from:n.end]}
	if e.doc.startsLine(from) {
		frag.oldBase = e.doc.text[e.doc.lineStart(from):from]
	}
	if err := e.placeRule(p, n, op.Index, frag); err != nil {
		return err
	}
	e.removeNode(n)
	return nil
}

func (e *opEditor) opTag(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	f := e.o.format
	switch {
	case !f.rule[op.Tag]:
		return fmt.Errorf("%q is not a rule tag", op.Tag)
	case op.Tag == n.name:
		return nil
	case !f.list[op.Tag] && len(ruleChildren(e.o.format, n, nil)) > 0:
		return fmt.Errorf("rule %s has rules inside: <%s> cannot hold them", op.Rule, op.Tag)
	}
	e.edits = append(e.edits, textEdit{n.start + 1, n.start + 1 + len(n.name), op.Tag})
	for i := range n.attrs {
		if !f.takes(op.Tag, n.attrs[i].name) {
			e.removeAttr(n, &n.attrs[i])
		}
	}
	if !n.selfClose {
		e.edits = append(e.edits, textEdit{n.closeStart + 2, n.closeStart + 2 + len(n.name), op.Tag})
	}
	return nil
}

// opText sets the text of a rule whose tag holds text (a subtree's path).
func (e *opEditor) opText(op *editOp) error {
	n, v, err := e.ruleValue(op)
	if err != nil {
		return err
	}
	if spec := e.o.format.tag[n.name]; spec == nil || spec.Text == "" {
		return fmt.Errorf("<%s> holds no text", n.name)
	}
	if v == nil {
		empty := ""
		v = &empty
	}
	val := strings.Trim(*v, xmlSpaces)
	if e.doc.textOf(n) == val {
		return nil
	}
	if len(n.elements()) > 0 {
		return fmt.Errorf("<%s> holds elements besides its text: edit it in the source", n.name)
	}
	text, err := e.esc.text(val)
	if err != nil {
		return err
	}
	e.setContent(n, text)
	return nil
}

func (e *opEditor) opDuplicate(op *editOp) error {
	n, err := e.rule(op.Rule)
	if err != nil {
		return err
	}
	copied, err := e.renameIDs(n)
	if err != nil {
		return err
	}
	e.insertAfter(n, fragment{text: copied, oldBase: e.doc.indentOf(n)})
	return nil
}

// renameIDs returns n's text with fresh ids: the copy's own id, and every
// id inside it that does not start with "." (those take the copy's).
func (e *opEditor) renameIDs(n *srcNode) (string, error) {
	used := map[string]bool{}
	for _, r := range e.o.Rules {
		used[r.ID] = true
	}
	var edits []textEdit
	var walk func(m *srcNode, top bool, dot string)
	walk = func(m *srcNode, top bool, dot string) {
		if a, ok := m.attr("id"); ok {
			id := e.doc.attrValue(a)
			if top || !strings.HasPrefix(id, ".") {
				prefix := ""
				if strings.HasPrefix(id, ".") {
					prefix = dot
				}
				base := strings.TrimRight(id, "0123456789")
				for k := 2; ; k++ {
					fresh := base + strconv.Itoa(k)
					if !used[prefix+fresh] {
						used[prefix+fresh] = true
						s, _ := e.esc.attr(fresh, a.quote)
						edits = append(edits, textEdit{a.valStart - n.start, a.valEnd - n.start, s})
						break
					}
				}
			}
		}
		for _, c := range m.elements() {
			walk(c, false, dot)
		}
	}
	dot := ""
	for p := n.parent; p != nil; p = p.parent {
		if i := slices.Index(e.o.nodes, p); i >= 0 && e.o.Rules[i].ID != "" && e.o.format.list[p.name] {
			dot = e.o.Rules[i].ID
			break
		}
	}
	walk(n, true, dot)
	return applyEdits(e.doc.text[n.start:n.end], edits), nil
}

// placeRule inserts frag as rule number *index (nil: last) among p's rules
// (moving, skip, the rule moved, is not counted).
func (e *opEditor) placeRule(p, skip *srcNode, index *int, frag fragment) error {
	rules := ruleChildren(e.o.format, p, skip)
	i := len(rules)
	if index != nil {
		if *index < 0 || *index > len(rules) {
			return fmt.Errorf("index %d is out of range: the parent has %d rules (0 to %d)", *index, len(rules), len(rules))
		}
		i = *index
	}
	switch {
	case i < len(rules):
		e.insertBefore(rules[i], frag)
	case len(rules) > 0:
		e.insertAfter(rules[len(rules)-1], frag)
	default:
		e.placeChild(p, lastChild(p, func(c *srcNode) bool { return c != skip }), frag)
	}
	return nil
}

// --- declarations ---

func (e *opEditor) opDeclare(op *editOp) error {
	f := e.o.format
	frag, err := e.newFragment(op.XML, func(tag string) bool { return f.blockOf[tag] != "" },
		"declare takes one declaration (<variable>, <signal>, <timestamp>, <gate>)")
	if err != nil {
		return err
	}
	fd, _ := scanSource(frag.text)
	tag, block := fd.root.name, f.blockOf[fd.root.name]
	var blk *srcNode
	for _, c := range e.doc.root.elements() {
		if c.name != block {
			continue
		}
		if blk == nil {
			blk = c
		}
		for _, dl := range c.elements() {
			if dl.name == tag && sameAttrs(e.doc, dl, fd, fd.root) {
				return nil // declared so already
			}
		}
	}
	if blk != nil {
		e.placeChild(blk, lastChild(blk, func(*srcNode) bool { return true }), frag)
		return nil
	}
	wrapped := fragment{text: "<" + block + ">\n" + frag.text + "\n</" + block + ">", structural: true}
	root := e.doc.root
	if last := lastChild(root, func(c *srcNode) bool { return f.block[c.name] }); last != nil {
		e.insertAfter(last, wrapped)
	} else if rules := ruleChildren(e.o.format, root, nil); len(rules) > 0 {
		e.insertBefore(rules[0], wrapped)
	} else {
		e.placeChild(root, lastChild(root, func(*srcNode) bool { return true }), wrapped)
	}
	return nil
}

// sameAttrs reports whether two elements have the same attributes.
func sameAttrs(da *srcDoc, a *srcNode, db *srcDoc, b *srcNode) bool {
	if len(a.attrs) != len(b.attrs) {
		return false
	}
	for i := range a.attrs {
		bb, ok := b.attr(a.attrs[i].name)
		if !ok || da.attrValue(&a.attrs[i]) != db.attrValue(bb) {
			return false
		}
	}
	return true
}

func (e *opEditor) opUndeclare(op *editOp) error {
	f := e.o.format
	block := f.blockOf[op.Tag]
	if block == "" {
		return fmt.Errorf("%q is not a declaration tag (variable, signal, timestamp, gate)", op.Tag)
	}
	// A name may be declared more than once (a signal that sets several
	// variables): with line and col, only the declaration there goes.
	one := op.Line > 0 || op.Col > 0
	match := func(dl *srcNode) bool {
		a, ok := dl.attr("name")
		if !ok || dl.name != op.Tag || e.doc.attrValue(a) != op.Name {
			return false
		}
		if one {
			line, col := e.doc.pos(dl.start)
			return line == op.Line && col == op.Col
		}
		return true
	}
	found := false
	for _, blk := range e.doc.root.elements() {
		if blk.name != block {
			continue
		}
		var gone, kept int
		for _, dl := range blk.elements() {
			if match(dl) {
				gone++
			} else {
				kept++
			}
		}
		if gone == 0 {
			continue
		}
		found = true
		if kept == 0 {
			e.removeNode(blk)
			continue
		}
		for _, dl := range blk.elements() {
			if match(dl) {
				e.removeNode(dl)
			}
		}
	}
	if !found && one {
		return fmt.Errorf("%s has no <%s name=%q> at line %d, column %d", e.o.File, op.Tag, op.Name, op.Line, op.Col)
	}
	if !found {
		return fmt.Errorf("%s declares no <%s name=%q>", e.o.File, op.Tag, op.Name)
	}
	return nil
}
