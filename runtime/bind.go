package runtime

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// BindOptions tune binding.
type BindOptions struct {
	// Lenient is the config's strict = false: an unknown action fails and an
	// unknown condition is false at run time, as in Drag[en]gine, with one
	// warning per name in BoundTree.Warnings instead of a bind error.
	Lenient bool
	// Skip names actions and conditions (kind "action" or "condition") whose
	// definitions failed to load, such as the names a script with a syntax
	// error would register: binding leaves them unbound without an error or
	// warning, since the failure is reported on its own. Nil skips none.
	Skip func(kind, name string) bool
	// Trees finds the game's trees by name, for the trees the bound tree's
	// slots run (slots.go); nil: slots have no trees to run.
	Trees TreeSource
	// Translate maps the action names the tree's rules call to the names
	// bound instead (leaf translations: one tree serves several agent
	// kinds, each binding the tree's generic leaves to its own actions,
	// `[[agents]] translate = { Attack = "gruntAttack" }`). The tree itself
	// is not changed: each kind's BoundTree shares it. A target that is not
	// registered is a bind error at the rule naming both names. Nil
	// translates nothing.
	Translate map[string]string
}

func (o *BindOptions) skip(kind, name string) bool { return o.Skip != nil && o.Skip(kind, name) }

// BoundTree is a Tree with every name resolved: actions and conditions to
// values, variables, timestamps and signals to slots in the agent's state.
// Immutable after Bind and shared by every agent that runs the tree.
type BoundTree struct {
	Tree       *Tree
	Warnings   []*Error     // unknown names under Lenient binding, one per name
	Unresolved []Unresolved // the same names, as data

	rules     []boundRule
	conds     []boundCond
	signals   []boundSignal
	signalIdx map[string]int32
	stamps    []boundStamp
	// handlers are the signal handlers of the actions bound to rules, by
	// rule (handlers.go); nil for a tree whose actions have none.
	handlers []ruleHandler
	// machineSignals is set when a state machine of the tree has a
	// transition on a signal (machine.go): receiving a signal then looks
	// for the transitions of the machines the agent is in.
	machineSignals bool

	// Layout of an agent's slab: variable bit words, then timestamps (float64
	// bits, NaN when unset), then one "last seen" mark per signal slot, then
	// the signal sequence counter.
	varWords  int
	stampBase int
	// Typed variables (vars_agent.go): where each variable lives, the
	// slab words the numbers and vectors take after the booleans' words,
	// and the strings' defaults (nil when the tree has none).
	varPlace   []int32
	typedWords int
	strInit    []string
	signalBase int
	seqIndex   int
	slabLen    int
	slabInit   []uint64

	// feats is per rule what abort, timeout, cooldown, log parameters and
	// choice orders need (features.go); nil for a tree that uses none of
	// them. watch is set when the start-of-step checks have anything to
	// check.
	feats      []ruleFeat
	watch      bool
	featLabels map[string][]int32 // rules with a timeout, cooldown or order, and lanes' children, by label (restore)
	// snapRules are the rules whose feats a snapshot reads (a clock, a
	// cooldown, counts or a start bit), in order: a save of many agents
	// visits them alone, not every rule of the tree for each agent.
	snapRules []int32
	// lanes lays out the lanes of the tree's parallels (lanes.go); nil for
	// a tree without parallels.
	lanes *laneLayout
	// gated is set when rules take gates (gate_agent.go): the slab then
	// holds, from gateCount, one word per gate of Tree.Gates counting the
	// agent's active rules that hold it, and from holdBase one bit per rule
	// with a gate. gateCount is -1 otherwise. A hold bit (ruleFeat.holdBit)
	// is its slab word × 64 + its bit: holdBase is 0 (features.go).
	gated     bool
	gateCount int
	holdBase  int
	// startBase is 0: a start bit (ruleFeat.startBit; hooks.go: enter,
	// exit or log.start) is its slab word × 64 + its bit.
	startBase int
	// breaks are the first rules of the blocks of a tree composed for
	// slots (slots.go), where bindFeatures starts new words; breakWords
	// the slab length at each, then at the end.
	breaks, breakWords []int32

	// hot is the compact copy of the rules that the loops step
	// (step_hot.go).
	hot []hotRule
	// begins is set when a step has work before its cursor runs: the
	// gates' step (gated) or the checks at its start (watch) (beginStep).
	begins bool

	// declLen is the length of the slab's declarations part: variables,
	// timestamps, signal marks and the signal counter (layout).
	declLen int
	// graft is the table of the template's slots, shared by the template
	// and every tree composed of it (slots.go); nil for a tree without
	// slots. blocks says where each slot's tree is (empty in the
	// template); view is what a composed tree is a view of.
	graft  *slotTable
	blocks []slotBlock
	view   *slotView
}

// Unresolved is a name that Lenient binding left unbound.
type Unresolved struct {
	Kind  string // "action" or "condition"
	Name  string
	Pos   Pos // first use
	Label string
}

type boundRule struct {
	kind       Kind
	loop       bool
	doNotFail  bool
	mode       CondMode
	parent     int32
	firstChild int32
	next       int32
	condStart  int32
	condEnd    int32
	action     Action // nil: an unknown action under Lenient binding (fails)
	starter    Starter
	canceler   Canceler
	params     Params
}

type condKind uint8

const (
	condVar condKind = iota
	condStampSet
	condStampLess
	condStampMore
	condCall
	condUnknown // Lenient binding: always false
	condCmp     // a comparison of typed variables (vars_cmp.go)
)

type boundCond struct {
	kind    condKind
	negate  bool
	orNever bool    // condStampMore: true when the timestamp is unset
	slot    int32   // variable or timestamp slot
	limit   float64 // condStampLess / condStampMore: seconds
	cond    Condition
	src     *Cond
	// condCmp (vars_cmp.go): the operator, the variables' type, the
	// right side's place (-1: the constant limit or str), and the
	// variables compared (v2 -1 for a constant), which "why" names.
	cmp    CmpOp
	vtype  VarType
	slot2  int32
	str    string
	v1, v2 int32
}

type boundSignal struct {
	name    string
	sets    []SignalSet
	stamps  []int32
	expires float64 // seconds a stimulus of the signal is held (stimuli.go); 0: until replaced or forgotten
	// fromData: a line sets a variable from the signal's data (vars_agent.go:
	// checkSets), which delivery checks first.
	fromData bool
}

type boundStamp struct {
	exclusive []int32
}

// unsetStamp is the bit pattern of an unset timestamp: a quiet NaN.
var unsetStamp = math.Float64bits(math.NaN())

// Bind resolves every name of t against reg. It reports every problem it
// finds, as an ErrorList, not only the first.
func Bind(t *Tree, reg *Registry, opts BindOptions) (*BoundTree, error) {
	return bind(t, reg, opts, nil, nil)
}

// bind is Bind; a tree composed of a template with slots and the trees
// grafted into them (slots.go) is bound with the template's table g,
// which it shares, and the first rules of its blocks (breaks).
func bind(t *Tree, reg *Registry, opts BindOptions, g *slotTable, breaks []int32) (*BoundTree, error) {
	b := &BoundTree{Tree: t, signalIdx: make(map[string]int32, len(t.Signals)), gateCount: -1, breaks: breaks}
	for _, s := range t.Signals {
		b.signalIdx[s.Name] = int32(len(b.signals))
		b.signals = append(b.signals, boundSignal{name: s.Name, sets: s.Sets, stamps: s.Stamps, expires: s.Expires, fromData: setsFromData(s.Sets)})
	}
	for _, s := range t.Stamps {
		b.stamps = append(b.stamps, boundStamp{exclusive: s.Exclusive})
	}
	b.placeVars()
	var errs ErrorList
	warned := map[string]bool{}
	warn := func(kind, name string, pos Pos, label string) {
		key := kind + " " + name
		if warned[key] {
			return
		}
		warned[key] = true
		b.Unresolved = append(b.Unresolved, Unresolved{Kind: kind, Name: name, Pos: pos, Label: label})
		b.Warnings = append(b.Warnings, &Error{Pos: pos, Label: label, Err: ErrUnbound,
			Msg: fmt.Sprintf("unknown %s %q: it %s at run time (strict = false)", kind, name,
				map[string]string{"action": "fails", "condition": "is false", "scorer": "scores 0, so its child is not tried,", "rule": "fails"}[kind])})
	}
	add := func(err error) {
		if e, ok := err.(*Error); ok {
			errs = append(errs, e)
		} else if l, ok := err.(ErrorList); ok {
			errs = append(errs, l...)
		} else if err != nil {
			errs = append(errs, &Error{Msg: err.Error(), Err: err})
		}
	}

	b.rules = make([]boundRule, len(t.Rules))
	conds := 0
	for i := range t.Rules {
		conds += len(t.Rules[i].Conds)
	}
	b.conds = make([]boundCond, 0, conds)
	for i := range t.Rules {
		r := &t.Rules[i]
		br := &b.rules[i]
		kind := r.Kind
		if kind == KindSlot { // a sequence of its grafted tree's root; without one, it fails
			kind = KindSequence
			if r.FirstChild < 0 {
				kind = KindFailure
			}
		}
		*br = boundRule{kind: kind, loop: r.Loop, doNotFail: r.DoNotFail, mode: r.Mode,
			parent: r.Parent, firstChild: r.FirstChild, next: r.Next, params: r.Params}
		br.condStart = int32(len(b.conds))
		for ci := range r.Conds {
			c := &r.Conds[ci]
			bc, err := b.bindCondition(reg, int32(i), c)
			if err != nil {
				add(err)
				continue
			}
			if bc.kind == condUnknown {
				if opts.skip("condition", c.Name) {
					continue
				}
				if !opts.Lenient {
					add(&Error{Pos: c.Pos, Label: r.Label, Err: ErrUnbound, Msg: unknownMsg("condition", c.Name, b.conditionNames(reg))})
					continue
				}
				warn("condition", c.Name, c.Pos, r.Label)
			}
			b.conds = append(b.conds, bc)
		}
		br.condEnd = int32(len(b.conds))
		if r.Kind != KindAction {
			continue
		}
		name := r.Action
		if to, ok := opts.Translate[name]; ok {
			name = to
		}
		def, ok := reg.LookupAction(name)
		if !ok {
			if opts.skip("action", name) {
				continue
			}
			if !opts.Lenient {
				msg := unknownMsg("action", name, actionNames(reg))
				if name != r.Action {
					msg = fmt.Sprintf("action %q translates to %s", r.Action, msg)
				}
				add(&Error{Pos: r.Pos, Label: r.Label, Err: ErrUnbound, Msg: msg})
			} else {
				warn("action", name, r.Pos, r.Label)
			}
			continue
		}
		act := def.Action
		if def.Bind != nil {
			var err error
			act, err = def.Bind(&Site{Tree: t, Rule: int32(i), Name: name, Params: r.Params, Pos: r.Pos, bound: b})
			if err != nil {
				add(err)
				continue
			}
		}
		br.starter, _ = act.(Starter)
		br.canceler, _ = act.(Canceler)
		br.action = b.bindHandler(int32(i), act)
	}
	b.bindMachines()
	b.layout()
	b.bindFeatures(reg, opts, add, warn)
	b.bindHot()
	if len(errs) > 0 {
		return nil, errs
	}
	if g != nil {
		b.graft = g
	} else if hasSlots(t) {
		if _, err := newSlotTable(b, reg, opts); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func hasSlots(t *Tree) bool {
	for i := range t.Rules {
		if t.Rules[i].Kind == KindSlot {
			return true
		}
	}
	return false
}

// bindCondition resolves a condition name in this order: a declared
// variable, a timestamp, gate or signal condition, a built-in or registered
// one.
func (b *BoundTree) bindCondition(reg *Registry, rule int32, c *Cond) (boundCond, error) {
	t := b.Tree
	bc := boundCond{negate: c.Negate, src: c}
	if c.Cmp != nil {
		return bc, b.bindCompare(rule, c, &bc)
	}
	if v, ok := t.VarIndex(c.Name); ok {
		return bc, b.bindAlone(rule, c, v, &bc)
	}
	if dot := strings.LastIndexByte(c.Name, '.'); dot > 0 {
		if g, ok := t.GateIndex(c.Name[:dot]); ok {
			switch c.Name[dot+1:] {
			case "open", "full":
				bc.kind = condCall
				bc.cond = &gateCond{slot: g, full: c.Name[dot+1:] == "full"}
				return bc, nil
			}
		}
		if c.Name[dot+1:] == "held" {
			if s, ok := t.SignalIndex(c.Name[:dot]); ok {
				bc.kind = condCall
				bc.cond = &heldCond{slot: b.signalIdx[t.Signals[s].Name], expires: t.Signals[s].Expires}
				return bc, nil
			}
		}
		if s, ok := t.StampIndex(c.Name[:dot]); ok {
			bc.slot = s
			r := &t.Rules[rule]
			switch c.Name[dot+1:] {
			case "set":
				bc.kind = condStampSet
				return bc, nil
			case "lessThan", "moreThan":
				limit, err := secondsParam(r.Params, c.Name, true)
				if err != nil {
					return bc, &Error{Pos: c.Pos, Label: r.Label, Err: ErrUnbound, Msg: "timestamp condition " + strconv.Quote(c.Name) + ": " + err.Error()}
				}
				bc.limit = limit
				bc.kind = condStampLess
				if c.Name[dot+1:] == "moreThan" {
					bc.kind = condStampMore
					never, err := boolParam(r.Params, c.Name[:dot]+".orNeverSet", false)
					if err != nil {
						return bc, &Error{Pos: c.Pos, Label: r.Label, Err: ErrUnbound, Msg: "timestamp condition " + strconv.Quote(c.Name) + ": " + err.Error()}
					}
					bc.orNever = never
				}
				return bc, nil
			}
		}
	}
	def, ok := reg.LookupCondition(c.Name)
	if !ok {
		bc.kind = condUnknown
		return bc, nil
	}
	bc.kind = condCall
	bc.cond = def.Condition
	if def.Bind != nil {
		cond, err := def.Bind(&Site{Tree: t, Rule: rule, Name: c.Name, Params: t.Rules[rule].Params, Pos: c.Pos, bound: b})
		if err != nil {
			return bc, err
		}
		bc.cond = cond
	}
	return bc, nil
}

// signalSlot returns the slot of a signal name, adding an effect-free slot
// for a name no declaration mentions. Only called while binding.
func (b *BoundTree) signalSlot(name string) int32 {
	if i, ok := b.signalIdx[name]; ok {
		return i
	}
	i := int32(len(b.signals))
	b.signals = append(b.signals, boundSignal{name: name})
	b.signalIdx[name] = i
	return i
}

// layout fixes the shape of an agent's slab and its initial contents.
func (b *BoundTree) layout() {
	t := b.Tree
	b.varWords = (len(t.Vars) + 63) / 64
	b.stampBase = b.varWords + b.typedWords
	b.signalBase = b.stampBase + len(b.stamps)
	b.seqIndex = b.signalBase + len(b.signals)
	b.slabLen = b.seqIndex
	if len(b.signals) > 0 {
		b.slabLen++
	}
	b.declLen = b.slabLen
	b.slabInit = make([]uint64, b.slabLen)
	for i, v := range t.Vars {
		if v.Type == VarBoolean && v.Default {
			b.slabInit[i/64] |= 1 << (i % 64)
		}
	}
	for i := range b.stamps {
		b.slabInit[b.stampBase+i] = unsetStamp
	}
	b.initTypedVars(b.slabInit)
}

// SignalNames lists the signal slots: declared signals, then names that
// only bt.signal.wait or bt.signal.send rules mention.
func (b *BoundTree) SignalNames() []string {
	out := make([]string, len(b.signals))
	for i, s := range b.signals {
		out[i] = s.name
	}
	return out
}

func unknownMsg(kind, name string, known []string) string {
	msg := fmt.Sprintf("unknown %s %q: not a built-in, nor registered by a script or plugin", kind, name)
	switch kind {
	case "scorer":
		msg = fmt.Sprintf("unknown scorer %q (parameter %s): not registered by a script, a plugin or Go", name, ParamChoiceScore)
	case "hook":
		msg = fmt.Sprintf("unknown hook %q: not registered by a script (bt.hook) or from Go (Registry.RegisterHook)", name)
	case "condition":
		msg = fmt.Sprintf("unknown condition %q: not a declared variable, a timestamp condition (T.set, T.lessThan, T.moreThan), a gate condition (G.open, G.full), a signal condition (S.held), a built-in, nor registered by a script or plugin", name)
	}
	if s := suggest(name, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

func actionNames(reg *Registry) []string {
	out := make([]string, 0, len(reg.actions))
	for n := range reg.actions {
		out = append(out, n)
	}
	return out
}

func (b *BoundTree) conditionNames(reg *Registry) []string {
	out := make([]string, 0, len(reg.conditions)+len(b.Tree.Vars))
	for n := range reg.conditions {
		out = append(out, n)
	}
	for _, v := range b.Tree.Vars {
		out = append(out, v.Name)
	}
	for _, s := range b.Tree.Stamps {
		out = append(out, s.Name+".set", s.Name+".lessThan", s.Name+".moreThan")
	}
	for _, g := range b.Tree.Gates {
		out = append(out, g.Name+".open", g.Name+".full")
	}
	for _, s := range b.Tree.Signals {
		out = append(out, s.Name+".held")
	}
	return out
}

// suggest returns the known name closest to name, if it is close enough to
// be a likely typo.
func suggest(name string, known []string) string {
	best, bestD := "", len(name)/3+1
	for _, k := range known {
		if d := editDistance(name, k); d < bestD || (d == bestD && best != "" && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of two neighbours ("Alret" for
// "Alert") each cost 1.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// secondsParam reads a non-negative, finite number of seconds.
func secondsParam(p Params, name string, required bool) (float64, error) {
	s, ok := p.Get(name)
	if !ok {
		if required {
			return 0, fmt.Errorf("needs parameter %q (seconds)", name)
		}
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("parameter %q = %q is not a number of seconds (a finite number >= 0)", name, s)
	}
	return v, nil
}

// boolParam reads "true" or "false".
func boolParam(p Params, name string, def bool) (bool, error) {
	s, ok := p.Get(name)
	if !ok {
		return def, nil
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("parameter %q = %q is not a boolean (true or false)", name, s)
}

// stringParam reads a required, non-empty string parameter.
func stringParam(p Params, name string) (string, error) {
	s, ok := p.Get(name)
	if !ok || s == "" {
		return "", fmt.Errorf("needs parameter %q", name)
	}
	return s, nil
}
