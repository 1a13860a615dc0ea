package runtime

import "fmt"

// The agent's side of gates (gates.go): which of its active rules hold a
// gate, a take in progress, the releases of the current round, and the
// takes and releases of its step for the trace.
//
// An agent holds a gate while one of its active rules holds it. A rule
// with gate="G" holds G from its arrival (admit, active.go) until it is
// left (leave): at its arrival an agent that holds G already passes
// without taking it again (the rule holds it too), else it asks for G and
// its step pauses until the round ends (phaseWaitGate). A refused rule
// fails at once without becoming active. Rules that become active because a
// jump lands below them take nothing (a jump is the designer's override,
// which checks neither cooldowns nor gates on the way) and hold nothing.
//
// The holds are agent state in the slab (one bit per rule with a gate, and
// per gate the number of the agent's active rules that hold it), so they
// are saved with the agent. When the last rule holding G is left, the
// agent stops holding G at once for its own purposes (a rule arriving at
// G later in the round asks again) and requests the release, which the
// round's end applies (EndRound): until then the agent still counts as a
// holder for everyone. A release between steps (Reset, Close, a jump from
// outside a step, a restore) is applied at once.

// takeAnswer is where a take stands.
type takeAnswer uint8

const (
	takeNone    takeAnswer = iota
	takeAsked              // the step waits at the take
	takeGranted            // EndRound granted it: the rule is admitted when the step resumes
	takeRefused            // EndRound refused it: the rule fails when the step resumes
)

// agentGates is an agent's gate state outside the slab, in its extension:
// allocated for every agent of a tree that declares gates.
type agentGates struct {
	link     *gateLink
	want     int32 // the tree's gate asked for while answer is not takeNone
	answer   takeAnswer
	releases []gateRelease // requested in the current round
	events   []GateEvent   // the current or last step's takes and releases
}

// gateRelease is a release requested at an agent's step and time.
type gateRelease struct {
	gate int32 // the tree's gate
	step uint64
	time float64
}

// GateEvent is a take granted to the agent or a release of a gate, in the
// order they happened in its step. Gate indexes Tree.Gates.
type GateEvent struct {
	Gate int32
	Take bool // false: a release
}

// joinGates links a new agent of a tree that declares gates to the Env's
// Gates, or to one of its own.
func (a *Agent) joinGates() {
	g := a.env.Gates
	if g == nil {
		g = NewGates()
		g.solo = a
	}
	l, err := g.link(a.bound)
	if err != nil { // programmer misuse: Gates.Add reports this as an error
		panic(fmt.Sprintf("runtime: NewAgent %s: %v (add every tree to the Gates with Gates.Add before creating its agents)", a.id, err))
	}
	a.extra().gates = &agentGates{link: l, want: -1}
}

// gatesOf returns the agent's gate state when it shares g, else nil.
func (a *Agent) gatesOf(g *Gates) *agentGates {
	if a.ext == nil || a.ext.gates == nil || a.ext.gates.link.g != g {
		return nil
	}
	return a.ext.gates
}

// Gates is the Gates the agent shares with others (or has alone); nil when
// its tree declares no gate.
func (a *Agent) Gates() *Gates {
	if a.ext == nil || a.ext.gates == nil {
		return nil
	}
	return a.ext.gates.link.g
}

// gate returns the shared state of the tree's gate i.
func (a *Agent) gate(i int32) *gateState {
	l := a.ext.gates.link
	return &l.g.gates[l.slots[i]]
}

// holds reports whether one of the agent's active rules holds the tree's
// gate i.
func (a *Agent) holds(i int32) bool {
	b := a.bound
	return b.gateCount >= 0 && a.slab[b.gateCount+int(i)] > 0
}

// takeGate is the gate check of rule r's arrival (admit): r holds the
// tree's gate g from now on (true), or the gate refused it (false), or the
// step waits for the round's end (false with phaseWaitGate).
func (a *Agent) takeGate(r, g int32) bool {
	x := a.ext.gates
	switch x.answer {
	case takeGranted:
		x.answer = takeNone
		a.hold(r, g)
		return true
	case takeRefused:
		x.answer = takeNone
		return false
	}
	if a.holds(g) {
		a.hold(r, g) // held already: the rule passes and holds it too
		return true
	}
	x.want, x.answer = g, takeAsked
	if x.link.g.solo == a { // alone: its round ends here
		a.applyReleases(x)
		a.decideTake(x)
		return a.takeGate(r, g)
	}
	a.phase = phaseWaitGate
	return false
}

// hold records that rule r holds the tree's gate g.
func (a *Agent) hold(r, g int32) {
	b := a.bound
	bit := b.feats[r].holdBit
	a.slab[b.holdBase+int(bit>>6)] |= 1 << (bit & 63)
	a.slab[b.gateCount+int(g)]++
}

// unhold is the gate's part of leaving rule r (f is its feature row): a
// rule that held its gate stops holding it, and when no active rule of the
// agent holds it any more, the agent requests its release.
func (a *Agent) unhold(f *ruleFeat) {
	b := a.bound
	w := &a.slab[b.holdBase+int(f.holdBit>>6)]
	mask := uint64(1) << (f.holdBit & 63)
	if *w&mask == 0 {
		return // the rule became active through a jump below it: it took nothing
	}
	*w &^= mask
	n := &a.slab[b.gateCount+int(f.gate)]
	if *n--; *n > 0 {
		return
	}
	x := a.ext.gates
	x.events = append(x.events, GateEvent{Gate: f.gate})
	x.releases = append(x.releases, gateRelease{gate: f.gate, step: a.step, time: a.time})
}

// applyReleases applies the agent's requested releases to the shared state.
func (a *Agent) applyReleases(x *agentGates) {
	for _, rel := range x.releases {
		a.gate(rel.gate).release(a, rel.step, rel.time)
	}
	x.releases = x.releases[:0]
}

// decideTake grants or refuses the take the agent asked for, at its time.
func (a *Agent) decideTake(x *agentGates) {
	st := a.gate(x.want)
	if !st.open(a.time) {
		if a.env.Explain {
			a.whyGate(a.cursor, st)
		}
		st.stats.Refusals++
		x.answer = takeRefused
		return
	}
	st.grant(a, a.step, a.time)
	x.answer = takeGranted
	x.events = append(x.events, GateEvent{Gate: x.want, Take: true})
}

// completeTake resumes a step paused at a take, once decided.
func (a *Agent) completeTake() (Status, error) {
	a.resume()
	return a.loop()
}

// beginGateStep starts a step of an agent whose tree has rules with gates:
// the events of the last step are forgotten, and an agent alone with its
// gates applies the releases of its last step (the end of its last round).
func (a *Agent) beginGateStep() {
	x := a.ext.gates
	x.events = x.events[:0]
	if len(x.releases) > 0 && x.link.g.solo == a {
		a.applyReleases(x)
	}
}

// flushGates applies at once the releases requested outside a step, or by
// a step that will not end its round (Reset, Close, a jump between steps,
// a restore), and forgets a take in progress.
func (a *Agent) flushGates() {
	if a.ext == nil || a.ext.gates == nil {
		return
	}
	x := a.ext.gates
	if x.answer == takeGranted { // granted, but the step will not go on: give it back
		a.gate(x.want).release(a, a.step, a.time)
	}
	x.answer, x.want = takeNone, -1
	if len(x.releases) > 0 {
		a.applyReleases(x)
	}
}

// wouldRefuseGate reports whether rule r's gate would refuse it now: the
// agent does not hold it, and it is full or cooling down (as of the last
// round's end). The start-of-step checks skip such a watched child.
func (a *Agent) wouldRefuseGate(r int32) bool {
	g := a.bound.feats[r].gate
	return g >= 0 && !a.holds(g) && !a.gate(g).open(a.time)
}

// GateEvents are the takes granted and releases of the agent's current or
// last step, in order; valid until its next step begins.
func (a *Agent) GateEvents() []GateEvent {
	if a.ext == nil || a.ext.gates == nil {
		return nil
	}
	return a.ext.gates.events
}

// GateSlot is the place (1, 2, ...) of the agent among the holders of the
// gate named name, in the order they took it, as of the last round's end:
// for giving agents that took a gate together different roles. It is 0
// when the agent does not hold the gate. An undeclared name is an error.
func (a *Agent) GateSlot(name string) (int, error) {
	i, ok := a.bound.Tree.GateIndex(name)
	if !ok {
		return 0, &Error{Agent: a.id, Err: ErrUnbound, Msg: fmt.Sprintf("no gate %q is declared in tree %s", name, a.bound.Tree.File)}
	}
	return a.GateSlotAt(i), nil
}

// GateSlotAt is GateSlot by the index of the gate in Tree.Gates.
func (a *Agent) GateSlotAt(i int32) int {
	if !a.holds(i) {
		return 0
	}
	return a.gate(i).slot(a)
}

// GateOpenAt reports what the condition G.open says for the tree's gate i:
// it could be taken now (it is not full, nor cooling down), as of the last
// round's end.
func (a *Agent) GateOpenAt(i int32) bool { return a.gate(i).open(a.time) }

// GateHoldersAt is the number of agents holding the tree's gate i, as of
// the last round's end.
func (a *Agent) GateHoldersAt(i int32) int { return len(a.gate(i).holders) }

// gateCond is the condition G.open (or G.full) of the tree's gate slot.
type gateCond struct {
	slot int32
	full bool
}

func (c *gateCond) Test(a *Agent, _ Params) (bool, error) {
	st := a.gate(c.slot)
	if c.full {
		return len(st.holders) >= st.decl.Users, nil
	}
	return st.open(a.time), nil
}

// giveUpTake forgets the take of a gate the agent's step waits for
// (FailPaused): a take the round granted already is released at the end
// of the round, as the gate of a rule that took it and was left would be.
func (a *Agent) giveUpTake() {
	x := a.ext.gates
	if x.answer == takeGranted {
		x.events = append(x.events, GateEvent{Gate: x.want})
		x.releases = append(x.releases, gateRelease{gate: x.want, step: a.step, time: a.time})
	}
	x.answer, x.want = takeNone, -1
}
