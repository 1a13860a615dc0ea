package runtime_test

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
)

const guardXML = `<?xml version="1.0" encoding="UTF-8"?>
<behaviorTree>
  <variables><variable name="AwareOfEnemy" default="false"/></variables>
  <signals>
    <signal name="OnEnemySeen" variable="AwareOfEnemy" value="true"/>
    <signal name="OnNoTarget" variable="AwareOfEnemy" value="false"/>
  </signals>
  <choice id="root">
    <action id=".attack" name="attack"><condition>AwareOfEnemy</condition></action>
    <action id=".patrol" name="patrol"/>
  </choice>
</behaviorTree>`

// Example shows the whole Go API: load a tree, register actions, bind, make
// an agent, step it, send it a signal and read where it is.
func Example() {
	tree, err := runtime.LoadBytes("guard.xml", []byte(guardXML), runtime.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := runtime.NewRegistry()
	reg.RegisterAction("patrol", runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
		return runtime.Running, nil
	}))
	reg.RegisterAction("attack", &runtime.Lifecycle{
		OnStart: func(a *runtime.Agent, p runtime.Params) error { fmt.Println("draw weapon"); return nil },
		OnRun: func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
			return runtime.Running, nil
		},
		OnCancel: func(a *runtime.Agent, p runtime.Params) error { fmt.Println("holster weapon"); return nil },
	})
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	guard := bound.NewAgent("guard-1", nil)

	st, _ := guard.Step(0.1)
	fmt.Println(st, guard.CursorLabel())

	guard.Signal("OnEnemySeen")
	guard.Jump("root") // re-decide now instead of when patrol finishes
	st, _ = guard.Step(0.1)
	fmt.Println(st, guard.CursorLabel())

	guard.Signal("OnNoTarget")
	st, _ = guard.Step(0.1) // attack's condition fails: it is cancelled
	fmt.Println(st, guard.CursorLabel())
	// Output:
	// running root.patrol
	// draw weapon
	// running root.attack
	// holster weapon
	// running root.patrol
}

// ExampleAgent_CompleteAction shows how a step pauses at a call whose answer
// comes later (a plugin call) and resumes with it.
func ExampleAgent_CompleteAction() {
	tree, _ := runtime.LoadBytes("remote.xml", []byte(`<behaviorTree>
  <sequence id="root"><action id=".path" name="findPath"/><action id=".go" name="move"/></sequence>
</behaviorTree>`), runtime.LoadOptions{})
	reg := runtime.NewRegistry()
	reg.RegisterAction("findPath", runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
		return 0, runtime.ErrPending // answered later, e.g. by a batch of plugin replies
	}))
	reg.RegisterAction("move", runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
		return runtime.Running, nil
	}))
	bound, _ := runtime.Bind(tree, reg, runtime.BindOptions{})
	a := bound.NewAgent("scout", nil)

	st, _ := a.Step(0.1)
	fmt.Println(st, a.CursorLabel())
	st, _ = a.CompleteAction(runtime.Success, nil)
	fmt.Println(st, a.CursorLabel())
	// Output:
	// paused root.path
	// running root.go
}

// ExampleBind_unknownNames shows that binding reports every unknown name,
// with its position, before anything runs.
func ExampleBind_unknownNames() {
	tree, _ := runtime.LoadBytes("typo.xml", []byte(`<behaviorTree>
<sequence id="root">
  <action name="wandr"/>
  <action name="bt.wait"><condition>playerNerby</condition></action>
</sequence>
</behaviorTree>`), runtime.LoadOptions{})
	reg := runtime.NewRegistry()
	reg.RegisterAction("wander", runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) { return runtime.Success, nil }))
	reg.RegisterCondition("playerNearby", runtime.ConditionFunc(func(a *runtime.Agent, p runtime.Params) (bool, error) { return false, nil }))
	_, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	fmt.Println(err)
	// Output:
	// typo.xml:3:3: rule action@typo.xml:3:3: unknown action "wandr": not a built-in, nor registered by a script or plugin; did you mean "wander"?
	// typo.xml:4:26: rule action@typo.xml:4:3: unknown condition "playerNerby": not a declared variable, a timestamp condition (T.set, T.lessThan, T.moreThan), a gate condition (G.open, G.full), a signal condition (S.held), a built-in, nor registered by a script or plugin; did you mean "playerNearby"?
	// typo.xml:4:3: rule action@typo.xml:4:3: bt.wait: needs parameter "wait.seconds" (seconds)
}

// ExampleAgent_Lanes steps an agent through a parallel and lists its lanes:
// the lanes of the parallel that is its cursor, each followed by the lanes
// of its own parallel, if any.
func ExampleAgent_Lanes() {
	tree, _ := runtime.LoadBytes("grunt.xml", []byte(`<behaviorTree>
  <parallel id="attack" success="any">
    <action id=".chase" name="chase"/>
    <parallel id=".aim" failure="all">
      <action id=".track" name="track"/>
      <action id=".steady" name="steady"/>
    </parallel>
  </parallel>
</behaviorTree>`), runtime.LoadOptions{})
	reg := runtime.NewRegistry()
	for name, st := range map[string]runtime.Status{"chase": runtime.Running, "track": runtime.Running, "steady": runtime.Failure} {
		reg.RegisterAction(name, runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) { return st, nil }))
	}
	bound, _ := runtime.Bind(tree, reg, runtime.BindOptions{})
	grunt := bound.NewAgent("grunt-1", nil)
	grunt.Step(0.1)

	rules := bound.Tree.Rules
	fmt.Println("cursor", grunt.CursorLabel())
	for _, l := range grunt.Lanes(nil) {
		indent := ""
		if l.Parent >= 0 {
			indent = "  "
		}
		fmt.Printf("%slane %d of %s: at %s, %s\n", indent, l.Slot, rules[l.Parallel].Label, rules[l.Cursor].Label, l.Status)
	}
	// Output:
	// cursor attack
	// lane 0 of attack: at attack.chase, running
	// lane 1 of attack: at attack.aim, running
	//   lane 2 of attack.aim: at attack.aim.track, running
	//   lane 3 of attack.aim: at attack.aim.steady, failure
}

// ExampleTypedAction registers a Go action whose parameters are declared by
// a struct (parsed once, when the tree is bound) and whose per-rule state
// the runtime keeps and saves: a patrol that walks `patrol.legs` legs at
// `patrol.speed`, counting them in its state.
func ExampleTypedAction() {
	type patrolParams struct {
		Speed float64 `param:"patrol.speed" default:"1" doc:"metres per second"`
		Legs  int     `param:"patrol.legs,required" doc:"legs to walk before it succeeds"`
	}
	type patrolState struct {
		Leg      int
		Distance float64
	}
	reg := runtime.NewRegistry()
	err := runtime.TypedAction[patrolParams, patrolState]{
		Name: "patrol",
		Doc:  "walks legs of a patrol",
		Run: func(a *runtime.Agent, p *patrolParams, s *patrolState) (runtime.Status, error) {
			s.Leg++
			s.Distance += p.Speed * a.Dt()
			fmt.Printf("leg %d of %d, %.1f m\n", s.Leg, p.Legs, s.Distance)
			if s.Leg < p.Legs {
				return runtime.Running, nil
			}
			return runtime.Success, nil
		},
	}.Register(reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, _ := runtime.LoadBytes("guard.xml", []byte(`<behaviorTree>
  <action id="patrol" name="patrol">
    <parameter name="patrol.legs">3</parameter><parameter name="patrol.speed">2</parameter>
  </action>
</behaviorTree>`), runtime.LoadOptions{})
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := bound.NewAgent("guard-1", nil)
	for range 3 {
		a.Step(0.5)
	}

	// A parameter of the wrong type is a bind error at the rule's position.
	bad, _ := runtime.LoadBytes("bad.xml", []byte(`<behaviorTree>
  <action id="patrol" name="patrol"><parameter name="patrol.legs">many</parameter></action>
</behaviorTree>`), runtime.LoadOptions{})
	_, err = runtime.Bind(bad, reg, runtime.BindOptions{})
	fmt.Println(err)
	// Output:
	// leg 1 of 3, 1.0 m
	// leg 2 of 3, 2.0 m
	// leg 3 of 3, 3.0 m
	// bad.xml:2:3: rule patrol: patrol: parameter "patrol.legs" = "many" is not an integer
}
