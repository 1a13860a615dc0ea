package runtime

// Read-only views of an agent for tools that watch a game (btrun's live
// view): what the save holds about interruption and choice orders, without
// the save's requirement that the cursor has an id. Nothing here is on the
// step's path; call it between steps, on the agent's goroutine.

// CursorActive reports whether the cursor rule itself is active (it ran
// since the cursor arrived and has not finished). Every strict ancestor of
// the cursor is always active: with this bit they make the active path.
func (a *Agent) CursorActive() bool { return a.flags&flagActive != 0 }

// FeatureState is what an agent holds for the features of interruption and
// choice orders, by rule: when each active rule with a timeout became
// active, when each rule with a cooldown was last left, and the order of
// each active choice that has one.
type FeatureState struct {
	Clocks    []RuleTime
	Cooldowns []RuleTime
	Orders    []RuleOrder // Order holds positions among the choice's children (document order)
	// Entries are the active rules with repeat or attempts whose counts
	// are not 0, and those with a hook or log.start that started.
	Entries []RuleEntry
}

// Features returns the agent's FeatureState (empty for a tree that uses
// none of the features). It allocates: it is for tools, not for the step.
func (a *Agent) Features() FeatureState {
	var s Snapshot
	a.snapshotFeatures(&s)
	for i := range s.Orders { // snapshotFeatures reuses arrays between agents; these are the caller's
		s.Orders[i].Order = append([]int32(nil), s.Orders[i].Order...)
	}
	return FeatureState{Clocks: s.Clocks, Cooldowns: s.Cooldowns, Orders: s.Orders, Entries: s.Entries}
}

// GateHolds lists the agent's active rules that hold a gate, in document
// order, each with the gate's name (empty for a tree without gates). It
// allocates: it is for tools, not for the step.
func (a *Agent) GateHolds() []RuleHold {
	var s Snapshot
	a.snapshotHolds(&s)
	return s.Holds
}
