package game

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A Load that takes the game's agents from the save (Options.AgentsFromSave):
// a game that adds and removes agents saves whichever agents it has, and a
// new process restores them whatever agents its config starts with. The
// agents the save holds and the game lacks are made first (bound to the
// tree whose file the save names, attached to their worker's Lua state,
// with their data from Options.AgentData) and the restore is planned with
// them; only when everything checked does the game take them, in the save's
// order, and drop the agents the save lacks. A load that fails leaves the
// game's agents as they were.

// agentSet is the save's agents, planned.
type agentSet struct {
	g        *Game
	list     []*gameAgent // in the save's order: the game's own, and new ones (added)
	workerOf []int32      // each one's worker, with workers
	added    []*gameAgent
	data     []runtime.AgentData // the added ones' data
	done     bool
}

// hasAgents reports whether the game's agents are ids, in that order.
func (g *Game) hasAgents(ids []string) bool {
	if len(ids) != len(g.agents) {
		return false
	}
	for i, ga := range g.agents {
		if ga.a.ID() != ids[i] {
			return false
		}
	}
	return true
}

// planAgentSet makes the agents of the save that the game lacks; d reads
// the save's agents (a copy of the decoder the restore will read).
func (g *Game) planAgentSet(d *savecodec.Decoder, ids []string) (*agentSet, error) {
	saved, err := runtime.PeekAgents(d)
	if err != nil {
		return nil, err
	}
	if len(saved) != len(ids) {
		return nil, fmt.Errorf("%w: the save lists %d agents and holds %d", runtime.ErrCorrupt, len(ids), len(saved))
	}
	if len(ids) > MaxAgents {
		return nil, fmt.Errorf("%w: the save holds %d agents; a game has at most %d", runtime.ErrCorrupt, len(ids), MaxAgents)
	}
	byFile := map[string]int32{}
	for _, name := range g.TreeNames() {
		byFile[g.trees[name].Tree.File], _ = g.treeIndex(name)
	}
	s := &agentSet{g: g}
	counts := make([]int, max(len(g.workers), 1))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if seen[id] {
			s.abort()
			return nil, fmt.Errorf("%w: the save holds agent %q twice", runtime.ErrCorrupt, id)
		}
		seen[id] = true
		if ga := g.byID[id]; ga != nil && ga.a.Tree().Tree.File == saved[i].Tree {
			s.list = append(s.list, ga)
			if g.workers != nil {
				s.workerOf = append(s.workerOf, g.workerOf[ga.idx])
				counts[g.workerOf[ga.idx]]++
			}
			continue
		}
		tree, ok := byFile[saved[i].Tree]
		if !ok {
			s.abort()
			return nil, fmt.Errorf("%w: the save's agent %q runs tree %s, which this game does not have: the save is of another game", runtime.ErrUnknownID, id, saved[i].Tree)
		}
		k := 0
		for j := range counts {
			if counts[j] < counts[k] {
				k = j
			}
		}
		counts[k]++
		ga := &gameAgent{tree: tree}
		ga.kind = g.kindOf(g.treeName(ga), id) // translate.go
		data := g.agentData(id, g.treeName(ga))
		if err := g.makeAgent(ga, id, data, k); err != nil {
			s.abort()
			return nil, err
		}
		s.list = append(s.list, ga)
		s.added = append(s.added, ga)
		s.data = append(s.data, data)
		if g.workers != nil {
			s.workerOf = append(s.workerOf, int32(k))
		}
	}
	return s, nil
}

// makeAgent makes ga's runtime agent on worker k, attached to that
// worker's Lua state (or given its data), not yet one of the game's.
func (g *Game) makeAgent(ga *gameAgent, id string, data runtime.AgentData, k int) error {
	trees, env, scripts := g.trees, g.env, g.lua
	if g.workers != nil {
		env = g.workers[k].env
		if k > 0 {
			trees, scripts = g.extra[k-1].trees, g.extra[k-1].lua
		}
	}
	ga.a = trees[g.boundKey(ga)].NewAgent(id, env)
	switch {
	case scripts != nil:
		return scripts.engine.AttachData(ga.a, data)
	case data != nil:
		ga.a.SetUserData(data)
	}
	return nil
}

// agents are the runtime agents of the set, in the save's order.
func (s *agentSet) agents() []*runtime.Agent {
	out := make([]*runtime.Agent, len(s.list))
	for i, ga := range s.list {
		out[i] = ga.a
	}
	return out
}

// hostStateOf is the host state of saves and restores of agents: the Lua
// side's, or without scripts the game's own agent data, when any of the
// agents has some.
func (g *Game) hostStateOf(agents []*runtime.Agent) runtime.HostState {
	if h := g.hostState(); h != nil {
		return h
	}
	for _, a := range agents {
		if a.Data() != nil {
			return runtime.DataHost{}
		}
	}
	return nil
}

// abort forgets the agents the set made, unless it was committed.
func (s *agentSet) abort() {
	if s.done {
		return
	}
	s.done = true
	for _, ga := range s.added {
		if e := luaEngineOf(ga.a); e != nil {
			e.Detach(ga.a)
		}
	}
}

// commit makes the set the game's agents: the agents it lacks are closed
// (their running actions cancelled, the restore replacing them anyway) and
// forgotten, the others take the save's order.
func (s *agentSet) commit() error {
	g := s.g
	s.done = true
	keep := make(map[*gameAgent]bool, len(s.list))
	for _, ga := range s.list {
		keep[ga] = true
	}
	var errs []error
	for _, ga := range g.agents {
		if !keep[ga] {
			errs = append(errs, ga.a.Close())
			if e := luaEngineOf(ga.a); e != nil {
				e.Detach(ga.a)
			}
			delete(g.byPtr, ga.a)
			delete(g.byID, ga.a.ID())
			g.setData(ga, nil)
		}
	}
	for i, ga := range s.added {
		g.setData(ga, s.data[i])
	}
	g.agents = s.list
	g.doing = make([]string, len(s.list))
	for i, ga := range s.list {
		ga.idx = int32(i)
		g.byID[ga.a.ID()] = ga
		g.byPtr[ga.a] = ga
	}
	if g.workers != nil {
		g.workerOf = s.workerOf
		for k, w := range g.workers {
			w.agents = 0
			for _, of := range s.workerOf {
				if int(of) == k {
					w.agents++
				}
			}
		}
	}
	g.activeStale = true
	g.shareStimuli()
	if g.lua != nil && g.lua.game != nil {
		g.worldRefill()
	}
	if g.debug != nil {
		g.debug.Reloaded()
	}
	return errors.Join(errs...)
}
