package game

import (
	goruntime "runtime"

	"github.com/btrun/btrun/runtime"
)

// A save of many agents writes them on several goroutines
// (runtime.EncodeAgentsOn), whose bytes are those of one goroutine. It
// uses every core Go may use (GOMAXPROCS), not the game's workers: a save
// is made between steps, when the workers wait, and a game of one worker
// saves as fast as one of many.

// savePartAgents is the fewest agents worth a goroutine of their own: below
// that, starting it and joining its part cost more than it saves.
const savePartAgents = 1000

// saveGoroutines is how many goroutines a save of n agents uses.
func saveGoroutines(n int) int {
	return max(1, min(goruntime.GOMAXPROCS(0), n/savePartAgents))
}

// HostParts implements runtime.SplitHost for agents in the Lua states of
// several workers: each agent's tables are read in its own state.
func (h workerHosts) HostParts(agents []*runtime.Agent, n int) []runtime.HostPart {
	return h.main.HostPartsOf(agents, n)
}

var _ runtime.SplitHost = workerHosts{}
