package runtime

import "errors"

// State machines (<stateMachine>, Lumberyard's MBT StateMachine): a rule
// whose children are its states' rules, one per state, of which one runs
// at a time. The machine needs no state of its own in the agent: its
// current state is the child on the active path (the child that holds the
// cursor, the agent's or a lane's), so saves, restores, hot reload, the
// workers and the live view carry it as they carry the cursor.
//
//   - Entered (its arrival checks and conditions passed), it moves the
//     cursor to its initial state's rule.
//   - When that rule finishes with a result, the state's first transition
//     on that result (result="success|failure") moves the cursor to the
//     target state's rule, in the same step, after the machine's
//     conditions are checked again (as a sequence checks them before its
//     next child; the machine fails when they fail). Without such a
//     transition the machine finishes with the result.
//   - When the agent receives a signal while the machine is active in a
//     state that has a transition on it, the state's rule is left at once
//     (its running action cancelled, its rules left with "preempt", as a
//     preemption leaves them) and the cursor arrives at the target state's
//     rule, which runs at the agent's next step. Signals arrive between
//     steps: a game's scheduled and world signals before the step at their
//     time (which then runs the new state), signals from other agents after
//     every agent's step, and a signal the agent sends itself during its
//     step once that step has ended (Agent.RunHandlers). Of the machines
//     on a path, the outermost with a transition on the signal takes it
//     (it leaves the inner ones); each lane's path is looked at on its
//     own. A transition on a signal comes before the handlers of the
//     actions it leaves: they are cancelled, not handled.
//
// The per-step loop meets a machine only in runMachine; a tree without one
// pays nothing, and receiving a signal costs a tree without signal
// transitions one test (BoundTree.machineSignals).

// Machine is one stateMachine rule's states.
type Machine struct {
	Rule    int32          // the stateMachine rule
	Initial int32          // index into States of the state it enters first
	States  []MachineState // in document order; the k-th state's rule is the machine's k-th child
}

// MachineState is one <state> of a state machine.
type MachineState struct {
	Name        string
	Pos         Pos
	Rule        int32        // the state's rule: a child of the machine
	Transitions []Transition // in document order: the first that matches wins
}

// Transition is one <transition> of a state.
type Transition struct {
	Signal string // the signal it is taken on; "" for a transition on the result
	Result Status // Success or Failure: the state rule's result it is taken on; 0 for a signal
	To     int32  // the target: an index into the machine's States
	ToName string // the target as written
	Pos    Pos
}

// StateOf returns the index of the state whose rule is child, or -1.
func (m *Machine) StateOf(child int32) int32 {
	for k := range m.States {
		if m.States[k].Rule == child {
			return int32(k)
		}
	}
	return -1
}

// onResult is the target state of state k's first transition on result
// st, or -1.
func (m *Machine) onResult(k int32, st Status) int32 {
	for _, tr := range m.States[k].Transitions {
		if tr.Signal == "" && tr.Result == st {
			return tr.To
		}
	}
	return -1
}

// onSignal is the target state of state k's first transition on signal
// name, or -1.
func (m *Machine) onSignal(k int32, name string) int32 {
	for _, tr := range m.States[k].Transitions {
		if tr.Signal == name {
			return tr.To
		}
	}
	return -1
}

// shifted is m for a tree whose rules start at start (a grafted block).
func (m Machine) shifted(start int32) Machine {
	m.Rule += start
	states := make([]MachineState, len(m.States))
	copy(states, m.States)
	for k := range states {
		states[k].Rule += start
	}
	m.States = states
	return m
}

// MachineOf returns the machine of stateMachine rule r.
func (t *Tree) MachineOf(r int32) (*Machine, bool) {
	if r < 0 || int(r) >= len(t.Rules) || t.Rules[r].Kind != KindStateMachine {
		return nil, false
	}
	return &t.Machines[t.Rules[r].Machine], true
}

// runMachine runs stateMachine rule r: entered, into its initial state's
// rule (it fails when it may not go into its children: listEnters);
// after a state's rule finished with childRes, on to the target of the
// state's transition on that result, or it finishes with that result.
func (a *Agent) runMachine(r int32, h *hotRule) (Status, error) {
	t := a.bound.Tree
	m := &t.Machines[t.Rules[r].Machine]
	if a.flags&flagBubbling == 0 {
		ok, err := a.listEnters(r, h)
		if err != nil {
			return 0, err
		}
		if !ok {
			return a.listGoes(r, -1, Failure), nil
		}
		return a.listGoes(r, m.States[m.Initial].Rule, 0), nil
	}
	res := a.childRes
	to := int32(-1)
	if k := m.StateOf(a.cursor); k >= 0 {
		to = m.onResult(k, res)
	}
	if to < 0 {
		return a.listGoes(r, -1, res), nil
	}
	ok, err := a.testConds(r, h)
	if err != nil {
		return 0, err
	}
	if !ok {
		return a.listGoes(r, -1, Failure), nil
	}
	return a.listGoes(r, m.States[to].Rule, 0), nil
}

// CurrentState returns the index (into its Machine's States) of the state
// stateMachine rule r is in: the state whose rule holds the cursor of the
// agent or of one of its lanes. ok is false when r is not active.
func (a *Agent) CurrentState(r int32) (int32, bool) {
	m, ok := a.bound.Tree.MachineOf(r)
	if !ok {
		return -1, false
	}
	if k := a.stateBelow(m, a.ctxCursor(-1)); k >= 0 {
		return k, true
	}
	if a.ext != nil && a.ext.lanes != nil {
		for _, l := range a.Lanes(nil) {
			if l.Status == Running {
				if k := a.stateBelow(m, l.Cursor); k >= 0 {
					return k, true
				}
			}
		}
	}
	return -1, false
}

// stateBelow is the state of m whose rule holds rule x (x or an ancestor
// of it), or -1.
func (a *Agent) stateBelow(m *Machine, x int32) int32 {
	rules := a.bound.Tree.Rules
	for ; x >= 0; x = rules[x].Parent {
		if rules[x].Parent == m.Rule {
			return m.StateOf(x)
		}
	}
	return -1
}

// machineSignal takes the transitions on signal name of the state machines
// the agent is in, between steps (see the top of this file): on the
// agent's own path, then on each running lane's, outermost first. The
// gates that the rules it leaves held are released at once, as a jump
// between steps releases them.
func (a *Agent) machineSignal(name string) error {
	moved, err := a.machineSignalIn(-1, name)
	a.toMain()
	if moved {
		a.flushGates()
	}
	return err
}

// machineSignalIn takes the transition on signal name of the outermost
// machine on context c's path (from its cursor up to its parallel, or the
// root), if any; else it goes on into the lanes that c's cursor runs.
func (a *Agent) machineSignalIn(c int32, name string) (bool, error) {
	a.switchTo(c)
	t := a.bound.Tree
	stop := int32(-1)
	if c >= 0 {
		stop = a.ctxParallel()
	}
	machine, to := int32(-1), int32(-1)
	for x := a.cursor; x >= 0 && x != stop; x = t.Rules[x].Parent {
		p := t.Rules[x].Parent
		if p < 0 || p == stop || t.Rules[p].Kind != KindStateMachine {
			continue
		}
		m := &t.Machines[t.Rules[p].Machine]
		if k := m.StateOf(x); k >= 0 {
			if s := m.onSignal(k, name); s >= 0 {
				machine, to = p, m.States[s].Rule // outer ones overwrite inner ones
			}
		}
	}
	if machine >= 0 {
		err := a.cancelRunning()
		err = errors.Join(err, a.moveTo(a.cursor, a.flags&flagActive != 0, machine, leftPreempt))
		a.arrive(to) // the machine stays active; its new state's rule is an arrival
		return true, err
	}
	if a.ext == nil || a.ext.lanes == nil || !a.lanesRun() {
		return false, nil
	}
	moved := false
	var errs error
	f := &a.bound.feats[a.cursor]
	for k := range f.kids {
		s := f.laneBase + int32(k)
		if a.ext.lanes.lanes[s].status != laneRunning {
			continue
		}
		m, err := a.machineSignalIn(s, name)
		moved = moved || m
		errs = errors.Join(errs, err)
		a.switchTo(c)
	}
	return moved, errs
}

// bindMachines notes whether a machine of the tree has transitions on
// signals.
func (b *BoundTree) bindMachines() {
	for _, m := range b.Tree.Machines {
		for _, s := range m.States {
			for _, tr := range s.Transitions {
				if tr.Signal != "" {
					b.machineSignals = true
					return
				}
			}
		}
	}
}

// MachineRestart is where an agent whose current rule a reload removed
// (RuleMap.Unplaced) starts again when that rule is inside a state
// machine the new version still has: the innermost such machine with an
// id (so that the place carries over), which the agent then enters again
// at its initial state (Agent.JumpTo on the old version: a jump to an
// active rule enters it again). ok is false when there is none: the agent
// restarts at the root.
func (m *RuleMap) MachineRestart(old *Agent) (int32, bool) {
	t := m.from
	for x := t.Rules[old.cursor].Parent; x >= 0; x = t.Rules[x].Parent {
		if t.Rules[x].Kind != KindStateMachine || t.Rules[x].ID == "" {
			continue
		}
		if nx, ok := m.Rule(x); ok && m.to.Rules[nx].Kind == KindStateMachine {
			return x, true
		}
	}
	return -1, false
}
