package runtime

import (
	"fmt"
	"path"
	"strings"
)

// Drag[en]gine's own state machine files (root <stateMachine>, the
// engine's stateMachine.xsd) load as a front-end, like MBT and BHS
// documents (load_native.go): the document becomes a <behaviorTree> whose
// root is a <stateMachine> rule (machine.go), so stepping, saves, reload,
// the workers and the live view need nothing new.
//
//	<stateMachine>
//	  <import>common.desm</import>            states of another file
//	  <initialState>idle</initialState>
//	  <state id="idle">
//	    <enterAction name="lookAround">       run after the state is entered
//	      <parameter name="look.speed">2</parameter>
//	      <condition>calm</condition>          conditions decide whether it runs
//	    </enterAction>
//	    <enterAction name="alarm" state="alert"><condition>hurt</condition></enterAction>
//	    <exitAction name="stopLooking"/>        run before the state is left
//	    <transition event="noise" state="alert">
//	      <condition>awake</condition>         first match in document order wins
//	      <action name="turn"/>                 run between the exit and enter actions
//	    </transition>
//	  </state>
//	</stateMachine>
//
// Each element keeps its meaning by becoming states of the btrun machine,
// so that the order of the engine's event processing is the order in
// which the machine's states run:
//
//   - The state itself (named by its id) is where the machine rests: its
//     rule is <running/>, and each event it has transitions on is a signal
//     transition out of it. An event is a signal (the translation declares
//     one per event name).
//   - A transition with conditions is a state "S (E n if)" whose rule is a
//     <success> carrying them; its result goes on to the transition's
//     actions or, when the conditions fail, to the next transition on the
//     same event, or back to rest. The first whose conditions hold wins.
//   - The exit actions of S and then the transition's actions are one
//     state "S (E n)", a <sequence> of them; after it, the target's enter
//     actions run in states "T (enter n)" and the machine rests in T. A
//     transition without a target state runs its actions only.
//   - An enter action with state= (or nextState=) ends the enter actions:
//     when its conditions hold, it runs and the machine switches to that
//     state at once (its enter actions next), the remaining ones skipped.
//   - Every action is btrun's registered action of that name, with the
//     element's parameters and conditions; it runs to its end (over as many
//     steps as it takes) before the machine moves on, and its failure is
//     ignored (doNotFail), as the engine's actions report none.
//
// Events reach a state machine between steps (machine.go); the conditions
// of a transition are checked, and its actions run, at the agent's next
// step. An event that arrives while the machine runs actions, rather than
// resting in a state, finds no transition and is not taken.

// desmRoot is the root element of a Drag[en]gine state machine file.
const desmRoot = "stateMachine"

// maxImportDepth bounds chains of <import>.
const maxImportDepth = 16

// desmState is a <state> as read: its elements, kept for building once
// every state (imported ones too) is known.
type desmState struct {
	id    string
	e     *elem
	enter []desmAction
	exit  []desmAction
	trans []desmTrans
	// comments are kept (for convert) in the state where the machine rests
	comments []*elem
}

// desmAction is an <enterAction>, <exitAction> or a transition's <action>.
type desmAction struct {
	e      *elem
	name   string
	to     string // an enter action's state change; "" for none
	guards []*elem
	params []*elem
}

// desmTrans is a <transition>.
type desmTrans struct {
	e       *elem
	event   string
	to      string // "" for a transition that changes no state
	guards  []*elem
	params  []*elem
	actions []desmAction
}

// desm is the translation of one state machine document with its imports.
type desm struct {
	*native
	files   func(Pos, string) *elem
	states  []*desmState
	byID    map[string]*desmState
	initial string
	initPos Pos
	// importing is the chain of files being imported, for cycles; dirs
	// their folders relative to the document's, which import paths are
	// relative to.
	importing []string
	dirs      []string
	// imported holds where each file was imported first: a file imported
	// twice would bring its states twice, and imports that fan out would
	// read files exponentially often.
	imported map[string]Pos
	machine  *elem
	events   map[string]bool
}

// desmDoc translates a <stateMachine> document.
func (t *native) desmDoc(root *elem, files func(Pos, string) *elem) *elem {
	d := &desm{native: t, files: files, byID: map[string]*desmState{}, events: map[string]bool{},
		importing: []string{path.Base(root.pos.File)}, imported: map[string]Pos{}}
	comments := d.read(root, 0)
	d.machine = t.origin(mk("stateMachine", root.pos), root)
	if len(d.states) == 0 {
		t.errorf(root.pos, "state machine <stateMachine> has no states; give it at least one <state id=\"...\">")
		return t.document(root, comments, nil)
	}
	initial := d.states[0]
	if d.initial != "" {
		s, ok := d.byID[d.initial]
		if !ok {
			d.unknownState(d.initPos, "<initialState>", d.initial)
		} else {
			initial = s
		}
	}
	setAttr(d.machine, "initial", d.entry(initial))
	for _, s := range d.states {
		d.build(s)
	}
	return t.document(root, comments, d.machine)
}

// read reads the imports, initial state and states of one file (depth is
// its import depth); it returns the comments before the first state.
func (d *desm) read(root *elem, depth int) []*elem {
	t := d.native
	t.attrMap(root, "xmlns", "xmlns:xsi", "xsi:schemaLocation", "xsi:noNamespaceSchemaLocation")
	t.noText(root)
	var comments []*elem
	for _, ch := range root.children {
		switch ch.name {
		case commentTag:
			if depth == 0 {
				comments = append(comments, ch)
			}
		case "import":
			d.importFile(ch, depth)
		case "initialState":
			t.attrMap(ch)
			id := strings.TrimSpace(ch.text)
			if id == "" {
				t.errorf(ch.pos, "empty state machine <initialState>; write the id of the state the machine starts in")
			} else if depth == 0 || d.initial == "" { // the importing file's own decides
				if depth == 0 && d.initial != "" && d.initPos.File == ch.pos.File {
					t.errorf(ch.pos, "second state machine <initialState> (the first is at %s); give one", d.initPos)
				}
				d.initial, d.initPos = id, ch.pos
			}
		case "state":
			d.state(ch)
		default:
			t.errorf(ch.pos, "unknown element <%s> in state machine <stateMachine>; expected <import>, <initialState> or <state>", ch.name)
		}
	}
	return comments
}

// importFile adds the states of the file an <import> names (relative to
// the importing file).
func (d *desm) importFile(e *elem, depth int) {
	t := d.native
	t.attrMap(e)
	rel := strings.TrimSpace(e.text)
	switch {
	case rel == "":
		t.errorf(e.pos, "empty state machine <import>; write the path of a state machine file, relative to this one")
		return
	case depth+1 > maxImportDepth:
		t.errorf(e.pos, "state machine <import> of %s nests more than %d imports deep", rel, maxImportDepth)
		return
	case d.files == nil:
		return
	}
	if len(d.dirs) > 0 && !path.IsAbs(rel) {
		rel = path.Join(d.dirs[len(d.dirs)-1], rel)
	}
	rel = path.Clean(rel)
	for _, f := range d.importing {
		if f == rel {
			t.errorf(e.pos, "state machine <import> of %s imports itself (through %s)", rel, strings.Join(d.importing, ", "))
			return
		}
	}
	if first, again := d.imported[rel]; again {
		t.errorf(e.pos, "state machine <import> of %s again (it is imported at %s); import a file once", rel, first)
		return
	}
	d.imported[rel] = e.pos
	root := d.files(e.pos, rel)
	if root == nil {
		return // reported by files
	}
	if root.name != desmRoot {
		t.errorf(root.pos, "root element of imported state machine file is <%s>; expected <%s>", root.name, desmRoot)
		return
	}
	d.importing = append(d.importing, rel)
	d.dirs = append(d.dirs, path.Dir(rel))
	d.read(root, depth+1)
	d.importing = d.importing[:len(d.importing)-1]
	d.dirs = d.dirs[:len(d.dirs)-1]
}

// state reads a <state>.
func (d *desm) state(e *elem) {
	t := d.native
	m := t.attrMap(e, "id")
	t.noText(e)
	id, ok := t.need(e, m, "id", "the state's identifier, which transitions name in state=")
	if !ok {
		return
	}
	if prev, dup := d.byID[id]; dup {
		t.errorf(e.pos, "duplicate state id %q in state machine (the first is at %s); each state needs an id of its own", id, prev.e.pos)
		return
	}
	s := &desmState{id: id, e: e}
	for _, ch := range e.children {
		switch ch.name {
		case commentTag:
			s.comments = append(s.comments, ch)
		case "enterAction":
			s.enter = append(s.enter, d.action(ch, true))
		case "exitAction":
			s.exit = append(s.exit, d.action(ch, false))
		case "transition":
			s.trans = append(s.trans, d.transition(ch))
		default:
			t.errorf(ch.pos, "unknown element <%s> in state machine <state id=%q>; expected <enterAction>, <exitAction> or <transition>", ch.name, id)
		}
	}
	d.states = append(d.states, s)
	d.byID[id] = s
}

// action reads an action element; enter actions may name a state.
func (d *desm) action(e *elem, enter bool) desmAction {
	t := d.native
	var m map[string]string
	if enter {
		m = t.attrMap(e, "name", "state", "nextState")
	} else {
		m = t.attrMap(e, "name")
	}
	a := desmAction{e: e}
	a.name, _ = t.need(e, m, "name", "the name of the action to run, as registered by a script or a plugin")
	st, has1 := m["state"]
	ns, has2 := m["nextState"]
	switch {
	case has1 && has2:
		t.errorf(e.pos, "state machine <%s> has both state= and nextState=; give one, the state to switch to", e.name)
	case has2:
		st = ns
	}
	a.to = strings.TrimSpace(st)
	a.guards, a.params = d.guards(e, nil)
	return a
}

// transition reads a <transition>.
func (d *desm) transition(e *elem) desmTrans {
	t := d.native
	m := t.attrMap(e, "event", "state")
	tr := desmTrans{e: e, to: strings.TrimSpace(m["state"])}
	tr.event, _ = t.need(e, m, "event", "the event (a signal) it is taken on")
	tr.guards, tr.params = d.guards(e, func(ch *elem) bool {
		if ch.name != "action" {
			return false
		}
		tr.actions = append(tr.actions, d.action(ch, false))
		return true
	})
	if tr.event != "" && !d.events[tr.event] {
		d.events[tr.event] = true
		b := t.block(&t.signals, "signals", e.pos)
		b.children = append(b.children, t.origin(mk("signal", e.pos, "name", tr.event), e))
	}
	return tr
}

// guards reads the conditions, condition mode and parameters of an
// element as the format's elements; other children go to more (nil: none
// allowed).
func (d *desm) guards(e *elem, more func(*elem) bool) (guards, params []*elem) {
	t := d.native
	t.noText(e)
	for _, ch := range e.children {
		switch ch.name {
		case commentTag:
		case "parameter":
			m := t.attrMap(ch, "name")
			if name, ok := t.need(ch, m, "name", "the parameter's name"); ok {
				params = append(params, paramElem(ch.pos, name, ch.text))
			}
		case "condition":
			m := t.attrMap(ch, "name")
			name, given := m["name"]
			if given == (ch.textPos.Line != 0) {
				t.errorf(ch.pos, "state machine <condition> names its condition either as text or as name=, once")
				continue
			}
			if !given {
				name = ch.text
			}
			guards = append(guards, textElem("condition", ch.pos, strings.TrimSpace(name)))
		case "conditionMode":
			t.attrMap(ch)
			guards = append(guards, textElem("conditionMode", ch.pos, strings.TrimSpace(ch.text)))
		default:
			if more == nil || !more(ch) {
				want := "<parameter>, <condition> or <conditionMode>"
				if more != nil {
					want = "<action>, " + want
				}
				t.errorf(ch.pos, "unknown element <%s> in state machine <%s>; expected %s", ch.name, e.name, want)
			}
		}
	}
	return guards, params
}

func (d *desm) unknownState(pos Pos, what, id string) {
	var names []string
	for _, s := range d.states {
		names = append(names, s.id)
	}
	hint := "expected one of " + strings.Join(names, ", ")
	if s := suggest(id, names); s != "" {
		hint = fmt.Sprintf("did you mean %q? (%s)", s, hint)
	}
	d.native.errorf(pos, "%s names state %q, which the state machine does not have; %s", what, id, hint)
}

// The names of the machine's states made for a state's parts (see the top
// of this file); they keep the state's id first, so that the live view
// lists them with it.
func enterName(s *desmState, k int) string  { return fmt.Sprintf("%s (enter %d)", s.id, k+1) }
func switchIf(s *desmState, k int) string   { return fmt.Sprintf("%s (enter %d if)", s.id, k+1) }
func switchName(s *desmState, k int) string { return fmt.Sprintf("%s (enter %d switch)", s.id, k+1) }
func transIf(s *desmState, ev string, n int) string {
	return fmt.Sprintf("%s (%s %d if)", s.id, ev, n)
}
func transName(s *desmState, ev string, n int) string { return fmt.Sprintf("%s (%s %d)", s.id, ev, n) }

// entry is the machine state in which state s is entered: its first enter
// action's, or s itself.
func (d *desm) entry(s *desmState) string {
	if len(s.enter) == 0 {
		return s.id
	}
	if a := s.enter[0]; a.to != "" && len(a.guards) > 0 {
		return switchIf(s, 0)
	}
	return enterName(s, 0)
}

// entryOf is entry of the state id names, reporting an unknown one.
func (d *desm) entryOf(pos Pos, what, id string) (string, bool) {
	s, ok := d.byID[id]
	if !ok {
		d.unknownState(pos, what, id)
		return "", false
	}
	return d.entry(s), true
}

// addState adds a machine state holding rule, whose result (either) goes
// to next, and signal transitions sig (event, target pairs) first.
func (d *desm) addState(from *elem, name string, rule *elem, next string, sig ...string) {
	st := mk("state", from.pos, "name", name)
	for i := 0; i+1 < len(sig); i += 2 {
		st.children = append(st.children, mk("transition", from.pos, "signal", sig[i], "to", sig[i+1]))
	}
	if next != "" {
		st.children = append(st.children,
			mk("transition", from.pos, "result", "success", "to", next),
			mk("transition", from.pos, "result", "failure", "to", next))
	}
	st.children = append(st.children, rule)
	d.machine.children = append(d.machine.children, d.native.origin(st, from))
}

// run is an action rule: the action with its parameters, run only when
// its conditions hold (a <sequence> checks them once, so that a running
// action is not cut short when they change), its failure ignored.
func (d *desm) run(a desmAction) *elem {
	act := mk("action", a.e.pos, "name", a.name, "doNotFail", "true")
	act.children = append(act.children, a.params...)
	if len(a.guards) == 0 {
		return d.native.origin(act, a.e)
	}
	seq := mk("sequence", a.e.pos, "doNotFail", "true")
	seq.children = append(seq.children, a.params...)
	seq.children = append(seq.children, a.guards...)
	seq.children = append(seq.children, d.native.origin(act, a.e))
	return seq
}

// test is a <success> holding conditions and parameters: it succeeds when
// they hold.
func test(pos Pos, guards, params []*elem) *elem {
	r := mk("success", pos)
	r.children = append(r.children, params...)
	r.children = append(r.children, guards...)
	return r
}

// sequence of rules, or nil when there are none.
func sequenceOf(pos Pos, rules []*elem) *elem {
	if len(rules) == 0 {
		return nil
	}
	if len(rules) == 1 {
		return rules[0]
	}
	s := mk("sequence", pos)
	s.children = rules
	return s
}

// build adds the machine states of state s: its enter actions, its rest
// and its transitions.
func (d *desm) build(s *desmState) {
	d.buildEnter(s)
	// Rest: a signal transition per event, to its first transition's part.
	var sig []string
	var parts []func()
	seen := map[string]int{}
	for i := range s.trans {
		tr := &s.trans[i]
		if tr.event == "" {
			continue
		}
		seen[tr.event]++
		n := seen[tr.event]
		if n == 1 {
			sig = append(sig, tr.event, d.transStart(s, i))
		}
		parts = append(parts, func() { d.buildTrans(s, i, n) })
	}
	d.addState(s.e, s.id, d.native.origin(mk("running", s.e.pos), s.e), "", sig...)
	rest := d.machine.children[len(d.machine.children)-1]
	rest.children = append(s.comments, rest.children...)
	for _, p := range parts {
		p()
	}
}

// buildEnter adds the states running s's enter actions, in pieces: a run
// of actions up to one that switches state, and for a switch with
// conditions a test of them.
func (d *desm) buildEnter(s *desmState) {
	n := len(s.enter)
	// start names the piece that begins at enter action k.
	start := func(k int) string {
		if k >= n {
			return s.id
		}
		if a := s.enter[k]; a.to != "" && len(a.guards) > 0 {
			return switchIf(s, k)
		}
		return enterName(s, k)
	}
	for k := 0; k < n; {
		a := s.enter[k]
		if a.to != "" && len(a.guards) > 0 {
			to, ok := d.entryOf(a.e.pos, "<enterAction state=...>", a.to)
			if !ok {
				to = s.id
			}
			d.addState(a.e, switchIf(s, k), test(a.e.pos, a.guards, a.params), "")
			st := d.machine.children[len(d.machine.children)-1]
			st.children = append([]*elem{
				mk("transition", a.e.pos, "result", "success", "to", switchName(s, k)),
				mk("transition", a.e.pos, "result", "failure", "to", start(k+1)),
			}, st.children...)
			plain := a
			plain.guards = nil
			d.addState(a.e, switchName(s, k), d.run(plain), to)
			k++
			continue
		}
		var rules []*elem
		next := s.id
		j := k
		for ; j < n; j++ {
			b := s.enter[j]
			if b.to != "" && len(b.guards) > 0 {
				next = start(j)
				break
			}
			rules = append(rules, d.run(b))
			if b.to != "" { // switches always: the rest is never run
				if to, ok := d.entryOf(b.e.pos, "<enterAction state=...>", b.to); ok {
					next = to
				}
				j = n
				break
			}
		}
		d.addState(a.e, enterName(s, k), sequenceOf(a.e.pos, rules), next)
		k = j
	}
}

// transStart is the machine state where transition i of s begins: its
// test, its actions, or the target's entry.
func (d *desm) transStart(s *desmState, i int) string {
	tr := &s.trans[i]
	n := 0
	for k := 0; k <= i; k++ {
		if s.trans[k].event == tr.event {
			n++
		}
	}
	switch {
	case len(tr.guards) > 0:
		return transIf(s, tr.event, n)
	case len(tr.actions) > 0 || tr.to != "" && len(s.exit) > 0:
		return transName(s, tr.event, n)
	case tr.to == "":
		return s.id
	}
	if to, ok := d.byID[tr.to]; ok {
		return d.entry(to)
	}
	return s.id // reported by buildTrans
}

// buildTrans adds the states of transition i of s, the n-th on its event.
func (d *desm) buildTrans(s *desmState, i, n int) {
	tr := &s.trans[i]
	target := s.id
	if tr.to != "" {
		if to, ok := d.entryOf(tr.e.pos, "<transition state=...>", tr.to); ok {
			target = to
		}
	}
	// the next transition on the same event, for when the test fails
	next := s.id
	for k := i + 1; k < len(s.trans); k++ {
		if s.trans[k].event == tr.event {
			next = d.transStart(s, k)
			break
		}
	}
	var rules []*elem
	if tr.to != "" {
		for _, x := range s.exit {
			rules = append(rules, d.run(x))
		}
	}
	for _, a := range tr.actions {
		rules = append(rules, d.run(a))
	}
	body := transName(s, tr.event, n)
	if len(rules) == 0 {
		body = target
	}
	if len(tr.guards) > 0 {
		d.addState(tr.e, transIf(s, tr.event, n), test(tr.e.pos, tr.guards, tr.params), "")
		st := d.machine.children[len(d.machine.children)-1]
		st.children = append([]*elem{
			mk("transition", tr.e.pos, "result", "success", "to", body),
			mk("transition", tr.e.pos, "result", "failure", "to", next),
		}, st.children...)
	}
	if len(rules) > 0 {
		d.addState(tr.e, body, sequenceOf(tr.e.pos, rules), target)
	}
}
