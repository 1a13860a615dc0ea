package runtime

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Slots: child trees grafted into an agent's tree while it runs.
//
// A <slot id="X" default="T"/> has no child in the tree's template. What
// it runs is per agent: the tree grafted into it (Agent.Graft), else its
// default, else nothing (it fails). The template stays immutable and
// shared; a slot's child tree is bound into a composite: the template's
// rules, unchanged and at the same indices, followed by one block per
// slot that holds a tree (that tree's rules, their ids prefixed with the
// slot's id and a dot, the block's root the slot's only child). Every
// composite of a template is bound once, for the first agent that needs
// it, and shared like the template (slotTable.composite); an agent runs
// the composite of the trees its slots hold (Agent.Tree), so stepping,
// labels, jumps, saves, gates and parallels inside a grafted tree are
// those of any tree.
//
// An agent changes composites only when a slot is let in (enterSlot, from
// the loop): the slot takes the tree wanted for it then, so a graft takes
// effect the next time the slot is entered, and an active slot keeps what
// it runs until it is left. What the agent holds is carried over
// (regraft): declarations are the template's, so its variables,
// timestamps and signals stay where they are; timeout clocks, cooldowns,
// choice orders and gate holds of the template's rules and of the other
// slots' blocks move with their rules; those of the slot's previous tree
// are dropped with it.
//
// A grafted tree must declare nothing the template does not (the same
// variables with the same default, signals with the same effects and
// expiry, timestamps with the same settings, gates by name), mention no
// other signal, and hold no slot of its own: Agent.Graft checks that when
// it is called. A tree without slots has no slotTable and pays nothing.

// TreeSource finds a tree of the game by name (a config's [[trees]]
// name), for the slots of the trees it binds.
type TreeSource func(name string) (*Tree, bool)

// slotTable is what the composites of one template share: the template,
// its slots, and how to bind (the registry, the options, where trees come
// from), with the composites bound so far.
type slotTable struct {
	host  *BoundTree
	slots []slotDef
	byID  map[string]int
	reg   *Registry
	opts  BindOptions

	mu    sync.Mutex
	cache map[string]*BoundTree // by the trees its slots hold, joined by "\x00"
}

// slotDef is one slot of the template.
type slotDef struct {
	rule  int32
	id    string
	def   string
	depth int32
}

// slotBlock is where a composite holds a slot's tree: the rules
// [start, end) and the tree's name; start == end when it holds none.
type slotBlock struct {
	start, end int32
	tree       string
}

// SlotInfo describes a slot of a tree: its id, rule, default, and the tree
// a composite holds in it ("" in the template) at rules [Start, End) (the
// block's root is Start; Start == End when it holds none).
type SlotInfo struct {
	ID         string
	Rule       int32
	Default    string
	Holds      string
	Start, End int32
}

// Slots lists the tree's slots in document order, with the tree each holds
// in this bound tree (the template holds none; Agent.Tree is the one the
// agent runs).
func (b *BoundTree) Slots() []SlotInfo {
	if b.graft == nil {
		return nil
	}
	out := make([]SlotInfo, len(b.graft.slots))
	for k, s := range b.graft.slots {
		bl := b.blocks[k]
		out[k] = SlotInfo{ID: s.id, Rule: s.rule, Default: s.def, Holds: bl.tree, Start: bl.start, End: bl.end}
	}
	return out
}

// Template is the tree the agent was made with: Agent.Tree without the
// trees grafted into its slots.
func (a *Agent) Template() *BoundTree {
	if g := a.bound.graft; g != nil {
		return g.host
	}
	return a.bound
}

// Template is the bound tree without grafts that b was composed from (b
// itself for a tree without slots or a template).
func (b *BoundTree) Template() *BoundTree {
	if b.graft != nil {
		return b.graft.host
	}
	return b
}

// IsGrafted reports whether rule r of b belongs to a tree grafted into a
// slot, and which slot (its index in Slots).
func (b *BoundTree) IsGrafted(r int32) (slot int, ok bool) {
	for k, bl := range b.blocks {
		if r >= bl.start && r < bl.end {
			return k, true
		}
	}
	return 0, false
}

// dead reports whether rule r of composite b is in a dead block: a tree a
// slot held before it took another during a step.
func (b *BoundTree) dead(r int32) bool {
	if r < int32(len(b.graft.host.Tree.Rules)) {
		return false
	}
	_, live := b.IsGrafted(r)
	return !live
}

// newSlotTable makes the table of template b, whose tree has slots, and
// checks each slot's default tree.
func newSlotTable(b *BoundTree, reg *Registry, opts BindOptions) (*slotTable, error) {
	g := &slotTable{host: b, byID: map[string]int{}, reg: reg, opts: opts, cache: map[string]*BoundTree{}}
	t := b.Tree
	var errs ErrorList
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Kind != KindSlot {
			continue
		}
		g.byID[r.ID] = len(g.slots)
		g.slots = append(g.slots, slotDef{rule: int32(i), id: r.ID, def: r.Default, depth: r.Depth})
	}
	b.blocks = make([]slotBlock, len(g.slots))
	b.graft = g
	for k, s := range g.slots {
		if s.def == "" || opts.Trees == nil { // a lone tree: its defaults are the game's to check
			continue
		}
		if _, err := g.with(b, k, s.def); err != nil {
			r := &t.Rules[s.rule]
			errs = append(errs, &Error{Pos: r.Pos, Label: r.Label, Err: ErrInvalidTree, Msg: "default tree: " + err.Error()})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return g, nil
}

// slot finds slot id of the table.
func (g *slotTable) slot(id string) (int, error) {
	if k, ok := g.byID[id]; ok {
		return k, nil
	}
	ids := make([]string, len(g.slots))
	for k, s := range g.slots {
		ids[k] = s.id
	}
	return 0, fmt.Errorf("tree %s has no slot %q (its slots: %s)", g.host.Tree.File, id, strings.Join(ids, ", "))
}

// blockKey is one block of a composite: slot's tree ("" for none: a slot
// that gave up its tree).
type blockKey struct {
	slot int
	tree string
}

// canonical is the order of blocks of the composite whose slots hold has:
// slot by slot, in document order.
func canonical(has []string) []blockKey {
	var order []blockKey
	for k, t := range has {
		if t != "" {
			order = append(order, blockKey{k, t})
		}
	}
	return order
}

// with is the composite whose slots hold what b's hold, but slot k holds
// tree (none when ""), in the canonical order.
func (g *slotTable) with(b *BoundTree, k int, tree string) (*BoundTree, error) {
	has := b.holds()
	has[k] = tree
	return g.composite(canonical(has))
}

// holds are the trees b's slots hold, by slot.
func (b *BoundTree) holds() []string {
	has := make([]string, len(b.blocks))
	for i, bl := range b.blocks {
		has[i] = bl.tree
	}
	return has
}

// composite is the bound composite with order's blocks, bound at its first
// use. A slot's block is its last in order; blocks before it stay in the
// composite as rules nothing reaches (dead blocks), so that the indices of
// the runs a step recorded before a slot took another tree stay valid; an
// order that is not canonical is put back in order when the agent's next
// step begins (compact).
func (g *slotTable) composite(order []blockKey) (*BoundTree, error) {
	if len(order) == 0 {
		return g.host, nil
	}
	var key strings.Builder
	for _, e := range order {
		fmt.Fprintf(&key, "%d=%s\x00", e.slot, e.tree)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if b := g.cache[key.String()]; b != nil {
		return b, nil
	}
	t, blocks, err := g.compose(order)
	if err != nil {
		return nil, err
	}
	b, err := bind(t, g.reg, g.opts, g)
	if err != nil {
		return nil, err
	}
	b.blocks, b.order = blocks, order
	if !slices.Equal(order, canonical(b.holds())) {
		b.stray = true
		b.begins = true // compact at the next step's beginning, in the loop
		for i := range b.hot {
			b.hot[i].bits &^= hotFast
		}
	}
	if err := g.sameSlab(b, b.holds()); err != nil {
		return nil, err
	}
	g.cache[key.String()] = b
	return b, nil
}

// compose builds the composite tree of order.
func (g *slotTable) compose(order []blockKey) (*Tree, []slotBlock, error) {
	h := g.host.Tree
	n := len(h.Rules)
	t := &Tree{File: h.File, Files: slices.Clone(h.Files), Rules: slices.Clone(h.Rules),
		Vars: h.Vars, Signals: h.Signals, Stamps: h.Stamps, Gates: h.Gates, Fingerprint: h.Fingerprint,
		ids: make(map[string]int32, len(h.ids)), vars: h.vars, signals: h.signals, stamps: h.stamps, gates: h.gates}
	for id, i := range h.ids {
		t.ids[id] = i
	}
	last := make([]int, len(g.slots))
	for i, e := range order {
		last[e.slot] = i
	}
	blocks := make([]slotBlock, len(g.slots))
	for i, e := range order {
		s := g.slots[e.slot]
		start := int32(len(t.Rules))
		live := last[e.slot] == i
		if live {
			blocks[e.slot] = slotBlock{start: start, end: start, tree: e.tree}
		}
		if e.tree == "" {
			continue
		}
		c, err := g.tree(e.tree)
		if err != nil {
			return nil, nil, err
		}
		if err := fits(c, h, s.id, e.tree); err != nil {
			return nil, nil, err
		}
		shift := func(i int32) int32 {
			if i < 0 {
				return i
			}
			return i + start
		}
		for _, r := range c.Rules {
			r.Parent, r.FirstChild, r.Next = shift(r.Parent), shift(r.FirstChild), shift(r.Next)
			r.Depth += s.depth + 1
			if r.ID != "" {
				r.ID = s.id + "." + r.ID
				r.Label = r.ID
				if live {
					t.ids[r.ID] = int32(len(t.Rules))
				}
			}
			t.Rules = append(t.Rules, r)
		}
		t.Rules[start].Parent = s.rule
		if live {
			blocks[e.slot].end = int32(len(t.Rules))
			t.Files = append(t.Files, c.Files...)
		}
	}
	for k, s := range g.slots {
		t.Rules[s.rule].FirstChild = -1
		if bl := blocks[k]; bl.end > bl.start {
			t.Rules[s.rule].FirstChild = bl.start
		}
	}
	if len(t.Rules) > n+maxRules {
		return nil, nil, fmt.Errorf("the grafted trees make tree %s grow beyond %d rules", h.File, n+maxRules)
	}
	return t, blocks, nil
}

// tree is the game's tree name.
func (g *slotTable) tree(name string) (*Tree, error) {
	if g.opts.Trees == nil {
		return nil, fmt.Errorf("no tree %q: the game gives slots no trees", name)
	}
	t, ok := g.opts.Trees(name)
	if !ok {
		return nil, fmt.Errorf("no tree %q in the game's [[trees]]", name)
	}
	return t, nil
}

// fits checks that tree c, named name, can be grafted into slot of host:
// every declaration of c is one of host's, with the same settings, and c
// holds no slot.
func fits(c, host *Tree, slot, name string) error {
	into := fmt.Sprintf("tree %q (%s) cannot be grafted into slot %q of %s", name, c.File, slot, host.File)
	for i := range c.Rules {
		if c.Rules[i].Kind == KindSlot {
			return fmt.Errorf("%s: it has a slot of its own (%s at %s); a grafted tree holds none", into, c.Rules[i].Label, c.Rules[i].Pos)
		}
	}
	for _, v := range c.Vars {
		i, ok := host.VarIndex(v.Name)
		if !ok {
			return fmt.Errorf(`%s: it uses variable %q (%s), which %s does not declare; declare <variable name=%q default="%t"/> there too`, into, v.Name, v.Pos, host.File, v.Name, v.Default)
		}
		if hv := host.Vars[i]; hv.Default != v.Default {
			return fmt.Errorf("%s: its variable %q has default %t (%s), %s's has %t (%s); declare it the same in both", into, v.Name, v.Default, v.Pos, host.File, hv.Default, hv.Pos)
		}
	}
	for _, st := range c.Stamps {
		i, ok := host.StampIndex(st.Name)
		if !ok {
			return fmt.Errorf("%s: it uses timestamp %q (%s), which %s does not declare; declare it there too", into, st.Name, st.Pos, host.File)
		}
		if hs := host.Stamps[i]; hs.SetOnSignal != st.SetOnSignal || hs.ExclusiveTo != st.ExclusiveTo {
			return fmt.Errorf("%s: its timestamp %q (%s) is declared with other settings than in %s (%s); declare it the same in both", into, st.Name, st.Pos, host.File, hs.Pos)
		}
	}
	for _, sg := range c.Signals {
		i, ok := host.SignalIndex(sg.Name)
		if !ok {
			return fmt.Errorf("%s: it uses signal %q (%s), which %s does not declare; declare it there too", into, sg.Name, sg.Pos, host.File)
		}
		if signalSays(c, &sg) != signalSays(host, &host.Signals[i]) {
			return fmt.Errorf("%s: its signal %q (%s) is declared with other effects or expiry than in %s (%s); declare it the same in both", into, sg.Name, sg.Pos, host.File, host.Signals[i].Pos)
		}
	}
	for _, gt := range c.Gates {
		if _, ok := host.GateIndex(gt.Name); !ok {
			return fmt.Errorf("%s: it uses gate %q (%s), which %s does not declare; declare it there too", into, gt.Name, gt.Pos, host.File)
		}
	}
	return nil
}

// signalSays is what a signal declaration does, by names, for comparing
// two trees' declarations of it.
func signalSays(t *Tree, s *SignalDecl) string {
	var parts []string
	for _, set := range s.Sets {
		parts = append(parts, fmt.Sprintf("%s=%t", t.Vars[set.Var].Name, set.Value))
	}
	for _, st := range s.Stamps {
		parts = append(parts, "@"+t.Stamps[st].Name)
	}
	sort.Strings(parts)
	return fmt.Sprintf("%v %s", s.Expires, strings.Join(parts, ","))
}

// sameSlab checks that composite b lays out declarations as its template
// does: a grafted tree that waits for or sends a signal the template never
// mentions would need a place the template's agents do not have.
func (g *slotTable) sameSlab(b *BoundTree, has []string) error {
	h := g.host
	if len(b.signals) == len(h.signals) {
		return nil
	}
	for _, s := range b.signals[len(h.signals):] {
		for k, name := range has {
			if name != "" {
				return fmt.Errorf("tree %q cannot be grafted into slot %q of %s: it mentions signal %q, which %s neither declares nor mentions; declare <signal name=%q/> there",
					name, g.slots[k].id, h.Tree.File, s.name, h.Tree.File, s.name)
			}
		}
	}
	return nil
}

// agentSlots is an agent's wishes for its slots: the tree to run at the
// next entry of each ("" for the slot's default).
type agentSlots struct {
	want []string
}

// Graft makes slot run tree (a tree of the game) from the next time it is
// entered. A tree that does not fit the agent's (fits) is an error, and
// nothing changes.
func (a *Agent) Graft(slot, tree string) error {
	g, k, err := a.slotNamed(slot)
	if err != nil {
		return err
	}
	if tree == "" {
		return &Error{Agent: a.id, Err: ErrUnknownID, Msg: "graft of an empty tree name into slot " + slot + "; use ungraft to give the slot back its default"}
	}
	if _, err := g.with(g.host, k, tree); err != nil {
		return &Error{Agent: a.id, Err: ErrInvalidTree, Msg: err.Error()}
	}
	a.slotWants(g)[k] = tree
	return nil
}

// Ungraft gives slot back its default tree (or none) from the next time it
// is entered.
func (a *Agent) Ungraft(slot string) error {
	g, k, err := a.slotNamed(slot)
	if err != nil {
		return err
	}
	a.slotWants(g)[k] = ""
	return nil
}

// Grafted says what slot runs: holds is the tree it holds now (what it
// runs while active, or ran last), wants the tree grafted into it ("" when
// none: the default applies at the next entry).
func (a *Agent) Grafted(slot string) (holds, wants string, err error) {
	_, k, err := a.slotNamed(slot)
	if err != nil {
		return "", "", err
	}
	if a.ext != nil && a.ext.slots != nil {
		wants = a.ext.slots.want[k]
	}
	return a.bound.blocks[k].tree, wants, nil
}

// slotNamed finds the agent's slot by its id: the slots table and the
// slot's index in it.
func (a *Agent) slotNamed(slot string) (*slotTable, int, error) {
	g := a.bound.graft
	if g == nil {
		return nil, 0, &Error{Agent: a.id, Err: ErrUnknownID, Msg: fmt.Sprintf("tree %s has no slots", a.bound.Tree.File)}
	}
	k, err := g.slot(slot)
	if err != nil {
		return nil, 0, &Error{Agent: a.id, Err: ErrUnknownID, Msg: err.Error()}
	}
	return g, k, nil
}

func (a *Agent) slotWants(g *slotTable) []string {
	x := a.extra()
	if x.slots == nil {
		x.slots = &agentSlots{want: make([]string, len(g.slots))}
	}
	return x.slots.want
}

// wanted is the tree slot k is to run at its next entry.
func (a *Agent) wanted(g *slotTable, k int) string {
	if a.ext != nil && a.ext.slots != nil && a.ext.slots.want[k] != "" {
		return a.ext.slots.want[k]
	}
	return g.slots[k].def
}

// enterSlot is called when slot rule r is let in: the slot takes the tree
// wanted for it, and the agent moves to the composite that holds it: its
// blocks followed by the new one, so that every rule keeps its index
// during the step (compact puts the blocks in order between steps).
func (a *Agent) enterSlot(r int32) error {
	b := a.bound
	g := b.graft
	k := slices.IndexFunc(g.slots, func(s slotDef) bool { return s.rule == r })
	want := a.wanted(g, k)
	if b.blocks[k].tree == want {
		return nil
	}
	order := b.order
	if order == nil && len(b.blocks) > 0 {
		order = canonical(b.holds())
	}
	to, err := g.composite(append(slices.Clip(order), blockKey{k, want}))
	if err != nil {
		return &Error{Agent: a.id, Label: b.Tree.Rules[r].Label, Err: ErrInvalidTree, Msg: err.Error()}
	}
	a.regraft(to, func(i int32) (int32, bool) { return i, true })
	return nil
}

// compact moves an agent whose composite has dead blocks or blocks out of
// order to the canonical composite of the trees its slots hold, when its
// step begins (beginStep). An agent with lanes running in a slot's tree
// stays until they end.
func (a *Agent) compact() {
	from := a.bound
	to, err := from.graft.composite(canonical(from.holds()))
	if err != nil {
		return // the same trees bound in another order: cannot fail once bound
	}
	where := func(i int32) (int32, bool) {
		for k, bl := range from.blocks {
			if i >= bl.start && i < bl.end {
				return i - bl.start + to.blocks[k].start, true
			}
		}
		if i < int32(len(from.graft.host.Tree.Rules)) {
			return i, true
		}
		return 0, false // a dead block
	}
	if a.lanesRun() {
		for _, p := range a.lanePaths(nil, a.cursor) {
			if p.cursor >= int32(len(from.graft.host.Tree.Rules)) {
				return
			}
		}
	}
	c, ok := where(a.cursor)
	if !ok {
		return // not reached: the cursor is never in a dead block
	}
	a.regraft(to, where)
	a.cursor = c
}

// regraft moves the agent from its composite to composite to; where maps
// a rule of the one to the other (false: a rule of a tree no slot holds
// any more, whose state is dropped). Declarations are laid out alike in
// every composite; timeout clocks, cooldowns, orders, gate holds, counts
// and start bits move with their rules.
func (a *Agent) regraft(to *BoundTree, where func(int32) (int32, bool)) {
	from := a.bound
	lanes := a.lanesRun()
	slab := make([]uint64, to.slabLen)
	copy(slab, to.slabInit)
	copy(slab[:from.declLen], a.slab[:from.declLen])
	if from.feats != nil && to.feats != nil {
		for i := range from.feats {
			j, ok := where(int32(i))
			if !ok {
				continue
			}
			f, t := &from.feats[i], &to.feats[j]
			if f.timeSlot >= 0 {
				slab[t.timeSlot] = a.slab[f.timeSlot]
			}
			if f.coolSlot >= 0 {
				slab[t.coolSlot] = a.slab[f.coolSlot]
			}
			if f.orderSlot >= 0 {
				n := orderWords(len(f.kids))
				copy(slab[t.orderSlot:int(t.orderSlot)+n], a.slab[f.orderSlot:int(f.orderSlot)+n])
			}
			if f.holdBit >= 0 && a.slab[from.holdBase+int(f.holdBit>>6)]&(1<<(f.holdBit&63)) != 0 {
				slab[to.holdBase+int(t.holdBit>>6)] |= 1 << (t.holdBit & 63)
			}
			if f.countSlot >= 0 && t.countSlot >= 0 { // repeat's passes, attempts' failures
				slab[t.countSlot] = a.slab[f.countSlot]
			}
			if f.startBit >= 0 && t.startBit >= 0 && a.started(f) { // its exit hook will run
				w, bit := to.startWord(t)
				slab[w] |= bit
			}
		}
		if from.gateCount >= 0 && to.gateCount >= 0 {
			copy(slab[to.gateCount:to.gateCount+len(to.Tree.Gates)], a.slab[from.gateCount:from.gateCount+len(from.Tree.Gates)])
		}
	}
	a.slab = slab
	a.bound = to
	a.regraftLanes(to, lanes)
}

// regraftLanes fits the agent's lanes, if it has them, to composite to:
// the template's parallels come first in every composite, so lanes that
// run (in the template's parallels) keep their places, and the lanes of
// the grafted trees' parallels start idle.
func (a *Agent) regraftLanes(to *BoundTree, running bool) {
	if a.ext == nil || a.ext.lanes == nil {
		return
	}
	ls := a.ext.lanes
	if to.lanes == nil || !running {
		a.ext.lanes = nil // allocated again at the next entry into a parallel
		return
	}
	n, pars := len(to.lanes.slots), to.lanes.pars
	for len(ls.lanes) < n {
		ls.lanes = append(ls.lanes, laneCtx{})
	}
	ls.lanes = ls.lanes[:n]
	for len(ls.runs) < pars {
		ls.runs = append(ls.runs, idleRun)
	}
	ls.runs = ls.runs[:pars]
}
