package liveview

import (
	"math"
	"time"
)

// Real-time pacing: at speed k, step s+1 is due dt/k of wall time after
// step s, counted from the moment pacing (re)started (a resume, a change of
// speed), so that steps do not drift; a game that fell far behind (a slow
// step) starts counting afresh instead of running to catch up.

// The speeds the live view runs at, as multiples of real time. A step then
// waits dt/speed, at most 100 hours (dt is at most an hour): a duration a
// timer holds.
const (
	minSpeed = 0.01
	maxSpeed = 1000
	// maxBehind is how late a step may be before pacing starts afresh.
	maxBehind = 250 * time.Millisecond
)

// pacer paces steps at real time.
type pacer struct {
	clock    clock
	base     time.Time
	baseStep uint64
}

func (p *pacer) reset(step uint64) { p.base, p.baseStep = p.clock.now(), step }

// due is when the step after step is due, and whether it must wait for it
// (speed <= 0: as fast as possible, never).
func (p *pacer) due(step uint64, dt, speed float64) (time.Time, bool) {
	if speed <= 0 {
		return time.Time{}, false
	}
	if step < p.baseStep {
		p.reset(step)
	}
	due := p.base.Add(seconds(float64(step+1-p.baseStep) * dt / speed))
	now := p.clock.now()
	if now.Sub(due) > maxBehind { // far behind (a slow step, a pause): start counting afresh
		p.reset(step)
		return now, false
	}
	return due, due.After(now)
}

// seconds converts seconds to a Duration, saturating: converting a float
// beyond the int64 range gives any value (the minimum, on amd64: a step
// due long ago, so a speed of 1e-300 ran as fast as possible).
func seconds(s float64) time.Duration {
	const most = float64(math.MaxInt64 / 2)
	ns := s * float64(time.Second)
	switch {
	case !(ns < most): // NaN included
		return time.Duration(most)
	case ns < -most:
		return time.Duration(-most)
	}
	return time.Duration(ns)
}

// clock is the wall clock pacing reads and waits on; tests drive one of
// their own.
type clock interface {
	now() time.Time
	// until returns a channel that receives once the time t has come, and
	// the function that stops it.
	until(t time.Time) (c <-chan time.Time, stop func())
}

// wallClock is the real clock, with one timer reused for every wait.
type wallClock struct{ t *time.Timer }

func (c *wallClock) now() time.Time { return time.Now() }

func (c *wallClock) until(t time.Time) (<-chan time.Time, func()) {
	if c.t == nil {
		c.t = time.NewTimer(time.Until(t))
	} else {
		c.t.Reset(time.Until(t)) // since Go 1.23, no stale tick is left in C
	}
	return c.t.C, func() { c.t.Stop() }
}
