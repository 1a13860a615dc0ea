package runtime

// ExitGone runs, on an agent that keeps its place in a carry (a hot
// reload), the exit hooks of its started rules that the new version drops:
// an active ancestor edited out of the tree while the cursor's own rule
// stays (its id does not depend on the ancestor). Each runs once with how
// "reset", innermost first (a rule's descendants come after it in the
// document, so the rules are taken from the last), on the old version's
// hooks and host, before the agent's state is carried: what the hook
// changes (ctx.memory) is carried with it. An agent that loses its place is
// reset by the caller instead, which runs every exit.
func (m *RuleMap) ExitGone(old *Agent) {
	b := old.bound
	if b.feats == nil || m.from != b.Tree {
		return
	}
	for r := int32(len(b.feats)) - 1; r >= 0; r-- {
		f := &b.feats[r]
		if f.startBit < 0 || !old.started(f) {
			continue
		}
		if _, ok := m.Rule(r); !ok {
			old.exit(r, f, leftReset)
		}
	}
}
