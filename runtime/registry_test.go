package runtime

import "testing"

func TestRegistry_duplicateNamesNameBothOrigins(t *testing.T) {
	r := NewRegistry()
	ok := ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil })
	if err := r.AddAction(ActionDef{Name: "wander", Origin: Origin{"lua", "scripts/ai/a.lua:3"}, Action: ok}); err != nil {
		t.Fatal(err)
	}
	err := r.AddAction(ActionDef{Name: "wander", Origin: Origin{"plugin", "nav"}, Action: ok})
	if err == nil || err.Error() != `runtime: duplicate name: action "wander" from plugin nav is already registered from lua scripts/ai/a.lua:3` {
		t.Errorf("got %v", err)
	}
	err = r.AddAction(ActionDef{Name: "bt.wait", Origin: Origin{"lua", "x.lua:1"}, Action: ok})
	if err == nil || err.Error() != `runtime: duplicate name: action "bt.wait" from lua x.lua:1 is already registered from builtin` {
		t.Errorf("got %v", err)
	}
	cond := ConditionFunc(func(a *Agent, p Params) (bool, error) { return true, nil })
	r.AddCondition(ConditionDef{Name: "near", Origin: Origin{"go", ""}, Condition: cond})
	if err := r.RegisterCondition("near", cond); err == nil {
		t.Error("duplicate condition accepted")
	}
}

func TestRegistry_wrapActionsDecoratesEveryAction(t *testing.T) {
	r := NewRegistry()
	calls := 0
	r.RegisterAction("go", ActionFunc(func(a *Agent, p Params) (Status, error) { return Success, nil }))
	r.WrapActions(func(d ActionDef) ActionDef {
		if d.Action != nil {
			inner := d.Action
			d.Action = ActionFunc(func(a *Agent, p Params) (Status, error) { calls++; return inner.Run(a, p) })
		}
		return d
	})
	d, _ := r.LookupAction("go")
	d.Action.Run(nil, nil)
	if calls != 1 {
		t.Errorf("wrapper called %d times", calls)
	}
	if len(r.Actions()) != 11 {
		t.Errorf("%d actions after wrapping, want the 10 built-ins and go", len(r.Actions()))
	}
}

func TestRegistry_scorersHaveNamesOfTheirOwn(t *testing.T) {
	r := NewRegistry()
	one := ScorerFunc(func(a *Agent, p Params) (float64, error) { return 1, nil })
	if err := r.RegisterCondition("urge", ConditionFunc(func(a *Agent, p Params) (bool, error) { return true, nil })); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterScorer("urge", one); err != nil {
		t.Errorf("a scorer named like a condition: %v", err)
	}
	err := r.AddScorer(ScorerDef{Name: "urge", Origin: Origin{"plugin", "mood"}, Scorer: one})
	if err == nil || err.Error() != `runtime: duplicate name: scorer "urge" from plugin mood is already registered from go` {
		t.Errorf("got %v", err)
	}
	if err := r.AddScorer(ScorerDef{Name: "both"}); err == nil {
		t.Error("a scorer with neither Scorer nor Bind accepted")
	}
	if d, ok := r.LookupScorer("urge"); !ok || d.Origin.Kind != "go" {
		t.Errorf("LookupScorer: %+v %v", d, ok)
	}
	if got := r.Scorers(); len(got) != 1 || got[0].Name != "urge" {
		t.Errorf("Scorers: %+v", got)
	}
}
