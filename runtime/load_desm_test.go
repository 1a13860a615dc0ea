package runtime

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Drag[en]gine state machine files (load_desm.go): each rule of the
// engine's event processing, shown by what the actions see.

// desmHarness runs a state machine document whose actions are all "act"-
// like: every registered name logs itself with its parameter p, and runs
// for as many steps as its parameter steps says (1 when absent).
type desmHarness struct {
	t     *testing.T
	reg   *Registry
	tree  *BoundTree
	agent *Agent
	log   []string
	conds map[string]bool
	ran   map[string]int // action name+p -> Run calls since it started
}

var desmActions = []string{"a", "b", "c", "x", "y", "t", "e", "f", "long"}

func newDesmHarness(t *testing.T, doc string, files map[string]string, conds map[string]bool) *desmHarness {
	t.Helper()
	h := &desmHarness{t: t, reg: NewRegistry(), conds: map[string]bool{}, ran: map[string]int{}}
	for k, v := range conds {
		h.conds[k] = v
		name := k
		if err := h.reg.RegisterCondition(name, ConditionFunc(func(a *Agent, p Params) (bool, error) {
			return h.conds[name], nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range desmActions {
		name := name
		key := func(p Params) string {
			if v, ok := p.Get("p"); ok {
				return name + "(" + v + ")"
			}
			return name
		}
		if err := h.reg.RegisterAction(name, &Lifecycle{
			OnStart: func(a *Agent, p Params) error { h.ran[key(p)] = 0; return nil },
			OnRun: func(a *Agent, p Params) (Status, error) {
				k := key(p)
				h.log = append(h.log, k)
				h.ran[k]++
				n := 1
				if s, ok := p.Get("steps"); ok {
					n, _ = strconv.Atoi(s)
				}
				if h.ran[k] < n {
					return Running, nil
				}
				return Success, nil
			},
			OnCancel: func(a *Agent, p Params) error { h.log = append(h.log, key(p)+":cancel"); return nil },
		}); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]string{"main.xml": doc}
	for k, v := range files {
		all[k] = v
	}
	tree, err := LoadFile("main.xml", LoadOptions{ReadFile: memFiles(all)})
	if err != nil {
		t.Fatal(err)
	}
	if h.tree, err = Bind(tree, h.reg, BindOptions{}); err != nil {
		t.Fatal(err)
	}
	h.agent = h.tree.NewAgent("a1", &Env{})
	return h
}

// state is the machine's current state (the root machine's), or "-".
func (h *desmHarness) state() string {
	k, ok := h.agent.CurrentState(Root)
	if !ok {
		return "-"
	}
	m, _ := h.tree.Tree.MachineOf(Root)
	return m.States[k].Name
}

// step runs a step and returns "STATE: calls".
func (h *desmHarness) step() string {
	h.log = h.log[:0]
	if _, err := h.agent.Step(1); err != nil {
		h.t.Fatal(err)
	}
	return h.state() + ": " + strings.Join(h.log, " ")
}

// signal delivers an event between steps and returns what it called.
func (h *desmHarness) signal(name string) string {
	h.log = h.log[:0]
	if err := h.agent.Signal(name); err != nil {
		h.t.Fatal(err)
	}
	return strings.Join(h.log, " ")
}

// run runs steps, sending the events of each step (by its index) before
// it, and returns the steps' summaries.
func (h *desmHarness) run(n int, events map[int][]string) []string {
	var out []string
	for i := range n {
		for _, ev := range events[i] {
			h.signal(ev)
		}
		out = append(out, h.step())
	}
	return out
}

func smDoc(states string) string {
	return `<?xml version="1.0"?><stateMachine>` + states + `</stateMachine>`
}

// The initial state's enter actions run at the first step; an event runs
// the exit actions of the state left, then the transition's actions, then
// the enter actions of the state entered, in one step; the machine then
// rests in the new state.
func TestDesm_exitThenTransitionThenEnterActions(t *testing.T) {
	h := newDesmHarness(t, smDoc(`<initialState>B</initialState>
<state id="A"><enterAction name="e"><parameter name="p">A</parameter></enterAction></state>
<state id="B">
  <enterAction name="e"><parameter name="p">B1</parameter></enterAction>
  <enterAction name="e"><parameter name="p">B2</parameter></enterAction>
  <exitAction name="x"><parameter name="p">B</parameter></exitAction>
  <transition event="go" state="A"><action name="t"><parameter name="p">1</parameter></action><action name="t"><parameter name="p">2</parameter></action></transition>
</state>`), nil, nil)
	expectSteps(t, h.run(4, map[int][]string{2: {"go"}}), []string{
		"B: e(B1) e(B2)",
		"B: ",
		"A: x(B) t(1) t(2) e(A)",
		"A: ",
	})
	// An event with no transition in the current state changes nothing.
	expectSteps(t, h.run(1, map[int][]string{0: {"go"}}), []string{"A: "})
}

// Of the transitions on an event, the first in document order whose
// conditions hold is taken; when none holds, the machine stays and no
// action runs.
func TestDesm_firstMatchingTransitionWins(t *testing.T) {
	doc := smDoc(`<state id="S">
  <exitAction name="x"/>
  <transition event="go" state="A"><condition>c1</condition></transition>
  <transition event="other" state="B"/>
  <transition event="go" state="B"><condition>c2</condition><condition>c3</condition><conditionMode>anyTrue</conditionMode></transition>
  <transition event="go" state="C"><condition name="c4"/><action name="t"/></transition>
</state>
<state id="A"><enterAction name="a"/></state>
<state id="B"><enterAction name="b"/></state>
<state id="C"><enterAction name="c"/></state>`)
	for _, c := range []struct {
		conds map[string]bool
		want  string
	}{
		{map[string]bool{"c1": true, "c2": true, "c3": true, "c4": true}, "A: x a"},
		{map[string]bool{"c1": false, "c2": false, "c3": true, "c4": true}, "B: x b"},
		{map[string]bool{"c1": false, "c2": false, "c3": false, "c4": true}, "C: x t c"},
		{map[string]bool{"c1": false, "c2": false, "c3": false, "c4": false}, "S: "},
	} {
		h := newDesmHarness(t, doc, nil, c.conds)
		h.step()
		if got := h.run(1, map[int][]string{0: {"go"}}); got[0] != c.want {
			t.Errorf("%v: %q, want %q", c.conds, got[0], c.want)
		}
		if got := h.run(1, nil); got[0] != strings.SplitN(c.want, ":", 2)[0]+": " {
			t.Errorf("%v: then %q; the machine rests in its state", c.conds, got[0])
		}
	}
}

// An enter action with a state switches at once when its conditions hold:
// the enter actions after it do not run, the new state's do. When they do
// not hold it is skipped and the others run. Enter actions' conditions
// decide whether each runs; parameters reach actions and conditions.
func TestDesm_enterActionWithAStateSwitchesAtOnce(t *testing.T) {
	doc := smDoc(`<state id="S">
  <enterAction name="e"><parameter name="p">1</parameter></enterAction>
  <enterAction name="e"><parameter name="p">2</parameter><condition>skip2</condition></enterAction>
  <enterAction name="f" state="T"><condition>hot</condition></enterAction>
  <enterAction name="e"><parameter name="p">3</parameter></enterAction>
  <enterAction name="f" nextState="U"/>
  <enterAction name="e"><parameter name="p">never</parameter></enterAction>
</state>
<state id="T"><enterAction name="a"/></state>
<state id="U"><enterAction name="b"/></state>`)
	h := newDesmHarness(t, doc, nil, map[string]bool{"hot": true, "skip2": true})
	expectSteps(t, h.run(2, nil), []string{"T: e(1) e(2) f a", "T: "})
	h = newDesmHarness(t, doc, nil, map[string]bool{"hot": false, "skip2": false})
	expectSteps(t, h.run(2, nil), []string{"U: e(1) e(3) f b", "U: "})
}

// Actions are registered actions: one that runs for several steps finishes
// before the state changes, and an event that arrives meanwhile finds the
// machine busy and is not taken.
func TestDesm_aRunningActionFinishesFirst(t *testing.T) {
	h := newDesmHarness(t, smDoc(`<state id="S">
  <transition event="go" state="T"><action name="long"><parameter name="steps">3</parameter></action></transition>
</state>
<state id="T"><enterAction name="a"/><transition event="back" state="S"/></state>`), nil, nil)
	expectSteps(t, h.run(6, map[int][]string{1: {"go"}, 2: {"back"}, 3: {"back"}}), []string{
		"S: ",
		"S (go 1): long",
		"S (go 1): long",
		"T: long a",
		"T: ",
		"T: ",
	})
}

// A transition without a state runs its actions only: no exit or enter
// actions, and the machine stays.
func TestDesm_transitionWithoutAStateRunsItsActionsOnly(t *testing.T) {
	h := newDesmHarness(t, smDoc(`<state id="S"><enterAction name="e"/><exitAction name="x"/>
  <transition event="poke"><action name="t"/></transition></state>`), nil, nil)
	expectSteps(t, h.run(3, map[int][]string{1: {"poke"}}), []string{"S: e", "S: t", "S: "})
}

// <import> adds the states of another file (relative to the importing
// one), imports nest, and a file that imports itself is an error.
func TestDesm_import(t *testing.T) {
	files := map[string]string{
		"sm/common.desm": smDoc(`<import>more.desm</import><state id="C"><enterAction name="c"/><transition event="go" state="M"/></state>`),
		"sm/more.desm":   smDoc(`<initialState>M</initialState><state id="M"><enterAction name="b"/></state>`),
	}
	h := newDesmHarness(t, smDoc(`<import>sm/common.desm</import><initialState>C</initialState><state id="A"><enterAction name="a"/></state>`), files, nil)
	expectSteps(t, h.run(2, map[int][]string{1: {"go"}}), []string{"C: c", "M: b"})

	files["sm/more.desm"] = smDoc(`<import>common.desm</import><state id="M"/>`)
	_, err := LoadFile("main.xml", LoadOptions{ReadFile: memFiles(map[string]string{"main.xml": smDoc(`<import>sm/common.desm</import>`),
		"sm/common.desm": files["sm/common.desm"], "sm/more.desm": files["sm/more.desm"]})})
	if err == nil || !strings.Contains(err.Error(), "sm/more.desm:1:36: state machine <import> of sm/common.desm imports itself") {
		t.Errorf("an import cycle: %v", err)
	}
}

// Load errors carry the document's line and column.
func TestDesm_loadErrors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{smDoc("\n<state id=\"A\"><transition event=\"go\" state=\"Bee\"/></state><state id=\"B\"/>"),
			`main.xml:2:15: <transition state=...> names state "Bee", which the state machine does not have; expected one of A, B`},
		{smDoc("<state id=\"watch\"/><state id=\"alert\">\n  <transition event=\"e\" state=\"alrt\"/></state>"),
			`main.xml:2:3: <transition state=...> names state "alrt", which the state machine does not have; did you mean "alert"? (expected one of watch, alert)`},
		{smDoc("<initialState>Z</initialState>\n<state id=\"A\"/>"), `main.xml:1:36: <initialState> names state "Z"`},
		{smDoc("<state id=\"A\"/>\n  <state id=\"A\"/>"), `main.xml:2:3: duplicate state id "A" in state machine (the first is at main.xml:1:36)`},
		{smDoc("<state id=\"A\">\n <onEnter/></state>"), `main.xml:2:2: unknown element <onEnter> in state machine <state id="A">`},
		{smDoc("<state id=\"A\"><enterAction name=\"a\" state=\"A\" nextState=\"A\"/></state>"), `has both state= and nextState=`},
		{smDoc("<state id=\"A\"><exitAction name=\"a\" state=\"A\"/></state>"), `unknown attribute state on state machine <exitAction>; expected name`},
		{smDoc("<state id=\"A\"><transition state=\"A\"/></state>"), `main.xml:1:50: state machine <transition> needs a event attribute`},
		{smDoc(""), `main.xml:1:22: state machine <stateMachine> has no states`},
		{smDoc("<state id=\"A\"><enterAction name=\"a\"><condition name=\"c\">d</condition></enterAction></state>"), `names its condition either as text or as name=, once`},
		{smDoc("<import>none.desm</import><state id=\"A\"/>"), `main.xml:1:36: cannot read imported state machine file none.desm`},
		{smDoc("<import>main.xml</import><state id=\"A\"/>"), `main.xml:1:36: state machine <import> of main.xml imports itself (through main.xml)`},
		{smDoc("<import>x.desm</import>\n<import>x.desm</import><state id=\"A\"/>"), `main.xml:2:1: state machine <import> of x.desm again (it is imported at main.xml:1:36); import a file once`},
		{smDoc("<state id=\"A\"><enterAction name=\"nope\"/></state>"), `unknown action "nope"`},
	}
	for _, c := range cases {
		tree, err := LoadFile("main.xml", LoadOptions{ReadFile: memFiles(map[string]string{"main.xml": c.doc})})
		if err == nil {
			_, err = Bind(tree, NewRegistry(), BindOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n got: %v\nwant: %s", c.doc, err, c.want)
		}
	}
}

// lampEvents drives testdata/native/desm_lamp.xml through every state.
var lampEvents = map[int][]string{1: {"switch"}, 3: {"dim"}, 4: {"dim"}, 5: {"dim"}, 7: {"switch"}, 8: {"switch", "dim"}, 10: {"dim"}}

func lampHarness(t *testing.T, hot bool) *desmHarness {
	data, err := os.ReadFile("testdata/native/desm_lamp.xml")
	if err != nil {
		t.Fatal(err)
	}
	h := &desmHarness{}
	_ = h
	doc := strings.NewReplacer("setLight", "e", "click", "x", "fade", "long", "warn", "f",
		`name="light.level">`, `name="p">`, `name="fade.seconds">0.5`, `name="steps">2`).Replace(string(data))
	return newDesmHarness(t, doc, nil, map[string]bool{"light.dimmable": true, "light.hot": hot})
}

// TestDesm_saveRestoreAtEveryStep: an agent saved after any step and
// restored into a new agent goes on exactly as the one that was not.
func TestDesm_saveRestoreAtEveryStep(t *testing.T) {
	const n = 12
	want := lampHarness(t, false).run(n, lampEvents)
	for at := range n {
		h := lampHarness(t, false)
		var got []string
		for i := range n {
			for _, ev := range lampEvents[i] {
				h.signal(ev)
			}
			got = append(got, h.step())
			if i == at {
				s, err := h.agent.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				e := savecodec.NewEncoder()
				EncodeSnapshot(e, &s)
				d := savecodec.NewDecoder(e.Bytes(), e.Strings())
				back := DecodeSnapshot(d)
				if d.Err() != nil {
					t.Fatal(d.Err())
				}
				h.agent = h.tree.NewAgent("a1", &Env{})
				if _, err := h.agent.Restore(&back); err != nil {
					t.Fatal(err)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("restored after step %d:\n got %q\nwant %q", at, got, want)
		}
	}
	expectSteps(t, want, []string{
		"off: e(0)",
		"bright: e(1)",
		"bright: ",
		"bright (dim 1): x long",
		"dimmed: long e(0.3)",
		"bright: x e(1)",
		"bright: ",
		"off: x e(0)",
		"bright: e(1)",
		"bright: ",
		"bright (dim 1): x long",
		"dimmed: long e(0.3)",
	})
	// A hot lamp's dimmed state switches off at once.
	expectSteps(t, lampHarness(t, true).run(6, lampEvents)[3:], []string{"bright (dim 1): x long", "off: long e(0.3) f e(0)", "off: "})
}

// A state machine file used as a subtree runs in a parallel's lane (an
// event switches that lane's machine) and under abort (its running action
// is cancelled when the watched condition fails).
func TestDesm_inALaneAndUnderAbort(t *testing.T) {
	files := map[string]string{"m.desm": smDoc(`<state id="S"><transition event="go" state="T"/></state>
<state id="T"><enterAction name="long"><parameter name="steps">5</parameter></enterAction></state>`)}
	doc := `<behaviorTree><parallel id="root" success="any"><subtree id="m">m.desm</subtree><action id="other" name="long"><parameter name="p">o</parameter><parameter name="steps">9</parameter></action></parallel></behaviorTree>`
	h := newDesmHarness(t, doc, files, nil)
	h.step()
	h.signal("go")
	if got := h.step(); !strings.Contains(got, "long long(o)") {
		t.Errorf("in a lane, after go: %q; the lane's machine runs T's enter action", got)
	}
	doc = `<behaviorTree><choice id="root"><sequence id="g" abort="self"><condition>c</condition><subtree id="m">m.desm</subtree></sequence><action id="z" name="a"/></choice></behaviorTree>`
	h = newDesmHarness(t, doc, files, map[string]bool{"c": true})
	h.step()
	h.signal("go")
	h.step()
	h.conds["c"] = false
	h.log = h.log[:0]
	if _, err := h.agent.Step(1); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.log, " "); got != "long:cancel a" {
		t.Errorf("under abort: %q, want the machine's action cancelled, then z", got)
	}
}

// A reload that adds a state keeps the agent in its state; one that
// removes the state it is in starts the machine again at its initial state
// (the machine has an id, so its place carries over).
func TestDesm_reloadAddsAndRemovesAState(t *testing.T) {
	const states = `<state id="S"><enterAction name="a"/><transition event="go" state="T"/></state>
<state id="T"><enterAction name="b"/><transition event="back" state="S"/></state>`
	h := newDesmHarness(t, smDoc(states), nil, nil)
	h.run(2, map[int][]string{1: {"go"}})
	if h.state() != "T" {
		t.Fatalf("state %s before the reload", h.state())
	}
	bindDoc := func(doc string) *BoundTree {
		tree, err := LoadBytes("main.xml", []byte(doc), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Bind(tree, h.reg, BindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	added := bindDoc(smDoc(states + `<state id="U"><enterAction name="c"/></state>`))
	to, _ := carryAll(t, []*Agent{h.agent}, added)
	m, _ := added.Tree.MachineOf(Root)
	if k, ok := to[0].CurrentState(Root); !ok || m.States[k].Name != "T" {
		t.Errorf("after a reload adding a state: %d %v, want T", k, ok)
	}
	removed := bindDoc(smDoc(`<state id="S"><enterAction name="a"/></state>`))
	rm := MapRules(h.tree.Tree, removed.Tree)
	if _, ok := rm.Unplaced(h.agent, removed.NewAgent("a1", &Env{})); !ok {
		t.Fatal("an agent in a removed state is not unplaced")
	}
	at, ok := rm.MachineRestart(h.agent)
	if !ok || at != Root {
		t.Fatalf("MachineRestart: %d %v", at, ok)
	}
}
