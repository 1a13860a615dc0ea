package game

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// A game's life as the program that embeds it sees it: idle between calls,
// busy while Advance (or a change of its agents, a signal from Go, a save
// or a load) runs, closed for good after Close. The state is one atomic, so
// that a call that overlaps another from a second goroutine (the game is
// not safe for concurrent use) gets ErrBusy instead of corrupting the
// agents' lists, and a call after Close gets ErrClosed instead of stepping
// agents whose actions were cancelled. It costs one compare-and-swap per
// call, none per agent.

// ErrClosed marks a call on a game after its Close.
var ErrClosed = errors.New("game: closed")

// The states of Game.life.
const (
	lifeIdle int32 = iota
	lifeBusy
	lifeClosed
	lifeHook     // Advance (or Run, or a replay) is in a BeforeStep or AfterStep callback
	lifeHookBusy // a call the callback made (enterCall) is under way
)

// life is the game's state (lifeIdle, lifeBusy, lifeClosed).
type life struct{ state atomic.Int32 }

// enter marks the game busy for what, or says why it cannot be: another
// call is under way (ErrBusy; from an action during a step, or from another
// goroutine) or the game is closed (ErrClosed). leave ends it.
func (g *Game) enter(what string) error {
	if g.life.state.CompareAndSwap(lifeIdle, lifeBusy) {
		return nil
	}
	return g.lifeErr(what)
}

// enterCall is enter for the calls a BeforeStep or AfterStep callback may
// make (Signal, AddAgent, RemoveAgent, Save): they run from inside the
// callback too, one at a time, while Advance itself and Load do not.
func (g *Game) enterCall(what string) error {
	if g.life.state.CompareAndSwap(lifeIdle, lifeBusy) || g.life.state.CompareAndSwap(lifeHook, lifeHookBusy) {
		return nil
	}
	return g.lifeErr(what)
}

// leave marks the game idle again after enter (or back in the callback
// after enterCall from one).
func (g *Game) leave() {
	if !g.life.state.CompareAndSwap(lifeHookBusy, lifeHook) {
		g.life.state.Store(lifeIdle)
	}
}

// lifeErr is why what cannot run now: the game is closed or busy.
func (g *Game) lifeErr(what string) error {
	switch g.life.state.Load() {
	case lifeClosed:
		return fmt.Errorf("%w: cannot %s after Close", ErrClosed, what)
	case lifeHook:
		return fmt.Errorf("%w: cannot %s from a BeforeStep or AfterStep callback (it may send signals, add and remove agents and save)", ErrBusy, what)
	}
	return fmt.Errorf("%w: cannot %s while the game is stepping or another call is under way (from an action during a step, or from another goroutine: a game is used from one goroutine at a time); do it between two steps", ErrBusy, what)
}

// notClosed says whether the game is not closed, for calls that do not take it
// (Run, runStep).
func (g *Game) notClosed(what string) error {
	if g.life.state.Load() == lifeClosed {
		return fmt.Errorf("%w: cannot %s after Close", ErrClosed, what)
	}
	return nil
}
