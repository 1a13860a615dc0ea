package luabind

import (
	"errors"
	"slices"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// Saving the Lua state of many agents on several goroutines
// (runtime.EncodeAgentsOn). Writing an agent's tables only reads them (the
// tables themselves, through their layout: no metatable, no __index, no
// call into the VM), so the goroutines can read one Lua state at once
// while nothing runs in it: a save is made between steps. What a save
// writes apart from reading is per goroutine here: the tables met so far
// (a table met twice is an error) and the lanes' scratch.
//
// A part knows only its own agents' tables. That a table is reachable
// from agents of two parts, or from an agent and the world (saved before
// the agents, in the engine's own session), is found once every part has
// written its agents (Overlaps); the save is then made again on one
// goroutine, whose error names both places, as always. Agents whose
// ctx.agent is the game's own data (AttachData) are saved on one
// goroutine: their MarshalBinary is the game's code, not known to be safe
// to call from several goroutines at once.

// errPart is what a part reports for an agent it could not write: the
// save is made again on one goroutine, which says why.
var errPart = errors.New("luabind: cannot save on several goroutines")

// savePart is one goroutine's share of a save.
type savePart struct {
	seen    map[*lua.LTable]int32 // the tables met (the owner is always 0: a part never explains)
	lanes   []runtime.Lane
	engines []*Engine   // the engines of the part's agents: their sessions hold the world's tables
	before  []*savePart // the parts of the agents before this part's
	mine    func(*Engine) bool
}

// HostParts implements runtime.SplitHost for agents of this engine: n
// parts, or nil (save on one goroutine) when an agent is not this
// engine's yet (the save attaches it) or saves the game's own data.
func (e *Engine) HostParts(agents []*runtime.Agent, n int) []runtime.HostPart {
	return e.save.split(agents, n, func(o *Engine) bool { return o == e })
}

// HostPartsOf is HostParts for agents of several engines (a game's
// workers, each with its Lua state): each agent's tables are its own
// engine's. The parts are kept in e's session for its next save.
func (e *Engine) HostPartsOf(agents []*runtime.Agent, n int) []runtime.HostPart {
	return e.save.split(agents, n, func(*Engine) bool { return true })
}

func (s *saveTables) split(agents []*runtime.Agent, n int, mine func(*Engine) bool) []runtime.HostPart {
	for _, a := range agents {
		st, ok := a.UserData().(*AgentData)
		if !ok || st.game != nil || !mine(st.e) {
			return nil
		}
	}
	for len(s.parts) < n {
		s.parts = append(s.parts, &savePart{seen: map[*lua.LTable]int32{}})
	}
	out := make([]runtime.HostPart, n)
	for k, p := range s.parts[:n] {
		clear(p.seen)
		clear(p.engines)
		p.engines, p.before, p.mine = p.engines[:0], s.parts[:k], mine
		out[k] = p
	}
	return out
}

// EncodeHost implements runtime.HostPart: Engine.EncodeHost, with the
// part's own record of the tables met.
func (p *savePart) EncodeHost(enc *savecodec.Encoder, a *runtime.Agent) error {
	st, ok := a.UserData().(*AgentData)
	if !ok || !p.mine(st.e) { // checked by split: not reached
		return errPart
	}
	if !slices.Contains(p.engines, st.e) { // one per worker at most
		p.engines = append(p.engines, st.e)
	}
	w := saveWriter{e: st.e, enc: enc, seen: p.seen, lanes: &p.lanes}
	if ok, err := w.agent(st, a); !ok || err != nil {
		return errPart
	}
	return nil
}

// Overlaps implements runtime.HostPart: whether a table this part wrote
// was written by an earlier part, or by the engine's session (the world).
func (p *savePart) Overlaps() bool {
	for _, q := range p.before {
		if shareTable(p.seen, q.seen) {
			return true
		}
	}
	for _, e := range p.engines {
		if shareTable(p.seen, e.save.seen) {
			return true
		}
	}
	return false
}

// shareTable reports whether a and b have a table in common, walking the
// smaller (the world's tables are a few, a part's thousands).
func shareTable(a, b map[*lua.LTable]int32) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for t := range a {
		if _, ok := b[t]; ok {
			return true
		}
	}
	return false
}

var _ runtime.SplitHost = (*Engine)(nil)
