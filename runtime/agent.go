package runtime

import (
	"fmt"
	"math"
)

// Agent is one AI instance running a bound tree: all mutable state lives
// here, as plain data, so that it can be saved. An Agent is not safe for
// concurrent use.
type Agent struct {
	bound *BoundTree
	env   *Env
	id    string

	time float64 // agent time in seconds
	dt   float64 // dt of the current or last step
	step uint64  // steps begun

	// slab holds variables (bits), timestamps (float64 bits, NaN unset),
	// signal marks and the signal counter; BoundTree.layout says where.
	slab []uint64
	// ruleWord is the built-in actions' state for the current rule: bt.wait's
	// start time bits, bt.signal.wait's signal mark. Reset on arrival.
	ruleWord uint64
	ext      *agentExt
	// userData is the host's per-agent value (UserData): in the agent
	// itself, not in ext, because a host's actions and conditions read it
	// at every call (two loads, no nil check of ext), and an agent whose
	// host keeps only this value has no ext at all.
	userData any

	cursor   int32
	jump     int32  // a jump requested during a call, applied after it; -1 none
	count    uint16 // rules run in the current step (the limit is capped to fit)
	condIdx  uint16
	childRes Status // result of the child that finished (flagBubbling), or CompleteAction's answer (flagActionAnswered)
	last     Status // result of the last rule run
	phase    phase
	flags    agentFlags
}

// agentExt holds state most agents never need, allocated on first use: the
// host's values and the runs of a paused step.
type agentExt struct {
	ruleValue any       // the host's value for the current rule (luabind: ctx.state)
	ruleBytes []byte    // a plugin's state bytes for the current rule
	runs      []RuleRun // the runs of a paused step
	rng       Rand      // the agent's generator (rand.go), once rngReady
	rngReady  bool
	// ruleHeld: ruleValue or ruleBytes may hold something for the current
	// rule (they were set since the cursor last arrived), which arrive
	// clears; one byte read on every arrival instead of both fields.
	ruleHeld bool

	// strs are the values of the tree's string variables (vars_agent.go).
	strs []string

	// Interruption and choice orders (interrupt.go, order.go), for trees
	// that use them.
	interrupt Interrupt  // the current or last step's
	check     checkState // where the start-of-step checks stand
	callRule  int32      // the rule being checked or scored: Rule() while phase >= phaseChecking
	scoreNext int32      // 1 + the child being scored while a step waits for a scorer; 0 otherwise
	scores    []float64  // the children's scores of the score choice being entered

	// Parallel lanes (lanes.go), once the agent entered a parallel.
	lanes *laneState

	// Gates (gate_agent.go), for agents of trees that declare gates.
	gates *agentGates

	// Stimuli and the signal handlers owed (stimuli.go, handlers.go), once
	// the agent received a signal.
	stim *stimState

	// Slots (slots.go): the trees grafted into the agent's slots, once it
	// was given one.
	slots *agentSlots

	// The reasons of the current or last step, when the Env records them
	// (explain.go).
	whys *whys

	// The state bytes of the active custom rules that keep any
	// (custom_step.go); an entry with no bytes is free.
	customs []customState
}

type phase uint8

const (
	phaseIdle       phase = iota // between steps
	phaseStep                    // inside Step
	phaseStart                   // inside Step, which has just begun: the loop runs what comes before the cursor first (beginStep)
	phaseWaitCond                // paused at a condition that returned ErrPending
	phaseWaitAction              // paused at an action that returned ErrPending
	phaseWaitGate                // paused at the take of a gate, until the round's end (gate_agent.go)
	// phaseCancel: calling a running action's cancel hook between steps
	// (Reset, Close, Jump, a restore): the agent is leaving its rules, so
	// a signal the hook sends the agent itself has its handlers owed
	// (handlers.go), called once the agent has left them, and a jump is
	// refused.
	phaseCancel
	// From here on the rule being called is ext.callRule, not the cursor.
	phaseChecking  // running the start-of-step checks (interrupt.go)
	phaseScoring   // calling a scorer (order.go)
	phaseWaitCheck // paused at a condition of the checks
	phaseWaitScore // paused at a scorer that returned ErrPending
	phaseHook      // calling an enter or exit hook (hooks.go), which may not jump or pause
)

type agentFlags uint8

const (
	flagFirstRun      agentFlags = 1 << iota // actionFirstRun
	flagActionRunning                        // the cursor is an action whose last result was Running, or a parallel whose lanes run
	flagBubbling                             // the rule to run is the cursor's parent; the cursor finished with childRes
	flagCondAnswered                         // CompleteCondition delivered flagCondAnswer for conds[condIdx]
	flagCondAnswer
	flagActionAnswered // CompleteAction delivered answer
	flagActive         // the cursor rule is active (active.go); its ancestors always are
	// flagQuiet: no Observer was set when the step began, so nothing will
	// see its runs: the fast path keeps only the rules it runs (what a
	// run-away error lists), and the step's end calls no observer. A step
	// begun in the loop sets or clears it at its beginning (loopFrom); the
	// fast path sets it where it leaves (sibMoved, sibStopped, sibRunaway,
	// siblingJumped), as nothing reads it before. Between steps it means
	// nothing.
	flagQuiet
)

// NewAgent creates an agent whose cursor is the root. env may be shared by
// agents stepped on the same goroutine; nil gives the agent an Env of its own.
// An agent of a tree that declares gates shares env.Gates (the tree must
// have been added to it: Gates.Add), or has gates of its own when it is nil.
func (b *BoundTree) NewAgent(id string, env *Env) *Agent {
	if env == nil {
		env = &Env{}
	}
	a := &Agent{bound: b, env: env, id: id, jump: -1, flags: flagFirstRun}
	if b.slabLen > 0 {
		a.slab = make([]uint64, b.slabLen)
		copy(a.slab, b.slabInit)
	}
	if b.strInit != nil {
		a.extra().strs = append([]string(nil), b.strInit...)
	}
	if len(b.Tree.Gates) > 0 {
		a.joinGates()
	}
	return a
}

// ID is the agent's id.
func (a *Agent) ID() string { return a.id }

// Tree is the bound tree the agent runs.
func (a *Agent) Tree() *BoundTree { return a.bound }

// Env is the agent's environment.
func (a *Agent) Env() *Env { return a.env }

// Time is the agent's time in seconds: the sum of its steps' dt.
func (a *Agent) Time() float64 { return a.time }

// Dt is the dt of the current (or last) step.
func (a *Agent) Dt() float64 { return a.dt }

// StepCount is the number of steps begun.
func (a *Agent) StepCount() uint64 { return a.step }

// FirstRun is the actionFirstRun flag: true until the rule at the cursor has
// been called once since the cursor arrived there.
func (a *Agent) FirstRun() bool { return a.flags&flagFirstRun != 0 }

// LastResult is the result of the last rule run.
func (a *Agent) LastResult() Status { return a.last }

// Cursor is the index of the current rule.
func (a *Agent) Cursor() int32 { return a.cursor }

// CursorLabel is the label of the current rule.
func (a *Agent) CursorLabel() string { return a.bound.Tree.Rules[a.cursor].Label }

// Paused reports whether the agent's step waits for CompleteAction,
// CompleteCondition or CompleteScore, or for the end of the round at the
// take of a gate (Gates.EndRound, then Gates.Continue).
func (a *Agent) Paused() bool {
	switch a.phase {
	case phaseWaitAction, phaseWaitCond, phaseWaitCheck, phaseWaitScore, phaseWaitGate:
		return true
	}
	return false
}

// Rule is the index of the rule whose action, condition or scorer is being
// called: the cursor; the cursor's parent while a list rule re-checks its
// conditions after a child finished; the watched rule during the checks at
// the start of a step; the scored child while a score choice is entered.
func (a *Agent) Rule() int32 {
	if a.phase >= phaseChecking {
		return a.ext.callRule
	}
	if a.flags&flagBubbling != 0 {
		return a.bound.rules[a.cursor].parent
	}
	return a.cursor
}

// Label is the label of Rule().
func (a *Agent) Label() string { return a.bound.Tree.Rules[a.Rule()].Label }

// Log writes a message to the agent's log with its id, time and Rule's label.
func (a *Agent) Log(msg string) { a.env.log(a, a.Label(), msg) }

// UserData is the host's per-agent value (nil until set).
func (a *Agent) UserData() any { return a.userData }

// SetUserData sets the host's per-agent value.
func (a *Agent) SetUserData(v any) { a.userData = v }

// RuleValue is the host's value for the current rule; it is reset to nil
// each time the cursor arrives at a rule.
func (a *Agent) RuleValue() any {
	if a.ext == nil {
		return nil
	}
	return a.ext.ruleValue
}

// SetRuleValue sets the host's value for the current rule.
func (a *Agent) SetRuleValue(v any) {
	x := a.extra()
	x.ruleValue, x.ruleHeld = v, true
}

// RuleBytes are the state bytes for the current rule (a plugin's); empty
// each time the cursor arrives at a rule.
func (a *Agent) RuleBytes() []byte {
	if a.ext == nil {
		return nil
	}
	return a.ext.ruleBytes
}

// SetRuleBytes stores a copy of b as the current rule's state bytes.
func (a *Agent) SetRuleBytes(b []byte) {
	x := a.extra()
	x.ruleBytes = append(x.ruleBytes[:0], b...)
	x.ruleHeld = true
}

func (a *Agent) extra() *agentExt {
	if a.ext == nil {
		a.ext = &agentExt{}
	}
	return a.ext
}

// --- variables ---

// VarAt returns the variable in slot i (Tree.Vars order).
func (a *Agent) VarAt(i int32) bool { return a.slab[i>>6]&(1<<(i&63)) != 0 }

// SetVarAt sets the variable in slot i.
func (a *Agent) SetVarAt(i int32, v bool) {
	if a.env.Changes != nil {
		a.setVarObserved(i, v) // observe.go
		return
	}
	if v {
		a.slab[i>>6] |= 1 << (i & 63)
	} else {
		a.slab[i>>6] &^= 1 << (i & 63)
	}
}

// Var returns a declared boolean variable (VarValue reads any type).
func (a *Agent) Var(name string) (bool, error) {
	i, err := a.boolSlot(name)
	if err != nil {
		return false, err
	}
	return a.VarAt(i), nil
}

// SetVar sets a declared boolean variable (SetVarValue sets any type).
func (a *Agent) SetVar(name string, v bool) error {
	i, err := a.boolSlot(name)
	if err != nil {
		return err
	}
	a.SetVarAt(i, v)
	return nil
}

func (a *Agent) varSlot(name string) (int32, error) {
	i, ok := a.bound.Tree.VarIndex(name)
	if !ok {
		return 0, fmt.Errorf("%w: agent %s: no variable %q is declared", ErrUnbound, a.id, name)
	}
	return i, nil
}

// boolSlot is varSlot for Var and SetVar, which take booleans only.
func (a *Agent) boolSlot(name string) (int32, error) {
	i, err := a.varSlot(name)
	if err == nil && a.bound.Tree.Vars[i].Type != VarBoolean {
		err = fmt.Errorf("%w: agent %s: variable %q is a %s; read and write it with VarValue and SetVarValue", ErrBadValue, a.id, name, a.bound.Tree.Vars[i].Type)
	}
	return i, err
}

// --- timestamps ---

// StampAt returns timestamp slot i's time and whether it is set.
func (a *Agent) StampAt(i int32) (float64, bool) {
	bits := a.slab[a.bound.stampBase+int(i)]
	v := math.Float64frombits(bits)
	return v, !math.IsNaN(v)
}

// SetStampAt sets timestamp slot i to time t and clears its exclusive partners.
func (a *Agent) SetStampAt(i int32, t float64) {
	if a.env.Changes != nil {
		a.setStampObserved(i, t) // observe.go
		return
	}
	base := a.bound.stampBase
	for _, x := range a.bound.stamps[i].exclusive {
		a.slab[base+int(x)] = unsetStamp
	}
	a.slab[base+int(i)] = math.Float64bits(t)
}

// ClearStampAt unsets timestamp slot i.
func (a *Agent) ClearStampAt(i int32) {
	if a.env.Changes != nil {
		a.clearStampObserved(i) // observe.go
		return
	}
	a.slab[a.bound.stampBase+int(i)] = unsetStamp
}

// Stamp returns a declared timestamp's time and whether it is set.
func (a *Agent) Stamp(name string) (float64, bool, error) {
	i, err := a.stampSlot(name)
	if err != nil {
		return 0, false, err
	}
	t, ok := a.StampAt(i)
	return t, ok, nil
}

// SetStamp sets a declared timestamp to the agent's time.
func (a *Agent) SetStamp(name string) error {
	i, err := a.stampSlot(name)
	if err == nil {
		a.SetStampAt(i, a.time)
	}
	return err
}

// ClearStamp unsets a declared timestamp.
func (a *Agent) ClearStamp(name string) error {
	i, err := a.stampSlot(name)
	if err == nil {
		a.ClearStampAt(i)
	}
	return err
}

// Since returns the seconds since a timestamp was set, and false when unset.
func (a *Agent) Since(name string) (float64, bool, error) {
	t, ok, err := a.Stamp(name)
	if !ok || err != nil {
		return 0, false, err
	}
	return a.time - t, true, nil
}

func (a *Agent) stampSlot(name string) (int32, error) {
	i, ok := a.bound.Tree.StampIndex(name)
	if !ok {
		return 0, fmt.Errorf("%w: agent %s: no timestamp %q is declared", ErrUnbound, a.id, name)
	}
	return i, nil
}

// --- signals ---

// Signal delivers a signal without data to the agent now, at its current
// time (SignalDataAt).
func (a *Agent) Signal(name string) error { return a.receive(name, &noData, a.time) }

// SignalAt is Signal with the time that timestamps set by the signal take
// (SignalDataAt).
func (a *Agent) SignalAt(name string, t float64) error { return a.receive(name, &noData, t) }

// SignalData delivers a signal with data now, at the agent's current time
// (SignalDataAt).
func (a *Agent) SignalData(name string, data Value) error {
	return a.SignalDataAt(name, data, a.time)
}

// SignalDataAt delivers a signal carrying data (NilValue: none) to the
// agent: it sets the variables and timestamps the tree's declarations tie
// to the signal (timestamps to time t), is seen by a current
// bt.signal.wait for it, becomes the agent's stimulus for the signal (its
// data and arrival time t, stimuli.go), and calls the handlers of running
// actions for it (handlers.go). A game loop that delivers signals before
// the step that advances the agent to time t passes t.
//
// Data that CheckData refuses is an error and nothing is delivered, and so
// is a signal whose stimulus would take the agent's stimuli past their
// bound (Env.StimulusMemory; the error wraps ErrStimuli). The agent keeps data as it is (a table's entries are shared, not copied):
// do not change it afterwards. An error of a handler resets the agent and
// is returned; the signal's effects stay.
func (a *Agent) SignalDataAt(name string, data Value, t float64) error {
	if err := CheckData(data); err != nil {
		return fmt.Errorf("runtime: agent %s: signal %q: %w", a.id, name, err)
	}
	return a.receive(name, &data, t)
}

// receive delivers a signal whose data has been checked (and is not
// changed: it is copied into the stimulus). A signal whose stimulus the
// agent cannot hold (admitStimulus) is an error and nothing is delivered.
func (a *Agent) receive(name string, data *Value, t float64) error {
	i, ok := a.bound.signalIdx[name]
	if ok {
		if err := a.checkSets(i, data); err != nil {
			return err
		}
	}
	if err := a.admitStimulus(name, data); err != nil {
		return err
	}
	if ok {
		a.signalSlot(i, data, t)
	} else {
		a.observeSignal(name, data)
		a.recordStimulus(name, data, t)
	}
	if a.bound.handlers == nil && !a.bound.machineSignals {
		return nil
	}
	return a.owe(name, data, t)
}

func (a *Agent) signalSlot(i int32, data *Value, t float64) {
	b := a.bound
	s := &b.signals[i]
	if a.env.Changes != nil {
		a.observeSignal(s.name, data)
	}
	for k := range s.sets {
		set := &s.sets[k]
		if set.From == nil && set.Typed.Type == VarBoolean {
			a.SetVarAt(set.Var, set.Value)
		} else {
			a.applySet(set, data) // vars_agent.go
		}
	}
	for _, st := range s.stamps {
		a.SetStampAt(st, t)
	}
	seq := a.slab[b.seqIndex] + 1
	a.slab[b.seqIndex] = seq
	a.slab[b.signalBase+int(i)] = seq
	a.recordSlot(i, s.name, data, t)
}

// observeSignal tells Env.Changes (if any) of a signal received, with its
// data when it sees data (SignalDataObserver).
func (a *Agent) observeSignal(name string, data *Value) {
	c := a.env.Changes
	if c == nil {
		return
	}
	if d, ok := c.(SignalDataObserver); ok {
		d.SignalReceivedData(a, name, *data)
		return
	}
	c.SignalReceived(a, name)
}

// SignalDataObserver is implemented by a ChangeObserver that wants the data
// of the signals it sees: SignalReceivedData is called instead of
// SignalReceived (data is NilValue for a signal that carried none).
type SignalDataObserver interface {
	SignalReceivedData(a *Agent, signal string, data Value)
}

// Send sends a signal from this agent, with data (NilValue: none): "self"
// (or the agent's own id) applies it at once; "all" hands it to the Router
// for every other agent and then applies it to this agent at once; any
// other id goes to the Router. Data that CheckData refuses is an error and
// nothing is sent; so is a signal the Router refuses (a game's limit on
// signals a step): a refused "all" does not reach the sender either.
func (a *Agent) Send(to, signal string, data Value) error {
	if err := CheckData(data); err != nil {
		return fmt.Errorf("runtime: agent %s cannot send %q to %q: %w", a.id, signal, to, err)
	}
	if to == "self" || to == a.id {
		return a.receive(signal, &data, a.time)
	}
	if to == "all" {
		if r := a.env.Router; r != nil {
			if err := r.Route(a, to, signal, data); err != nil {
				return err
			}
		}
		return a.receive(signal, &data, a.time)
	}
	if a.env.Router == nil {
		return fmt.Errorf("runtime: agent %s cannot send %q to %q: the agent has no Router to reach other agents", a.id, signal, to)
	}
	return a.env.Router.Route(a, to, signal, data)
}

// --- moving the cursor from outside ---

// Jump makes the rule with the given full id the cursor. Between steps it
// takes effect at once: an action interrupted while running is cancelled and
// the target runs at the next step. During a call (or while paused) it is
// applied when the call returns (see SPEC §2, Jumping). A jump to the
// current rule changes nothing.
func (a *Agent) Jump(id string) error {
	i, ok := a.bound.Tree.RuleIndex(id)
	if !ok {
		return &Error{Agent: a.id, Msg: fmt.Sprintf("cannot jump to %q: the tree has no rule with that id", id), Err: ErrUnknownID}
	}
	return a.JumpTo(i)
}

// JumpTo is Jump by rule index.
func (a *Agent) JumpTo(i int32) error {
	if i < 0 || int(i) >= len(a.bound.rules) {
		return &Error{Agent: a.id, Msg: fmt.Sprintf("cannot jump to rule index %d: out of range", i), Err: ErrUnknownID}
	}
	if a.handling() {
		return &Error{Agent: a.id, Msg: fmt.Sprintf("cannot jump to %s from a signal handler; a handler returns success or failure to finish its action, or sets a variable the tree watches", a.bound.Tree.Rules[i].Label), Err: ErrBusy}
	}
	if a.phase == phaseHook {
		return &Error{Agent: a.id, Msg: fmt.Sprintf("cannot jump to %s from an enter or exit hook; a hook sets things up or cleans them up, the tree decides where to go", a.bound.Tree.Rules[i].Label), Err: ErrBusy}
	}
	if a.phase == phaseCancel {
		return &Error{Agent: a.id, Msg: fmt.Sprintf("cannot jump to %s from a cancel hook called between steps: the agent is being reset, removed, restored or moved already", a.bound.Tree.Rules[i].Label), Err: ErrBusy}
	}
	if a.phase != phaseIdle {
		a.jump = i
		return nil
	}
	// Between steps nothing is being run: a jump to the current rule of
	// the target's context (the cursor, or a lane's) changes nothing.
	if a.ctxCursor(a.liveCtxOf(i)) == i {
		return nil
	}
	err := a.jumpNow(a.cursor, a.flags&flagActive != 0, i)
	a.toMain()
	a.flushGates()
	return a.handleOwed(err)
}

// Reset puts the cursor back on the root, cancelling an action interrupted
// while running and leaving every active rule (their cooldowns start).
// Variables, timestamps, time and memory are kept. The gates its rules held
// are released at once.
func (a *Agent) Reset() error {
	if a.Paused() {
		return &Error{Agent: a.id, Msg: "cannot reset while a step is paused", Err: ErrBusy}
	}
	a.toMain()
	err := a.cancelRunning()
	a.leaveAll(leftReset)
	a.flushGates() // between steps: the gates are released at once
	a.arrive(Root)
	a.phase, a.jump, a.condIdx = phaseIdle, -1, 0
	a.flags &^= flagBubbling | flagCondAnswered | flagActionAnswered
	return a.handleOwed(err)
}

// Close ends the agent's life: an action interrupted while running is
// cancelled and every active rule is left; the gates it held are released
// at once. The agent must not be stepped afterwards.
func (a *Agent) Close() error {
	a.toMain()
	err := a.cancelRunning()
	a.leaveAll(leftRemove)
	a.flushGates()
	return a.handleOwed(err)
}

// arrive puts the cursor on rule i as a fresh arrival: actionFirstRun is set,
// the rule state is emptied, and the rule is not active (yet).
func (a *Agent) arrive(i int32) {
	a.cursor = i
	a.flags = (a.flags | flagFirstRun) &^ (flagActionRunning | flagActive)
	a.ruleWord = 0
	// Most rules hold no host value or bytes: read before writing, which
	// spares the pointer store (and its write barrier) on every arrival.
	if x := a.ext; x != nil && x.ruleHeld {
		x.clearRule()
	}
}

// clearRule empties the host's value and bytes for the current rule.
func (x *agentExt) clearRule() {
	x.ruleValue = nil
	x.ruleBytes = x.ruleBytes[:0]
	x.ruleHeld = false
}

// cancelRunning calls the cancel hook of the cursor's action if it last
// returned Running, and clears that state. A cursor that is a parallel
// whose lanes run has them cancelled (lanes.go).
func (a *Agent) cancelRunning() error {
	if a.flags&flagActionRunning == 0 {
		return nil
	}
	r := &a.bound.rules[a.cursor]
	if r.kind == KindParallel {
		err := a.cancelLanes(a.cursor)
		a.ext.lanes.runs[a.bound.feats[a.cursor].par].at = -1 // left without finishing: a run under way ends
		return err
	}
	a.flags &^= flagActionRunning
	if r.canceler == nil {
		return nil
	}
	saved, phase := a.flags, a.phase
	a.flags &^= flagBubbling // Rule() is the cursor during the hook
	if phase == phaseIdle {
		a.phase = phaseCancel
	}
	err := r.canceler.Cancel(a, r.params)
	a.flags, a.phase = saved, phase
	if err != nil {
		return a.ruleError(a.cursor, nil, "cancel of action "+fmt.Sprintf("%q", a.bound.Tree.Rules[a.cursor].Action), err)
	}
	return nil
}
