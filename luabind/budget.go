package luabind

import (
	"fmt"
	"time"
)

// Time budgets of calls.
//
// Most calls into Lua are an agent's action, condition or scorer in a
// step, a world's spawn for one agent, or a script's top level while it
// loads: small pieces of work, each bounded by Options.CallTimeout. The
// world's init and tick are not of that kind: init runs once and typically
// walks every agent (game.ids), and tick runs once per step for the whole
// world. Holding them to an action's timeout makes a big game fail to
// start at random on a busy machine, so each has a budget of its own
// (World.SetTimeouts), which the game sizes from the work it expects.
//
// A budget only changes how long the watchdog lets a call run: the clock is
// the same (busy ticks of the process's CPU time, guard.go), so the world's
// budgets are as robust to load as an action's, and a runaway init or tick
// is stopped as an action is, with the error at its line naming the budget
// it ran out of.

// budget is how long one kind of call may run: the watchdog stops an
// outermost call after stopAfter busy ticks of its period. A budget is made
// once (New, World.SetTimeouts) and never changed: a call points at it,
// so the watchdog and the error read it without a lock.
type budget struct {
	timeout   time.Duration // <= 0: unbounded
	stopAfter int           // busy ticks before the call is stopped; 0: never
	name      string        // what the error calls it: "the call timeout"
}

// newBudget is the budget of timeout for a watchdog ticking every period.
// A timeout shorter than the watchdog's period (a budget smaller than the
// call timeout's tenth) is kept to within one tick.
func newBudget(timeout, period time.Duration, name string) *budget {
	b := &budget{timeout: timeout, name: name}
	if timeout > 0 {
		b.stopAfter = busyTicks(timeout, period)
	}
	return b
}

// busyTicks is how many ticks of period make between 0.9 and 1.0 times
// timeout: the call that was running at the first of them is stopped
// then.
func busyTicks(timeout, period time.Duration) int {
	return max(1, int((timeout*(ticksPerTimeout-1)/ticksPerTimeout+period-1)/period))
}

type timeoutMsg struct {
	d    time.Duration
	name string
}

func (m timeoutMsg) Error() string {
	return fmt.Sprintf("script ran longer than %s (%v)", m.name, m.d)
}
