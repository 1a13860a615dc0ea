package runtime

// A step observed far from where it ran: a cluster's shard steps the agent
// and its conductor's live view watches a copy of it, restored from the
// agent's save. What an Observer reads besides the agent's state (the
// rules run, the reasons, the interrupt, the gate events) is not in a
// save; these give it to the copy. Nothing here runs during a step.

// NewRuleRun is the record of a rule's run made elsewhere: arrived says
// whether the run was the rule's first since a cursor arrived at it (what
// Arrived reports).
func NewRuleRun(rule int32, st Status, arrived bool) RuleRun {
	r := RuleRun{Rule: rule, Status: st}
	if arrived {
		r.began = arrival
	}
	return r
}

// SetStepFacts gives a copy of an agent what its last step, run elsewhere,
// left for an observer: its reasons (Whys), its interrupt (LastInterrupt;
// Kind 0: none) and its gate events (GateEvents, kept only for an agent of
// a tree that declares gates). They stay until the copy is stepped or
// given others.
func (a *Agent) SetStepFacts(reasons []Why, intr Interrupt, gates []GateEvent) {
	if len(reasons) == 0 && intr.Kind == 0 && len(gates) == 0 && a.ext == nil {
		return
	}
	x := a.extra()
	if len(reasons) > 0 || x.whys != nil {
		if x.whys == nil {
			x.whys = &whys{}
		}
		x.whys.step, x.whys.list = a.step, append(x.whys.list[:0], reasons...)
	}
	x.interrupt = intr
	if x.gates != nil {
		x.gates.events = append(x.gates.events[:0], gates...)
	}
}
