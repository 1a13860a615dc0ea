package runtime

import (
	"testing"
)

const guardDecls = `
<variables><variable name="Aware" default="false"/><variable name="Calm" default="true"/></variables>
<signals>
  <signal name="Seen" variable="Aware" value="true"/>
  <signal name="Seen" variable="Calm" value="false"/>
  <signal name="Lost" variable="Aware" value="false"/>
</signals>
<timestamps>
  <timestamp name="Spotted" setOnSignal="Seen" exclusiveTo="Gone"/>
  <timestamp name="Gone" setOnSignal="Lost"/>
</timestamps>`

func TestSignal_setsVariablesAndExclusiveTimestamps(t *testing.T) {
	h := newHarness(t, bt(guardDecls+`<choice id="root">
  <action id="attack" name="run"><condition>Aware</condition></action>
  <action id="idle" name="run"><condition>!Aware</condition></action>
</choice>`), nil)
	a := h.agent
	check := func(when string, aware, calm bool, spotted, gone float64) {
		t.Helper()
		if v, _ := a.Var("Aware"); v != aware {
			t.Errorf("%s: Aware = %v, want %v", when, v, aware)
		}
		if v, _ := a.Var("Calm"); v != calm {
			t.Errorf("%s: Calm = %v, want %v", when, v, calm)
		}
		for name, want := range map[string]float64{"Spotted": spotted, "Gone": gone} {
			at, set, err := a.Stamp(name)
			h.must(err)
			if (want < 0) == set || (set && at != want) {
				t.Errorf("%s: %s = %v (set %v), want %v (-1 = unset)", when, name, at, set, want)
			}
		}
	}
	check("start", false, true, -1, -1)
	expectSteps(t, h.steps(1), []string{"running idle: idle"})
	a.Signal("Seen")
	check("after Seen", true, false, 1, -1)
	expectSteps(t, h.steps(2), []string{"failure root: ", "running attack: attack"})
	a.Signal("Lost")
	check("after Lost", false, false, -1, 3)
	a.SignalAt("Seen", 7.5)
	check("after Seen at 7.5", true, false, 7.5, -1)
	a.Signal("NobodyListens") // allowed, no effect
	if since, ok, _ := a.Since("Spotted"); !ok || since != 3-7.5 {
		t.Errorf("Since(Spotted) = %v %v", since, ok)
	}
}

func TestTimestampConditions(t *testing.T) {
	cases := []struct {
		name   string
		cond   string
		params string
		setAt  float64 // time the stamp is set; -1 unset
		now    float64
		want   Status
	}{
		{"set when set", "Spotted.set", "", 1, 2, S},
		{"set when unset", "Spotted.set", "", -1, 2, F},
		{"lessThan inside", "Spotted.lessThan", `<parameter name="Spotted.lessThan">2</parameter>`, 1, 2, S},
		{"lessThan at the edge", "Spotted.lessThan", `<parameter name="Spotted.lessThan">2</parameter>`, 1, 3, F},
		{"lessThan unset", "Spotted.lessThan", `<parameter name="Spotted.lessThan">2</parameter>`, -1, 3, F},
		{"moreThan at the edge", "Spotted.moreThan", `<parameter name="Spotted.moreThan">2</parameter>`, 1, 3, F},
		{"moreThan past", "Spotted.moreThan", `<parameter name="Spotted.moreThan">2</parameter>`, 1, 4, S},
		{"moreThan unset", "Spotted.moreThan", `<parameter name="Spotted.moreThan">2</parameter>`, -1, 4, F},
		{"moreThan unset orNeverSet", "Spotted.moreThan", `<parameter name="Spotted.moreThan">2</parameter><parameter name="Spotted.orNeverSet">true</parameter>`, -1, 4, S},
		{"moreThan set ignores orNeverSet", "Spotted.moreThan", `<parameter name="Spotted.moreThan">2</parameter><parameter name="Spotted.orNeverSet">true</parameter>`, 3, 4, F},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, bt(guardDecls+`<success id="root"><condition>`+c.cond+`</condition>`+c.params+`</success>`), nil)
			for h.agent.Time() < c.now-1 {
				if c.setAt >= 0 && h.agent.Time() == c.setAt {
					h.must(h.agent.SetStamp("Spotted"))
				}
				h.agent.Step(1)
			}
			if c.setAt >= 0 && h.agent.Time() == c.setAt {
				h.must(h.agent.SetStamp("Spotted"))
			}
			st, err := h.agent.Step(1)
			h.must(err)
			if h.agent.Time() != c.now || st != c.want {
				t.Errorf("at %v got %v, want %v at %v", h.agent.Time(), st, c.want, c.now)
			}
		})
	}
}

func TestTimestampConditions_bindErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`<success id="root"><condition>Spotted.lessThan</condition></success>`,
			`test.xml:1:NN: rule root: timestamp condition "Spotted.lessThan": needs parameter "Spotted.lessThan" (seconds)`},
		{`<success id="root"><condition>Spotted.moreThan</condition><parameter name="Spotted.moreThan">soon</parameter></success>`,
			`test.xml:1:NN: rule root: timestamp condition "Spotted.moreThan": parameter "Spotted.moreThan" = "soon" is not a number of seconds (a finite number >= 0)`},
		{`<success id="root"><condition>Spotted.moreThan</condition><parameter name="Spotted.moreThan">1</parameter><parameter name="Spotted.orNeverSet">yes</parameter></success>`,
			`test.xml:1:NN: rule root: timestamp condition "Spotted.moreThan": parameter "Spotted.orNeverSet" = "yes" is not a boolean (true or false)`},
	} {
		tree, err := LoadBytes("test.xml", []byte(bt(`<timestamps><timestamp name="Spotted"/></timestamps>`+c.body)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bind(tree, NewRegistry(), BindOptions{})
		if err == nil || maskCol(err.Error()) != c.want {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// maskCol replaces the column of a test.xml:1:COL position with NN.
func maskCol(s string) string {
	const p = "test.xml:1:"
	if len(s) > len(p) && s[:len(p)] == p {
		i := len(p)
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return p + "NN" + s[i:]
	}
	return s
}
