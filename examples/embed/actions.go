package main

import (
	"math"

	"github.com/btrun/btrun/runtime"
)

// The courtyard's Go actions. Their parameters are declared by a struct's
// fields: btrun parses and checks them when the tree is bound (a
// <parameter name="patrol.speed">fast</parameter> is an error at its
// FILE:LINE:COL before anything runs) and hands them over as Go values.
// Their per-rule state is a struct too, which btrun keeps per agent and
// saves with it.

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

// register registers the Go actions. The game calls it for every registry
// it fills (one per worker, and again at each hot reload).
func register(reg *runtime.Registry) error {
	err := runtime.TypedAction[patrolParams, patrolState]{
		Name: "patrol",
		Doc:  "walks back and forth across the guard's post",
		Run: func(a *runtime.Agent, p *patrolParams, s *patrolState) (runtime.Status, error) {
			u := a.Data().(*Unit)
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
	return runtime.TypedAction[searchParams, struct{}]{
		Name: "search",
		Doc:  "walks to where the alarm said the thief was; the alarm is over when it gets there",
		Run: func(a *runtime.Agent, p *searchParams, _ *struct{}) (runtime.Status, error) {
			u := a.Data().(*Unit)
			dx, dy := u.yard.AlarmX-u.X, u.yard.AlarmY-u.Y
			d := math.Hypot(dx, dy)
			step := p.Speed * a.Dt()
			if d <= step {
				u.X, u.Y = u.yard.AlarmX, u.yard.AlarmY
				return runtime.Success, a.SetVar("Alarmed", false)
			}
			u.X += dx / d * step
			u.Y += dy / d * step
			return runtime.Running, nil
		},
	}.Register(reg)
}
