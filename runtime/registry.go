package runtime

import (
	"fmt"
	"sort"
)

// Action is what an action rule calls. Run returns the rule's result:
// Success, Failure or Running. Returning ErrPending pauses the agent's step
// until Agent.CompleteAction delivers the answer (plugin calls do this so
// that the calls of many agents travel as one batch). Any other error ends
// the step with an error.
//
// An Action is shared by every agent and rule it is bound to: per-agent
// state belongs in the agent (Agent.RuleValue, Agent.RuleBytes,
// Agent.UserData), never in the Action value.
type Action interface {
	Run(a *Agent, p Params) (Status, error)
}

// Starter is implemented by actions that want a call before the first Run
// each time the cursor arrives at their rule.
type Starter interface {
	Start(a *Agent, p Params) error
}

// Canceler is implemented by actions that want to clean up when a run is
// interrupted: the rule last returned Running and is left without finishing
// (a jump from outside, a reset, its conditions failing, a restore, the agent
// being closed). Cancel is never called for an action that finished.
type Canceler interface {
	Cancel(a *Agent, p Params) error
}

// Condition is what a <condition> calls. Returning ErrPending pauses the step
// until Agent.CompleteCondition delivers the answer.
type Condition interface {
	Test(a *Agent, p Params) (bool, error)
}

// Scorer is what a score choice calls for a child whose choice.score names
// it (Spore's Decide returning a float; utility AI): a number for the agent,
// the higher the earlier the child is tried, not tried at all when <= 0. p
// are the scored child's parameters. Returning ErrPending pauses the step
// until Agent.CompleteScore delivers the answer. A score that is not a
// finite number is an error of the step.
type Scorer interface {
	Score(a *Agent, p Params) (float64, error)
}

// ScorerFunc adapts a function to Scorer.
type ScorerFunc func(a *Agent, p Params) (float64, error)

func (f ScorerFunc) Score(a *Agent, p Params) (float64, error) { return f(a, p) }

// ActionFunc adapts a function to Action.
type ActionFunc func(a *Agent, p Params) (Status, error)

func (f ActionFunc) Run(a *Agent, p Params) (Status, error) { return f(a, p) }

// ConditionFunc adapts a function to Condition.
type ConditionFunc func(a *Agent, p Params) (bool, error)

func (f ConditionFunc) Test(a *Agent, p Params) (bool, error) { return f(a, p) }

// Lifecycle builds an action from separate start, run and cancel functions;
// Start and Cancel may be nil.
type Lifecycle struct {
	OnStart  func(a *Agent, p Params) error
	OnRun    func(a *Agent, p Params) (Status, error)
	OnCancel func(a *Agent, p Params) error
}

func (l *Lifecycle) Run(a *Agent, p Params) (Status, error) { return l.OnRun(a, p) }

func (l *Lifecycle) Start(a *Agent, p Params) error {
	if l.OnStart == nil {
		return nil
	}
	return l.OnStart(a, p)
}

func (l *Lifecycle) Cancel(a *Agent, p Params) error {
	if l.OnCancel == nil {
		return nil
	}
	return l.OnCancel(a, p)
}

// Origin says where a registered name comes from, for error messages and
// `btrun validate`: "builtin", "go", "lua scripts/ai/wander.lua:12",
// "plugin nav".
type Origin struct {
	Kind  string // builtin, go, lua, plugin, ...
	Where string // file:line, plugin name, or ""
}

func (o Origin) String() string {
	if o.Where == "" {
		return o.Kind
	}
	return o.Kind + " " + o.Where
}

var originBuiltin = Origin{Kind: "builtin"}

// Site describes one rule being bound, so that an action or condition can
// specialise itself for it: parse its parameters once, resolve names to
// slots, and report problems with the rule's position.
type Site struct {
	Tree   *Tree
	Rule   int32
	Name   string // the action or condition name being bound
	Params Params
	Pos    Pos // the rule's position, or the condition's
	bound  *BoundTree
}

// Label is the label of the rule being bound.
func (s *Site) Label() string { return s.Tree.Rules[s.Rule].Label }

// Errorf makes a bind error at the site.
func (s *Site) Errorf(format string, args ...any) error {
	return &Error{Pos: s.Pos, Label: s.Label(), Msg: fmt.Sprintf(format, args...), Err: ErrUnbound}
}

// SignalSlot returns the slot of a signal name, adding one for a name no
// declaration mentions (so that bt.signal.wait can observe it).
func (s *Site) SignalSlot(name string) int32 { return s.bound.signalSlot(name) }

// ActionDef is a registered action. Exactly one of Action and Bind is set:
// Bind makes a specialised Action for each rule that names it.
type ActionDef struct {
	Name   string
	Origin Origin
	Action Action
	Bind   func(s *Site) (Action, error)

	// What the action declares about itself, for the reference
	// documentation and `btrun validate` (reference.go). Doc says what it
	// does. Params lists the rule parameters it reads; nil means it does
	// not say (no parameter of its rules is then reported as unread), an
	// empty non-nil slice that it reads none. Instant says it never
	// returns Running (its rules need no id to be saved).
	Doc     string
	Params  []ParamSpec
	Instant bool
	// Handles lists the signals the action has handlers for (SignalHandler),
	// for `btrun validate`'s lint of handlers no tree's signal reaches.
	// AddAction fills it from an Action that is a SignalHandler.
	Handles []string
}

// ConditionDef is a registered condition; as ActionDef.
type ConditionDef struct {
	Name      string
	Origin    Origin
	Condition Condition
	Bind      func(s *Site) (Condition, error)

	Doc    string
	Params []ParamSpec // nil: not declared
}

// ScorerDef is a registered scorer; as ActionDef. Scorers have names of
// their own: a scorer and a condition may share a name.
type ScorerDef struct {
	Name   string
	Origin Origin
	Scorer Scorer
	Bind   func(s *Site) (Scorer, error)
}

// Registry maps names to actions, conditions and scorers. A registry is
// filled before binding and read by Bind; it is not safe for concurrent
// registration.
type Registry struct {
	actions    map[string]*ActionDef
	conditions map[string]*ConditionDef
	scorers    map[string]*ScorerDef
	hooks      map[string]*HookDef // enter and exit hooks (hooks.go)
	rules      map[string]*RuleDef // custom composites and decorators (custom.go)
}

// NewRegistry returns a registry holding the built-in actions (bt.*).
func NewRegistry() *Registry {
	r := &Registry{actions: map[string]*ActionDef{}, conditions: map[string]*ConditionDef{}, scorers: map[string]*ScorerDef{}, hooks: map[string]*HookDef{}}
	registerBuiltins(r)
	return r
}

// AddAction registers an action definition; a name registered twice is an
// error naming both origins.
func (r *Registry) AddAction(d ActionDef) error {
	if (d.Action == nil) == (d.Bind == nil) {
		return fmt.Errorf("%w: action %q needs exactly one of Action and Bind", ErrDuplicate, d.Name)
	}
	if old, ok := r.actions[d.Name]; ok {
		return fmt.Errorf("%w: action %q from %s is already registered from %s", ErrDuplicate, d.Name, d.Origin, old.Origin)
	}
	if h, ok := d.Action.(SignalHandler); ok && d.Handles == nil {
		d.Handles = h.HandledSignals()
	}
	r.actions[d.Name] = &d
	return nil
}

// AddCondition registers a condition definition; as AddAction.
func (r *Registry) AddCondition(d ConditionDef) error {
	if (d.Condition == nil) == (d.Bind == nil) {
		return fmt.Errorf("%w: condition %q needs exactly one of Condition and Bind", ErrDuplicate, d.Name)
	}
	if old, ok := r.conditions[d.Name]; ok {
		return fmt.Errorf("%w: condition %q from %s is already registered from %s", ErrDuplicate, d.Name, d.Origin, old.Origin)
	}
	r.conditions[d.Name] = &d
	return nil
}

// AddScorer registers a scorer definition; as AddAction.
func (r *Registry) AddScorer(d ScorerDef) error {
	if (d.Scorer == nil) == (d.Bind == nil) {
		return fmt.Errorf("%w: scorer %q needs exactly one of Scorer and Bind", ErrDuplicate, d.Name)
	}
	if old, ok := r.scorers[d.Name]; ok {
		return fmt.Errorf("%w: scorer %q from %s is already registered from %s", ErrDuplicate, d.Name, d.Origin, old.Origin)
	}
	r.scorers[d.Name] = &d
	return nil
}

// RegisterScorer registers a Go scorer under name with origin "go".
func (r *Registry) RegisterScorer(name string, s Scorer) error {
	return r.AddScorer(ScorerDef{Name: name, Origin: Origin{Kind: "go"}, Scorer: s})
}

// LookupScorer returns the definition of a registered scorer.
func (r *Registry) LookupScorer(name string) (*ScorerDef, bool) {
	d, ok := r.scorers[name]
	return d, ok
}

// Scorers lists the registered scorers sorted by name.
func (r *Registry) Scorers() []ScorerDef {
	out := make([]ScorerDef, 0, len(r.scorers))
	for _, d := range r.scorers {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RegisterAction registers a Go action under name with origin "go".
func (r *Registry) RegisterAction(name string, a Action) error {
	return r.AddAction(ActionDef{Name: name, Origin: Origin{Kind: "go"}, Action: a})
}

// RegisterCondition registers a Go condition under name with origin "go".
func (r *Registry) RegisterCondition(name string, c Condition) error {
	return r.AddCondition(ConditionDef{Name: name, Origin: Origin{Kind: "go"}, Condition: c})
}

// LookupAction returns the definition of a registered action.
func (r *Registry) LookupAction(name string) (*ActionDef, bool) {
	d, ok := r.actions[name]
	return d, ok
}

// LookupCondition returns the definition of a registered condition.
func (r *Registry) LookupCondition(name string) (*ConditionDef, bool) {
	d, ok := r.conditions[name]
	return d, ok
}

// Actions lists the registered actions sorted by name.
func (r *Registry) Actions() []ActionDef {
	out := make([]ActionDef, 0, len(r.actions))
	for _, d := range r.actions {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Conditions lists the registered conditions sorted by name.
func (r *Registry) Conditions() []ConditionDef {
	out := make([]ConditionDef, 0, len(r.conditions))
	for _, d := range r.conditions {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WrapActions replaces every registered action with wrap(def): a decorator
// hook for instrumentation such as timing. Call it after all registrations
// and before Bind. wrap must keep the name and set exactly one of Action and
// Bind.
func (r *Registry) WrapActions(wrap func(ActionDef) ActionDef) {
	for name, d := range r.actions {
		w := wrap(*d)
		w.Name = name
		r.actions[name] = &w
	}
}
