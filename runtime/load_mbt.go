package runtime

import (
	"strconv"
	"strings"
)

// Lumberyard's modular behavior trees (MBT): <BehaviorTree> with the
// Variables, SignalVariables and Timestamps blocks and one <Root>. Each
// node becomes the format's rules (see mbtNode); docs/seeds.md has the
// table.

// mbtLogAttrs are the reserved attributes every MBT node takes, and the
// parameters they become (SPEC §9's log parameters).
var mbtLogAttrs = []string{"_startLog", "_successLog", "_failureLog"}
var mbtLogParams = []string{"log.start", "log.success", "log.failure"}

// mbtTags lists the MBT nodes that are not action leaves, for messages.
var mbtTags = []string{"Sequence", "Selector", "Parallel", "Loop", "LoopUntilSuccess", "Priority", "StateMachine",
	"IfCondition", "AssertCondition", "IfTime", "WaitUntilTime", "WaitForEvent", "Wait", "Timeout", "SendSignal",
	"LimitConcurrentUsers", "LuaWrapper", "LuaGate", "ExecuteLua", "AssertLua", "Log", "Halt", "SuccessNode", "FailureNode"}

func (t *native) mbt(root *elem) *elem {
	t.attrMap(root, "xmlns", "name")
	t.noText(root)
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
		case "Timestamps":
			t.declBlock(ch, "Timestamp", t.timestamp)
		case "Root":
			if rootPos.Line != 0 {
				t.errorf(ch.pos, "second <Root> in MBT <BehaviorTree> (the first is at %s); a tree has one", rootPos)
				continue
			}
			rootPos = ch.pos
			t.attrMap(ch)
			t.noText(ch)
			kids := t.mbtKids(nil, ch)
			if len(kids) != 1 {
				t.errorf(ch.pos, "MBT <Root> holds %d nodes; expected exactly one, the tree's root node", len(kids))
				continue
			}
			rule = kids[0]
		default:
			t.errorf(ch.pos, "unknown element <%s> in MBT <BehaviorTree>; expected one of Variables, SignalVariables, Timestamps, Root", ch.name)
		}
	}
	if rootPos.Line == 0 {
		t.errorf(root.pos, "MBT <BehaviorTree> has no <Root>; expected <Root> holding the tree's root node")
	}
	return t.document(root, comments, rule)
}

// declBlock translates a block of declaration lines whose tag is line.
func (t *native) declBlock(e *elem, line string, each func(*elem)) {
	t.attrMap(e)
	t.noText(e)
	for _, ch := range e.children {
		switch {
		case ch.name == commentTag:
			t.declComment(line, ch)
		case ch.name == line:
			each(ch)
		case strings.EqualFold(ch.name, "ref") && t.blocks != nil:
			t.ref(ch, line, each)
		default:
			t.errorf(ch.pos, "unknown element <%s> in %s <%s>; expected <%s>", ch.name, t.kind, e.name, line)
		}
	}
}

// declComment keeps a comment of a declaration block (for convert) in
// the block its lines go to; LeafTranslations have none, and their
// comments go before the tree's root.
func (t *native) declComment(line string, c *elem) {
	switch line {
	case "Variable":
		b := t.block(&t.vars, "variables", c.pos)
		b.children = append(b.children, c)
	case "Signal":
		b := t.block(&t.signals, "signals", c.pos)
		b.children = append(b.children, c)
	case "Timestamp":
		b := t.block(&t.stamps, "timestamps", c.pos)
		b.children = append(b.children, c)
	default:
		t.comments = append(t.comments, c)
	}
}

func (t *native) variable(e *elem) {
	m := t.attrMap(e, "name", "default")
	name, ok := t.need(e, m, "name", "the variable's name")
	if !ok {
		return
	}
	v := mk("variable", e.pos, "name", name)
	if d, ok := t.boolAttr(e, m, "default"); ok {
		setAttr(v, "default", d)
	}
	b := t.block(&t.vars, "variables", e.pos)
	b.children = append(b.children, t.origin(v, e))
}

func (t *native) signal(e *elem) {
	m := t.attrMap(e, "name", "variable", "value")
	name, ok := t.need(e, m, "name", "the signal's name")
	if !ok {
		return
	}
	s := mk("signal", e.pos, "name", name)
	if v, ok := m["variable"]; ok {
		setAttr(s, "variable", strings.TrimSpace(v))
		val, ok := t.boolAttr(e, m, "value")
		if !ok {
			if _, given := m["value"]; !given {
				t.errorf(e.pos, "%s <Signal> with a variable needs a value attribute: true or false", t.kind)
			}
			return
		}
		setAttr(s, "value", val)
	}
	b := t.block(&t.signals, "signals", e.pos)
	b.children = append(b.children, t.origin(s, e))
}

func (t *native) timestamp(e *elem) {
	m := t.attrMap(e, "name", "setOnEvent", "exclusiveTo")
	name, ok := t.need(e, m, "name", "the timestamp's name")
	if !ok {
		return
	}
	s := mk("timestamp", e.pos, "name", name)
	if v, ok := m["setOnEvent"]; ok {
		setAttr(s, "setOnSignal", strings.TrimSpace(v))
	}
	if v, ok := m["exclusiveTo"]; ok {
		setAttr(s, "exclusiveTo", strings.TrimSpace(v))
	}
	b := t.block(&t.stamps, "timestamps", e.pos)
	b.children = append(b.children, t.origin(s, e))
}

// mbtKids translates the node children of e, appending them (and the
// comments among them) to dst when dst is not nil, and returns the made
// rules.
func (t *native) mbtKids(dst, e *elem) []*elem {
	var out []*elem
	for _, ch := range e.children {
		if ch.name == commentTag {
			if dst != nil {
				dst.children = append(dst.children, ch)
			}
			continue
		}
		if r := t.mbtNode(ch); r != nil {
			out = append(out, r)
			if dst != nil {
				dst.children = append(dst.children, r)
			}
		}
	}
	return out
}

// mbtOne translates the single child node of a decorator into dst.
func (t *native) mbtOne(dst, e *elem) {
	if n := len(t.mbtKids(dst, e)); n != 1 {
		t.errorf(e.pos, "MBT <%s> holds %d nodes; expected exactly one child node", e.name, n)
	}
}

// mbtNode translates one MBT node; nil when it is wrong (reported).
func (t *native) mbtNode(e *elem) *elem {
	t.noText(e)
	attrs := func(names ...string) map[string]string {
		return t.attrMap(e, append(names, mbtLogAttrs...)...)
	}
	var r *elem
	var m map[string]string
	switch e.name {
	case "Sequence", "Selector":
		m = attrs()
		r = mk(map[string]string{"Sequence": "sequence", "Selector": "choice"}[e.name], e.pos)
		t.mbtKids(r, e)
	case "Parallel":
		m = attrs("successMode", "failureMode")
		r = mk("parallel", e.pos)
		for _, a := range []string{"success", "failure"} {
			if v, ok := m[a+"Mode"]; ok {
				switch mode := strings.ToLower(strings.TrimSpace(v)); mode {
				case "any", "all":
					setAttr(r, a, mode)
				default:
					t.errorf(e.pos, "%sMode=%q on MBT <Parallel>; expected any or all", a, v)
				}
			}
		}
		t.mbtKids(r, e)
	case "Loop":
		m = attrs("count")
		r = mk("sequence", e.pos)
		n, ok := t.count(e, m, "count")
		_, given := m["count"]
		switch {
		case ok && n > 0:
			setAttr(r, "repeat", strconv.Itoa(n))
		case ok || !given: // no count, or one <= 0: for ever, until it fails
			setAttr(r, "loop", "true")
		}
		t.mbtOne(r, e)
	case "LoopUntilSuccess":
		m = attrs("attemptCount")
		r = mk("sequence", e.pos)
		n, ok := t.count(e, m, "attemptCount")
		if ok && n <= 0 {
			n = maxCount // no count: until it succeeds
		}
		if ok {
			setAttr(r, "attempts", strconv.Itoa(n))
		}
		t.mbtOne(r, e)
	case "Priority":
		m = attrs()
		r = mk("choice", e.pos)
		for _, ch := range e.children {
			switch ch.name {
			case commentTag:
				r.children = append(r.children, ch)
			case "Case":
				if c := t.mbtCase(ch); c != nil {
					r.children = append(r.children, c)
				}
			default:
				t.errorf(ch.pos, "<%s> in MBT <Priority>; expected <Case condition=\"...\"> holding one node", ch.name)
			}
		}
	case "StateMachine":
		m = attrs()
		r = t.mbtStateMachine(e)
	case "IfCondition":
		m = attrs("condition")
		r = mk("sequence", e.pos)
		if c, ok := t.need(e, m, "condition", "a variable name or an expression over variables"); ok {
			t.conditions(r, e, "condition", c)
		}
		t.mbtOne(r, e)
	case "AssertCondition":
		m = attrs("condition")
		r = mk("success", e.pos)
		if c, ok := t.need(e, m, "condition", "a variable name or an expression over variables"); ok {
			t.conditions(r, e, "condition", c)
		}
		t.noKids(e)
	case "IfTime":
		m = attrs("since", "isMoreThan", "isLessThan", "orNeverBeenSet")
		r = mk("sequence", e.pos)
		t.ifTime(r, e, m)
		t.mbtOne(r, e)
	case "WaitUntilTime":
		m = attrs("since", "isMoreThan", "orNeverBeenSet", "succeedIfNeverBeenSet")
		r = mk("action", e.pos, "name", "bt.timestamp.wait")
		if s, ok := t.need(e, m, "since", "the name of a timestamp"); ok {
			r.children = append(r.children, paramElem(e.pos, "timestamp.name", s))
		}
		if s, ok := t.seconds(e, m, "isMoreThan", true); ok {
			r.children = append(r.children, paramElem(e.pos, "timestamp.moreThan", s))
		}
		for _, a := range []string{"orNeverBeenSet", "succeedIfNeverBeenSet"} {
			if b, ok := t.boolAttr(e, m, a); ok {
				r.children = append(r.children, paramElem(e.pos, "timestamp.orNeverSet", b))
			}
		}
		t.noKids(e)
	case "WaitForEvent":
		m = attrs("name")
		r = t.builtin(e, m, "bt.signal.wait", "name", "signal.name", "the name of the signal (event) to wait for")
	case "Wait":
		m = attrs("duration")
		r = mk("action", e.pos, "name", "bt.wait")
		if s, ok := t.seconds(e, m, "duration", true); ok {
			r.children = append(r.children, paramElem(e.pos, "wait.seconds", s))
		}
		t.noKids(e)
	case "Timeout":
		// A leaf that fails once its duration has passed (beside others in
		// a Parallel, it bounds them).
		m = attrs("duration")
		r = mk("sequence", e.pos)
		w := mk("action", e.pos, "name", "bt.wait")
		if s, ok := t.seconds(e, m, "duration", true); ok {
			w.children = append(w.children, paramElem(e.pos, "wait.seconds", s))
		}
		r.children = append(r.children, w, mk("failure", e.pos))
		t.noKids(e)
	case "SendSignal":
		m = attrs("name", "to")
		r = t.builtin(e, m, "bt.signal.send", "name", "signal.name", "the name of the signal to send")
		if to, ok := m["to"]; ok && r != nil {
			switch strings.ToLower(strings.TrimSpace(to)) {
			case "self":
				to = "self"
			case "global", "all":
				to = "all"
			}
			r.children = append(r.children, paramElem(e.pos, "signal.to", to))
		}
	case "LimitConcurrentUsers":
		m = attrs("max")
		r = mk("sequence", e.pos)
		if n, ok := t.count(e, m, "max"); ok {
			if n < 1 {
				t.errorf(e.pos, "max=%q on MBT <LimitConcurrentUsers>; expected a whole number >= 1", m["max"])
			} else {
				setAttr(r, "gate", t.gate(e, strconv.Itoa(n)))
			}
		} else if _, given := m["max"]; !given {
			t.errorf(e.pos, "MBT <LimitConcurrentUsers> needs a max attribute: how many agents may run its child at once")
		}
		t.mbtOne(r, e)
	case "LuaWrapper":
		m = attrs("onEnter", "onExit")
		r = t.luaWrapper(e, m)
	case "LuaGate":
		m = attrs("code")
		r = mk("sequence", e.pos)
		if c, ok := t.need(e, m, "code", "Lua code returning true or false"); ok {
			r.children = append(r.children, paramElem(e.pos, "lua.test", luaTest(c)), textElem("condition", e.pos, "bt.lua"))
		}
		t.mbtOne(r, e)
	case "ExecuteLua":
		m = attrs("code")
		r = mk("action", e.pos, "name", "bt.lua")
		if c, ok := t.need(e, m, "code", "Lua code to run"); ok {
			r.children = append(r.children, paramElem(e.pos, "lua.run", luaRun(c)))
		}
		t.noKids(e)
	case "AssertLua":
		m = attrs("code")
		r = mk("success", e.pos)
		if c, ok := t.need(e, m, "code", "Lua code returning true or false"); ok {
			r.children = append(r.children, paramElem(e.pos, "lua.test", luaTest(c)), textElem("condition", e.pos, "bt.lua"))
		}
		t.noKids(e)
	case "Log":
		m = attrs("message")
		r = mk("action", e.pos, "name", "bt.log")
		msg, ok := m["message"]
		if !ok {
			t.errorf(e.pos, "MBT <Log> needs a message attribute: the text to write to the agent's log")
		}
		r.children = append(r.children, paramElem(e.pos, "log.message", msg))
		t.noKids(e)
	case "Halt":
		m = attrs()
		r = mk("running", e.pos)
		t.noKids(e)
	case "SuccessNode", "FailureNode":
		m = attrs()
		r = mk(map[string]string{"SuccessNode": "success", "FailureNode": "failure"}[e.name], e.pos)
		t.noKids(e)
	case "Case", "State", "Transitions", "Transition", "Root", "Variables", "SignalVariables", "Timestamps":
		t.errorf(e.pos, "MBT <%s> is not allowed here; expected a node such as %s, or an action leaf", e.name, strings.Join(mbtTags[:4], ", "))
		return nil
	default:
		r = t.leaf(e)
		m = map[string]string{}
		for _, a := range e.attrs {
			if i := index(mbtLogAttrs, qname(a.Name)); i >= 0 {
				m[qname(a.Name)] = a.Value
			}
		}
	}
	if r == nil {
		return nil
	}
	for i, a := range mbtLogAttrs {
		if v, ok := m[a]; ok {
			r.children = append(r.children, paramElem(e.pos, mbtLogParams[i], v))
		}
	}
	return t.origin(r, e)
}

// leaf makes an action calling the action registered under the element's
// tag, its attributes the rule's parameters (the log attributes aside).
func (t *native) leaf(e *elem) *elem {
	r := mk("action", e.pos, "name", e.name)
	if strings.HasPrefix(e.name, "bt.") {
		t.errorf(e.pos, "MBT node <%s>: names starting with bt. are btrun's built-ins; an action leaf names an action of the game", e.name)
	}
	for _, a := range e.attrs {
		name := qname(a.Name)
		if index(mbtLogAttrs, name) >= 0 {
			continue
		}
		r.children = append(r.children, paramElem(e.pos, name, a.Value))
	}
	t.noKids(e)
	return r
}

// noKids reports the child elements of a native element that holds none.
func (t *native) noKids(e *elem) {
	for _, ch := range e.children {
		if ch.name != commentTag {
			t.errorf(ch.pos, "unexpected <%s> in %s <%s>, which holds no nodes; put them in a node that does, such as a Sequence",
				ch.name, t.kind, e.name)
		}
	}
}

// builtin makes an action of a built-in with one required parameter read
// from attribute attr.
func (t *native) builtin(e *elem, m map[string]string, action, attr, param, what string) *elem {
	r := mk("action", e.pos, "name", action)
	if v, ok := t.need(e, m, attr, what); ok {
		r.children = append(r.children, paramElem(e.pos, param, v))
	}
	t.noKids(e)
	return r
}

// count reads an optional whole-number attribute; ok is false when it is
// absent or wrong (reported).
func (t *native) count(e *elem, m map[string]string, name string) (int, bool) {
	s, ok := m[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n > maxCount {
		t.errorf(e.pos, "%s=%q on %s <%s> is not a whole number up to %d", name, s, t.kind, e.name, maxCount)
		return 0, false
	}
	return int(n), true
}

// mbtCase translates a Priority's Case: a sequence whose condition is
// watched both ways (abort="both"), so the choice switches to a case above
// when its condition comes true and leaves a case whose condition fails.
func (t *native) mbtCase(e *elem) *elem {
	t.noText(e)
	m := t.attrMap(e, "condition")
	r := mk("sequence", e.pos)
	if c, ok := m["condition"]; ok && t.conditions(r, e, "condition", c) {
		setAttr(r, "abort", "both")
	}
	t.mbtOne(r, e)
	return t.origin(r, e)
}

// ifTime adds IfTime's timestamp condition to r.
func (t *native) ifTime(r, e *elem, m map[string]string) {
	since, ok := t.need(e, m, "since", "the name of a timestamp")
	if !ok {
		return
	}
	more, hasMore := t.seconds(e, m, "isMoreThan", false)
	less, hasLess := t.seconds(e, m, "isLessThan", false)
	switch {
	case hasMore == hasLess:
		t.errorf(e.pos, "MBT <IfTime> needs one of isMoreThan and isLessThan: seconds since the timestamp %q was set", since)
	case hasMore:
		r.children = append(r.children, textElem("condition", e.pos, since+".moreThan"), paramElem(e.pos, since+".moreThan", more))
	default:
		r.children = append(r.children, textElem("condition", e.pos, since+".lessThan"), paramElem(e.pos, since+".lessThan", less))
	}
	if b, ok := t.boolAttr(e, m, "orNeverBeenSet"); ok {
		r.children = append(r.children, paramElem(e.pos, since+".orNeverSet", b))
	}
}

// luaWrapper runs onEnter, the child, and onExit whatever the child's
// result: a choice whose first child runs all three and whose second runs
// onExit after a failure and fails.
func (t *native) luaWrapper(e *elem, m map[string]string) *elem {
	run := func(code string) *elem {
		return mk("action", e.pos, "name", "bt.lua").withKid(paramElem(e.pos, "lua.run", luaRun(code)))
	}
	body := mk("sequence", e.pos)
	if c, ok := m["onEnter"]; ok {
		body.children = append(body.children, run(c))
	}
	t.mbtOne(body, e)
	exit, hasExit := m["onExit"]
	if !hasExit {
		return body
	}
	body.children = append(body.children, run(exit))
	return mk("choice", e.pos).withKid(body).withKid(mk("sequence", e.pos).withKid(run(exit)).withKid(mk("failure", e.pos)))
}

func (e *elem) withKid(k *elem) *elem {
	e.children = append(e.children, k)
	return e
}

// luaRun is MBT's Lua code as bt.lua's lua.run: entity is the agent's game
// data, and what the code returns is dropped (ExecuteLua always succeeds).
func luaRun(code string) string {
	return "local entity = ctx.agent; (function() " + luaBody(code) + "end)()"
}

// luaBody is code ready for an "end" on the same line: on the next when
// the code may end in a line comment.
func luaBody(code string) string {
	code = strings.TrimSpace(code)
	if strings.Contains(code, "--") {
		return code + "\n"
	}
	return code + " "
}

// luaTest is MBT's Lua code as bt.lua's lua.test: true when the code
// returns a true value, false when it returns false or nothing.
func luaTest(code string) string {
	return "not not (function() local entity = ctx.agent; " + luaBody(code) + "end)()"
}

// mbtStateMachine translates a StateMachine into the format's stateMachine:
// each State's name, its Transitions (onEvent is a signal) and its one
// node, held directly or in a <BehaviorTree>.
func (t *native) mbtStateMachine(e *elem) *elem {
	r := mk("stateMachine", e.pos)
	for _, st := range e.children {
		switch st.name {
		case commentTag:
			r.children = append(r.children, st)
			continue
		case "State":
		default:
			t.errorf(st.pos, "<%s> in MBT <StateMachine>; expected <State name=\"...\">", st.name)
			continue
		}
		t.noText(st)
		m := t.attrMap(st, "name")
		name, _ := t.need(st, m, "name", "the state's name, which transitions name in to=")
		s := mk("state", st.pos, "name", name)
		nodes := 0
		for _, ch := range st.children {
			switch ch.name {
			case commentTag:
				s.children = append(s.children, ch)
			case "Transitions":
				t.attrMap(ch)
				t.noText(ch)
				for _, tr := range ch.children {
					if addComment(s, tr) {
						continue
					}
					if tr.name != "Transition" {
						t.errorf(tr.pos, "<%s> in MBT <Transitions>; expected <Transition to=\"STATE\" onEvent=\"SIGNAL\">", tr.name)
						continue
					}
					tm := t.attrMap(tr, "to", "onEvent")
					to, ok1 := t.need(tr, tm, "to", "the name of the state to go to")
					ev, ok2 := t.need(tr, tm, "onEvent", "the signal (event) that triggers it")
					if ok1 && ok2 {
						s.children = append(s.children, t.origin(mk("transition", tr.pos, "signal", ev, "to", to), tr))
					}
				}
			case mbtRoot:
				t.attrMap(ch)
				nodes += len(t.mbtKids(s, ch))
			default:
				if r := t.mbtNode(ch); r != nil {
					s.children = append(s.children, r)
					nodes++
				}
			}
		}
		if nodes != 1 {
			t.errorf(st.pos, "MBT <State> holds %d nodes; expected exactly one (directly or in <BehaviorTree>)", nodes)
		}
		r.children = append(r.children, t.origin(s, st))
	}
	return r
}
