package liveview

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/btrun/btrun/runtime"
)

// Slots in the live view: an agent whose slots hold trees runs a
// composite of its tree: the template's rules at their own indices, then
// a block per (slot, tree) its template's agents took so far, of which
// each slot runs one and the others are rules nothing reaches (dead
// blocks); the page draws that composite for the agent, each grafted
// block under its slot.
//
// Every composite an agent was seen running gets a key, the template's
// name with what its slots hold ("grunt[use=gun]"), which the agent's view
// names ("treeKey") and GET /api/trees/KEY answers, so the page fetches
// each composite once and draws the one the agent runs at the step shown
// (time travel included: a past step's agent runs the composite of then).
// A composite that holds the same trees as one already named, laid out
// with other blocks (the agents took a new tree since), gets its own key,
// "grunt[use=gun]~2": its indices differ.
//
// The agent's records (results, reasons, lanes) are per rule index of the
// composite they were recorded on (recState.bound); when the agent runs
// another composite, follow carries them over: the template's rules keep
// their indices, a grafted tree's rules move with their block when the
// slot still holds that tree, and the rest are dropped (the slot gave that
// tree up).

// composites are the composites the view has named, both ways.
type composites struct {
	byKey map[string]composite
	keys  map[*runtime.BoundTree]string
}

// composite is a named composite and the config's name of its template.
type composite struct {
	b    *runtime.BoundTree
	tree string
}

// key names b, a tree agents of template name run, naming it first if it
// is new.
func (c *composites) key(name string, b *runtime.BoundTree) string {
	if b == b.Template() {
		return name
	}
	if k, ok := c.keys[b]; ok {
		return k
	}
	if c.keys == nil {
		c.byKey, c.keys = map[string]composite{}, map[*runtime.BoundTree]string{}
	}
	var held []string
	for _, s := range b.Slots() {
		if s.Holds != "" {
			held = append(held, s.ID+"="+s.Holds)
		}
	}
	base := name + "[" + strings.Join(held, ",") + "]"
	k := base
	for n := 2; c.byKey[k].b != nil; n++ {
		k = fmt.Sprintf("%s~%d", base, n)
	}
	c.byKey[k], c.keys[b] = composite{b, name}, k
	return k
}

// find is the composite of key, and the name of its template.
func (c *composites) find(key string) (*runtime.BoundTree, string, bool) {
	e, ok := c.byKey[key]
	return e.b, e.tree, ok
}

// follow moves the agent's records to the tree it runs now, when it runs
// another than the one they were recorded on (see above).
func (d *Debugger) follow(r *agentRec) {
	to := r.a.Tree()
	if to == r.bound {
		return
	}
	from := r.bound
	r.bound = to
	d.trees.key(r.tree, to)
	n := len(to.Tree.Rules)
	where := ruleMap(from, to)
	r.results = remap(r.results, n, where)
	if r.whys != nil {
		r.whys = remap(r.whys, n, where)
	}
	if to.LaneSlots() > 0 {
		r.lanes = remap(r.lanes, n, where)
	} else {
		r.lanes = nil
	}
	if j, ok := where(r.doing); ok {
		r.doing = j
	} else {
		r.doing = -1
	}
	if j, ok := where(r.intr.Rule); ok {
		r.intr.Rule = j
	} else {
		r.intr = runtime.Interrupt{}
	}
}

// remap is old, a record per rule of one composite, as n records per rule
// of another (where maps the rules; a rule it drops keeps nothing).
func remap[T any](old []T, n int, where func(int32) (int32, bool)) []T {
	out := make([]T, n)
	for i, v := range old {
		if j, ok := where(int32(i)); ok {
			out[j] = v
		}
	}
	return out
}

// ruleMap maps the rules of composite from to those of composite to, of
// the same template: the template's rules are where they were, a grafted
// tree's rules move with their block when to's slot holds the same tree.
func ruleMap(from, to *runtime.BoundTree) func(int32) (int32, bool) {
	if from == nil {
		return func(int32) (int32, bool) { return 0, false }
	}
	n := int32(len(to.Template().Tree.Rules))
	fs, ts := from.Slots(), to.Slots()
	return func(i int32) (int32, bool) {
		if i < 0 {
			return 0, false
		}
		if i < n {
			return i, true
		}
		k, ok := from.IsGrafted(i)
		if !ok || ts[k].Holds != fs[k].Holds {
			return 0, false
		}
		j := ts[k].Start + i - fs[k].Start
		return j, j < ts[k].End
	}
}

// slotView is one slot of an agent: the tree it holds now (what it runs
// while active, or ran last; "" none yet), and the tree it takes at its
// next entry (the one grafted for it, else its default; "" none).
type slotView struct {
	Slot    string `json:"slot"`
	Rule    int32  `json:"rule"`
	Default string `json:"default"`
	Holds   string `json:"holds"`
	Next    string `json:"next"`
}

func slotViews(a *runtime.Agent) []slotView {
	out := []slotView{}
	for _, s := range a.Tree().Slots() {
		v := slotView{Slot: s.ID, Rule: s.Rule, Default: s.Default, Holds: s.Holds, Next: s.Default}
		if _, wants, err := a.Grafted(s.ID); err == nil && wants != "" {
			v.Next = wants
		}
		out = append(out, v)
	}
	return out
}

// graftMark says that a rule of a composite belongs to a tree grafted into
// a slot: the slot's id, the tree's name, and whether the rule is the
// tree's root (the slot's child).
type graftMark struct {
	Slot string `json:"slot"`
	Tree string `json:"tree"`
	Root bool   `json:"root,omitempty"`
}

// markGrafts marks the rules of composite b in v: those of a grafted tree
// with their slot and tree, those of dead blocks as unreachable.
func markGrafts(v *treeView, b *runtime.BoundTree) {
	slots := b.Slots()
	n := len(b.Template().Tree.Rules)
	for i := n; i < len(v.Rules); i++ {
		k, ok := b.IsGrafted(int32(i))
		if !ok {
			v.Rules[i].Dead = true
			continue
		}
		s := slots[k]
		v.Rules[i].Graft = &graftMark{Slot: s.ID, Tree: s.Holds, Root: int32(i) == s.Start}
	}
	for _, s := range slots {
		rv := &v.Rules[s.Rule]
		if s.Holds != "" {
			rv.Attrs["holds"] = s.Holds
		}
	}
}

// graftedRule finds a rule of a tree grafted into a slot of template b,
// for a breakpoint: by its label, or, for one agent (agent >= 0), by its
// index in the tree that agent runs; it looks in that agent's tree, then
// in the composites of b the view has named. It returns the slot and the
// rule's label, or "" when no grafted rule is named so.
func (d *Debugger) graftedRule(b *runtime.BoundTree, agent int, raw json.RawMessage) (slot, label string) {
	var cands []*runtime.BoundTree
	if agent >= 0 {
		cands = append(cands, d.agents[agent].a.Tree())
	}
	keys := make([]string, 0, len(d.trees.byKey))
	for k, c := range d.trees.byKey {
		if c.b.Template() == b {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		cands = append(cands, d.trees.byKey[k].b)
	}
	var name string
	var idx float64
	byIndex := agent >= 0 && json.Unmarshal(raw, &idx) == nil
	if !byIndex && json.Unmarshal(raw, &name) != nil {
		return "", ""
	}
	for n, c := range cands {
		rules := c.Tree.Rules
		for i := len(b.Tree.Rules); i < len(rules); i++ {
			hit := rules[i].Label == name
			if byIndex {
				hit = n == 0 && float64(i) == idx
			}
			if hit {
				if s := slotOf(c, int32(i)); s != "" {
					return s, rules[i].Label
				}
			}
		}
	}
	return "", ""
}

// slotOf is the id of the slot whose grafted tree rule i of b belongs to,
// "" none.
func slotOf(b *runtime.BoundTree, i int32) string {
	if k, ok := b.IsGrafted(i); ok {
		return b.Slots()[k].ID
	}
	return ""
}

// hasSlot reports whether tree b has a slot id.
func hasSlot(b *runtime.BoundTree, id string) bool {
	return slices.ContainsFunc(b.Slots(), func(s runtime.SlotInfo) bool { return s.ID == id })
}
