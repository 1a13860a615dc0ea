package runtime

import (
	"errors"
	"fmt"
	"sort"
)

// Rules of your own: a Go program registers a composite or a decorator (a
// rule with exactly one child) under a tag of its choosing, as
// Lumberyard's and BehaviorTree.CPP's programmers write node classes. The
// rule decides which of its children runs: it is entered (Enter) and
// answers the child to run first or its own result at once; it is told
// each child's result (ChildDone) and answers the next child or its own
// result; it is told when it is left (Exit), whichever way. It runs one
// child at a time, as a sequence does: running children side by side is a
// parallel's, and a custom rule may sit in a parallel's lane or hold one.
//
// Everything the format gives a rule applies to it unchanged, because the
// runtime steps it as it steps a sequence, through the same places
// (active.go): conditions and conditionMode (tested when it is entered),
// abort, timeout, cooldown, gate, attempts, enter and exit hooks,
// doNotFail, log parameters, jumps into and out of its children, saves,
// hot reload, workers. A tree without custom rules pays nothing for them:
// the loop reaches a custom rule through its own bound kind (kindCustom),
// as it reaches an ordered choice.
//
// Per-agent state: a custom rule keeps its state in bytes the runtime holds
// for it per agent (Agent.CustomBytes), from one activation to the next
// (as Lumberyard's RuntimeData: the child chosen last time, a score held
// on to), saved and restored with the agent, carried by a hot reload while
// the rule is still there. TypedRule keeps a typed struct there for it, as
// TypedAction keeps an action's.

// Next is what a custom rule answers when it is entered or told a child's
// result: the child to run next (RunChild) or its own result (Finish). The
// zero Next runs the first child.
type Next struct {
	child  int32 // >= 0: the child's position; -1: finish with result
	result Status
}

// RunChild is the answer that runs the rule's i-th child (from 0, in
// document order). A position the rule does not have is an error of the
// step.
func RunChild(i int) Next {
	if i < 0 || i > maxRules {
		i = maxRules // out of range for every rule: the step reports it
	}
	return Next{child: int32(i)}
}

// Finish is the answer that finishes the rule with st: Success or Failure
// (anything else is an error of the step).
func Finish(st Status) Next { return Next{child: -1, result: st} }

// Child reports the child the answer runs, if it runs one.
func (n Next) Child() (int, bool) { return int(n.child), n.child >= 0 }

// Result is the rule's result when the answer finishes it (0 otherwise).
func (n Next) Result() Status { return n.result }

func (n Next) String() string {
	if n.child >= 0 {
		return fmt.Sprintf("child %d", n.child)
	}
	return n.result.String()
}

// CustomRule is a registered rule bound to one rule of a tree (RuleDef.Bind
// makes one per rule): shared by every agent that runs the tree, and, with
// workers, called from several goroutines at once, so that per-agent data
// belongs in the rule's state bytes (Agent.CustomBytes of Site.Rule), never
// in the value.
//
// Enter is called when the rule is entered: it was let in and its
// conditions passed (its enter hook has run). ChildDone is called when the
// child at position child finished with res (after the child's doNotFail),
// including a child a jump landed in while the rule was not entered. Exit is called when the rule is left, after the
// rules below it: how is "success" or "failure" when it finished, else
// "abort", "timeout", "preempt", "jump", "cancel", "reset" or "remove", as
// an exit hook's; its error goes to the agent's log. None of them may
// pause (ErrPending is an error of the step) or jump from Exit.
type CustomRule interface {
	Enter(a *Agent) (Next, error)
	ChildDone(a *Agent, child int, res Status) (Next, error)
	Exit(a *Agent, how string) error
}

// CustomSignals is implemented by custom rules that react to signals while
// one of their children runs: HandledSignals is read once at bind;
// HandleSignal is called when the agent receives one of them while the
// rule is active (an ancestor of the agent's cursor, or of a running
// lane's), with the running child's position. It changes the rule's state (which ChildDone reads
// next) or the agent's variables, which the tree may watch with abort; it
// cannot move the cursor. An error is an error of the agent, as a running
// action's handler's.
type CustomSignals interface {
	HandledSignals() []string
	HandleSignal(a *Agent, signal string, data Value, child int) error
}

// RuleDecl is what the format knows of a registered rule: its tag, how
// many children it takes, its parameters. The loader takes these
// (LoadOptions.Rules), and the format's description lists them
// (formatspec.TagsFor).
type RuleDecl struct {
	Tag string // the element's name: letters, digits, '_' and '-', not a tag of the format
	Doc string // what it does, for the reference and the editor
	// Decorator: the rule has exactly one child. Else it is a composite
	// with at least MinChildren (at least 1) and at most MaxChildren (0:
	// no limit).
	Decorator                bool
	MinChildren, MaxChildren int
	Params                   []ParamSpec // its <parameter>s, as for actions; nil: not declared
	Origin                   Origin
}

// kids are the least and most children the rule takes (most 0: no limit).
func (d *RuleDecl) kids() (least, most int) {
	if d.Decorator {
		return 1, 1
	}
	return max(d.MinChildren, 1), d.MaxChildren
}

// RuleDef is a registered rule: its declaration and how to bind it to a
// rule of a tree.
type RuleDef struct {
	RuleDecl
	Bind func(s *Site) (CustomRule, error)
}

// ErrRuleDecl is the error of a rule that cannot be registered: a tag the
// format has, a bad tag, inconsistent child counts, no Bind.
var ErrRuleDecl = errors.New("runtime: bad custom rule declaration")

// AddRule registers a custom rule. A tag registered twice is an error
// naming both origins; a tag of the format, or one that is not a name, an
// error of its own.
func (r *Registry) AddRule(d RuleDef) error {
	if err := d.check(); err != nil {
		return err
	}
	if old, ok := r.rules[d.Tag]; ok {
		return fmt.Errorf("%w: rule <%s> from %s is already registered from %s", ErrDuplicate, d.Tag, d.Origin, old.Origin)
	}
	if r.rules == nil {
		r.rules = map[string]*RuleDef{}
	}
	r.rules[d.Tag] = &d
	return nil
}

// check refuses what a custom rule may not be.
func (d *RuleDef) check() error {
	switch {
	case !isTagName(d.Tag):
		return fmt.Errorf("%w: tag %q is not an element name (a letter, then letters, digits, '_' or '-')", ErrRuleDecl, d.Tag)
	case knownTags[d.Tag]:
		return fmt.Errorf("%w: <%s> is a tag of the format; a custom rule takes a tag of its own", ErrRuleDecl, d.Tag)
	case d.Bind == nil:
		return fmt.Errorf("%w: rule <%s> has no Bind", ErrRuleDecl, d.Tag)
	case d.MinChildren < 0 || d.MaxChildren < 0:
		return fmt.Errorf("%w: rule <%s> has a negative child count", ErrRuleDecl, d.Tag)
	case d.Decorator && (d.MinChildren > 1 || d.MaxChildren > 1):
		return fmt.Errorf("%w: rule <%s> is a decorator, which has exactly one child, and asks for %d to %d", ErrRuleDecl, d.Tag, d.MinChildren, d.MaxChildren)
	case d.MaxChildren > 0 && d.MaxChildren < max(d.MinChildren, 1):
		return fmt.Errorf("%w: rule <%s> takes at most %d children and at least %d", ErrRuleDecl, d.Tag, d.MaxChildren, max(d.MinChildren, 1))
	}
	return nil
}

// isTagName reports whether s is a plain XML element name without a
// namespace prefix.
func isTagName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// LookupRule returns the definition of a registered rule.
func (r *Registry) LookupRule(tag string) (*RuleDef, bool) {
	d, ok := r.rules[tag]
	return d, ok
}

// Rules lists the registered rules sorted by tag.
func (r *Registry) Rules() []RuleDef {
	out := make([]RuleDef, 0, len(r.rules))
	for _, d := range r.rules {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out
}

// RuleDecls are the declarations of the registered rules, sorted by tag:
// what LoadOptions.Rules takes.
func (r *Registry) RuleDecls() []RuleDecl {
	var out []RuleDecl
	for _, d := range r.Rules() {
		out = append(out, d.RuleDecl)
	}
	return out
}

// Children is the number of children of the rule being bound.
func (s *Site) Children() int {
	n := 0
	for c := s.Tree.Rules[s.Rule].FirstChild; c >= 0; c = s.Tree.Rules[c].Next {
		n++
	}
	return n
}
