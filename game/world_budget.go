package game

import (
	"errors"
	"fmt"
	"time"

	"github.com/btrun/btrun/luabind"
)

// The world script's init and tick have time budgets of their own, not the
// call timeout (run.lua_call_timeout) that bounds an agent's action in a
// step: init typically walks every agent once (game.ids), and tick does the
// whole world's work of a step, so both grow with the game. Left out of the
// config, each is a base plus an allowance per agent, and never less than
// the call timeout; the allowances are generous (the example world's init
// costs about a microsecond per agent) because a start that fails at random
// on a busy machine is worse than a runaway init stopped a few seconds
// later. The budgets are kept in CPU time, as the call timeout is
// (luabind/guard.go), so a loaded machine does not stop a world that is
// only waiting for a core.
const (
	worldInitBase     = time.Second
	worldInitPerAgent = 50 * time.Microsecond
	worldTickBase     = 100 * time.Millisecond
	worldTickPerAgent = 10 * time.Microsecond
)

// worldTimeouts are the budgets of the world's init and tick for a game of
// agents agents: the config's, or the defaults above.
func (r *RunConfig) worldTimeouts(agents int) (init, tick time.Duration) {
	grown := func(set Duration, base, per time.Duration) time.Duration {
		if set.Duration != 0 {
			return set.Duration
		}
		return min(max(base+time.Duration(agents)*per, r.LuaCallTimeout.Duration), MaxTimeout)
	}
	return grown(r.WorldInitTimeout, worldInitBase, worldInitPerAgent), grown(r.WorldTickTimeout, worldTickBase, worldTickPerAgent)
}

// setWorldTimeouts gives the world's init and tick their budgets for the
// game's agents now (a game may add agents after it is opened: AddAgent).
func (g *Game) setWorldTimeouts() {
	g.lua.world.SetTimeouts(g.cfg.Run.worldTimeouts(len(g.agents)))
}

// worldTimeoutError names the key that raises the budget a world hook ran
// out of; other errors are returned as they are.
func worldTimeoutError(err error, key string) error {
	if err == nil || !errors.Is(err, luabind.ErrTimeout) {
		return err
	}
	return fmt.Errorf("%w; raise run.%s if the world has that much to do", err, key)
}
