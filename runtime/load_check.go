package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file checks the elements of one tree file against the format (tags,
// attributes, children, values) and turns them into nodes and declaration
// lines. These checks depend on nothing but the file, so a file included
// several times is checked once. Ids, subtrees and declarations across files
// are handled when the tree is built.

// node is a checked rule element.
type node struct {
	kind      Kind
	tag       string
	pos       Pos
	id        string // as written
	hasID     bool
	action    string
	subtree   string // path as written, trimmed
	def       string // <slot>: the default tree's name
	loop      bool
	doNotFail bool
	abort     Abort
	order     Order
	successAt Threshold // parallel: default all
	failureAt Threshold // parallel: default any
	timeout   float64
	cooldown  float64
	gate      string // the gate attribute: the name of a gate the rule takes; "" when none
	repeat    int32  // the repeat attribute; 0 when none
	attempts  int32  // the attempts attribute; 0 when none
	enter     string // the enter hook's name; "" when none
	exit      string // the exit hook's name; "" when none
	conds     []Cond
	mode      CondMode
	params    Params
	children  []*node
	machine   *machineNode // <stateMachine> only (load_machine.go)
	// Where the last <parameter> named choice.weight and choice.score are,
	// for errors about their values; nil when there is none.
	weightPos, scorePos *Pos
}

// varLine is one <variable>.
type varLine struct {
	name string
	def  bool
	typ  VarType
	init VarValue // a typed variable's default
	pos  Pos
}

// signalLine is one <signal>; variable is "" when the line only names the signal.
type signalLine struct {
	name, variable string
	value          string  // value= as written; read against the variable's type once it is known (resolveSignals)
	from           string  // from= as written: a path into the signal's data; "" when none
	noValue        bool    // neither value= nor from= (reported)
	expires        float64 // seconds; 0 when the line does not say
	pos            Pos
}

// stampLine is one <timestamp>.
type stampLine struct {
	name, setOnSignal, exclusiveTo string
	pos                            Pos
}

// gateLine is one <gate>.
type gateLine struct {
	name     string
	users    int
	cooldown float64
	pos      Pos
}

// item is one top-level entry of a tree file, in document order: a rule or
// one declaration line. Exactly one field is set.
type item struct {
	rule     *node
	variable *varLine
	signal   *signalLine
	stamp    *stampLine
	gate     *gateLine
	include  *includeLine // <include file="..."/> (load_include.go)
}

// ruleKinds maps each rule tag to the kind of rule it makes.
var ruleKinds = map[string]Kind{
	"action": KindAction, "sequence": KindSequence, "choice": KindChoice, "parallel": KindParallel,
	"success": KindSuccess, "failure": KindFailure, "running": KindRunning, "yield": KindYield,
	"subtree": KindSequence, "subTree": KindSequence, "slot": KindSlot, "stateMachine": KindStateMachine,
}

// The tags allowed in each place, in the order error messages list them.
var (
	ruleTags     = []string{"action", "sequence", "choice", "parallel", "success", "failure", "running", "yield", "subtree", "subTree", "slot", "stateMachine"}
	ruleDetails  = []string{"parameter", "condition", "conditionMode"}
	declTags     = []string{"variables", "signals", "timestamps", "gates", "include"}
	topTags      = join(ruleTags, declTags)
	listChildren = join(ruleTags, ruleDetails)
	knownTags    = map[string]bool{"behaviorTree": true, "variable": true, "signal": true, "timestamp": true, "gate": true, "state": true, "transition": true}
)

func init() {
	for _, t := range join(listChildren, declTags) {
		knownTags[t] = true
	}
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// The attributes each tag takes, in the order error messages list them.
// Every rule tag ends with the interruption attributes (interruptAttrs), in
// that order: checker.interruption reads them by position. gate (gates.go)
// is among them: like a cooldown it is checked when the cursor arrives.
//
// After them come the vocabulary's attributes (vocabAttrs: attempts, enter
// and exit, on every rule; checker.vocab reads them by position), and, on
// sequences, choices and subtrees, repeat.
var (
	interruptAttrs = []string{"abort", "timeout", "cooldown", "gate"}
	vocabAttrs     = []string{"attempts", "enter", "exit"}
	ruleTail       = join(interruptAttrs, vocabAttrs)
	actionAttrs    = join([]string{"name", "id", "doNotFail"}, ruleTail)
	listAttrs      = join([]string{"id", "loop", "doNotFail"}, ruleTail, []string{"repeat"})
	choiceAttrs    = join(listAttrs, []string{"order"})
	parallelAttrs  = join([]string{"id", "success", "failure", "doNotFail"}, ruleTail)
	leafAttrs      = join([]string{"id"}, ruleTail)
	slotAttrs      = join([]string{"id", "default", "doNotFail"}, ruleTail)
	customAttrs    = join([]string{"id", "doNotFail"}, ruleTail, []string{"repeat"})
	machineAttrs   = join([]string{"id", "initial", "doNotFail"}, ruleTail)
	parameterAttrs = []string{"name"}
	variableAttrs  = []string{"name", "default", "type"}
	signalAttrs    = []string{"name", "variable", "value", "expires", "from"}
	stampAttrs     = []string{"name", "setOnSignal", "exclusiveTo"}
	gateAttrs      = []string{"name", "users", "cooldown"}
)

// checker collects the problems of one file.
type checker struct {
	errs  *ErrorList
	rules int    // rule elements seen, to size Tree.Rules
	ids   int    // ids seen, to size the loader's map of them
	slab  []node // nodes are allocated from slabs: big files have many
	// A rule's children, conditions and parameters gather on stacks (its
	// own above its mark) and move into slabs when it is checked; its
	// conditions and parameters stay in the tree (Rule.Conds, Rule.Params).
	kids       []*node
	conds      []Cond
	params     []Param
	kidLists   slab[*node]
	condLists  slab[Cond]
	paramLists slab[Param]
	custom     customTags // the custom rules' tags the file may use (load_custom.go)
}

func (c *checker) errorf(pos Pos, format string, args ...any) {
	*c.errs = append(*c.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidTree})
}

// checkFile checks a file's root element and returns its top-level items.
func (c *checker) checkFile(root *elem) []item {
	if root.name != "behaviorTree" {
		c.errorf(root.pos, "root element is <%s>; expected <behaviorTree>", root.name)
		return nil
	}
	for _, a := range root.attrs {
		if a.Name.Space == "xmlns" || a.Name.Space == "xsi" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		c.errorf(root.pos, "unknown attribute %s on <behaviorTree>; only namespace attributes (xmlns, xmlns:*, xsi:*) are allowed there",
			qname(a.Name))
	}
	if root.textPos.Line != 0 {
		c.noText(root, "<behaviorTree> holds only rules, declarations and comments")
	}
	var items []item
	for _, e := range root.children {
		if kind, ok := c.kindOf(e.name); ok {
			n := c.ruleOf(e, kind)
			c.abortNeedsChoice(n, func() string {
				return "here it is a top-level rule of its file: the root, or in a subtree file a child of the subtree's sequence"
			})
			items = append(items, item{rule: n})
			continue
		}
		switch e.name {
		case "variables":
			c.block(e, "variable", func(e *elem) {
				v := c.attrs(e, variableAttrs)
				line := &varLine{name: c.nameAttr(e, v, 0, "the variable's name"), pos: e.pos}
				c.varType(e, v, line)
				items = append(items, item{variable: line})
			})
		case "signals":
			c.block(e, "signal", func(e *elem) {
				v := c.attrs(e, signalAttrs)
				s := &signalLine{name: c.nameAttr(e, v, 0, "the signal's name"), pos: e.pos}
				switch {
				case v.has[1]:
					s.variable = c.optNameAttr(e, v, 1, "the name of a declared variable")
					switch {
					case !v.has[2] && !v.has[4]:
						s.noValue = true
						c.errorf(e.pos, `<signal> with a variable needs a value attribute; expected value="true" or value="false" (or from="PATH", a path into the signal's data)`)
					case v.has[2] && v.has[4]:
						c.errorf(e.pos, `<signal> has both value= and from=; expected exactly one: the value to set, or the path in the signal's data to take it from`)
					}
					s.value, s.from = v.val[2], v.val[4]
					if v.has[4] {
						c.fromAttr(e, s.from)
					}
				case v.has[2]:
					c.errorf(e.pos, `<signal> has a value but no variable; expected variable="NAME" with value=, or neither`)
				case v.has[4]:
					c.errorf(e.pos, `<signal> has from= but no variable; expected variable="NAME" with from=, or neither`)
				}
				s.expires = c.secondsAttr(e, v, 3, "an agent holds the signal's stimulus that long after it arrived")
				items = append(items, item{signal: s})
			})
		case "timestamps":
			c.block(e, "timestamp", func(e *elem) {
				v := c.attrs(e, stampAttrs)
				items = append(items, item{stamp: &stampLine{
					name:        c.nameAttr(e, v, 0, "the timestamp's name"),
					setOnSignal: c.optNameAttr(e, v, 1, "the name of a signal"),
					exclusiveTo: c.optNameAttr(e, v, 2, "the name of a declared timestamp"),
					pos:         e.pos,
				}})
			})
		case "include":
			items = append(items, item{include: c.include(e)})
		case "gates":
			c.block(e, "gate", func(e *elem) {
				v := c.attrs(e, gateAttrs)
				items = append(items, item{gate: &gateLine{
					name:     c.nameAttr(e, v, 0, "the gate's name"),
					users:    c.usersAttr(e, v, 1),
					cooldown: c.gateCooldownAttr(e, v, 2),
					pos:      e.pos,
				}})
			})
		default:
			c.notAllowed(e, "behaviorTree", c.custom.with(topTags))
		}
	}
	return items
}

// maxGateUsers bounds a gate's users: any count a game can reach.
const maxGateUsers = 1<<31 - 1

// usersAttr reads a gate's users attribute (index i of v): a count >= 1 in
// decimal digits; 1 when it is absent or wrong (and then reported).
func (c *checker) usersAttr(e *elem, v attrVals, i int) int {
	if !v.has[i] {
		return 1
	}
	s := strings.Trim(v.val[i], xmlSpace)
	n, err := strconv.ParseUint(s, 10, 31)
	if err != nil || n < 1 {
		c.errorf(e.pos, "users=%q on <%s> is not a count from 1 to %d; expected a whole number such as 1 or 3 (how many agents may hold the gate at once)", v.val[i], e.name, maxGateUsers)
		return 1
	}
	return int(n)
}

// gateCooldownAttr reads a gate's cooldown attribute (index i of v): a
// number of seconds >= 0; 0 when it is absent or wrong (and then reported).
func (c *checker) gateCooldownAttr(e *elem, v attrVals, i int) float64 {
	if !v.has[i] {
		return 0
	}
	s := strings.Trim(v.val[i], xmlSpace)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0) || math.IsInf(x, 0) {
		c.errorf(e.pos, "cooldown=%q on <%s> is not a number of seconds >= 0; expected a finite number such as 8 or 0.5 (after a holder releases the gate, nobody takes it for that long)", v.val[i], e.name)
		return 0
	}
	return x
}

// block checks a declaration block whose children are all lineTag elements.
func (c *checker) block(e *elem, lineTag string, line func(*elem)) {
	c.attrs(e, nil)
	if e.textPos.Line != 0 {
		c.noText(e, fmt.Sprintf("<%s> holds only <%s> tags and comments", e.name, lineTag))
	}
	for _, ch := range e.children {
		if ch.name != lineTag {
			c.notAllowed(ch, e.name, []string{lineTag})
			continue
		}
		if len(ch.children) > 0 || ch.textPos.Line != 0 {
			why := fmt.Sprintf("<%s> takes only attributes", lineTag)
			c.noChildren(ch, why)
			c.noText(ch, why)
		}
		line(ch)
	}
}

// checksRule reports whether rule() checks the element name, whose parent
// element is open (isRoot: it is the file's root), and the element's kind:
// a rule tag directly inside a <behaviorTree> root (see checkFile), or
// inside a sequence, choice or parallel that rule() checks itself (its
// parentKind), but not inside a subtree tag, whose content is a path. The
// XML reader calls rule() for these as soon as their end tag is read
// (xmlBuilder); it must not say yes for an element rule() would not check.
func (c *checker) checksRule(name string, parent *elem, isRoot, parentChecked bool, parentKind Kind) (Kind, bool) {
	kind, ok := c.kindOf(name)
	switch {
	case !ok:
		return 0, false
	case isRoot:
		return kind, parent.name == "behaviorTree"
	}
	return kind, parentChecked && parentKind.IsList() && parent.name != "subtree" && parent.name != "subTree" && parentKind != KindStateMachine
}

// ruleOf returns the node of a rule element: checked when its end tag was
// read, else checked now.
func (c *checker) ruleOf(e *elem, kind Kind) *node {
	if e.node != nil {
		return e.node
	}
	return c.rule(e, kind)
}

// posOf returns e's position on its own: the elements inside a rule are
// dropped once the rule is checked, while a node keeps this.
func posOf(e *elem) *Pos {
	p := e.pos
	return &p
}

// rule checks a rule element and its children.
func (c *checker) rule(e *elem, kind Kind) *node {
	if len(c.slab) == cap(c.slab) {
		c.slab = make([]node, 0, 128)
	}
	c.slab = append(c.slab, node{kind: kind, tag: e.name, pos: e.pos, mode: AllTrue})
	n := &c.slab[len(c.slab)-1]
	kidMark, condMark, paramMark := len(c.kids), len(c.conds), len(c.params)
	c.rules++
	isSubtree := e.name == "subtree" || e.name == "subTree"
	switch {
	case kind == KindAction:
		v := c.attrs(e, actionAttrs)
		n.action = c.nameAttr(e, v, 0, "the name of the action to run")
		c.id(n, e, v, 1)
		n.doNotFail = c.boolAttr(e, v, 2, false)
		c.interruption(n, e, v, 3)
		c.vocab(n, e, v, 3+len(interruptAttrs))
	case kind == KindCustom:
		v := c.attrs(e, customAttrs)
		c.id(n, e, v, 0)
		n.doNotFail = c.boolAttr(e, v, 1, false)
		c.interruption(n, e, v, 2)
		c.vocab(n, e, v, 2+len(interruptAttrs))
		n.repeat = c.countAttr(e, v, len(customAttrs)-1, "how many times it must finish with success before it succeeds")
	case kind == KindParallel:
		v := c.attrs(e, parallelAttrs)
		c.id(n, e, v, 0)
		n.successAt = c.thresholdAttr(e, v, 1, ThresholdAll)
		n.failureAt = c.thresholdAttr(e, v, 2, ThresholdAny)
		n.doNotFail = c.boolAttr(e, v, 3, false)
		c.interruption(n, e, v, 4)
		c.vocab(n, e, v, 4+len(interruptAttrs))
	case kind == KindStateMachine:
		v := c.attrs(e, machineAttrs)
		c.id(n, e, v, 0)
		n.machine = &machineNode{initial: c.optNameAttr(e, v, 1, "the name of one of its states")}
		n.doNotFail = c.boolAttr(e, v, 2, false)
		c.interruption(n, e, v, 3)
		c.vocab(n, e, v, 3+len(interruptAttrs))
	case kind.IsList():
		attrs := listAttrs
		if kind == KindChoice {
			attrs = choiceAttrs
		}
		v := c.attrs(e, attrs)
		c.id(n, e, v, 0)
		n.loop = c.boolAttr(e, v, 1, false)
		n.doNotFail = c.boolAttr(e, v, 2, false)
		c.interruption(n, e, v, 3)
		c.vocab(n, e, v, 3+len(interruptAttrs))
		rep := len(listAttrs) - 1
		n.repeat = c.countAttr(e, v, rep, "how many passes must succeed before it succeeds")
		if n.repeat > 0 && n.loop {
			c.errorf(e.pos, `repeat=%q with loop="true" on <%s>: a looping rule never finishes with success, so it has no passes to count; give one of them`, v.val[rep], e.name)
		}
		if o := len(listAttrs); kind == KindChoice && v.has[o] {
			if ord, ok := ParseOrder(v.val[o]); ok {
				n.order = ord
			} else {
				c.errorf(e.pos, "unknown order %q on <%s>; expected one of %s", v.val[o], e.name, strings.Join(orderNames[:], ", "))
			}
		}
	case kind == KindSlot:
		v := c.attrs(e, slotAttrs)
		c.id(n, e, v, 0)
		if !v.has[0] {
			c.errorf(e.pos, `<slot> needs an id: grafts name the slot by it (ctx:graft("ID", "TREE")) and the grafted tree's labels start with it`)
		}
		if v.has[1] {
			n.def = c.optNameAttr(e, v, 1, "the name of a tree of the game ([[trees]] in the config)")
		}
		n.doNotFail = c.boolAttr(e, v, 2, false)
		c.interruption(n, e, v, 3)
		c.vocab(n, e, v, 3+len(interruptAttrs))
	default:
		v := c.attrs(e, leafAttrs)
		c.id(n, e, v, 0)
		c.interruption(n, e, v, 1)
		c.vocab(n, e, v, 1+len(interruptAttrs))
	}

	if isSubtree {
		if len(e.children) > 0 {
			c.noChildren(e, fmt.Sprintf("<%s> holds only the path of a tree file", e.name))
		}
		n.subtree = strings.Trim(e.text, xmlSpace)
		if n.subtree == "" {
			c.errorf(e.pos, "<%s> needs the path of a tree file as its text, e.g. <%s>patrol.xml</%s>", e.name, e.name, e.name)
		}
		if n.abort != AbortNone {
			c.errorf(e.pos, `abort=%q on <%s>: abort watches a rule's conditions, and a subtree takes none; `+
				`put the subtree in a <sequence> with conditions and set abort there`, n.abort, e.name)
		}
		return n
	}
	switch {
	case e.textPos.Line == 0:
	case kind == KindStateMachine:
		c.noText(e, "<stateMachine> holds only state, parameter, condition, conditionMode and comments")
	case kind.IsList():
		c.noText(e, fmt.Sprintf("<%s> holds only rules, parameter, condition, conditionMode and comments", e.name))
	default:
		c.noText(e, fmt.Sprintf("<%s> holds only parameter, condition, conditionMode and comments", e.name))
	}

	allowed := ruleDetails
	switch {
	case kind == KindStateMachine:
		allowed = machineChildren
	case kind.IsList():
		allowed = c.custom.with(listChildren) // load_custom.go
	}
	var modePos Pos
	for _, ch := range e.children {
		switch ch.name {
		case "parameter":
			v := c.attrs(ch, parameterAttrs)
			name := c.nameAttr(ch, v, 0, "the parameter's name")
			c.noChildren(ch, "<parameter> holds only text: the parameter's value")
			c.params = append(c.params, Param{Name: name, Value: strings.Trim(ch.text, xmlSpace)})
			switch name {
			case ParamChoiceWeight:
				n.weightPos = posOf(ch)
			case ParamChoiceScore:
				n.scorePos = posOf(ch)
			}
		case "condition":
			c.attrs(ch, nil)
			c.noChildren(ch, "<condition> holds only text: a condition name")
			if cond, ok := c.cond(ch); ok {
				c.conds = append(c.conds, cond)
			}
		case "conditionMode":
			c.attrs(ch, nil)
			if len(ch.children) > 0 {
				c.noChildren(ch, "<conditionMode> holds only text: one of "+strings.Join(condModeNames[:], ", "))
			}
			text := strings.Trim(ch.text, xmlSpace)
			if modePos.Line != 0 {
				c.errorf(ch.pos, "second <conditionMode> in <%s> (the first is at %s); a rule has at most one", e.name, modePos)
			}
			modePos = ch.pos
			if m, ok := ParseCondMode(text); ok {
				n.mode = m
			} else {
				c.errorf(ch.pos, "unknown conditionMode %q; expected one of %s", text, strings.Join(condModeNames[:], ", "))
			}
		default:
			if kind == KindStateMachine {
				if ch.name == "state" {
					c.state(n, ch)
				} else {
					c.notAllowed(ch, e.name, allowed)
				}
				continue
			}
			childKind, isRule := c.kindOf(ch.name)
			if isRule && kind.IsList() {
				child := c.ruleOf(ch, childKind)
				switch kind {
				case KindChoice:
				case KindParallel:
					c.abortNeedsChoice(child, func() string {
						return fmt.Sprintf("here its parent is <%s> at %s, whose children all run side by side: there is nothing to preempt", e.name, e.pos)
					})
				default:
					c.abortNeedsChoice(child, func() string { return fmt.Sprintf("here its parent is <%s> at %s", e.name, e.pos) })
				}
				c.kids = append(c.kids, child)
			} else {
				c.notAllowed(ch, e.name, allowed)
			}
		}
	}
	n.children = c.kidList(kidMark)
	n.conds = c.condList(condMark)
	n.params = c.paramList(paramMark)
	if kind == KindParallel {
		c.checkParallel(n, e)
	}
	if kind == KindCustom {
		c.checkCustom(n, e)
	}
	if kind == KindStateMachine {
		c.checkMachine(n, e)
	}
	if n.abort != AbortNone && len(n.conds) == 0 {
		c.errorf(e.pos, `abort=%q on <%s> without conditions: abort watches the rule's conditions; add a <condition> or leave abort out`, n.abort, e.name)
	}
	switch n.order {
	case OrderWeighted:
		for _, ch := range n.children {
			c.checkWeight(ch)
		}
		c.checkWeightSum(n)
	case OrderScore:
		for _, ch := range n.children {
			c.checkScore(ch)
		}
	}
	return n
}

// interruption reads the abort, timeout, cooldown and gate attributes,
// which start at index first of v (see interruptAttrs).
func (c *checker) interruption(n *node, e *elem, v attrVals, first int) {
	if v.has[first] {
		if m, ok := ParseAbort(v.val[first]); ok {
			n.abort = m
		} else {
			c.errorf(e.pos, "abort=%q on <%s> is not an abort mode; expected one of %s", v.val[first], e.name, strings.Join(abortNames[:], ", "))
		}
	}
	n.timeout = c.secondsAttr(e, v, first+1, "the rule fails when it has been active that long")
	n.cooldown = c.secondsAttr(e, v, first+2, "the rule refuses to start again that long after it was left")
	n.gate = c.optNameAttr(e, v, first+3, "the name of a declared gate")
}

// vocab reads the attempts, enter and exit attributes, which start at index
// first of v (see vocabAttrs).
func (c *checker) vocab(n *node, e *elem, v attrVals, first int) {
	n.attempts = c.countAttr(e, v, first, "how many times the rule may fail, since it became active, before its failure is reported")
	n.enter = c.optNameAttr(e, v, first+1, "the name of a hook (bt.hook) run when the rule starts")
	n.exit = c.optNameAttr(e, v, first+2, "the name of a hook (bt.hook) run when the rule is left")
}

// maxCount bounds repeat and attempts: counts are agent state of 32 bits.
const maxCount = 1<<31 - 1

// countAttr reads an optional attribute holding a whole number >= 1
// (index i of v); 0 when it is absent or wrong (and then reported).
func (c *checker) countAttr(e *elem, v attrVals, i int, what string) int32 {
	if !v.has[i] {
		return 0
	}
	x, err := strconv.ParseInt(strings.Trim(v.val[i], xmlSpace), 10, 64)
	if err != nil || x < 1 || x > maxCount {
		c.errorf(e.pos, "%s=%q on <%s> is not a whole number from 1 to %d (%s)", v.names[i], v.val[i], e.name, maxCount, what)
		return 0
	}
	return int32(x)
}

// thresholdAttr reads a parallel's success or failure attribute (index i
// of v): all, any or a count N >= 1; def when it is absent or wrong (and
// then reported).
func (c *checker) thresholdAttr(e *elem, v attrVals, i int, def Threshold) Threshold {
	if !v.has[i] {
		return def
	}
	t, ok := ParseThreshold(v.val[i])
	if !ok {
		verb := "succeed"
		if v.names[i] == "failure" {
			verb = "fail"
		}
		c.errorf(e.pos, "%s=%q on <%s> is not a threshold; expected all, any, or a count N >= 1 (how many children must %s for the parallel to %s)",
			v.names[i], v.val[i], e.name, verb, verb)
		return def
	}
	return t
}

// checkParallel checks what a parallel's children decide: it has some, and
// its counts do not ask for more lanes than there are.
func (c *checker) checkParallel(n *node, e *elem) {
	kids := len(n.children)
	if kids == 0 {
		c.errorf(e.pos, "<%s> has no children; a parallel runs its child rules side by side: give it at least one", e.name)
		return
	}
	for _, x := range []struct {
		name string
		t    Threshold
	}{{"success", n.successAt}, {"failure", n.failureAt}} {
		if x.t > 0 && int(x.t) > kids {
			c.errorf(e.pos, "%s=\"%d\" on <%s> asks for more lanes than its %d %s; expected all, any, or a count from 1 to %d",
				x.name, x.t, e.name, kids, map[bool]string{true: "child", false: "children"}[kids == 1], kids)
		}
	}
}

// secondsAttr reads an optional attribute holding a number of seconds > 0;
// 0 when it is absent or wrong (and then reported).
func (c *checker) secondsAttr(e *elem, v attrVals, i int, what string) float64 {
	if !v.has[i] {
		return 0
	}
	s := strings.Trim(v.val[i], xmlSpace)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		c.errorf(e.pos, "%s=%q on <%s> is not a number of seconds > 0; expected a finite number such as 2 or 0.5 (%s)", v.names[i], v.val[i], e.name, what)
		return 0
	}
	return x
}

// abortNeedsChoice reports abort="lower" or "both" on a rule whose parent
// is not a choice; where says what the parent is (called only then).
func (c *checker) abortNeedsChoice(n *node, where func() string) {
	if n.abort.WatchesLower() {
		c.errorf(n.pos, `abort=%q on <%s> is only allowed on a child of a <choice> (it preempts the choice's later children); %s`,
			n.abort, n.tag, where())
	}
}

// checkWeight checks the choice.weight parameter of a weighted choice's
// child: a finite number >= 0 when given.
func (c *checker) checkWeight(n *node) {
	s, ok := n.params.Get(ParamChoiceWeight)
	if !ok {
		return
	}
	if _, err := parseWeight(s); err != nil {
		c.errorf(*n.weightPos, "parameter %s = %q on <%s> is not a weight; expected a finite number >= 0 "+
			"(the larger a child's weight, the likelier it is tried early; 1 when not given)", ParamChoiceWeight, s, n.tag)
	}
}

// checkWeightSum checks that the weights of a weighted choice's children
// add up to a finite number, summed in document order as the draw sums
// them: an infinite total would make every draw land on the last child
// with a weight (u = float() × +Inf is +Inf, or NaN for a float of 0).
// Any children's sum is then finite too (a sum of fewer of them, in the
// same order, rounds to no more).
func (c *checker) checkWeightSum(n *node) {
	sum := 0.0
	for _, ch := range n.children {
		s, ok := ch.params.Get(ParamChoiceWeight)
		if !ok {
			sum++
			continue
		}
		w, err := parseWeight(s)
		if err != nil {
			return // reported by checkWeight
		}
		if sum += w; math.IsInf(sum, 1) {
			c.errorf(*ch.weightPos, "parameter %s = %q on <%s> makes the weights of its <%s>'s children add up to more than %g; "+
				"the sum of a weighted choice's weights must be finite: scale them down (only their ratios matter)",
				ParamChoiceWeight, s, ch.tag, n.tag, math.MaxFloat64)
			return
		}
	}
}

// checkScore checks the choice.score parameter of a score choice's child: a
// finite number, or the name of a scorer (resolved when the tree is bound).
func (c *checker) checkScore(n *node) {
	s, ok := n.params.Get(ParamChoiceScore)
	if !ok {
		return
	}
	if _, _, err := parseScore(s); err != nil {
		c.errorf(*n.scorePos, "parameter %s = %q on <%s> %v; expected a finite number or the name of a scorer", ParamChoiceScore, s, n.tag, err)
	}
}

// parseWeight reads a choice.weight value: a finite number >= 0.
func parseWeight(s string) (float64, error) {
	w, err := strconv.ParseFloat(s, 64)
	if err != nil || !(w >= 0) || math.IsInf(w, 0) {
		return 0, errors.New("is not a weight")
	}
	return w, nil
}

// parseScore reads a choice.score value: a finite number, or else the name
// of a scorer. Text that reads as a number but is not finite ("inf", "nan",
// "1e999") and empty text are errors.
func parseScore(s string) (score float64, scorer string, err error) {
	x, perr := strconv.ParseFloat(s, 64)
	switch {
	case s == "":
		return 0, "", errors.New("is empty")
	case perr == nil && !math.IsNaN(x) && !math.IsInf(x, 0):
		return x, "", nil
	case perr == nil || errors.Is(perr, strconv.ErrRange):
		return 0, "", errors.New("is not a finite number")
	}
	return 0, s, nil
}

// kidList moves the children above mark on the children stack into a
// slab; nil when there are none.
func (c *checker) kidList(mark int) []*node {
	return moveAbove(&c.kids, mark, &c.kidLists)
}

// condList moves the conditions above mark on the condition stack into a
// slab; nil when there are none.
func (c *checker) condList(mark int) []Cond {
	return moveAbove(&c.conds, mark, &c.condLists)
}

// paramList moves the parameters above mark on the parameter stack into a
// slab as Params: sorted by name, a later one with the same name winning
// (sortParams); nil when there are none.
func (c *checker) paramList(mark int) Params {
	sorted := sortParams(c.params[mark:]) // in place: a prefix of them
	c.params = c.params[:mark+len(sorted)]
	return moveAbove(&c.params, mark, &c.paramLists)
}

// moveAbove moves the entries of a stack above mark into a run of the slab
// and returns the run; nil when there are none.
func moveAbove[T any](stack *[]T, mark int, to *slab[T]) []T {
	above := (*stack)[mark:]
	if len(above) == 0 {
		return nil
	}
	run := to.take(len(above))
	copy(run, above)
	*stack = (*stack)[:mark]
	return run
}

// cond reads a <condition>: a name or a comparison (vars_cmp.go),
// negated by one leading "!".
func (c *checker) cond(e *elem) (Cond, bool) {
	text := strings.Trim(e.text, xmlSpace)
	cond := Cond{Name: text, Pos: e.pos}
	if rest, ok := strings.CutPrefix(text, "!"); ok && !strings.HasPrefix(rest, "=") {
		cond.Name, cond.Negate = strings.Trim(rest, xmlSpace), true
	}
	if IsComparison(cond.Name) && !strings.HasPrefix(cond.Name, "!") {
		cmp, err := ParseCompare(cond.Name)
		if err != nil {
			c.errorf(e.pos, "comparison %q: %v", text, err)
			return cond, false
		}
		cond.Cmp, cond.Name = cmp, cmp.String()
		return cond, true
	}
	switch {
	case cond.Name == "":
		c.errorf(e.pos, "empty <condition>; expected a condition name, optionally negated with a leading !")
		return cond, false
	case strings.HasPrefix(cond.Name, "!"):
		c.errorf(e.pos, "condition %q has more than one leading !; expected a name with at most one ! to negate it", text)
		return cond, false
	}
	return cond, true
}

// id reads the id attribute (index i of v) into n.
func (c *checker) id(n *node, e *elem, v attrVals, i int) {
	if !v.has[i] {
		return
	}
	if v.val[i] == "" {
		c.errorf(e.pos, `empty id on <%s>; an id must not be empty (leave out id= for a rule without an id)`, e.name)
		return
	}
	// A leading "." joins the id to its parent's; any other empty part
	// ("..x", "a..b", "x.") makes a label no one can write or read back.
	if id := strings.TrimPrefix(v.val[i], "."); id == "" || strings.HasPrefix(id, ".") || strings.HasSuffix(id, ".") || strings.Contains(id, "..") {
		c.errorf(e.pos, `id %q on <%s> has an empty part between dots; an id is names joined by single dots, with one leading "." to extend the enclosing rule's id`, v.val[i], e.name)
		return
	}
	n.id, n.hasID = v.val[i], true
	c.ids++
}

// attrVals holds the values of a tag's known attributes, by index into the
// list given to attrs.
type attrVals struct {
	names []string
	val   [12]string
	has   [12]bool
}

// attrs checks e's attributes against the allowed names and returns their
// values. Unknown and repeated attributes are errors.
func (c *checker) attrs(e *elem, allowed []string) attrVals {
	v := attrVals{names: allowed}
	for _, a := range e.attrs {
		name := qname(a.Name)
		i := index(allowed, name)
		switch {
		case i < 0 && len(allowed) == 0:
			c.errorf(e.pos, "unknown attribute %s on <%s>; <%s> takes no attributes", name, e.name, e.name)
		case i < 0 && name == "repeat":
			c.errorf(e.pos, "repeat on <%s>: repeat counts the passes of a <sequence>, <choice> or <subtree>; put the rule in a <sequence repeat=\"N\">", e.name)
		case i < 0:
			c.errorf(e.pos, "unknown attribute %s on <%s>; expected %s", name, e.name, oneOf(allowed))
		case v.has[i]:
			c.errorf(e.pos, "attribute %s given twice on <%s>; give it once", name, e.name)
		default:
			v.val[i], v.has[i] = a.Value, true
		}
	}
	return v
}

// nameAttr returns a required, non-empty name attribute (index i of v).
func (c *checker) nameAttr(e *elem, v attrVals, i int, what string) string {
	if !v.has[i] {
		c.errorf(e.pos, `<%s> needs a %s attribute: %s`, e.name, v.names[i], what)
		return ""
	}
	return c.optNameAttr(e, v, i, what)
}

// optNameAttr returns an optional name attribute, which must not be empty when given.
func (c *checker) optNameAttr(e *elem, v attrVals, i int, what string) string {
	if v.has[i] && v.val[i] == "" {
		c.errorf(e.pos, `empty %s attribute on <%s>; expected %s`, v.names[i], e.name, what)
	}
	return v.val[i]
}

// boolAttr returns a boolean attribute: exactly "true" or "false", else an error.
func (c *checker) boolAttr(e *elem, v attrVals, i int, def bool) bool {
	if !v.has[i] {
		return def
	}
	switch v.val[i] {
	case "true":
		return true
	case "false":
		return false
	}
	c.errorf(e.pos, "%s=%q on <%s> is not a boolean; expected true or false", v.names[i], v.val[i], e.name)
	return def
}

// noText reports non-white-space text in an element that holds none; why
// says what the element holds instead.
func (c *checker) noText(e *elem, why string) {
	if e.textPos.Line != 0 {
		c.errorf(e.textPos, "unexpected text %s in <%s>; %s", snippet(e.text), e.name, why)
	}
}

// noChildren reports the child elements of an element that holds none; why
// says what the element holds instead.
func (c *checker) noChildren(e *elem, why string) {
	for _, ch := range e.children {
		c.errorf(ch.pos, "unexpected tag <%s> in <%s>; %s", ch.name, e.name, why)
	}
}

// notAllowed reports a child tag that its parent does not take.
func (c *checker) notAllowed(e *elem, parent string, allowed []string) {
	if knownTags[e.name] {
		c.errorf(e.pos, "<%s> is not allowed in <%s>; expected %s", e.name, parent, oneOf(allowed))
	} else {
		c.errorf(e.pos, "unknown tag <%s> in <%s>; expected %s", e.name, parent, oneOf(allowed))
	}
}

// oneOf lists the allowed names for a message.
func oneOf(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return "one of " + strings.Join(names, ", ")
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// snippet quotes the start of some text for an error message.
func snippet(text string) string {
	s := strings.Trim(text, xmlSpace)
	const max = 30
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

// varType reads a <variable>'s type and default (indices 2 and 1 of v):
// a boolean's default is true or false, a typed one's a value of its type
// (ParseVarValue); a bad one is reported, never taken as its zero.
func (c *checker) varType(e *elem, v attrVals, line *varLine) {
	if v.has[2] {
		t, ok := ParseVarType(v.val[2])
		if !ok {
			c.errorf(e.pos, "type=%q on <variable> is not a type; expected boolean, number, string or vector", v.val[2])
			return
		}
		line.typ = t
	}
	if line.typ == VarBoolean {
		line.def = c.boolAttr(e, v, 1, false)
		return
	}
	line.init = VarValue{Type: line.typ}
	if !v.has[1] {
		return
	}
	val, err := ParseVarValue(line.typ, v.val[1])
	if err != nil {
		c.errorf(e.pos, "default=%q on <variable> of type %s: %s", v.val[1], line.typ, badValueMsg(err))
		return
	}
	line.init = val
}

// fromAttr checks a <signal>'s from= path: keys joined by dots, none empty.
func (c *checker) fromAttr(e *elem, path string) {
	for _, k := range strings.Split(path, ".") {
		if k == "" {
			c.errorf(e.pos, `from=%q on <signal> has an empty key; expected a path of keys joined by dots, such as "hp" or "target.pos" (an all-digit key indexes a list from 1)`, path)
			return
		}
	}
}
