package runtime

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const typedDecls = `
<variables>
  <variable name="Ammo" type="number" default="12"/>
  <variable name="Max" type="number" default="3"/>
  <variable name="Target" type="string" default="grunt-2"/>
  <variable name="Other" type="string"/>
  <variable name="Pos" type="vector" default="1,2.5,-3"/>
  <variable name="Home" type="vector"/>
  <variable name="Aware"/>
  <variable name="Calm" default="true"/>
</variables>`

func TestVars_defaults(t *testing.T) {
	h := newHarness(t, bt(typedDecls+`<success id="root"/>`), nil)
	want := map[string]VarValue{
		"Ammo": NumberVar(12), "Max": NumberVar(3), "Target": StringVar("grunt-2"), "Other": StringVar(""),
		"Pos": VectorVar(1, 2.5, -3), "Home": VectorVar(0, 0, 0), "Aware": BoolVar(false), "Calm": BoolVar(true),
	}
	for name, w := range want {
		got, err := h.agent.VarValue(name)
		h.must(err)
		if !got.Equal(w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
}

func TestVars_loadErrors(t *testing.T) {
	cases := []struct{ decl, want string }{
		{`<variable name="A" type="int"/>`, `type="int" on <variable> is not a type; expected boolean, number, string or vector`},
		{`<variable name="A" type="number" default="NaN"/>`, `default="NaN" on <variable> of type number: "NaN" is not a number`},
		{`<variable name="A" type="number" default="inf"/>`, `"inf" is not a number`},
		{`<variable name="A" type="number" default="1e999"/>`, `"1e999" is not a finite number`},
		{`<variable name="A" type="number" default="0x10"/>`, `"0x10" is not a number`},
		{`<variable name="A" type="number" default=""/>`, `"" is not a number`},
		{`<variable name="A" type="vector" default="1,2"/>`, `"1,2" is not a vector; expected x,y,z`},
		{`<variable name="A" type="vector" default="1,2,nan"/>`, `"1,2,nan" is not a vector`},
		{`<variable name="A" default="12"/>`, `default="12" on <variable> is not a boolean`},
		{`<variable name="A" type="number"/><variable name="A" type="string"/>`, `variable "A" declared again with type="string"`},
		{`<variable name="A" type="number" default="1"/><variable name="A" type="number" default="2"/>`, `variable "A" declared again with default="2"`},
	}
	for _, c := range cases {
		_, err := LoadBytes("test.xml", []byte(bt(`<variables>`+c.decl+`</variables><success/>`)), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.decl, err, c.want)
		}
	}
}

// TestVars_comparisons holds comparisons to the SPEC's semantics: every
// operator, a number alone, negation, constants on either side, two
// variables, spaces optional.
func TestVars_comparisons(t *testing.T) {
	cases := []struct {
		cond string
		want bool
	}{
		{"Ammo < 3", false}, {"Ammo<13", true}, {"Ammo <= 12", true}, {"Ammo <= 11.5", false},
		{"Ammo > 12", false}, {"Ammo >= 12", true}, {"Ammo == 12", true}, {"Ammo != 12", false},
		{"Ammo == 12.0", true}, {"Ammo == 1.2e1", true}, {"Ammo > -3", true},
		{"3 < Ammo", true}, {"12 >= Ammo", true}, {"12 > Ammo", false},
		{"Ammo", true}, {"!Ammo", false}, {"! Ammo > 3", false}, {"!Ammo<3", true},
		{"Max < Ammo", true}, {"Ammo == Max", false}, {"Ammo != Max", true},
		{`Target == "grunt-2"`, true}, {`Target != "grunt-2"`, false}, {`"grunt-2" == Target`, true},
		{`Other == ""`, true}, {`Target == Other`, false}, {`Target=="grunt 2"`, false},
		{"Pos == Pos", true}, {"Pos != Home", true}, {"Home == Home", true},
		{"Aware == Calm", false}, {"Aware != Calm", true},
	}
	for _, c := range cases {
		h := newHarness(t, bt(typedDecls+`<success id="root"><condition>`+xmlEscape(c.cond)+`</condition></success>`), nil)
		st, err := h.agent.Step(1)
		h.must(err)
		if got := st == Success; got != c.want {
			t.Errorf("%s: %v, want %v", c.cond, got, c.want)
		}
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)
}

func TestVars_comparisonNaNNeverHolds(t *testing.T) {
	// Values are finite: SetVarValue refuses NaN and infinities, so a
	// comparison never meets one.
	h := newHarness(t, bt(typedDecls+`<success id="root"/>`), nil)
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := h.agent.SetVarValue("Ammo", NumberVar(x)); !errors.Is(err, ErrBadValue) {
			t.Errorf("set %v: %v, want ErrBadValue", x, err)
		}
	}
	if err := h.agent.SetVarValue("Pos", VectorVar(0, math.NaN(), 0)); !errors.Is(err, ErrBadValue) {
		t.Errorf("set a vector with NaN: %v", err)
	}
	if err := h.agent.SetVarValue("Ammo", StringVar("3")); !errors.Is(err, ErrBadValue) {
		t.Errorf("set a number to a string: %v", err)
	}
	if v, _ := h.agent.VarValue("Ammo"); !v.Equal(NumberVar(12)) {
		t.Errorf("Ammo = %v after refused sets, want 12", v)
	}
}

func TestVars_comparisonParseErrors(t *testing.T) {
	cases := []struct{ cond, want string }{
		{"Ammo = 3", "= is not an operator; expected =="},
		{"Ammo <", "missing operand"},
		{"< 3", "missing operand before"},
		{"3 < 4", "two constants"},
		{`Target == "open`, "unterminated string"},
		{"Ammo < 3 3", `unexpected "3" after the comparison`},
		{"Ammo < 0x3", `"0x3" is not a number`},
		{"Ammo < nan", ""}, // nan is a name here: a bind error
		{"Ammo <> 3", `missing operand before "> 3"`},
	}
	for _, c := range cases {
		_, err := LoadBytes("test.xml", []byte(bt(typedDecls+`<success><condition>`+xmlEscape(c.cond)+`</condition></success>`)), LoadOptions{})
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: load error %v, want none", c.cond, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.xml:") {
			t.Errorf("%s: got %v, want %q with a position", c.cond, err, c.want)
		}
	}
}

func TestVars_bindErrors(t *testing.T) {
	cases := []struct{ cond, want string }{
		{"Amo < 3", `"Amo" is not a declared variable; a comparison's operands are variables, numbers and double-quoted strings; did you mean "Ammo"?`},
		{`Ammo == "3"`, `Ammo is a number, compared with the string "3"`},
		{`Target == 3`, `Target is a string, compared with the number 3`},
		{`Target < "b"`, `Target is a string, which takes only == and !=`},
		{`Pos > Home`, `Pos is a vector, which takes only == and !=`},
		{`Ammo == Target`, `Ammo is a number and Target a string`},
		{`Target`, `Target is a string variable, which is not a condition alone; compare it, as in Target != ""`},
		{`!Pos`, `Pos is a vector variable, which is not a condition alone`},
		{`Aware < 3`, `Aware is a boolean, compared with the number 3`},
		{`Spotted.set == 3`, `"Spotted.set" is not a declared variable`},
	}
	for _, c := range cases {
		tree, err := LoadBytes("test.xml", []byte(bt(typedDecls+`<timestamps><timestamp name="Spotted"/></timestamps><success id="r"><condition>`+xmlEscape(c.cond)+`</condition></success>`)), LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.cond, err)
		}
		_, err = Bind(tree, NewRegistry(), BindOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.xml:") || !errors.Is(err, ErrUnbound) {
			t.Errorf("%s: got %v, want %q at the rule", c.cond, err, c.want)
		}
	}
}

func TestVars_variableSet(t *testing.T) {
	h := newHarness(t, bt(typedDecls+`<sequence id="root">
  <action name="bt.variable.set"><parameter name="variable.name">Ammo</parameter><parameter name="variable.add">-5</parameter></action>
  <action name="bt.variable.set"><parameter name="variable.name">Target</parameter><parameter name="variable.value">grunt-7</parameter></action>
  <action name="bt.variable.set"><parameter name="variable.name">Home</parameter><parameter name="variable.value">4, 5, 6</parameter></action>
  <action name="bt.variable.set"><parameter name="variable.name">Aware</parameter><parameter name="variable.value">true</parameter></action>
  <success id="low"><condition>Ammo &lt; 8</condition></success>
</sequence>`), nil)
	st, err := h.agent.Step(1)
	h.must(err)
	if st != Success {
		t.Fatalf("step: %v", st)
	}
	for name, w := range map[string]VarValue{"Ammo": NumberVar(7), "Target": StringVar("grunt-7"), "Home": VectorVar(4, 5, 6), "Aware": BoolVar(true)} {
		if got, _ := h.agent.VarValue(name); !got.Equal(w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
}

func TestVars_variableSetBindErrors(t *testing.T) {
	cases := []struct{ params, want string }{
		{`<parameter name="variable.name">Ammo</parameter><parameter name="variable.value">x</parameter>`, `"variable.value" for number variable "Ammo": "x" is not a number`},
		{`<parameter name="variable.name">Ammo</parameter><parameter name="variable.value">1</parameter><parameter name="variable.add">1</parameter>`, `has both "variable.value" and "variable.add"`},
		{`<parameter name="variable.name">Target</parameter><parameter name="variable.add">1</parameter>`, `"variable.add" adds to number variables, and "Target" is a string`},
		{`<parameter name="variable.name">Aware</parameter><parameter name="variable.add">1</parameter>`, `"Aware" is a boolean`},
		{`<parameter name="variable.name">Ammo</parameter>`, `needs parameter "variable.value" (a number) or "variable.add"`},
		{`<parameter name="variable.name">Pos</parameter><parameter name="variable.value">1,2</parameter>`, `"1,2" is not a vector`},
		{`<parameter name="variable.name">Ammo</parameter><parameter name="variable.add">inf</parameter>`, `"inf" is not a number`},
	}
	for _, c := range cases {
		tree, err := LoadBytes("test.xml", []byte(bt(typedDecls+`<action id="r" name="bt.variable.set">`+c.params+`</action>`)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bind(tree, NewRegistry(), BindOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.xml:") {
			t.Errorf("%s: got %v, want %q", c.params, err, c.want)
		}
	}
}

const fromDecls = `<signals>
  <signal name="Hurt" variable="Ammo" from="hp"/>
  <signal name="Hurt" variable="Pos" from="at"/>
  <signal name="Seen" variable="Target" from="who.2"/>
  <signal name="Seen" variable="Aware" value="true"/>
  <signal name="Reset" variable="Target" value="nobody"/>
  <signal name="Reset" variable="Ammo" value="0"/>
</signals>`

func TestVars_signalsSetFromData(t *testing.T) {
	h := newHarness(t, bt(typedDecls+fromDecls+`<success id="root"/>`), nil)
	a := h.agent
	vec := Value{Kind: TableValue, Table: []Field{
		{Key: String("x"), Val: Number(1)}, {Key: String("y"), Val: Number(2)}, {Key: String("z"), Val: Number(3)}}}
	hurt := Value{Kind: TableValue, Table: []Field{{Key: String("hp"), Val: Number(40)}, {Key: String("at"), Val: vec}}}
	h.must(a.SignalData("Hurt", hurt))
	seen := Value{Kind: TableValue, Table: []Field{{Key: String("who"), Val: Value{Kind: TableValue, Table: []Field{
		{Key: Number(1), Val: String("a")}, {Key: Number(2), Val: String("b")}}}}}}
	h.must(a.SignalData("Seen", seen))
	for name, w := range map[string]VarValue{"Ammo": NumberVar(40), "Pos": VectorVar(1, 2, 3), "Target": StringVar("b"), "Aware": BoolVar(true)} {
		if got, _ := a.VarValue(name); !got.Equal(w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
	h.must(a.Signal("Reset"))
	if got, _ := a.VarValue("Target"); !got.Equal(StringVar("nobody")) {
		t.Errorf("Target = %v after Reset", got)
	}
	// Data that does not fit is the sender's error; nothing is delivered.
	a.Forget("Hurt")
	for _, bad := range []Value{
		{},
		{Kind: TableValue, Table: []Field{{Key: String("hp"), Val: String("40")}, {Key: String("at"), Val: vec}}},
		{Kind: TableValue, Table: []Field{{Key: String("hp"), Val: Number(1)}}},
		{Kind: TableValue, Table: []Field{{Key: String("hp"), Val: Number(1)}, {Key: String("at"), Val: Value{Kind: TableValue, Table: vec.Table[:2]}}}},
	} {
		err := a.SignalData("Hurt", bad)
		if !errors.Is(err, ErrBadValue) {
			t.Errorf("Hurt with %v: %v, want ErrBadValue", bad, err)
		}
		if got, _ := a.VarValue("Ammo"); !got.Equal(NumberVar(0)) {
			t.Errorf("Ammo = %v after refused data, want 0", got)
		}
		if _, _, held := a.Stimulus("Hurt"); held {
			t.Errorf("a refused signal left a stimulus")
		}
	}
}

// TestVars_comparisonsStepWithoutAllocating: comparisons of every type,
// a number alone, bt.variable.set's add and value, and a signal line that
// sets a number from data, step with no allocation.
func TestVars_comparisonsStepWithoutAllocating(t *testing.T) {
	h := newHarness(t, bt(typedDecls+fromDecls+`<sequence id="root" loop="true">
  <action id="a" name="bt.variable.set"><condition>Ammo &gt;= Max</condition><condition>Target != "x"</condition><condition>Pos == Pos</condition><condition>Ammo</condition>
    <parameter name="variable.name">Ammo</parameter><parameter name="variable.add">-1</parameter></action>
  <action id="b" name="bt.variable.set"><condition>!Ammo &lt; 3</condition><parameter name="variable.name">Target</parameter><parameter name="variable.value">grunt-9</parameter></action>
  <running id="r"/>
</sequence>`), nil)
	h.env.Observer = nil
	hurt := Value{Kind: TableValue, Table: []Field{{Key: String("hp"), Val: Number(40)},
		{Key: String("at"), Val: Value{Kind: TableValue, Table: []Field{{Key: String("x"), Val: Number(1)}, {Key: String("y"), Val: Number(2)}, {Key: String("z"), Val: Number(3)}}}}}}
	a := h.agent
	if _, err := a.Step(0.5); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if err := a.SignalData("Hurt", hurt); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Step(0.5); err != nil {
			t.Fatal(err)
		}
		if err := a.Jump("root"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a step", allocs)
	}
	if v, _ := a.VarValue("Target"); !v.Equal(StringVar("grunt-9")) {
		t.Errorf("Target = %v: the rules did not run", v)
	}
}
