package treegen

import (
	"fmt"
	"strconv"
	"strings"
)

// Random trees, for the fuzz target and the seeded long run that hold
// btrun's stepping loops to each other: every rule kind, condition modes and
// negation, doNotFail, loop, repeat, attempts, enter and exit hooks, abort,
// state machines with transitions on results and signals,
// timeout, cooldown, log parameters, the
// choice orders with weights and scorers, parallels with their thresholds,
// gates and bt.gate.wait, signals (their stimuli, S.held, actions with
// signal handlers), custom composites and decorators, small run-away
// limits. What the tree calls is
// named by the exported names below: a test registers them with whatever
// behaviour it wants (results, jumps, pauses, errors).
//
// The tree is read from data, one decision per byte (a byte past the end
// reads as 0), so that a fuzzer's mutations change the tree a little at a
// time and any byte string gives a valid tree: every tree Random returns
// loads and binds with those names registered.

// The names a random tree calls.
const (
	// RandAct is an action with Start and Cancel hooks; RandFunc an action
	// with neither (a plain function); RandRemote one whose calls a test
	// answers later (a plugin's).
	RandAct    = "act"
	RandFunc   = "fn"
	RandRemote = "remote"
	// RandCond is a condition; RandRemoteCond one answered later.
	RandCond       = "c"
	RandRemoteCond = "cq"
	// RandScorer is a scorer; RandRemoteScorer one answered later.
	RandScorer       = "s"
	RandRemoteScorer = "sq"
	// RandHook is an enter and exit hook.
	RandHook = "hk"
	// RandHandled is an action with Start and Cancel hooks and handlers
	// for the signals a tree declares (RandomTree.Signals).
	RandHandled = "hd"
	// RandComposite and RandDecorator are the tags of a custom composite
	// and a custom decorator (one child) that a test registers
	// (runtime.RuleDef) and loads with (LoadOptions.Rules).
	RandComposite = "xpick"
	RandDecorator = "xdeco"
)

// RandVars is the number of boolean variables a random tree declares:
// V0, V1, ...
const RandVars = 3

// RandomTree is a random tree and the setting of a game to step it in.
type RandomTree struct {
	XML    []byte
	IDs    []string // every rule's id, in document order (every rule has one)
	Gates  int      // gates declared: g0, g1, ...
	Agents int      // agents to step together (1 to 3), sharing the gates
	Limit  int      // the run-away limit
	Steps  int      // steps to run
	// Signals declared: S0, S1, ... The test's actions may send them
	// (to the agent itself, to others, to all), and their cancels too; 0:
	// the tree uses no signal, and nothing sends any.
	Signals int
	// Typed: the tree declares number and string variables, compares and
	// sets them (RandNumbers).
	Typed bool
}

// randGen reads decisions from data.
type randGen struct {
	// plain: the tree uses none of the features beyond Drag[en]gine's
	// stepping (no abort, timeout, cooldown, gate, log parameter, order
	// or parallel), as most trees do.
	plain bool
	data  []byte
	i     int
	b     strings.Builder
	ids   []string
	gates []randGate
	rules int
	// vocab: the tree may use repeat, attempts and hooks; decided, like
	// each use, from a second stream that reads data from its end (vbyte),
	// so that the decisions above draw the same bytes as before these were
	// added.
	vocab bool
	vi    int
	// signals: the signals declared; decided, like each use, from a
	// third stream that reads data from its middle (sbyte), so that the
	// two above draw the same bytes as before signals were added.
	signals int
	si      int
	// custom: the tree may use custom rules; decided, like each use, from
	// a fourth stream that reads data from its first quarter on (cbyte),
	// so that the three above draw the same bytes as before.
	custom bool
	ci     int

	// typed: the tree declares number and string variables (RandNumbers,
	// T0), compares them in conditions and sets them with bt.variable.set;
	// decided, like each use, from a fourth stream that reads data from
	// its first third on (tbyte), so that the three above draw the same
	// bytes as before typed variables were added.
	typed bool
	ti    int
}

type randGate struct{ users int }

const maxRandRules = 40

func (g *randGen) byte() byte {
	if g.i >= len(g.data) {
		return 0
	}
	b := g.data[g.i]
	g.i++
	return b
}

// vbyte is the next byte of the vocabulary's stream, from data's end.
func (g *randGen) vbyte() byte {
	if g.vi >= len(g.data) {
		return 0
	}
	g.vi++
	return g.data[len(g.data)-g.vi]
}

// sbyte is the next byte of the signals' stream, from data's middle on,
// around.
func (g *randGen) sbyte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[(len(g.data)/2+g.si)%len(g.data)]
	g.si++
	return b
}

// cbyte is the next byte of the custom rules' stream, from data's first
// quarter on, around.
func (g *randGen) cbyte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[(len(g.data)/4+g.ci)%len(g.data)]
	g.ci++
	return b
}

// cn is n for the custom rules' stream.
func (g *randGen) cn(n int) int { return int(g.cbyte()) % n }

// tbyte is the next byte of the typed variables' stream, from data's
// first third on, around.
func (g *randGen) tbyte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[(len(g.data)/3+g.ti)%len(g.data)]
	g.ti++
	return b
}

// tn is n for the typed variables' stream.
func (g *randGen) tn(n int) int { return int(g.tbyte()) % n }

// sn is n for the signals' stream.
func (g *randGen) sn(n int) int { return int(g.sbyte()) % n }

// vn is n for the vocabulary's stream.
func (g *randGen) vn(n int) int { return int(g.vbyte()) % n }

// n returns a decision below n.
func (g *randGen) n(n int) int { return int(g.byte()) % n }

// chance reports a decision that holds k times in 16.
func (g *randGen) chance(k int) bool { return g.n(16) < k }

// quarter returns a time of q quarter seconds, 1 <= q <= max.
func (g *randGen) quarter(max int) string {
	return strconv.FormatFloat(float64(1+g.n(max))*0.25, 'f', -1, 64)
}

// Random returns the tree data describes.
func Random(data []byte) RandomTree {
	g := &randGen{data: data}
	t := RandomTree{Agents: 1 + g.n(3), Limit: 2 + g.n(40), Steps: 10 + g.n(40)}
	g.plain = g.chance(6)
	g.vocab = !g.plain && g.vn(4) != 0
	g.custom = !g.plain && g.cn(3) != 0
	for range g.n(3) {
		g.gates = append(g.gates, randGate{users: 1 + g.n(2)})
	}
	t.Gates = len(g.gates)
	g.b.WriteString("<behaviorTree>\n")
	if !g.plain && g.sn(2) == 0 {
		// First, so that the declarations stay before the variables' and
		// gates' end (a slotted test cuts the tree there).
		g.signals = 1 + g.sn(3)
		g.b.WriteString("<signals>")
		for k := range g.signals {
			attrs := ""
			if g.sn(3) == 0 {
				attrs += fmt.Sprintf(` variable="V%d" value="%t"`, g.sn(RandVars), g.sn(2) == 0)
			}
			if g.sn(3) == 0 {
				attrs += ` expires="` + strconv.FormatFloat(float64(1+g.sn(8))*0.25, 'f', -1, 64) + `"`
			}
			fmt.Fprintf(&g.b, `<signal name="S%d"%s/>`, k, attrs)
		}
		g.b.WriteString("</signals>\n")
	}
	t.Signals = g.signals
	g.typed = !g.plain && g.tn(2) == 0
	t.Typed = g.typed
	g.b.WriteString("<variables>")
	for v := range RandVars {
		fmt.Fprintf(&g.b, `<variable name="V%d"%s/>`, v, map[bool]string{true: ` default="true"`}[v == 0])
	}
	if g.typed {
		for v := range RandNumbers {
			fmt.Fprintf(&g.b, `<variable name="N%d" type="number" default="%d"/>`, v, g.tn(4)-1)
		}
		g.b.WriteString(`<variable name="T0" type="string" default="a"/>`)
	}
	g.b.WriteString("</variables>\n")
	if len(g.gates) > 0 {
		g.b.WriteString("<gates>")
		for k, gt := range g.gates {
			cool := ""
			if g.chance(6) {
				cool = ` cooldown="` + g.quarter(4) + `"`
			}
			fmt.Fprintf(&g.b, `<gate name="g%d" users="%d"%s/>`, k, gt.users, cool)
		}
		g.b.WriteString("</gates>\n")
	}
	g.rule(0, "", "")
	g.b.WriteString("</behaviorTree>\n")
	t.XML = []byte(g.b.String())
	t.IDs = g.ids
	return t
}

// rule writes one rule at depth; parent is its parent's tag ("" for the
// root) and order its parent's order (a choice's), which decide what the
// rule may carry.
func (g *randGen) rule(depth int, parent, order string) {
	id := "r" + strconv.Itoa(len(g.ids))
	g.ids = append(g.ids, id)
	g.rules++
	kinds := []string{"action", "action", "action", "sequence", "choice", "choice", "parallel", "success", "failure", "running", "yield"}
	kind := kinds[g.n(len(kinds))]
	if g.plain && kind == "parallel" {
		kind = "choice"
	}
	if depth >= 4 || g.rules >= maxRandRules {
		kind = []string{"action", "success", "failure", "running", "yield"}[g.n(5)]
	}
	custom := "" // a custom rule's tag, in place of a sequence or a choice
	if g.custom && (kind == "sequence" || kind == "choice") && g.cn(2) == 0 {
		custom = []string{RandComposite, RandDecorator}[g.cn(2)]
	}
	// Some sequences become state machines, decided from the streams of
	// the signals (whose transitions they take) and of the vocabulary, so
	// that the first stream draws what it drew before they were added.
	if kind == "sequence" && custom == "" && !g.plain && (g.signals > 0 && g.sn(2) == 0 || g.vocab && g.vn(3) == 0) {
		kind = "stateMachine"
	}
	var attrs, body strings.Builder
	fmt.Fprintf(&attrs, ` id="%s"`, id)
	isList := kind == "sequence" || kind == "choice" || kind == "parallel" || kind == "stateMachine"
	if (isList || kind == "action") && g.chance(3) {
		attrs.WriteString(` doNotFail="true"`)
	}
	if (kind == "sequence" || kind == "choice") && g.chance(3) && custom == "" {
		attrs.WriteString(` loop="true"`)
	}
	// Conditions and their mode.
	conds := 0
	if kind != "failure" && g.chance(7) {
		conds = 1 + g.n(3)
	}
	if g.plain && (kind == "choice" || conds > 1 && g.chance(8)) {
		conds = g.n(2) // plain trees: mostly choices without conditions, leaves with one
	}
	for range conds {
		neg := ""
		if g.chance(5) {
			neg = "!"
		}
		var name string
		switch c := g.n(8); {
		case c < 3:
			name = "V" + strconv.Itoa(g.n(RandVars))
		case c < 5:
			name = RandCond
		case c < 6:
			name = RandRemoteCond
		case len(g.gates) > 0:
			name = fmt.Sprintf("g%d.%s", g.n(len(g.gates)), []string{"open", "full"}[g.n(2)])
		default:
			name = RandCond
		}
		if g.signals > 0 && g.sn(4) == 0 {
			name = fmt.Sprintf("S%d.held", g.sn(g.signals))
		}
		if g.typed && g.tn(3) == 0 {
			name = g.comparison()
		}
		fmt.Fprintf(&body, "<condition>%s%s</condition>", neg, name)
	}
	if conds > 0 && g.chance(8) {
		fmt.Fprintf(&body, "<conditionMode>%s</conditionMode>", []string{"allTrue", "anyTrue", "anyFalse", "allFalse"}[g.n(4)])
	}
	// Interruption and time.
	if g.plain {
		// none
	} else if conds > 0 && g.chance(6) {
		modes := []string{"self"}
		if parent == "choice" {
			modes = append(modes, "lower", "both")
		}
		fmt.Fprintf(&attrs, ` abort="%s"`, modes[g.n(len(modes))])
	}
	if !g.plain && g.chance(2) {
		fmt.Fprintf(&attrs, ` timeout="%s"`, g.quarter(8))
	}
	if !g.plain && g.chance(2) {
		fmt.Fprintf(&attrs, ` cooldown="%s"`, g.quarter(6))
	}
	if !g.plain && len(g.gates) > 0 && g.chance(3) {
		fmt.Fprintf(&attrs, ` gate="g%d"`, g.n(len(g.gates)))
	}
	if !g.plain && g.chance(1) {
		for _, p := range []string{"log.start", "log.success", "log.failure"} {
			fmt.Fprintf(&body, `<parameter name="%s">%s %s</parameter>`, p, id, p[4:])
		}
	}
	// Counted passes, retries, hooks.
	if g.vocab {
		if (kind == "sequence" || kind == "choice") && !strings.Contains(attrs.String(), "loop") && g.vn(4) == 0 {
			fmt.Fprintf(&attrs, ` repeat="%d"`, 1+g.vn(3))
		}
		if g.vn(5) == 0 {
			fmt.Fprintf(&attrs, ` attempts="%d"`, 1+g.vn(3))
		}
		if g.vn(4) == 0 {
			fmt.Fprintf(&attrs, ` enter="%s"`, RandHook)
		}
		if g.vn(3) == 0 {
			fmt.Fprintf(&attrs, ` exit="%s"`, RandHook)
		}
	}
	// What its parent's order reads.
	switch order {
	case "weighted":
		if g.chance(12) {
			fmt.Fprintf(&body, `<parameter name="choice.weight">%d</parameter>`, g.n(4))
		}
	case "score":
		switch g.n(4) {
		case 0:
			fmt.Fprintf(&body, `<parameter name="choice.score">%d</parameter>`, g.n(4)-1)
		case 1:
			fmt.Fprintf(&body, `<parameter name="choice.score">%s</parameter>`, RandScorer)
		case 2:
			fmt.Fprintf(&body, `<parameter name="choice.score">%s</parameter>`, RandRemoteScorer)
		}
	}
	tag := kind
	childOrder := ""
	switch kind {
	case "action":
		names := []string{RandAct, RandAct, RandFunc, RandFunc, RandRemote, "bt.gate.wait"}
		if g.plain {
			names = []string{RandFunc, RandFunc, RandFunc, RandAct, RandRemote}
		}
		name := names[g.n(len(names))]
		if g.signals > 0 && g.sn(2) == 0 {
			name = RandHandled
		}
		if g.typed && g.tn(4) == 0 {
			name = "bt.variable.set"
			g.variableSet(&body)
		}
		if name == "bt.gate.wait" {
			if len(g.gates) == 0 {
				name = RandFunc
			} else {
				k := g.n(len(g.gates))
				fmt.Fprintf(&body, `<parameter name="gate.name">g%d</parameter>`, k)
				if g.gates[k].users > 1 && g.chance(8) {
					fmt.Fprintf(&body, `<parameter name="gate.users">%d</parameter>`, 1+g.n(g.gates[k].users))
				}
			}
		}
		fmt.Fprintf(&attrs, ` name="%s"`, name)
	case "choice":
		if !g.plain && g.chance(6) && custom == "" {
			childOrder = []string{"random", "weighted", "score"}[g.n(3)]
			fmt.Fprintf(&attrs, ` order="%s"`, childOrder)
		}
	}
	if !isList {
		fmt.Fprintf(&g.b, "<%s%s>%s</%s>\n", tag, attrs.String(), body.String(), tag)
		return
	}
	n := 1 + g.n(4)
	if kind == "stateMachine" {
		g.machine(depth, n, attrs.String(), body.String())
		return
	}
	if kind != "parallel" && g.chance(1) && custom == "" {
		n = 0 // a list without children fails
	}
	if custom == RandDecorator {
		n = 1
	}
	if custom != "" {
		tag, kind = custom, custom
	}
	if kind == "parallel" {
		th := func() string {
			switch g.n(4) {
			case 0:
				return "all"
			case 1:
				return "any"
			}
			return strconv.Itoa(1 + g.n(n))
		}
		fmt.Fprintf(&attrs, ` success="%s" failure="%s"`, th(), th())
	}
	fmt.Fprintf(&g.b, "<%s%s>%s\n", tag, attrs.String(), body.String())
	for range n {
		g.rule(depth+1, kind, childOrder)
	}
	fmt.Fprintf(&g.b, "</%s>\n", tag)
}

// RandNumbers is the number of number variables a typed random tree
// declares: N0, N1, ...
const RandNumbers = 2

// comparison writes a comparison of the typed variables (escaped for XML):
// every operator, a number alone, a constant on either side, two
// variables, a string.
func (g *randGen) comparison() string {
	ops := []string{"&lt;", "&lt;=", "&gt;", "&gt;=", "==", "!="}
	n := fmt.Sprintf("N%d", g.tn(RandNumbers))
	switch g.tn(6) {
	case 0:
		return n
	case 1:
		return fmt.Sprintf("%d %s %s", g.tn(5)-2, ops[g.tn(6)], n)
	case 2:
		return fmt.Sprintf("N0 %s N1", ops[g.tn(6)])
	case 3:
		return fmt.Sprintf(`T0 %s "%s"`, []string{"==", "!="}[g.tn(2)], []string{"a", "b"}[g.tn(2)])
	}
	return fmt.Sprintf("%s%s%s", n, ops[g.tn(6)], []string{"-1", "0", "0.5", "1", "2"}[g.tn(5)])
}

// variableSet writes the parameters of a bt.variable.set of a typed
// variable: a number set or added to, or the string set.
func (g *randGen) variableSet(body *strings.Builder) {
	switch g.tn(3) {
	case 0:
		fmt.Fprintf(body, `<parameter name="variable.name">N%d</parameter><parameter name="variable.add">%d</parameter>`, g.tn(RandNumbers), g.tn(5)-2)
	case 1:
		fmt.Fprintf(body, `<parameter name="variable.name">N%d</parameter><parameter name="variable.value">%d</parameter>`, g.tn(RandNumbers), g.tn(5)-2)
	default:
		fmt.Fprintf(body, `<parameter name="variable.name">T0</parameter><parameter name="variable.value">%s</parameter>`, []string{"a", "b"}[g.tn(2)])
	}
}

// machine writes a state machine of n states, each with a few transitions
// on results and on the declared signals (to any of its states, its own
// included), each holding one random rule.
func (g *randGen) machine(depth, n int, attrs, body string) {
	if g.vn(3) == 0 {
		attrs += fmt.Sprintf(` initial="S%d"`, g.vn(n))
	}
	fmt.Fprintf(&g.b, "<stateMachine%s>%s\n", attrs, body)
	for k := range n {
		fmt.Fprintf(&g.b, `<state name="S%d">`, k)
		for range g.vn(4) {
			if g.signals > 0 && g.sn(2) == 0 {
				fmt.Fprintf(&g.b, `<transition signal="S%d" to="S%d"/>`, g.sn(g.signals), g.sn(n))
			} else {
				fmt.Fprintf(&g.b, `<transition result="%s" to="S%d"/>`, []string{"success", "failure"}[g.vn(2)], g.vn(n))
			}
		}
		g.b.WriteString("\n")
		g.rule(depth+1, "state", "")
		g.b.WriteString("</state>\n")
	}
	g.b.WriteString("</stateMachine>\n")
}
