package runtime

import (
	"testing"
	"time"
)

type benchWalkState struct {
	Walked float64
	Steps  int32
	Since  time.Duration
	Tired  bool
	Mood   string
}

// BenchmarkTypedActionStep: a step of an agent whose one action is typed,
// its state five fields decoded before the call and encoded after it.
func BenchmarkTypedActionStep(b *testing.B) {
	reg := NewRegistry()
	if err := (TypedAction[struct{}, benchWalkState]{Name: "walk",
		Run: func(a *Agent, _ *struct{}, s *benchWalkState) (Status, error) {
			s.Walked += 0.5
			s.Steps++
			s.Since += time.Second
			s.Tired = s.Steps > 3
			s.Mood = "calm"
			return Running, nil
		}}).Register(reg); err != nil {
		b.Fatal(err)
	}
	tree, err := LoadBytes("walk.xml", []byte(`<behaviorTree><action id="walk" name="walk"/></behaviorTree>`), LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	bt, err := Bind(tree, reg, BindOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a := bt.NewAgent("a", &Env{})
	a.Step(0.1)
	b.ReportAllocs()
	for b.Loop() {
		a.Step(0.1)
	}
}
