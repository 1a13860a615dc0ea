package runtime

import (
	"crypto/sha256"
	"encoding/hex"
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
// shared. Every (slot, tree) pair an agent of the template needs becomes a
// block of rules with a fixed place: the universe of a template is its
// rules, unchanged and at the same indices, followed by one block per
// pair in the order the pairs were first needed (that tree's rules, their
// ids prefixed with the slot's id and a dot, the block's root under the
// slot). A new pair binds a new universe with one block more; the blocks
// before it keep their indices and their words of the agent's slab
// (bindFeatures lays words out in rule order), so nothing an agent holds
// moves. An agent runs a view of a universe (Agent.Tree): the universe's
// bound rules, shared, with each slot's child set to the block of the pair
// it holds; the other blocks are rules nothing reaches (Tree.unreached).
//
// An agent changes views only when a slot is let in (enterSlot, from the
// loop, or a retry of the slot): the slot takes the tree wanted for it
// then, so a graft takes effect the next time the slot is entered, and an
// active slot keeps what it runs until it is left. Taking another view is
// a pointer and, for a newer universe, a longer slab and more lane slots;
// the words of the block the slot takes are set back to their initial
// values (nothing in it is active). So every per-rule feature, lanes and
// any later one, works in a grafted tree without a line here, at any
// moment of a step, in any context; and the trees a template binds are
// bounded by the pairs its agents use: one universe per pair, one view per
// combination of pairs the slots hold, each made once.
//
// A grafted tree must declare nothing the template does not (the same
// variables with the same default, signals with the same effects and
// expiry, timestamps with the same settings, gates by name), mention no
// other signal, and hold no slot of its own: a pair is checked when it is
// first needed (Agent.Graft, a restore, a carry), and a tree that does
// not fit is an error there. A tree without slots has no slotTable and
// pays nothing.

// TreeSource finds a tree of the game by name (a config's [[trees]]
// name), for the slots of the trees it binds.
type TreeSource func(name string) (*Tree, bool)

// slotTable is what the trees composed of one template share: the
// template, its slots, how to bind (the registry, the options, where trees
// come from), the pairs so far and the latest universe.
type slotTable struct {
	host  *BoundTree
	slots []slotDef
	byID  map[string]int
	reg   *Registry
	opts  BindOptions

	mu     sync.Mutex
	pairs  []slotPair // the blocks of the latest universe, in order
	byPair map[pairKey]int32
	gen    *slotGen
	none   *slotView // the template's moves
	made   int       // universes and views bound or made so far (boundCount)
}

// slotDef is one slot of the template.
type slotDef struct {
	rule  int32
	id    string
	def   string
	depth int32
	defP  int32 // the pair of its default tree; -1 without one
}

// pairKey is a slot (its index) and a tree name.
type pairKey struct {
	slot int
	tree string
}

// slotPair is a block of the universe: a slot and the tree it runs there.
type slotPair struct {
	pairKey
	t *Tree
}

// slotGen is a universe: the template with a block per pair so far, bound,
// and the views of it made so far.
type slotGen struct {
	u      *BoundTree
	blocks []slotBlock // by pair
	views  map[string]*BoundTree
	shape  string // the pairs, for RuleMap's shortcut
}

// slotView is what a view knows of itself: its universe, the pair each
// slot's block runs (-1: none), and the views a slot's entry moves to,
// made as they are needed (guarded by slotTable.mu).
type slotView struct {
	gen   *slotGen
	live  []int32
	moves map[[2]int32]*BoundTree
}

// slotBlock is where a tree holds a slot's tree: the rules [start, end)
// and the tree's name; start == end when it holds none. words are the
// block's slab words [words[0], words[1]).
type slotBlock struct {
	start, end int32
	tree       string
	words      [2]int32
}

// SlotInfo describes a slot of a tree: its id, rule, default, and the tree
// the agent's view holds in it ("" in the template) at rules [Start, End)
// (the block's root is Start; Start == End when it holds none).
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

// newSlotTable makes the table of template b, whose tree has slots, and
// checks each slot's default tree.
func newSlotTable(b *BoundTree, reg *Registry, opts BindOptions) (*slotTable, error) {
	g := &slotTable{host: b, byID: map[string]int{}, reg: reg, opts: opts, byPair: map[pairKey]int32{}}
	t := b.Tree
	var errs ErrorList
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Kind != KindSlot {
			continue
		}
		g.byID[r.ID] = len(g.slots)
		g.slots = append(g.slots, slotDef{rule: int32(i), id: r.ID, def: r.Default, depth: r.Depth, defP: -1})
	}
	b.blocks = make([]slotBlock, len(g.slots))
	b.graft = g
	g.none = &slotView{live: make([]int32, len(g.slots))}
	for k := range g.none.live {
		g.none.live[k] = -1
	}
	for k, s := range g.slots {
		if s.def == "" || opts.Trees == nil { // a lone tree: its defaults are the game's to check
			continue
		}
		p, err := g.pair(k, s.def)
		if err != nil {
			r := &t.Rules[s.rule]
			errs = append(errs, &Error{Pos: r.Pos, Label: r.Label, Err: ErrInvalidTree, Msg: "default tree: " + err.Error()})
			continue
		}
		g.slots[k].defP = p
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

// pair is the pair of slot k and tree name: its block in every universe
// from the one that first held it. A new pair is checked (fits) and bound
// into a new universe; one that does not fit is an error, and nothing
// changes.
func (g *slotTable) pair(k int, name string) (int32, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pairLocked(k, name)
}

func (g *slotTable) pairLocked(k int, name string) (int32, error) {
	key := pairKey{k, name}
	if p, ok := g.byPair[key]; ok {
		return p, nil
	}
	c, err := g.tree(name)
	if err != nil {
		return -1, err
	}
	if err := fits(c, g.host.Tree, g.slots[k].id, name); err != nil {
		return -1, err
	}
	pairs := append(slices.Clip(g.pairs), slotPair{key, c})
	gen, err := g.universe(pairs)
	if err != nil {
		return -1, err
	}
	p := int32(len(g.pairs))
	g.pairs, g.gen = pairs, gen
	g.byPair[key] = p
	return p, nil
}

// universe composes and binds the template with one block per pair.
func (g *slotTable) universe(pairs []slotPair) (*slotGen, error) {
	h := g.host.Tree
	n := len(h.Rules)
	t := &Tree{File: h.File, Files: slices.Clone(h.Files), Rules: slices.Clone(h.Rules),
		Vars: h.Vars, Signals: h.Signals, Stamps: h.Stamps, Gates: h.Gates, Machines: slices.Clone(h.Machines), Fingerprint: h.Fingerprint,
		ids: h.ids, vars: h.vars, signals: h.signals, stamps: h.stamps, gates: h.gates}
	gen := &slotGen{blocks: make([]slotBlock, len(pairs)), views: map[string]*BoundTree{}}
	breaks := make([]int32, len(pairs))
	var shape strings.Builder
	for i, p := range pairs {
		s := g.slots[p.slot]
		start := int32(len(t.Rules))
		breaks[i] = start
		fmt.Fprintf(&shape, "%d=%s@%s;", p.slot, p.tree, p.t.Fingerprint)
		shift := func(i int32) int32 {
			if i < 0 {
				return i
			}
			return i + start
		}
		machines := int32(len(t.Machines))
		for _, m := range p.t.Machines {
			t.Machines = append(t.Machines, m.shifted(start))
		}
		for _, r := range p.t.Rules {
			r.Parent, r.FirstChild, r.Next = shift(r.Parent), shift(r.FirstChild), shift(r.Next)
			if r.Kind == KindStateMachine {
				r.Machine += machines
			}
			r.Depth += s.depth + 1
			if r.ID != "" {
				r.ID = s.id + "." + r.ID
				r.Label = r.ID
			}
			t.Rules = append(t.Rules, r)
		}
		t.Rules[start].Parent = s.rule
		gen.blocks[i] = slotBlock{start: start, end: int32(len(t.Rules)), tree: p.tree}
		t.Files = append(t.Files, p.t.Files...)
	}
	for _, s := range g.slots {
		t.Rules[s.rule].FirstChild = -1 // each view gives it its child
	}
	if len(t.Rules) > n+maxRules {
		return nil, fmt.Errorf("the trees grafted into the slots of %s make it grow beyond %d rules", h.File, n+maxRules)
	}
	u, err := bind(t, g.reg, g.opts, g, breaks)
	if err != nil {
		return nil, err
	}
	if len(u.signals) != len(g.host.signals) {
		// A grafted tree that waits for or sends a signal the template
		// never mentions would need a place the template's agents lack
		// (the pairs before the new one did not).
		s, p := u.signals[len(g.host.signals)], pairs[len(pairs)-1]
		return nil, fmt.Errorf("tree %q cannot be grafted into slot %q of %s: it mentions signal %q, which %s neither declares nor mentions; declare <signal name=%q/> there",
			p.tree, g.slots[p.slot].id, h.File, s.name, h.File, s.name)
	}
	for i := range gen.blocks {
		gen.blocks[i].words = [2]int32{int32(u.slabLen), int32(u.slabLen)}
		if len(u.breakWords) > i+1 {
			gen.blocks[i].words = [2]int32{u.breakWords[i], u.breakWords[i+1]}
		}
	}
	gen.u, gen.shape = u, shape.String()
	g.made++
	return gen, nil
}

// viewOf is the view of the latest universe whose slots run live's pairs.
// Call with g.mu held.
func (g *slotTable) viewOf(live []int32) *BoundTree {
	gen := g.gen
	var key strings.Builder
	for _, p := range live {
		fmt.Fprintf(&key, "%d,", p)
	}
	if v := gen.views[key.String()]; v != nil {
		return v
	}
	u := gen.u
	v := *u
	t := *u.Tree
	t.Rules = slices.Clone(u.Tree.Rules)
	t.ids = make(map[string]int32, len(u.Tree.ids))
	for id, i := range g.host.Tree.ids {
		t.ids[id] = i
	}
	v.rules, v.hot = slices.Clone(u.rules), slices.Clone(u.hot)
	v.blocks = make([]slotBlock, len(g.slots))
	v.view = &slotView{gen: gen, live: slices.Clone(live), moves: map[[2]int32]*BoundTree{}}
	fp := sha256.New()
	fp.Write([]byte(g.host.Tree.Fingerprint))
	for k, s := range g.slots {
		first, kind := int32(-1), KindFailure
		if p := live[k]; p >= 0 {
			bl := gen.blocks[p]
			v.blocks[k] = bl
			first, kind = bl.start, KindSequence
			for i := bl.start; i < bl.end; i++ {
				if id := t.Rules[i].ID; id != "" {
					t.ids[id] = i
				}
			}
			fmt.Fprintf(fp, "\x00%s=%s", s.id, g.pairs[p].t.Fingerprint)
		}
		t.Rules[s.rule].FirstChild = first
		v.rules[s.rule].kind, v.rules[s.rule].firstChild = kind, first
		v.hot[s.rule].kind, v.hot[s.rule].firstChild = kind, first
	}
	for p, bl := range gen.blocks {
		if !slices.Contains(live, int32(p)) {
			t.unreachedBlocks = append(t.unreachedBlocks, [2]int32{bl.start, bl.end})
		}
	}
	if len(t.unreachedBlocks) > 0 && u.featLabels != nil {
		v.featLabels = map[string][]int32{}
		for l, rules := range u.featLabels {
			for _, r := range rules {
				if !t.unreached(r) {
					v.featLabels[l] = append(v.featLabels[l], r)
				}
			}
		}
	}
	if slices.ContainsFunc(live, func(p int32) bool { return p >= 0 }) {
		t.Fingerprint = hex.EncodeToString(fp.Sum(nil))
	} // else the template's: a restore of its save puts the agent on the template (viewHolding)
	t.shape = gen.shape + key.String()
	v.Tree = &t
	gen.views[key.String()] = &v
	g.made++
	return &v
}

// move is the tree an agent on b runs once slot k takes pair p (-1: none).
func (g *slotTable) move(b *BoundTree, k int, p int32) *BoundTree {
	g.mu.Lock()
	defer g.mu.Unlock()
	v := b.view
	if v == nil {
		v = g.none
	}
	if to := v.moves[[2]int32{int32(k), p}]; to != nil {
		return to
	}
	live := slices.Clone(v.live)
	live[k] = p
	to := g.viewOf(live)
	if v.moves == nil {
		v.moves = map[[2]int32]*BoundTree{}
	}
	v.moves[[2]int32{int32(k), p}] = to
	return to
}

// viewHolding is the view whose slots hold the trees has names ("" none),
// each checked as a pair.
func (g *slotTable) viewHolding(has []string) (*BoundTree, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	live := make([]int32, len(g.slots))
	any := false
	for k, name := range has {
		live[k] = -1
		if name == "" {
			continue
		}
		p, err := g.pairLocked(k, name)
		if err != nil {
			return nil, err
		}
		live[k], any = p, true
	}
	if !any {
		return g.host, nil
	}
	return g.viewOf(live), nil
}

// boundCount is the number of universes bound and views made (tests: it
// stays bounded by the pairs, however agents graft).
func (g *slotTable) boundCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.made
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
			return fmt.Errorf(`%s: it uses variable %q (%s), which %s does not declare; declare <variable name=%q%s default="%s"/> there too`, into, v.Name, v.Pos, host.File, v.Name, typeAttr(v.Type), v.DefaultValue().Text())
		}
		if hv := host.Vars[i]; hv.Type != v.Type {
			return fmt.Errorf("%s: its variable %q is a %s (%s), %s's is a %s (%s); declare it the same in both", into, v.Name, v.Type, v.Pos, host.File, hv.Type, hv.Pos)
		}
		if hv := host.Vars[i]; !hv.DefaultValue().Equal(v.DefaultValue()) {
			return fmt.Errorf("%s: its variable %q has default %s (%s), %s's has %s (%s); declare it the same in both", into, v.Name, v.DefaultValue().Text(), v.Pos, host.File, hv.DefaultValue().Text(), hv.Pos)
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
		parts = append(parts, t.Vars[set.Var].Name+"="+setText(&set))
	}
	for _, st := range s.Stamps {
		parts = append(parts, "@"+t.Stamps[st].Name)
	}
	sort.Strings(parts)
	return fmt.Sprintf("%v %s", s.Expires, strings.Join(parts, ","))
}

// agentSlots is an agent's wishes for its slots: the tree to run at the
// next entry of each ("" for the slot's default), and its pair (-1 when
// none or not looked up yet).
type agentSlots struct {
	want  []string
	wantP []int32
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
	p, err := g.pair(k, tree)
	if err != nil {
		return &Error{Agent: a.id, Err: ErrInvalidTree, Msg: err.Error()}
	}
	s := a.slotWants(g)
	s.want[k], s.wantP[k] = tree, p
	return nil
}

// Ungraft gives slot back its default tree (or none) from the next time it
// is entered.
func (a *Agent) Ungraft(slot string) error {
	g, k, err := a.slotNamed(slot)
	if err != nil {
		return err
	}
	s := a.slotWants(g)
	s.want[k], s.wantP[k] = "", -1
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

func (a *Agent) slotWants(g *slotTable) *agentSlots {
	x := a.extra()
	if x.slots == nil {
		x.slots = &agentSlots{want: make([]string, len(g.slots)), wantP: make([]int32, len(g.slots))}
		for k := range x.slots.wantP {
			x.slots.wantP[k] = -1
		}
	}
	return x.slots
}

// wanted is the pair slot k is to run at its next entry (-1: none).
func (a *Agent) wanted(g *slotTable, k int) (int32, error) {
	if s := a.ext; s != nil && s.slots != nil && s.slots.want[k] != "" {
		if p := s.slots.wantP[k]; p >= 0 {
			return p, nil
		}
		p, err := g.pair(k, s.slots.want[k]) // restored: looked up at its first use
		if err != nil {
			return -1, err
		}
		s.slots.wantP[k] = p
		return p, nil
	}
	return g.slots[k].defP, nil
}

// enterSlot is called when slot rule r is let in, or entered again for
// another attempt: the slot takes the tree wanted for it, and the agent
// moves to the view where it does (takeView).
func (a *Agent) enterSlot(r int32) error {
	b := a.bound
	g := b.graft
	k := slices.IndexFunc(g.slots, func(s slotDef) bool { return s.rule == r })
	p, err := a.wanted(g, k)
	if err != nil {
		return &Error{Agent: a.id, Label: b.Tree.Rules[r].Label, Err: ErrInvalidTree, Msg: err.Error()}
	}
	held := int32(-1)
	if b.view != nil {
		held = b.view.live[k]
	}
	if p == held {
		return nil
	}
	a.takeView(g.move(b, k, p), k)
	return nil
}

// takeView moves the agent to view to, where slot k runs another block:
// every index means what it meant (to is a view of the same universe or of
// a later one, which only adds blocks), so the agent's slab grows to to's
// length and its lanes to to's lane slots, and the words of the block k
// takes start afresh (nothing in it is active).
func (a *Agent) takeView(to *BoundTree, k int) {
	if n := to.slabLen; len(a.slab) < n {
		a.slab = append(a.slab, to.slabInit[len(a.slab):n]...)
	}
	if w := to.blocks[k].words; w[1] > w[0] {
		copy(a.slab[w[0]:w[1]], to.slabInit[w[0]:w[1]])
	}
	a.clearCustoms(to.blocks[k].start, to.blocks[k].end) // custom_step.go
	a.bound = to
	if a.ext == nil || a.ext.lanes == nil || to.lanes == nil {
		return
	}
	ls := a.ext.lanes
	for len(ls.lanes) < len(to.lanes.slots) {
		ls.lanes = append(ls.lanes, laneCtx{})
	}
	for len(ls.runs) < to.lanes.pars {
		ls.runs = append(ls.runs, idleRun)
	}
}
