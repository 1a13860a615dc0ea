package runtime

import (
	"fmt"
	"strings"
)

// Loading <stateMachine> (machine.go):
//
//	<stateMachine id="mode" initial="Idle">
//	  <state name="Idle">
//	    <transition signal="OnEnemySeen" to="Combat"/>
//	    <transition result="success" to="Patrol"/>
//	    <sequence> ... </sequence>
//	  </state>
//	  ...
//	</stateMachine>
//
// A state holds exactly one rule and any number of transitions, each on
// exactly one of a signal the tree declares or the rule's result. The
// states' rules become the machine's children, in document order; the
// names become a Machine of the tree (Tree.Machines).

var (
	machineChildren  = join([]string{"state"}, ruleDetails)
	stateAttrs       = []string{"name"}
	stateChildren    = join([]string{"transition"}, ruleTags)
	transitionAttrs  = []string{"signal", "result", "to"}
	transitionResult = []string{"success", "failure"}
)

// machineNode is what a checked <stateMachine> has beyond a rule: its
// states, whose rules are its children in the same order, and its initial
// attribute ("": the first state). A pointer in node, so that other rules
// pay a word for it.
type machineNode struct {
	states  []stateLine
	initial string
	// every <state>, with a rule or not, for the checks of names
	all []stateLine
}

// stateLine is a checked <state>: its rule is the machine's child at the
// same index.
type stateLine struct {
	name  string
	pos   Pos
	trans []transLine
}

// transLine is a checked <transition>.
type transLine struct {
	signal string
	result Status // Success or Failure; 0 for a signal transition
	to     string
	pos    Pos
}

// state checks a <state> of machine n; its rule joins n's children. A
// state without a rule is reported and left out, so that states and
// children stay in step.
func (c *checker) state(n *node, e *elem) {
	v := c.attrs(e, stateAttrs)
	s := stateLine{name: c.nameAttr(e, v, 0, "the state's name, which transitions name in to="), pos: e.pos}
	c.noText(e, "<state> holds only transition tags, one rule and comments")
	var child *node
	for _, ch := range e.children {
		if ch.name == "transition" {
			s.trans = append(s.trans, c.transition(ch))
			continue
		}
		kind, ok := c.kindOf(ch.name)
		if !ok {
			c.notAllowed(ch, "state", c.custom.with(stateChildren))
			continue
		}
		r := c.ruleOf(ch, kind)
		c.abortNeedsChoice(r, func() string {
			return fmt.Sprintf("here its parent is <state> at %s, which runs one rule at a time", e.pos)
		})
		if child != nil {
			c.errorf(ch.pos, "second rule <%s> in <state name=%q> (the first is <%s> at %s); a state holds exactly one rule: put them in a <sequence>",
				ch.name, s.name, child.tag, child.pos)
			continue
		}
		child = r
	}
	n.machine.all = append(n.machine.all, s)
	if child == nil {
		c.errorf(e.pos, "<state name=%q> has no rule; a state holds exactly one rule, which runs while the machine is in that state", s.name)
		return
	}
	n.machine.states = append(n.machine.states, s)
	c.kids = append(c.kids, child)
}

// transition checks a <transition>.
func (c *checker) transition(e *elem) transLine {
	v := c.attrs(e, transitionAttrs)
	why := "<transition> takes only attributes"
	c.noChildren(e, why)
	c.noText(e, why)
	t := transLine{pos: e.pos}
	t.signal = c.optNameAttr(e, v, 0, "the name of a signal the tree declares")
	if v.has[1] {
		switch strings.Trim(v.val[1], xmlSpace) {
		case "success":
			t.result = Success
		case "failure":
			t.result = Failure
		default:
			c.errorf(e.pos, "result=%q on <transition> is not a result; expected one of %s", v.val[1], strings.Join(transitionResult, ", "))
		}
	}
	if v.has[0] == v.has[1] {
		c.errorf(e.pos, `<transition> needs exactly one of signal= (taken when the agent receives that signal) and result= (taken when the state's rule finishes with success or failure)`)
	}
	t.to = c.nameAttr(e, v, 2, "the name of a state of the same machine")
	return t
}

// checkMachine checks what a machine's states decide together: it has
// some, their names are unique, and initial= and every to= name one.
func (c *checker) checkMachine(n *node, e *elem) {
	all := n.machine.all
	if len(all) == 0 {
		c.errorf(e.pos, "<stateMachine> has no states; give it at least one <state name=\"...\"> holding a rule")
		return
	}
	var names []string
	first := make(map[string]Pos, len(all))
	for _, s := range all {
		if p, dup := first[s.name]; dup && s.name != "" {
			c.errorf(s.pos, "duplicate state name %q in <stateMachine> (the first is at %s); each state needs a name of its own", s.name, p)
			continue
		}
		first[s.name] = s.pos
		names = append(names, s.name)
	}
	unknown := func(pos Pos, attr, name string) {
		hint := "expected one of " + strings.Join(names, ", ")
		if s := suggest(name, names); s != "" {
			hint = fmt.Sprintf("did you mean %q? (%s)", s, hint)
		}
		c.errorf(pos, "%s=%q names no state of this <stateMachine> (at %s); %s", attr, name, e.pos, hint)
	}
	if _, ok := first[n.machine.initial]; n.machine.initial != "" && !ok {
		unknown(e.pos, "initial", n.machine.initial)
	}
	for _, s := range all {
		for _, t := range s.trans {
			if _, ok := first[t.to]; t.to != "" && !ok {
				unknown(t.pos, "to", t.to)
			}
		}
	}
}

// addMachine makes the Machine of stateMachine node n, built at idx with
// its states' rules at kids.
func (l *loader) addMachine(n *node, idx int32, kids []int32) {
	if len(kids) != len(n.machine.states) {
		return // building stopped at a limit, or a state was reported
	}
	m := Machine{Rule: idx, States: make([]MachineState, len(n.machine.states))}
	index := make(map[string]int32, len(n.machine.states))
	for k := len(n.machine.states) - 1; k >= 0; k-- { // the first of duplicate names wins (a duplicate is reported)
		index[n.machine.states[k].name] = int32(k)
	}
	if n.machine.initial != "" {
		m.Initial = index[n.machine.initial]
	}
	for k, s := range n.machine.states {
		ms := MachineState{Name: s.name, Pos: s.pos, Rule: kids[k], Transitions: make([]Transition, len(s.trans))}
		for j, t := range s.trans {
			ms.Transitions[j] = Transition{Signal: t.signal, Result: t.result, To: index[t.to], ToName: t.to, Pos: t.pos}
		}
		m.States[k] = ms
	}
	l.tree.Rules[idx].Machine = int32(len(l.tree.Machines))
	l.tree.Machines = append(l.tree.Machines, m)
}

// checkMachineSignals reports transitions on signals that no file of the
// tree declares (the declarations are complete only at the end).
func (l *loader) checkMachineSignals() {
	t := l.tree
	for _, m := range t.Machines {
		for _, s := range m.States {
			for _, tr := range s.Transitions {
				if tr.Signal == "" {
					continue
				}
				if _, ok := l.signalIdx[tr.Signal]; ok {
					continue
				}
				hint := fmt.Sprintf("declare it in one of the tree's files with <signals><signal name=%q/></signals>", tr.Signal)
				names := make([]string, len(t.Signals))
				for k, sg := range t.Signals {
					names[k] = sg.Name
				}
				if s := suggest(tr.Signal, names); s != "" {
					hint = fmt.Sprintf("did you mean %q? (or %s)", s, hint)
				}
				l.errorf(tr.Pos, "<transition signal=%q> in state %q: no signal %q is declared; %s", tr.Signal, s.Name, tr.Signal, hint)
			}
		}
	}
}
