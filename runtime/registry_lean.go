package runtime

// The lean forms of a Go action and condition: functions of the agent
// alone, which cannot fail or pause. A step calls them with one argument
// and reads one result, where ActionFunc and ConditionFunc take the rule's
// Params (three words) and return an error besides (two more): on a tree of
// Go actions that is a tenth of an agent-step (docs/performance.md, the
// peer workload). Everywhere else they are an ActionFunc and a
// ConditionFunc that never return an error: every loop, the start-of-step
// checks, a paused step's resume, calls them through Run and Test, and the
// fast path (step_fast.go) calls them directly when a rule's condition and
// action are both lean (hotLean).

// LeanAction is an action as a function of the agent alone: it reads the
// rule's parameters, when it needs them, with Agent.Params. It cannot fail
// or pause: an action that can returns its error from an ActionFunc. A
// result other than Success, Failure or Running is an error of the step, as
// from any action.
type LeanAction func(a *Agent) Status

// Run calls f; the Params are the agent's (Agent.Params).
func (f LeanAction) Run(a *Agent, _ Params) (Status, error) { return f(a), nil }

// LeanCondition is a condition as a function of the agent alone: it reads
// the rule's parameters, when it needs them, with Agent.Params. It cannot
// fail or pause: a condition that can returns its error from a
// ConditionFunc.
type LeanCondition func(a *Agent) bool

// Test calls f; the Params are the agent's (Agent.Params).
func (f LeanCondition) Test(a *Agent, _ Params) (bool, error) { return f(a), nil }

// Params are the parameters of the rule whose action or condition is being
// called (Rule): what an ActionFunc or ConditionFunc is passed, for the
// lean forms, which are not.
func (a *Agent) Params() Params { return a.bound.rules[a.Rule()].params }
