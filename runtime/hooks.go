package runtime

import (
	"errors"
	"fmt"
	"sort"
)

// Enter and exit hooks: a rule with enter="NAME" calls that hook when it
// starts (it has been let in and its conditions passed at its entry: the
// moment log.start is written), and one with exit="NAME" calls it when a
// rule that started is left, with how it was left. Whether a rule started
// is a bit of agent state (its start bit, features.go), so that its exit
// runs exactly once for every start, after a save and restore too. A hook
// never pauses and never jumps.

// Hook is what a rule's enter or exit attribute names. how is "enter" for
// an enter hook; for an exit hook, how the rule was left: "success",
// "failure", "abort", "timeout", "preempt", "jump", "cancel" (its lane was
// cancelled), "reset" (an error, Agent.Reset, a restore over the agent, a
// hot reload that drops its place) or "remove" (Agent.Close). p are the
// rule's parameters. During the call Agent.Rule is the hooked rule.
type Hook interface {
	Call(a *Agent, p Params, how string) error
}

// HookFunc adapts a function to Hook.
type HookFunc func(a *Agent, p Params, how string) error

func (f HookFunc) Call(a *Agent, p Params, how string) error { return f(a, p, how) }

// HookDef is a registered hook; as ActionDef.
type HookDef struct {
	Name   string
	Origin Origin
	Hook   Hook
	Bind   func(s *Site) (Hook, error)

	Doc    string
	Params []ParamSpec // nil: not declared
}

// hookEnter is the how an enter hook is called with.
const hookEnter = "enter"

// leaveHowNames are the names of leaveHow values, as exit hooks see them.
var leaveHowNames = [...]string{
	leftSuccess: "success", leftFailure: "failure", leftAbort: "abort", leftTimeout: "timeout",
	leftPreempt: "preempt", leftJump: "jump", leftCancel: "cancel", leftReset: "reset", leftRemove: "remove",
}

func (h leaveHow) String() string { return leaveHowNames[h] }

// AddHook registers a hook definition; as AddAction.
func (r *Registry) AddHook(d HookDef) error {
	if (d.Hook == nil) == (d.Bind == nil) {
		return fmt.Errorf("%w: hook %q needs exactly one of Hook and Bind", ErrDuplicate, d.Name)
	}
	if old, ok := r.hooks[d.Name]; ok {
		return fmt.Errorf("%w: hook %q from %s is already registered from %s", ErrDuplicate, d.Name, d.Origin, old.Origin)
	}
	r.hooks[d.Name] = &d
	return nil
}

// RegisterHook registers a Go hook under name with origin "go".
func (r *Registry) RegisterHook(name string, h Hook) error {
	return r.AddHook(HookDef{Name: name, Origin: Origin{Kind: "go"}, Hook: h})
}

// LookupHook returns the definition of a registered hook.
func (r *Registry) LookupHook(name string) (*HookDef, bool) {
	d, ok := r.hooks[name]
	return d, ok
}

// Hooks lists the registered hooks sorted by name.
func (r *Registry) Hooks() []HookDef {
	out := make([]HookDef, 0, len(r.hooks))
	for _, d := range r.hooks {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func hookNames(reg *Registry) []string {
	out := make([]string, 0, len(reg.hooks))
	for n := range reg.hooks {
		out = append(out, n)
	}
	return out
}

// bindHook resolves the hook rule i names (attr is "enter" or "exit"):
// nil when it names none, or, under lenient binding, an unknown one.
func (b *BoundTree) bindHook(reg *Registry, i int32, attr, name string, opts BindOptions, warn func(kind, name string, pos Pos, label string)) (Hook, error) {
	if name == "" {
		return nil, nil
	}
	r := &b.Tree.Rules[i]
	def, ok := reg.LookupHook(name)
	if !ok {
		if opts.Lenient {
			warn("hook", name, r.Pos, r.Label)
			return nil, nil
		}
		return nil, &Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: attr + " " + unknownMsg("hook", name, hookNames(reg))}
	}
	if def.Bind == nil {
		return def.Hook, nil
	}
	return def.Bind(&Site{Tree: b.Tree, Rule: i, Name: name, Params: r.Params, Pos: r.Pos, bound: b})
}

// started reports whether the rule of f (which has a start bit) has
// started and not been left since.
func (a *Agent) started(f *ruleFeat) bool {
	w, bit := a.bound.startWord(f)
	return a.slab[w]&bit != 0
}

// setStarted sets or clears the start bit of f's rule.
func (a *Agent) setStarted(f *ruleFeat, on bool) {
	w, bit := a.bound.startWord(f)
	if on {
		a.slab[w] |= bit
	} else {
		a.slab[w] &^= bit
	}
}

// startWord is where the start bit of f's rule is: a slab word and a bit.
func (b *BoundTree) startWord(f *ruleFeat) (int, uint64) {
	return b.startBase + int(f.startBit>>6), 1 << (f.startBit & 63)
}

// start is the moment rule r starts: it has been let in and its conditions
// passed at its entry (or a jump landed below it). A rule that started
// already (a jump to it while active, a retry) does not start again. It
// writes log.start, then calls the enter hook, whose error is the step's.
// Only rules with hookStart come here.
func (a *Agent) start(r int32) error {
	f := &a.bound.feats[r]
	if f.startBit < 0 || a.started(f) { // (trackAll sets hookStart on every rule)
		return nil
	}
	a.setStarted(f, true)
	if f.logStart != "" {
		a.env.log(a, a.bound.Tree.Rules[r].Label, f.logStart)
	}
	if f.enter == nil {
		return nil
	}
	if err := a.callHook(r, f.enter, hookEnter); err != nil {
		return a.ruleError(r, nil, "enter hook "+fmt.Sprintf("%q", a.bound.Tree.Rules[r].Enter), err)
	}
	return nil
}

// exit runs rule r's exit hook, left the way how, when it started; its
// error goes to the agent's log (the exits of the other rules left by the
// same event still run).
func (a *Agent) exit(r int32, f *ruleFeat, how leaveHow) {
	if !a.started(f) {
		return
	}
	a.setStarted(f, false)
	if f.exit == nil {
		return
	}
	if err := a.callHook(r, f.exit, how.String()); err != nil {
		rule := &a.bound.Tree.Rules[r]
		a.env.log(a, rule.Label, fmt.Sprintf("error: exit hook %q (%s): %v", rule.Exit, how, err))
	}
}

// errHookPaused is the error of a hook that returned ErrPending.
var errHookPaused = errors.New("a hook may not pause (it returned ErrPending)")

// callHook calls hook h of rule r with how. During the call Rule() is r
// (phaseHook), and a jump is refused (JumpTo); the phase and the rule being
// called are as they were afterwards.
func (a *Agent) callHook(r int32, h Hook, how string) error {
	x := a.extra()
	phase, callRule := a.phase, x.callRule
	a.phase, x.callRule = phaseHook, r
	err := h.Call(a, a.bound.rules[r].params, how)
	a.phase, x.callRule = phase, callRule
	if err == ErrPending {
		return errHookPaused
	}
	return err
}
