package main

import (
	"fmt"
	"math"

	"github.com/btrun/btrun/runtime"
)

// The courtyard's Go actions. Their parameters are declared by a struct's
// fields: btrun parses and checks them when the tree is bound (a
// <parameter name="patrol.speed">fast</parameter> is an error at its
// FILE:LINE:COL before anything runs, and so is a value Check refuses) and
// hands them over as Go values. Their per-rule state is a struct too,
// which btrun keeps per agent and saves with it. The unit they move is the
// agent's data, typed (runtime.DataOf).

type patrolParams struct {
	Speed float64 `param:"patrol.speed" default:"1" doc:"metres per second"`
	Span  float64 `param:"patrol.span,required" doc:"how far from its post the guard walks each way"`
}

type patrolState struct {
	Back bool // walking back towards the post's other side
}

type searchParams struct {
	Speed float64 `param:"search.speed" default:"1" doc:"metres per second"`
}

// searchState is where the search goes: where the alarm said, or a later
// alarm while it runs.
type searchState struct {
	X, Y float64
}

// register registers the Go actions. The game calls it for every registry
// it fills (one per worker, and again at each hot reload).
func register(reg *runtime.Registry) error {
	err := runtime.TypedAction[patrolParams, patrolState]{
		Name: "patrol",
		Doc:  "walks back and forth across the guard's post",
		Check: func(p *patrolParams) error {
			if p.Speed <= 0 || p.Span <= 0 {
				return fmt.Errorf("patrol.speed and patrol.span must be above 0 (a guard that stands still is not patrolling)")
			}
			return nil
		},
		Run: func(a *runtime.Agent, p *patrolParams, s *patrolState) (runtime.Status, error) {
			u := runtime.DataOf[*Unit](a)
			step := p.Speed * a.Dt()
			if s.Back {
				step = -step
			}
			u.X += step
			if math.Abs(u.X-u.PostX) >= p.Span {
				s.Back = !s.Back
			}
			return runtime.Running, nil
		},
	}.Register(reg)
	if err != nil {
		return err
	}
	return runtime.TypedAction[searchParams, searchState]{
		Name: "search",
		Doc:  "walks to where the alarm said the thief was; the alarm is over when it gets there",
		Start: func(a *runtime.Agent, p *searchParams, s *searchState) error {
			u := runtime.DataOf[*Unit](a)
			s.X, s.Y = u.yard.AlarmX, u.yard.AlarmY
			return nil
		},
		Run: func(a *runtime.Agent, p *searchParams, s *searchState) (runtime.Status, error) {
			u := runtime.DataOf[*Unit](a)
			dx, dy := s.X-u.X, s.Y-u.Y
			d := math.Hypot(dx, dy)
			step := p.Speed * a.Dt()
			if d <= step {
				u.X, u.Y = s.X, s.Y
				return runtime.Success, a.SetVar("Alarmed", false)
			}
			u.X += dx / d * step
			u.Y += dy / d * step
			return runtime.Running, nil
		},
		// A new alarm while the guard searches sends it to the new place.
		On: map[string]func(a *runtime.Agent, p *searchParams, s *searchState, data runtime.Value) (runtime.Status, error){
			"Alarm": func(a *runtime.Agent, p *searchParams, s *searchState, data runtime.Value) (runtime.Status, error) {
				s.X, s.Y = data.Get("x").Num(), data.Get("y").Num()
				a.Log(fmt.Sprintf("searches at (%.1f, %.1f) instead", s.X, s.Y))
				return runtime.Running, nil
			},
		},
	}.Register(reg)
}
