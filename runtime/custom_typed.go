package runtime

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"
)

// TypedRule is a custom composite or decorator (custom.go) whose rules'
// parameters are parsed into a P when the tree is bound (as TypedAction's:
// `param:"NAME"` fields, checked at bind), and whose per-agent state S the
// runtime keeps, saves and carries (as TypedAction's state: exported
// numbers, integers, durations, bools and strings). Use struct{} for P or S
// when there are none. n is the rule's number of children, child a
// child's position (0 to n-1).
//
//	type noRepeatState struct{ Last int }
//	err := runtime.TypedRule[struct{}, noRepeatState]{
//		Tag: "noRepeat",
//		Enter: func(a *runtime.Agent, _ *struct{}, s *noRepeatState, n int) (runtime.Next, error) {
//			return runtime.RunChild(pick(a, n, s.Last)), nil
//		},
//		ChildDone: func(a *runtime.Agent, _ *struct{}, s *noRepeatState, n, child int, res runtime.Status) (runtime.Next, error) {
//			return runtime.Finish(res), nil
//		},
//	}.Register(reg)
//
// The state starts at S's zero value and stays with the agent from one
// activation of the rule to the next (Enter resets what it must): the
// child chosen last time, a score held on to. The functions are shared as
// TypedAction's are.
type TypedRule[P, S any] struct {
	Tag string
	Doc string
	// Decorator, MinChildren, MaxChildren: as RuleDecl's.
	Decorator                bool
	MinChildren, MaxChildren int

	Enter     func(a *Agent, p *P, s *S, n int) (Next, error)
	ChildDone func(a *Agent, p *P, s *S, n, child int, res Status) (Next, error)
	// Exit is optional.
	Exit func(a *Agent, p *P, s *S, how string) error

	// Signals and Signal are optional (CustomSignals): Signal is called for
	// each of Signals the agent receives while the rule is active.
	Signals []string
	Signal  func(a *Agent, p *P, s *S, signal string, data Value, child int) error
}

// Def makes the rule's definition: its declarations are read here, so a
// struct that cannot declare parameters or state is an error before any
// tree is bound.
func (x TypedRule[P, S]) Def() (RuleDef, error) {
	if x.Enter == nil || x.ChildDone == nil {
		return RuleDef{}, fmt.Errorf("%w: rule <%s> needs both Enter and ChildDone", ErrRuleDecl, x.Tag)
	}
	if (len(x.Signals) > 0) != (x.Signal != nil) {
		return RuleDef{}, fmt.Errorf("%w: rule <%s> needs both Signals and Signal, or neither", ErrRuleDecl, x.Tag)
	}
	params, perr := DeclareParams[P]()
	codec, serr := declareState[S]()
	if err := errors.Join(perr, serr); err != nil {
		return RuleDef{}, fmt.Errorf("rule <%s>: %w", x.Tag, err)
	}
	d := RuleDef{RuleDecl: RuleDecl{Tag: x.Tag, Doc: x.Doc, Decorator: x.Decorator, MinChildren: x.MinChildren, MaxChildren: x.MaxChildren,
		Params: params.Specs(), Origin: Origin{Kind: "go"}}}
	d.Bind = func(s *Site) (CustomRule, error) {
		p, err := params.Parse(s, "<"+x.Tag+">")
		if err != nil {
			return nil, err
		}
		b := &typedRule[P, S]{x: &x, p: p, codec: codec, rule: s.Rule, n: s.Children()}
		if x.Signal != nil {
			return typedSignalRule[P, S]{b}, nil
		}
		return b, nil
	}
	return d, d.check()
}

// Register adds the rule to r (Def, then Registry.AddRule).
func (x TypedRule[P, S]) Register(r *Registry) error {
	d, err := x.Def()
	if err != nil {
		return err
	}
	return r.AddRule(d)
}

// typedRule is a TypedRule bound to one rule: its parsed parameters, its
// index, its number of children.
type typedRule[P, S any] struct {
	x     *TypedRule[P, S]
	p     *P
	codec *stateCodec // nil: S has no fields
	none  S
	rule  int32
	n     int
}

// state decodes the agent's state for the rule into the Env's scratch.
func (b *typedRule[P, S]) state(a *Agent) (*S, *typedScratch, error) {
	if b.codec == nil {
		return &b.none, nil, nil
	}
	sc := a.env.typedScratch(b.codec.slot)
	s, _ := sc.val.(*S)
	if s == nil {
		s = new(S)
		sc.val = s
	}
	if err := b.codec.decode(a.CustomBytes(b.rule), unsafe.Pointer(s)); err != nil {
		return nil, nil, err
	}
	return s, sc, nil
}

// keep encodes the state back into the rule's bytes.
func (b *typedRule[P, S]) keep(a *Agent, s *S, sc *typedScratch) {
	if sc == nil {
		return
	}
	sc.buf = b.codec.encode(sc.buf[:0], unsafe.Pointer(s))
	a.SetCustomBytes(b.rule, sc.buf)
}

func (b *typedRule[P, S]) Enter(a *Agent) (Next, error) {
	s, sc, err := b.state(a)
	if err != nil {
		return Next{}, err
	}
	n, err := b.x.Enter(a, b.p, s, b.n)
	b.keep(a, s, sc)
	return n, err
}

func (b *typedRule[P, S]) ChildDone(a *Agent, child int, res Status) (Next, error) {
	s, sc, err := b.state(a)
	if err != nil {
		return Next{}, err
	}
	n, err := b.x.ChildDone(a, b.p, s, b.n, child, res)
	b.keep(a, s, sc)
	return n, err
}

func (b *typedRule[P, S]) Exit(a *Agent, how string) error {
	if b.x.Exit == nil {
		return nil
	}
	s, sc, err := b.state(a)
	if err != nil {
		return err
	}
	err = b.x.Exit(a, b.p, s, how)
	b.keep(a, s, sc)
	return err
}

// typedSignalRule is a typedRule with signal handlers.
type typedSignalRule[P, S any] struct{ *typedRule[P, S] }

func (b typedSignalRule[P, S]) HandledSignals() []string { return slices.Clone(b.x.Signals) }

func (b typedSignalRule[P, S]) HandleSignal(a *Agent, signal string, data Value, child int) error {
	s, sc, err := b.state(a)
	if err != nil {
		return err
	}
	err = b.x.Signal(a, b.p, s, signal, data, child)
	b.keep(a, s, sc)
	return err
}
