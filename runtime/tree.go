package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of a rule.
type Kind uint8

const (
	KindAction Kind = iota + 1
	KindSequence
	KindChoice
	KindSuccess
	KindFailure
	KindRunning
	KindYield
	KindParallel
	// KindSlot is a <slot>: it runs the tree grafted into it for the agent
	// (slots.go), as the root of its only child; a tree's own template has
	// no child under it.
	KindSlot
)

// KindStateMachine is a <stateMachine> (machine.go): its children are its
// states' rules, one per state in document order; Rule.Machine says where
// its states and transitions are. Its value is fixed so that branches
// adding kinds do not collide.
const KindStateMachine Kind = 10

// KindCustom is a rule whose tag a Go program registered (custom.go): a
// composite or decorator that decides itself which of its children runs.
// Kinds get explicit values from here on, so that kinds added apart do not
// collide.
const KindCustom Kind = 11

var kindNames = [...]string{"", "action", "sequence", "choice", "success", "failure", "running", "yield", "parallel", "slot", "stateMachine", KindCustom: "custom"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// IsList reports whether rules of this kind have children: sequences,
// choices, parallels, state machines and custom rules.
func (k Kind) IsList() bool {
	return k == KindSequence || k == KindChoice || k == KindParallel || k == KindStateMachine || k == KindCustom
}

// CondMode says how a rule's conditions combine.
type CondMode uint8

const (
	AllTrue  CondMode = iota // no condition is false (the default)
	AnyTrue                  // at least one condition is true
	AnyFalse                 // at least one condition is false
	AllFalse                 // no condition is true
)

var condModeNames = [...]string{"allTrue", "anyTrue", "anyFalse", "allFalse"}

func (m CondMode) String() string {
	if int(m) < len(condModeNames) {
		return condModeNames[m]
	}
	return fmt.Sprintf("CondMode(%d)", m)
}

// ParseCondMode parses the text of a <conditionMode> element.
func ParseCondMode(s string) (CondMode, bool) {
	for i, n := range condModeNames {
		if n == s {
			return CondMode(i), true
		}
	}
	return 0, false
}

// Abort says which of a rule's conditions are watched while the tree runs
// elsewhere (the rule's abort attribute).
type Abort uint8

const (
	AbortNone  Abort = iota // nothing is watched (the default)
	AbortSelf               // while the rule is active below it, failing conditions abort it
	AbortLower              // a child of a choice: passing conditions preempt the choice's later children
	AbortBoth               // self and lower
)

var abortNames = [...]string{"none", "self", "lower", "both"}

func (m Abort) String() string {
	if int(m) < len(abortNames) {
		return abortNames[m]
	}
	return fmt.Sprintf("Abort(%d)", m)
}

// ParseAbort parses the value of an abort attribute.
func ParseAbort(s string) (Abort, bool) {
	for i, n := range abortNames {
		if n == s {
			return Abort(i), true
		}
	}
	return 0, false
}

// WatchesSelf reports whether the rule's own activity is watched (self, both).
func (m Abort) WatchesSelf() bool { return m == AbortSelf || m == AbortBoth }

// WatchesLower reports whether the rule may preempt its later siblings in a
// choice (lower, both).
func (m Abort) WatchesLower() bool { return m == AbortLower || m == AbortBoth }

// Order is the order in which a choice tries its children (its order
// attribute).
type Order uint8

const (
	OrderList     Order = iota // document order (the default)
	OrderRandom                // a uniformly random permutation, drawn on entering
	OrderWeighted              // weighted random without replacement (parameter choice.weight)
	OrderScore                 // by score, highest first (parameter choice.score)
)

var orderNames = [...]string{"list", "random", "weighted", "score"}

func (o Order) String() string {
	if int(o) < len(orderNames) {
		return orderNames[o]
	}
	return fmt.Sprintf("Order(%d)", o)
}

// ParseOrder parses the value of a choice's order attribute.
func ParseOrder(s string) (Order, bool) {
	for i, n := range orderNames {
		if n == s {
			return Order(i), true
		}
	}
	return 0, false
}

// Threshold is a parallel's success or failure attribute: how many of its
// lanes must be done with that result for the parallel to finish with it.
type Threshold int32

const (
	ThresholdAll Threshold = 0  // every lane (the number of children)
	ThresholdAny Threshold = -1 // one lane
)

// Count is the number of lanes the threshold asks for, of a parallel with
// n children.
func (t Threshold) Count(n int) int {
	switch t {
	case ThresholdAll:
		return n
	case ThresholdAny:
		return 1
	}
	return int(t)
}

func (t Threshold) String() string {
	switch t {
	case ThresholdAll:
		return "all"
	case ThresholdAny:
		return "any"
	}
	return strconv.Itoa(int(t))
}

// ParseThreshold parses the value of a parallel's success or failure
// attribute: all, any, or a count N >= 1 in decimal digits (spaces around
// it are allowed, as in other number attributes).
func ParseThreshold(s string) (Threshold, bool) {
	s = strings.Trim(s, xmlSpace)
	switch s {
	case "all":
		return ThresholdAll, true
	case "any":
		return ThresholdAny, true
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		if n = n*10 + int(s[i]-'0'); n > maxThreshold {
			return 0, false
		}
	}
	if n < 1 {
		return 0, false
	}
	return Threshold(n), true
}

// maxThreshold bounds a count: no parallel has more children.
const maxThreshold = maxRules

// The parameters the runtime itself reads from rules.
const (
	ParamLogStart     = "log.start"     // written to the agent's log when the rule becomes active
	ParamLogSuccess   = "log.success"   // ... when it finishes with success
	ParamLogFailure   = "log.failure"   // ... when it finishes with failure (aborted included)
	ParamChoiceWeight = "choice.weight" // a child's weight in a weighted choice (default 1)
	ParamChoiceScore  = "choice.score"  // a child's score in a score choice: a number or a scorer's name
)

// Cond is one <condition> of a rule: a name, negated by a leading "!".
type Cond struct {
	Name   string // without the "!"; a comparison's text, normalized (vars_cmp.go)
	Negate bool
	Pos    Pos
	Cmp    *Compare // a comparison (Ammo < 3); nil for a condition name
}

// Rule is one node of a tree. Rules live in Tree.Rules in document order
// (pre-order) and refer to each other by index.
type Rule struct {
	Kind       Kind
	Tag        string // the tag as written: "action", "subtree", "subTree", ...
	ID         string // full id after the prefix rules; "" when the rule has none
	Label      string // ID if set, else TAG@FILE:LINE:COL
	Pos        Pos    // position of the start tag
	Action     string // KindAction: the action name
	Subtree    string // subtree rules: the file's path as written
	Default    string // KindSlot: the tree it runs when nothing is grafted; "" when none
	Loop       bool
	DoNotFail  bool
	Abort      Abort     // the abort attribute: which conditions are watched
	Order      Order     // KindChoice: the order attribute
	SuccessAt  Threshold // KindParallel: lanes done with success that make it succeed (default all)
	FailureAt  Threshold // KindParallel: lanes done with failure that make it fail (default any)
	Machine    int32     // KindStateMachine: its index into Tree.Machines (in the padding after FailureAt)
	Timeout    float64   // seconds the rule may stay active; 0 when none
	Cooldown   float64   // seconds after the rule was left during which it refuses arrivals; 0 when none
	Gate       string    // the gate the rule takes when the cursor arrives at it; "" when none
	Repeat     int32     // sequence, choice, subtree: passes that must succeed before it succeeds; 0 when none
	Attempts   int32     // failures it may have since it became active before one is reported; 0 when none
	Enter      string    // the hook run when the rule starts; "" when none
	Exit       string    // the hook run when a rule that started is left; "" when none
	Conds      []Cond
	Mode       CondMode
	Params     Params
	Parent     int32 // -1 for the root
	FirstChild int32 // -1 when the rule has no children
	Next       int32 // next sibling, -1 for the last child
	Depth      int32 // 0 for the root
}

// VarDecl declares a variable (vars.go): a boolean, whose default is
// Default, or a number, string or vector, whose default is Init.
type VarDecl struct {
	Name    string
	Default bool
	Type    VarType
	Init    VarValue // the default of a typed variable (Type is not VarBoolean)
	Pos     Pos
}

// DefaultValue is the variable's default, of its type.
func (v VarDecl) DefaultValue() VarValue {
	if v.Type == VarBoolean {
		return BoolVar(v.Default)
	}
	return v.Init
}

// SignalSet is one <signal> line's effect: receiving the signal sets the
// variable at index Var (into Tree.Vars) to Value.
type SignalSet struct {
	Var   int32
	Value bool
	// A typed variable (vars.go) is set to Typed (value=), or, when From
	// is not nil, to the value at that path in the signal's data
	// (from="hp": a path of keys, an all-digit key an index from 1).
	Typed VarValue
	From  []string
	Pos   Pos
}

// SignalDecl is everything the tree's declarations say about one signal name.
type SignalDecl struct {
	Name   string
	Pos    Pos         // first line that names the signal
	Sets   []SignalSet // variables the signal sets, in declaration order
	Stamps []int32     // timestamps (indices into Tree.Stamps) whose setOnSignal is this signal
	// Expires is how long an agent holds the signal's stimulus, in seconds
	// (expires="S" on a <signal> line); 0 when no line says: until the
	// signal arrives again or the agent forgets it.
	Expires    float64
	ExpiresPos Pos // the line that gave expires
}

// StampDecl declares a timestamp.
type StampDecl struct {
	Name        string
	SetOnSignal string  // "" when none
	ExclusiveTo string  // "" when none
	Exclusive   []int32 // timestamps cleared when this one is set (exclusiveTo is symmetric)
	Pos         Pos
}

// GateDecl declares a gate (gates.go): a limit shared by the agents of a
// game that run trees declaring it.
type GateDecl struct {
	Name     string
	Users    int     // how many agents may hold it at once (>= 1)
	Cooldown float64 // seconds after a release during which nobody may take it (>= 0)
	Pos      Pos
}

// Tree is a loaded behavior tree: immutable once loaded and shared by every
// agent that runs it. All fields are read-only.
type Tree struct {
	File        string // display path of the main file
	Files       []string
	Rules       []Rule // Rules[0] is the root
	Vars        []VarDecl
	Signals     []SignalDecl
	Stamps      []StampDecl
	Gates       []GateDecl
	Machines    []Machine // the stateMachine rules' states, in document order
	Fingerprint string    // hex SHA-256 over the loaded files' paths and bytes

	ids  map[string]int32
	vars map[string]int32
	// A tree composed for an agent's slots (slots.go) holds blocks of the
	// trees its slots do not run: rules nothing reaches, by range. shape
	// says how its rules are laid out, for RuleMap's shortcut.
	unreachedBlocks [][2]int32
	shape           string
	signals         map[string]int32
	stamps          map[string]int32
	gates           map[string]int32
}

// Root is the index of the root rule.
const Root int32 = 0

// RuleIndex returns the index of the rule with the given full id.
func (t *Tree) RuleIndex(id string) (int32, bool) {
	i, ok := t.ids[id]
	return i, ok
}

// VarIndex returns the index of a declared variable.
func (t *Tree) VarIndex(name string) (int32, bool) {
	i, ok := t.vars[name]
	return i, ok
}

// SignalIndex returns the index of a declared signal.
func (t *Tree) SignalIndex(name string) (int32, bool) {
	i, ok := t.signals[name]
	return i, ok
}

// StampIndex returns the index of a declared timestamp.
func (t *Tree) StampIndex(name string) (int32, bool) {
	i, ok := t.stamps[name]
	return i, ok
}

// GateIndex returns the index of a declared gate.
func (t *Tree) GateIndex(name string) (int32, bool) {
	i, ok := t.gates[name]
	return i, ok
}

// Children returns the indices of rule i's children, in order.
func (t *Tree) Children(i int32) []int32 {
	var out []int32
	for c := t.Rules[i].FirstChild; c >= 0; c = t.Rules[c].Next {
		out = append(out, c)
	}
	return out
}

// index builds the declarations' name maps; the loader calls it once the
// slices are final. (The loader's own map of the rules' ids, which finds
// duplicates, becomes t.ids.)
func (t *Tree) index() {
	t.vars = make(map[string]int32, len(t.Vars))
	for i, v := range t.Vars {
		t.vars[v.Name] = int32(i)
	}
	t.signals = make(map[string]int32, len(t.Signals))
	for i, s := range t.Signals {
		t.signals[s.Name] = int32(i)
	}
	t.stamps = make(map[string]int32, len(t.Stamps))
	for i, s := range t.Stamps {
		t.stamps[s.Name] = int32(i)
	}
	t.gates = make(map[string]int32, len(t.Gates))
	for i, g := range t.Gates {
		t.gates[g.Name] = int32(i)
	}
}

// unreached reports whether rule i is in a block of a tree that none of
// the slots of this composed tree runs (slots.go).
func (t *Tree) unreached(i int32) bool {
	for _, bl := range t.unreachedBlocks {
		if i >= bl[0] && i < bl[1] {
			return true
		}
	}
	return false
}
