package runtime

import (
	"errors"
	"fmt"
	"unsafe"
)

// Go actions, conditions and scorers with typed parameters (P, a struct
// read by DeclareParams) and, for actions, typed per-rule state (S, see
// typed_state.go). Use struct{} for P or S when there are none:
//
//	type walkParams struct {
//		Speed float64 `param:"walk.speed" default:"1" doc:"metres per second"`
//	}
//	type walkState struct{ Walked float64 }
//
//	err := runtime.TypedAction[walkParams, walkState]{
//		Name: "walk",
//		Run: func(a *runtime.Agent, p *walkParams, s *walkState) (runtime.Status, error) {
//			s.Walked += p.Speed * a.Dt()
//			return runtime.Running, nil
//		},
//	}.Register(reg)
//
// What they declare is what binding checks, what `btrun validate -v`
// lists and what its unread-parameter warning knows (ActionDef.Params).

// TypedAction is a Go action whose rules' parameters are parsed into a P
// when the tree is bound, and whose per-rule state S the runtime keeps and
// saves. Run is required; Start and Cancel are optional, as in Lifecycle.
// The functions are shared by every agent and rule (and, with workers,
// called from several goroutines at once): per-agent data belongs in the
// state, the agent (Agent.Data) or the game, never in a closure's variables.
type TypedAction[P, S any] struct {
	Name string
	Doc  string // what it does, for `btrun validate -v` and generated references
	// Instant says it never returns Running: its rules need no id to be saved.
	Instant bool

	Start  func(a *Agent, p *P, s *S) error
	Run    func(a *Agent, p *P, s *S) (Status, error)
	Cancel func(a *Agent, p *P, s *S) error

	// Check, when set, is called once per rule at bind time with the
	// rule's parsed parameters, to refuse values no type can express (a
	// speed above the game's limit, two parameters that contradict each
	// other). Its error is a bind error at the rule's position.
	Check func(p *P) error

	// On holds the action's signal handlers, by signal name: while the
	// action runs at a rule (it returned Running), a signal the agent
	// receives calls its handler with the rule's parameters and state
	// (changes to the state are kept) and the signal's data. Success or
	// Failure finishes the action: that is its result the next time the
	// step reaches the rule, without calling Run; Running lets it go on.
	// See SignalHandler for when handlers are called. An action without
	// handlers costs nothing more.
	On map[string]func(a *Agent, p *P, s *S, data Value) (Status, error)
}

// Def makes the action's definition: its declarations are read here, so a
// struct that cannot declare parameters or state is an error (ErrParamDecl)
// before any tree is bound.
func (x TypedAction[P, S]) Def() (ActionDef, error) {
	if x.Run == nil {
		return ActionDef{}, fmt.Errorf("%w: action %q has no Run function", ErrParamDecl, x.Name)
	}
	params, perr := DeclareParams[P]()
	codec, serr := declareState[S]()
	if err := errors.Join(perr, serr); err != nil {
		return ActionDef{}, fmt.Errorf("action %q: %w", x.Name, err)
	}
	on, handles, err := typedHandlers(x.Name, x.On)
	if err != nil {
		return ActionDef{}, err
	}
	return ActionDef{Name: x.Name, Origin: Origin{Kind: "go"}, Doc: x.Doc, Params: params.Specs(), Instant: x.Instant, Handles: handles,
		Bind: func(s *Site) (Action, error) {
			p, err := params.Parse(s, x.Name)
			if err != nil {
				return nil, err
			}
			if err := checkParams(s, "action", x.Name, x.Check, p); err != nil {
				return nil, err
			}
			b := &typedAction[P, S]{x: &x, p: p, codec: codec}
			if on != nil {
				return &typedHandled[P, S]{typedAction: b, signals: handles, on: on}, nil
			}
			return b, nil
		}}, nil
}

// checkParams calls a typed rule's Check, if it has one, with the rule's
// parameters p; its error becomes a bind error at the site.
func checkParams[P any](s *Site, kind, name string, check func(*P) error, p *P) error {
	if check == nil {
		return nil
	}
	if err := check(p); err != nil {
		return &Error{Pos: s.Pos, Label: s.Label(), Msg: fmt.Sprintf("%s %q: parameters refused: %v", kind, name, err),
			Err: fmt.Errorf("%w: %w", ErrUnbound, err)}
	}
	return nil
}

// Register adds the action to r (Def, then Registry.AddAction).
func (x TypedAction[P, S]) Register(r *Registry) error {
	d, err := x.Def()
	if err != nil {
		return err
	}
	return r.AddAction(d)
}

// typedAction is a TypedAction bound to one rule: its parsed parameters.
type typedAction[P, S any] struct {
	x     *TypedAction[P, S]
	p     *P
	codec *stateCodec // nil: S has no fields
	none  S           // the state handed out when S has no fields (it holds nothing)
}

// state decodes the agent's state for the rule into the Env's scratch.
func (b *typedAction[P, S]) state(a *Agent) (*S, *typedScratch, error) {
	if b.codec == nil {
		return &b.none, nil, nil
	}
	sc := a.env.typedScratch(b.codec.slot)
	s, _ := sc.val.(*S)
	if s == nil {
		s = new(S)
		sc.val = s
	}
	if err := b.codec.decode(a.RuleBytes(), unsafe.Pointer(s)); err != nil {
		return nil, nil, fmt.Errorf("action %q: %w", b.x.Name, err)
	}
	return s, sc, nil
}

// keep encodes the state back into the rule's state bytes.
func (b *typedAction[P, S]) keep(a *Agent, s *S, sc *typedScratch) {
	if sc == nil {
		return
	}
	sc.buf = b.codec.encode(sc.buf[:0], unsafe.Pointer(s))
	a.SetRuleBytes(sc.buf)
}

func (b *typedAction[P, S]) Run(a *Agent, _ Params) (Status, error) {
	s, sc, err := b.state(a)
	if err != nil {
		return 0, err
	}
	st, err := b.x.Run(a, b.p, s)
	b.keep(a, s, sc)
	return st, err
}

func (b *typedAction[P, S]) Start(a *Agent, _ Params) error {
	if b.x.Start == nil {
		return nil
	}
	s, sc, err := b.state(a)
	if err != nil {
		return err
	}
	err = b.x.Start(a, b.p, s)
	b.keep(a, s, sc)
	return err
}

func (b *typedAction[P, S]) Cancel(a *Agent, _ Params) error {
	if b.x.Cancel == nil {
		return nil
	}
	s, _, err := b.state(a)
	if err != nil {
		return err
	}
	return b.x.Cancel(a, b.p, s) // the rule is left: its state is not kept
}

// TypedCondition is a Go condition whose rules' parameters are parsed into
// a P when the tree is bound (the rule's parameters: a condition shares
// them with the rule's action and other conditions). Test is shared as
// TypedAction's functions are.
type TypedCondition[P any] struct {
	Name string
	Doc  string
	Test func(a *Agent, p *P) (bool, error)
	// Check, when set, checks each rule's parameters at bind, as
	// TypedAction.Check does.
	Check func(p *P) error
}

// Def makes the condition's definition (see TypedAction.Def).
func (x TypedCondition[P]) Def() (ConditionDef, error) {
	specs, bind, err := bindParams("condition", x.Name, "Test", x.Test == nil, x.Check,
		func(p *P) Condition { return typedCondition[P]{test: x.Test, p: p} })
	if err != nil {
		return ConditionDef{}, err
	}
	return ConditionDef{Name: x.Name, Origin: Origin{Kind: "go"}, Doc: x.Doc, Params: specs, Bind: bind}, nil
}

// Register adds the condition to r.
func (x TypedCondition[P]) Register(r *Registry) error {
	d, err := x.Def()
	if err != nil {
		return err
	}
	return r.AddCondition(d)
}

type typedCondition[P any] struct {
	test func(a *Agent, p *P) (bool, error)
	p    *P
}

func (c typedCondition[P]) Test(a *Agent, _ Params) (bool, error) { return c.test(a, c.p) }

// TypedScorer is a Go scorer whose scored child's parameters are parsed
// into a P when the tree is bound.
type TypedScorer[P any] struct {
	Name  string
	Score func(a *Agent, p *P) (float64, error)
}

// Def makes the scorer's definition (see TypedAction.Def).
func (x TypedScorer[P]) Def() (ScorerDef, error) {
	_, bind, err := bindParams("scorer", x.Name, "Score", x.Score == nil, nil,
		func(p *P) Scorer { return typedScorer[P]{score: x.Score, p: p} })
	if err != nil {
		return ScorerDef{}, err
	}
	return ScorerDef{Name: x.Name, Origin: Origin{Kind: "go"}, Bind: bind}, nil
}

// Register adds the scorer to r.
func (x TypedScorer[P]) Register(r *Registry) error {
	d, err := x.Def()
	if err != nil {
		return err
	}
	return r.AddScorer(d)
}

type typedScorer[P any] struct {
	score func(a *Agent, p *P) (float64, error)
	p     *P
}

func (c typedScorer[P]) Score(a *Agent, _ Params) (float64, error) { return c.score(a, c.p) }

// bindParams declares the parameters P of a typed condition or scorer
// named name, and makes its Bind: the rule's parameters parsed, checked
// (check may be nil), then made into the bound value. missing reports that
// the function fn is nil.
func bindParams[P, T any](kind, name, fn string, missing bool, check func(*P) error, make func(p *P) T) ([]ParamSpec, func(*Site) (T, error), error) {
	if missing {
		return nil, nil, fmt.Errorf("%w: %s %q has no %s function", ErrParamDecl, kind, name, fn)
	}
	params, err := DeclareParams[P]()
	if err != nil {
		return nil, nil, fmt.Errorf("%s %q: %w", kind, name, err)
	}
	return params.Specs(), func(s *Site) (T, error) {
		p, err := params.Parse(s, name)
		if err == nil {
			err = checkParams(s, kind, name, check, p)
		}
		if err != nil {
			var zero T
			return zero, err
		}
		return make(p), nil
	}, nil
}

// TypedHook is a Go enter or exit hook whose rule's parameters are parsed
// into a P when the tree is bound (hooks.go). how is "enter", or how the
// rule was left.
type TypedHook[P any] struct {
	Name string
	Doc  string
	Call func(a *Agent, p *P, how string) error
}

// Def makes the hook's definition (see TypedAction.Def).
func (x TypedHook[P]) Def() (HookDef, error) {
	specs, bind, err := bindParams("hook", x.Name, "Call", x.Call == nil, nil,
		func(p *P) Hook { return typedHook[P]{call: x.Call, p: p} })
	if err != nil {
		return HookDef{}, err
	}
	return HookDef{Name: x.Name, Origin: Origin{Kind: "go"}, Bind: bind, Doc: x.Doc, Params: specs}, nil
}

// Register adds the hook to r.
func (x TypedHook[P]) Register(r *Registry) error {
	d, err := x.Def()
	if err != nil {
		return err
	}
	return r.AddHook(d)
}

type typedHook[P any] struct {
	call func(a *Agent, p *P, how string) error
	p    *P
}

func (h typedHook[P]) Call(a *Agent, _ Params, how string) error { return h.call(a, h.p, how) }
