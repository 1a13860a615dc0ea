package runtime

import (
	"fmt"
	"io"
	"strings"
)

// Format writes the tree for people: `btrun tree FILE.xml` prints this. It
// shows what the loader made of the files (resolved ids, labels, subtree
// rules, merged declarations), so a designer can check the id rules and
// positions without reading code. The layout is for reading, not parsing.
func (t *Tree) Format(w io.Writer) error {
	var b strings.Builder
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	fmt.Fprintf(&b, "tree %s: %s in %s\n", t.File, plural(len(t.Rules), "rule", "rules"), plural(len(t.Files), "file", "files"))
	if len(t.Files) > 1 {
		fmt.Fprintf(&b, "files: %s\n", strings.Join(t.Files, ", "))
	}
	fmt.Fprintf(&b, "fingerprint: %s\n", t.Fingerprint)

	b.WriteString("\nrules:\n")
	for i := range t.Rules {
		t.formatState(&b, int32(i))
		t.formatRule(&b, &t.Rules[i])
	}
	if len(t.Vars) > 0 {
		b.WriteString("\nvariables:\n")
		for _, v := range t.Vars {
			if v.Type != VarBoolean { // a boolean prints as it always did
				fmt.Fprintf(&b, "  %s: %s = %s  (%s)\n", v.Name, v.Type, v.Init, v.Pos)
				continue
			}
			fmt.Fprintf(&b, "  %s = %t  (%s)\n", v.Name, v.Default, v.Pos)
		}
	}
	if len(t.Signals) > 0 {
		b.WriteString("\nsignals:\n")
		for _, s := range t.Signals {
			t.formatSignal(&b, &s)
		}
	}
	if len(t.Stamps) > 0 {
		b.WriteString("\ntimestamps:\n")
		for _, s := range t.Stamps {
			fmt.Fprintf(&b, "  %s", s.Name)
			if s.SetOnSignal != "" {
				fmt.Fprintf(&b, "  setOnSignal=%s", s.SetOnSignal)
			}
			if s.ExclusiveTo != "" {
				fmt.Fprintf(&b, "  exclusiveTo=%s", s.ExclusiveTo)
			}
			if len(s.Exclusive) > 0 {
				fmt.Fprintf(&b, "  clears %s", t.stampNames(s.Exclusive))
			}
			fmt.Fprintf(&b, "  (%s)\n", s.Pos)
		}
	}
	if len(t.Gates) > 0 {
		b.WriteString("\ngates (shared by every agent of the game):\n")
		for _, g := range t.Gates {
			fmt.Fprintf(&b, "  %s  users=%d", g.Name, g.Users)
			if g.Cooldown > 0 {
				fmt.Fprintf(&b, " cooldown=%s", formatSeconds(g.Cooldown))
			}
			fmt.Fprintf(&b, "  (%s)\n", g.Pos)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// formatRule writes one rule, indented by its depth, and its conditions
// and parameters on the lines below it.
func (t *Tree) formatRule(b *strings.Builder, r *Rule) {
	indent := strings.Repeat("  ", int(r.Depth)+1)
	b.WriteString(indent)
	if r.Kind == KindCustom { // a rule registered from Go: its tag says which
		b.WriteString(r.Tag)
	} else {
		b.WriteString(r.Kind.String())
	}
	b.WriteByte(' ')
	b.WriteString(r.Label)
	if r.Kind == KindAction {
		fmt.Fprintf(b, "  name=%s", r.Action)
	}
	if r.Subtree != "" {
		fmt.Fprintf(b, "  %s=%s", r.Tag, r.Subtree)
	}
	if r.Kind == KindSlot {
		if r.Default != "" {
			fmt.Fprintf(b, "  default=%s", r.Default)
		}
		b.WriteString("  (runs the tree grafted for the agent)")
	}
	if r.Loop {
		b.WriteString("  loop")
	}
	if r.DoNotFail {
		b.WriteString("  doNotFail")
	}
	if r.Abort != AbortNone {
		fmt.Fprintf(b, "  abort=%s", r.Abort)
	}
	if r.Timeout > 0 {
		fmt.Fprintf(b, "  timeout=%s", formatSeconds(r.Timeout))
	}
	if r.Cooldown > 0 {
		fmt.Fprintf(b, "  cooldown=%s", formatSeconds(r.Cooldown))
	}
	if r.Gate != "" {
		fmt.Fprintf(b, "  gate=%s", r.Gate)
	}
	if r.Order != OrderList {
		fmt.Fprintf(b, "  order=%s", r.Order)
	}
	if r.Repeat > 0 {
		fmt.Fprintf(b, "  repeat=%d", r.Repeat)
	}
	if r.Attempts > 0 {
		fmt.Fprintf(b, "  attempts=%d", r.Attempts)
	}
	if r.Enter != "" {
		fmt.Fprintf(b, "  enter=%s", r.Enter)
	}
	if r.Exit != "" {
		fmt.Fprintf(b, "  exit=%s", r.Exit)
	}
	if r.Kind == KindParallel {
		fmt.Fprintf(b, "  success=%s failure=%s", r.SuccessAt, r.FailureAt)
	}
	if m, ok := t.machineOf(r); ok {
		fmt.Fprintf(b, "  initial=%s", m.States[m.Initial].Name)
	}
	if r.ID != "" {
		// A label without id already ends with the position.
		fmt.Fprintf(b, "  (%s)", r.Pos)
	}
	b.WriteByte('\n')
	if len(r.Conds) > 0 || r.Mode != AllTrue {
		fmt.Fprintf(b, "%s    conditions %s:", indent, r.Mode)
		for i, c := range r.Conds {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
			if c.Negate {
				b.WriteByte('!')
			}
			b.WriteString(c.Name)
		}
		if len(r.Conds) == 0 {
			b.WriteString(" none")
		}
		b.WriteByte('\n')
	}
	for _, p := range r.Params {
		fmt.Fprintf(b, "%s    parameter %s = %q\n", indent, p.Name, p.Value)
	}
}

// formatSignal writes one signal with the variables and timestamps it sets.
func (t *Tree) formatSignal(b *strings.Builder, s *SignalDecl) {
	fmt.Fprintf(b, "  %s", s.Name)
	if len(s.Sets) > 0 {
		b.WriteString("  sets")
		for i, set := range s.Sets {
			if i > 0 {
				b.WriteByte(',')
			}
			name := "?"
			if set.Var >= 0 && int(set.Var) < len(t.Vars) {
				name = t.Vars[set.Var].Name
			}
			switch {
			case set.From != nil:
				fmt.Fprintf(b, " %s=data.%s", name, strings.Join(set.From, "."))
			case set.Typed.Type != VarBoolean:
				fmt.Fprintf(b, " %s=%s", name, set.Typed)
			default:
				fmt.Fprintf(b, " %s=%t", name, set.Value)
			}
		}
	}
	if len(s.Stamps) > 0 {
		fmt.Fprintf(b, "  stamps %s", t.stampNames(s.Stamps))
	}
	if s.Expires > 0 {
		fmt.Fprintf(b, "  expires %ss", formatSeconds(s.Expires))
	}
	fmt.Fprintf(b, "  (%s)\n", s.Pos)
}

// stampNames lists timestamps by name.
func (t *Tree) stampNames(idx []int32) string {
	names := make([]string, len(idx))
	for i, j := range idx {
		names[i] = "?"
		if j >= 0 && int(j) < len(t.Stamps) {
			names[i] = t.Stamps[j].Name
		}
	}
	return strings.Join(names, ", ")
}

// machineOf is the machine of r when r is a stateMachine rule.
func (t *Tree) machineOf(r *Rule) (*Machine, bool) {
	if r.Kind != KindStateMachine || int(r.Machine) >= len(t.Machines) {
		return nil, false
	}
	return &t.Machines[r.Machine], true
}

// formatState writes, before a state's rule, the line of its state: its
// name and transitions.
func (t *Tree) formatState(b *strings.Builder, i int32) {
	r := &t.Rules[i]
	if r.Parent < 0 {
		return
	}
	m, ok := t.machineOf(&t.Rules[r.Parent])
	if !ok {
		return
	}
	k := m.StateOf(i)
	if k < 0 {
		return
	}
	s := &m.States[k]
	fmt.Fprintf(b, "%sstate %s", strings.Repeat("  ", int(r.Depth)+1), s.Name)
	for _, tr := range s.Transitions {
		on := tr.Signal
		if on == "" {
			on = tr.Result.String()
		}
		fmt.Fprintf(b, "  %s->%s", on, tr.ToName)
	}
	fmt.Fprintf(b, "  (%s)\n", s.Pos)
}
