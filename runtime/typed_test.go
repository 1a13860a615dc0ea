package runtime

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

type walkParams struct {
	Speed  float64       `param:"walk.speed" default:"1.5" doc:"metres per second"`
	Steps  int           `param:"walk.steps,required" doc:"how many steps"`
	Pause  time.Duration `param:"walk.pause" default:"250ms"`
	Run    bool          `param:"walk.run"`
	Target string        `param:"walk.target" default:"home"`
	Small  uint8         `param:"walk.small"`
	Skip   string        `param:"-"`
	hidden int
}

type walkState struct {
	Walked  float64
	Calls   int
	Since   time.Duration
	Running bool
	Note    string `state:"note"`
}

func bindTyped(t *testing.T, xml string, reg *Registry) (*BoundTree, error) {
	t.Helper()
	tree, err := LoadBytes("walk.xml", []byte(xml), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Bind(tree, reg, BindOptions{})
}

func TestTypedAction_parametersAreParsedAtBindWithDefaults(t *testing.T) {
	reg := NewRegistry()
	var got []walkParams
	must(t, TypedAction[walkParams, struct{}]{Name: "walk",
		Run: func(a *Agent, p *walkParams, _ *struct{}) (Status, error) {
			got = append(got, *p)
			return Success, nil
		}}.Register(reg))
	b, err := bindTyped(t, `<behaviorTree><sequence id="root">
  <action name="walk"><parameter name="walk.steps">3</parameter></action>
  <action name="walk">
    <parameter name="walk.steps"> -7 </parameter><parameter name="walk.speed">2.25</parameter>
    <parameter name="walk.pause">1.5</parameter><parameter name="walk.run">true</parameter>
    <parameter name="walk.target"></parameter><parameter name="walk.small">255</parameter>
  </action>
  <action name="walk"><parameter name="walk.steps">0</parameter><parameter name="walk.pause">2m</parameter></action>
</sequence></behaviorTree>`, reg)
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("w", nil)
	if st, err := a.Step(0.1); st != Success || err != nil {
		t.Fatalf("step: %v %v", st, err)
	}
	want := []walkParams{
		{Speed: 1.5, Steps: 3, Pause: 250 * time.Millisecond, Target: "home"},
		{Speed: 2.25, Steps: -7, Pause: 1500 * time.Millisecond, Run: true, Target: "", Small: 255},
		{Speed: 1.5, Steps: 0, Pause: 2 * time.Minute, Target: "home"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d calls, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rule %d: params %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestTypedAction_wrongTypesAndMissingRequiredAreBindErrorsWithPositions(t *testing.T) {
	reg := NewRegistry()
	must(t, TypedAction[walkParams, struct{}]{Name: "walk",
		Run: func(*Agent, *walkParams, *struct{}) (Status, error) { return Success, nil }}.Register(reg))
	must(t, TypedCondition[walkParams]{Name: "near",
		Test: func(*Agent, *walkParams) (bool, error) { return true, nil }}.Register(reg))
	_, err := bindTyped(t, `<behaviorTree><sequence id="root">
  <action name="walk">
    <parameter name="walk.steps">three</parameter>
    <parameter name="walk.speed">fast</parameter>
    <parameter name="walk.pause">soon</parameter>
    <parameter name="walk.run">yes</parameter>
    <parameter name="walk.small">256</parameter>
  </action>
  <action name="walk"/>
  <success><condition>near</condition><parameter name="walk.steps">1e3</parameter></success>
  <action name="walk"><parameter name="walk.steps">NaN</parameter><parameter name="walk.speed">Inf</parameter></action>
</sequence></behaviorTree>`, reg)
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	if !errors.Is(err, ErrUnbound) {
		t.Errorf("want ErrUnbound wrapped: %v", err)
	}
	want := []string{
		`walk.xml:2:3: rule action@walk.xml:2:3: walk: parameter "walk.speed" = "fast" is not a number`,
		`walk.xml:2:3: rule action@walk.xml:2:3: walk: parameter "walk.steps" = "three" is not an integer`,
		`walk.xml:2:3: rule action@walk.xml:2:3: walk: parameter "walk.pause" = "soon" is not a duration ("250ms", "1.5s", "2m", or a number of seconds)`,
		`walk.xml:2:3: rule action@walk.xml:2:3: walk: parameter "walk.run" = "yes" is not a boolean (true or false)`,
		`walk.xml:2:3: rule action@walk.xml:2:3: walk: parameter "walk.small" = "256" is not an integer from 0 to 255`,
		`walk.xml:9:3: rule action@walk.xml:9:3: walk: needs parameter "walk.steps" (integer)`,
		`walk.xml:10:12: rule success@walk.xml:10:3: near: parameter "walk.steps" = "1e3" is not an integer`,
		`walk.xml:11:3: rule action@walk.xml:11:3: walk: parameter "walk.speed" = "Inf" is not a number`,
		`walk.xml:11:3: rule action@walk.xml:11:3: walk: parameter "walk.steps" = "NaN" is not an integer`,
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTypedAction_declarationsFeedTheRegistry(t *testing.T) {
	reg := NewRegistry()
	must(t, TypedAction[walkParams, walkState]{Name: "walk", Doc: "walks",
		Run: func(*Agent, *walkParams, *walkState) (Status, error) { return Success, nil }}.Register(reg))
	d, _ := reg.LookupAction("walk")
	var names []string
	for _, p := range d.Params {
		s := p.Name + " " + p.Type
		if p.Required {
			s += " required"
		}
		if p.Default != "" {
			s += " =" + p.Default
		}
		names = append(names, s)
	}
	want := "walk.speed number =1.5, walk.steps integer required, walk.pause duration =250ms, walk.run boolean =false, walk.target string =home, walk.small integer =0"
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("declared %s\nwant     %s", got, want)
	}
	if d.Params[0].Kind != ParamNumber || d.Params[0].Doc != "metres per second" || d.Doc != "walks" || d.Origin.String() != "go" {
		t.Errorf("spec %+v, def doc %q origin %s", d.Params[0], d.Doc, d.Origin)
	}
}

func TestDeclareParams_refusesWhatCannotBeAParameter(t *testing.T) {
	type noTag struct{ X float64 }
	type badType struct {
		X []int `param:"x"`
	}
	type badDefault struct {
		X int `param:"x" default:"1.5"`
	}
	type requiredDefault struct {
		X int `param:"x,required" default:"1"`
	}
	type dup struct {
		A int `param:"x"`
		B int `param:"x"`
	}
	type badOption struct {
		A int `param:"x,optional"`
	}
	for name, f := range map[string]func() error{
		"no tag":           func() error { _, err := DeclareParams[noTag](); return err },
		"bad type":         func() error { _, err := DeclareParams[badType](); return err },
		"bad default":      func() error { _, err := DeclareParams[badDefault](); return err },
		"required default": func() error { _, err := DeclareParams[requiredDefault](); return err },
		"duplicate":        func() error { _, err := DeclareParams[dup](); return err },
		"option":           func() error { _, err := DeclareParams[badOption](); return err },
		"not a struct":     func() error { _, err := DeclareParams[int](); return err },
		"unexported state": func() error { _, err := declareState[struct{ x int }](); return err },
		"state type":       func() error { _, err := declareState[struct{ X map[string]int }](); return err },
		"no run": func() error {
			_, err := TypedAction[struct{}, struct{}]{Name: "x"}.Def()
			return err
		},
	} {
		if err := f(); !errors.Is(err, ErrParamDecl) {
			t.Errorf("%s: want ErrParamDecl, got %v", name, err)
		}
	}
}

const walkTree = `<behaviorTree><sequence id="root" loop="true">
  <action id="walk" name="walk"><parameter name="walk.steps">3</parameter></action>
  <action id="rest" name="walk"><parameter name="walk.steps">2</parameter><parameter name="walk.speed">0.5</parameter></action>
</sequence></behaviorTree>`

// walkReg registers walk: it walks walk.steps calls, keeping its progress
// in its typed state, and logs what the state held at each call.
func walkReg(t *testing.T, log *[]string) *Registry {
	reg := NewRegistry()
	must(t, TypedAction[walkParams, walkState]{Name: "walk",
		Start: func(a *Agent, p *walkParams, s *walkState) error {
			if *s != (walkState{}) {
				t.Errorf("start: state %+v, want it empty", *s)
			}
			s.Note = "started"
			return nil
		},
		Run: func(a *Agent, p *walkParams, s *walkState) (Status, error) {
			*log = append(*log, a.Label()+":"+s.Note+":"+ftoa(s.Walked))
			s.Walked += p.Speed
			s.Calls++
			s.Since += time.Duration(a.Dt() * float64(time.Second))
			s.Running = s.Calls < p.Steps
			s.Note = "walked " + ftoa(s.Walked)
			if s.Running {
				return Running, nil
			}
			return Success, nil
		}}.Register(reg))
	return reg
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// statePtr is the state struct p points to, as the codec reads it.
func statePtr(p any) unsafe.Pointer { return reflect.ValueOf(p).UnsafePointer() }

func TestTypedAction_stateIsKeptPerRuleAndEmptiedOnArrival(t *testing.T) {
	var log []string
	b, err := bindTyped(t, walkTree, walkReg(t, &log))
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("w", nil)
	for range 4 {
		if _, err := a.Step(0.1); err != nil {
			t.Fatal(err)
		}
	}
	want := "walk:started:0 walk:walked 1.5:1.5 walk:walked 3:3 rest:started:0 rest:walked 0.5:0.5 walk:started:0"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
}

func TestTypedAction_stateSurvivesSaveAndRestore(t *testing.T) {
	var log, log2 []string
	b, err := bindTyped(t, walkTree, walkReg(t, &log))
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("w", nil)
	for range 2 {
		a.Step(0.1)
	}
	data, err := SaveAgents([]*Agent{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A new process: another registry and binding, the same action.
	b2, err := bindTyped(t, walkTree, walkReg(t, &log2))
	if err != nil {
		t.Fatal(err)
	}
	c := b2.NewAgent("w", nil)
	if _, err := RestoreAgents(data, []*Agent{c}, nil); err != nil {
		t.Fatal(err)
	}
	log = log[:0]
	for range 3 {
		a.Step(0.1)
		c.Step(0.1)
	}
	if strings.Join(log, " ") != strings.Join(log2, " ") {
		t.Errorf("restored agent's calls:\n%s\nthe saved one's:\n%s", strings.Join(log2, " "), strings.Join(log, " "))
	}
	if log2[0] != "walk:walked 3:3" {
		t.Errorf("first call after the restore saw %q, want the saved state (walked 3)", log2[0])
	}
}

func TestTypedAction_eachLaneKeepsItsOwnState(t *testing.T) {
	var log []string
	b, err := bindTyped(t, `<behaviorTree><parallel id="both" success="all">
  <action id=".slow" name="walk"><parameter name="walk.steps">3</parameter></action>
  <action id=".fast" name="walk"><parameter name="walk.steps">2</parameter><parameter name="walk.speed">10</parameter></action>
</parallel></behaviorTree>`, walkReg(t, &log))
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("w", nil)
	for range 3 {
		a.Step(0.1)
	}
	want := "both.slow:started:0 both.fast:started:0 both.slow:walked 1.5:1.5 both.fast:walked 10:10 both.slow:walked 3:3"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
}

func TestTypedAction_savedStateOfAnotherShape(t *testing.T) {
	c, err := declareState[walkState]()
	if err != nil {
		t.Fatal(err)
	}
	type older struct {
		Calls   int
		Dropped bool
		Walked  float64
	}
	o, _ := declareState[older]()
	old := older{Calls: 4, Dropped: true, Walked: 2.5}
	b := o.encode(nil, statePtr(&old))
	s := walkState{Note: "stale", Since: time.Second}
	if err := c.decode(b, statePtr(&s)); err != nil {
		t.Fatal(err)
	}
	if want := (walkState{Calls: 4, Walked: 2.5}); s != want {
		t.Errorf("decoded %+v, want %+v (fields it lacks zeroed, fields it has kept whatever their order)", s, want)
	}
	type changed struct{ Calls string }
	ch, _ := declareState[changed]()
	bad := ch.encode(nil, statePtr(&changed{Calls: "four"}))
	if err := c.decode(bad, statePtr(&s)); err == nil || !strings.Contains(err.Error(), `state field "Calls" was saved as a value of kind string; the state type's field is of kind integer`) {
		t.Errorf("a field whose kind changed: %v", err)
	}
	for n := range len(b) {
		c.decode(b[:n], statePtr(&s)) // a cut at a field's end is a state without the fields after it; elsewhere an error; never a panic
	}
	if err := c.decode(b[:len(b)-1], statePtr(&s)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("state cut inside its last value: %v, want ErrCorrupt", err)
	}
}

func TestTypedAction_aStepAllocatesNothing(t *testing.T) {
	reg := NewRegistry()
	must(t, TypedAction[walkParams, walkState]{Name: "walk",
		Run: func(a *Agent, p *walkParams, s *walkState) (Status, error) {
			s.Walked += p.Speed
			s.Calls++
			return Running, nil
		}}.Register(reg))
	b, err := bindTyped(t, `<behaviorTree><action id="walk" name="walk"><parameter name="walk.steps">1</parameter></action></behaviorTree>`, reg)
	if err != nil {
		t.Fatal(err)
	}
	a := b.NewAgent("w", &Env{})
	a.Step(0.1)
	if n := testing.AllocsPerRun(100, func() { a.Step(0.1) }); n != 0 {
		t.Errorf("a step of a typed action with state allocates %v times", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzTypedStateDecode(f *testing.F) {
	c, err := declareState[walkState]()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(c.encode(nil, statePtr(&walkState{Walked: 1.5, Calls: 3, Since: time.Second, Running: true, Note: "x"})))
	f.Add([]byte{stateFormat, 200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s walkState
		if err := c.decode(b, statePtr(&s)); err != nil {
			return
		}
		// What decodes encodes to bytes that decode to the same state.
		again := c.encode(nil, statePtr(&s))
		var s2 walkState
		if err := c.decode(again, statePtr(&s2)); err != nil || (s2 != s && s.Walked == s.Walked) {
			t.Fatalf("re-decoded %+v (%v), want %+v", s2, err, s)
		}
	})
}

func TestTypedAction_declarationsWriteTheReference(t *testing.T) {
	d, err := TypedAction[walkParams, walkState]{Name: "walk", Doc: "walks `walk.steps` steps",
		Run: func(*Agent, *walkParams, *walkState) (Status, error) { return Success, nil }}.Def()
	must(t, err)
	var b strings.Builder
	must(t, WriteActionsMarkdown(&b, []ActionDef{d}))
	want := "### `walk`\n\nWalks `walk.steps` steps.\n\n| parameter | value | default | meaning |\n|---|---|---|---|\n" +
		"| `walk.speed` | number | `1.5` | metres per second |\n" +
		"| `walk.steps` | integer | required | how many steps |\n" +
		"| `walk.pause` | duration | `250ms` |  |\n" +
		"| `walk.run` | boolean | `false` |  |\n" +
		"| `walk.target` | string | `home` |  |\n" +
		"| `walk.small` | integer | `0` |  |\n\n"
	if b.String() != want {
		t.Errorf("reference:\n%s\nwant:\n%s", b.String(), want)
	}
}

type urgeParams struct {
	Weight float64 `param:"urge.weight" default:"1"`
}

func TestTypedScorer_readsTheScoredChildsParameters(t *testing.T) {
	reg := NewRegistry()
	must(t, TypedScorer[urgeParams]{Name: "urge",
		Score: func(a *Agent, p *urgeParams) (float64, error) { return p.Weight, nil }}.Register(reg))
	var ran []string
	must(t, reg.RegisterAction("mark", ActionFunc(func(a *Agent, _ Params) (Status, error) {
		ran = append(ran, a.Label())
		return Success, nil
	})))
	b, err := bindTyped(t, `<behaviorTree><choice id="pick" order="score">
  <action id=".low" name="mark"><parameter name="choice.score">urge</parameter><parameter name="urge.weight">0.5</parameter></action>
  <action id=".high" name="mark"><parameter name="choice.score">urge</parameter><parameter name="urge.weight">3</parameter></action>
</choice></behaviorTree>`, reg)
	if err != nil {
		t.Fatal(err)
	}
	b.NewAgent("a", nil).Step(0.1)
	if strings.Join(ran, " ") != "pick.high" {
		t.Errorf("ran %v, want the child scored 3 first (and only)", ran)
	}
	_, err = bindTyped(t, `<behaviorTree><choice id="pick" order="score">
  <action id=".low" name="mark"><parameter name="choice.score">urge</parameter><parameter name="urge.weight">heavy</parameter></action>
</choice></behaviorTree>`, reg)
	if err == nil || !strings.Contains(err.Error(), `urge: parameter "urge.weight" = "heavy" is not a number`) {
		t.Errorf("a bad weight: %v", err)
	}
	if _, err := (TypedScorer[urgeParams]{Name: "x"}).Def(); !errors.Is(err, ErrParamDecl) {
		t.Errorf("a scorer without Score: %v", err)
	}
}
