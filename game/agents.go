package game

import (
	"errors"
	"fmt"
	"slices"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/rules"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// The game's agents as a Go program that embeds it sees them: found by id,
// added and removed between steps, each with the game's own data when the
// program gives some (runtime.AgentData). The order agents step in (and are
// traced and saved in) is the config's, then the added agents in the order
// they were added; removing an agent keeps the others' order.

// ErrBusy marks a change to the game's agents (AddAgent, RemoveAgent,
// Signal) asked for during a step, from an action or condition: it must
// wait until the step is over.
var ErrBusy = errors.New("game: busy stepping")

// listAgent appends an agent's bookkeeping, its runtime agent made already
// or by the next load (Open).
func (g *Game) listAgent(id string, tree int32, data runtime.AgentData) *gameAgent {
	ga := &gameAgent{idx: int32(len(g.agents)), tree: tree}
	g.agents = append(g.agents, ga)
	g.doing = append(g.doing, "")
	g.byID[id] = ga
	g.setData(ga, data)
	g.shareStimuli()
	return ga
}

// agentID is an agent's id: its runtime agent's, or the one Open listed
// it with.
func (g *Game) agentID(ga *gameAgent) string {
	if ga.a != nil {
		return ga.a.ID()
	}
	return g.opening[ga.idx]
}

// treeName is the config's name of an agent's tree.
func (g *Game) treeName(ga *gameAgent) string { return g.cfg.Trees[ga.tree].Name }

// treeIndex is the place of a tree in the config's [[trees]].
func (g *Game) treeIndex(name string) (int32, bool) {
	for i, tc := range g.cfg.Trees {
		if tc.Name == name {
			return int32(i), true
		}
	}
	return -1, false
}

// setData keeps the game's own data of an agent (nil: none). Agents
// without data cost the game nothing for it: the map is made for the
// first that has some.
func (g *Game) setData(ga *gameAgent, d runtime.AgentData) {
	switch {
	case d != nil && g.data == nil:
		g.data = map[*gameAgent]runtime.AgentData{ga: d}
	case d != nil:
		g.data[ga] = d
	default:
		delete(g.data, ga)
	}
}

// agentData is the game's own data for an agent it makes, from
// Options.AgentData.
func (g *Game) agentData(id, tree string) runtime.AgentData {
	if g.opts.AgentData == nil {
		return nil
	}
	return g.opts.AgentData(id, tree)
}

// registerGo registers the rule set btrun ships (package rules) and the
// embedding program's Go actions, conditions, scorers and rules
// (Options.Register) in a registry the game fills.
func (g *Game) registerGo(reg *runtime.Registry) error {
	if err := rules.Register(reg); err != nil {
		return fmt.Errorf("game: registering btrun's rules: %w", err)
	}
	if g.opts.Register == nil {
		return nil
	}
	if err := g.opts.Register(reg); err != nil {
		return fmt.Errorf("game: registering Go actions: %w", err)
	}
	return nil
}

// attachData gives the agents of a loadout without scripts the game's own
// data (with scripts, attachScripts gives it to the Lua engine, which holds
// it beside ctx).
func (l *loadout) attachData(g *Game) {
	if l.lua != nil {
		return
	}
	for i, a := range l.agents {
		if d := g.data[g.agents[i]]; d != nil && a != nil {
			a.SetUserData(d)
		}
	}
}

// Agent returns the agent with the given id, or nil. A hot reload and a
// Load make new agents: look agents up again after one rather than keeping
// them.
func (g *Game) Agent(id string) *runtime.Agent {
	if ga := g.byID[id]; ga != nil {
		return ga.a
	}
	return nil
}

// notStepping refuses what must wait until a step is over.
func (g *Game) notStepping(what string) error {
	if g.stepping {
		return fmt.Errorf("%w: cannot %s during a step; do it between two steps", ErrBusy, what)
	}
	return nil
}

// AddAgent makes a new agent with the given id running tree (a [[trees]]
// name), stepping after every agent the game has, from the next step on.
// data is the game's own data for it (nil: ctx.agent is a Lua table). When
// the world script has started, its spawn(ctx) runs for the agent now, as
// for the agents that were there from the start. With workers, the agent
// goes to the worker with the fewest agents. An id that continues the ids
// of an [[agents]] entry with translations on the same tree (sniper-7 for
// name = "sniper") makes an agent of that kind, bound to its translations.
// Call it between steps.
func (g *Game) AddAgent(id, tree string, data runtime.AgentData) (*runtime.Agent, error) {
	if err := g.enterCall("add an agent"); err != nil {
		return nil, err
	}
	defer g.leave()
	if err := g.notStepping("add an agent"); err != nil {
		return nil, err
	}
	switch {
	case id == "" || id == "all" || id == "self":
		return nil, fmt.Errorf("game: agent id %q: an id is not empty, and not all or self", id)
	case g.byID[id] != nil:
		return nil, fmt.Errorf("game: an agent %q is already in the game", id)
	case g.trees[tree] == nil:
		return nil, fmt.Errorf("game: agent %q: unknown tree %q; the game's trees are %s", id, tree, quoteList(g.TreeNames()))
	case len(g.agents) >= MaxAgents:
		return nil, fmt.Errorf("game: a game has at most %d agents", MaxAgents)
	}
	k := 0
	for j, w := range g.workers {
		if w.agents < g.workers[k].agents {
			k = j
		}
	}
	ti, _ := g.treeIndex(tree)
	ga := &gameAgent{tree: ti, kind: g.kindOf(tree, id)} // its kind's translations (translate.go)
	if err := g.makeAgent(ga, id, data, k); err != nil {
		return nil, fmt.Errorf("game: adding agent %s: %w", id, err)
	}
	ga.idx = int32(len(g.agents))
	g.agents = append(g.agents, ga)
	g.doing = append(g.doing, "")
	if g.held != nil { // a shard's directory of ids (cluster_range.go)
		g.opening = append(g.opening, id)
	}
	g.byID[id] = ga
	g.byPtr[ga.a] = ga
	g.setData(ga, data)
	if g.workers != nil {
		g.workerOf = append(g.workerOf, int32(k))
		g.workers[k].agents++
	}
	g.shareStimuli()
	g.activeStale = true
	var err error
	if g.lua != nil && g.lua.game != nil { // the world has started
		g.worldAdd(ga)
		if err = g.luaOf(ga).world.Spawn(ga.a); err == nil {
			err = g.writeChanges(ga, g.step, g.Time(g.step))
		}
	}
	if err != nil {
		g.removeAgent(ga)
		return nil, fmt.Errorf("game: adding agent %s: %w", id, err)
	}
	g.agentsChanged() // the live view indexes its agents again
	return ga.a, nil
}

// RemoveAgent takes an agent out of the game: an action it was running is
// cancelled (runtime.Agent.Close), the gates it held are released, and it
// steps no more; the other agents keep their order. Signals other agents
// sent it are dropped. Call it between steps.
func (g *Game) RemoveAgent(id string) error {
	if err := g.enterCall("remove an agent"); err != nil {
		return err
	}
	defer g.leave()
	if err := g.notStepping("remove an agent"); err != nil {
		return err
	}
	ga := g.byID[id]
	if ga == nil {
		return fmt.Errorf("game: no agent %q", id)
	}
	err := ga.a.Close()
	werr := g.writeChanges(ga, g.step, g.Time(g.step)) // what its cancel hook did
	g.out.flushRepeat(id)                              // its folded errors are reported now: it will not err again
	g.removeAgent(ga)
	g.agentsChanged()
	return errors.Join(err, werr)
}

// removeAgent forgets an agent: its Lua tables, its place in the lists (the
// agents after it move up one), its worker's count, its entries in the
// world's game table.
func (g *Game) removeAgent(ga *gameAgent) {
	id := g.agentID(ga)
	if s := g.luaOf(ga); s != nil && ga.a != nil { // nil: another shard's (cluster_range.go)
		s.engine.Detach(ga.a)
	}
	if g.lua != nil && g.lua.game != nil {
		g.worldRemove(ga)
	}
	i := int(ga.idx)
	g.agents = slices.Delete(g.agents, i, i+1)
	g.doing = slices.Delete(g.doing, i, i+1)
	if g.held != nil {
		g.opening = slices.Delete(g.opening, i, i+1)
	}
	if g.workers != nil {
		if ga.a != nil {
			g.workers[g.workerOf[i]].agents--
		}
		g.workerOf = slices.Delete(g.workerOf, i, i+1)
	}
	for j := i; j < len(g.agents); j++ {
		g.agents[j].idx = int32(j)
	}
	delete(g.byID, id)
	if ga.a != nil {
		delete(g.byPtr, ga.a)
	}
	g.setData(ga, nil)
	g.activeStale = true
	g.shareStimuli()
}

// tableAgent adds an agent to the world's game table's lists (gameTable).
func (g *Game) tableAgent(ids, agents, trees *lua.LTable, ga *gameAgent) {
	id := g.agentID(ga)
	ids.Append(lua.LString(id))
	if ga.a == nil { // another shard's agent: listed, its table is not here
		trees.RawSetString(id, lua.LString(g.treeName(ga)))
		return
	}
	// In a run whose agents may step on several threads, agents' tables
	// live in their own Lua states: the world reaches agents through
	// signals and game.shared instead.
	if d, err := g.lua.engine.Data(ga.a); err == nil && !g.contract {
		agents.RawSetString(id, d.AgentValue())
	}
	trees.RawSetString(id, lua.LString(g.treeName(ga)))
}

// worldAdd adds an agent to the world's game table.
func (g *Game) worldAdd(ga *gameAgent) {
	t := g.lua.game
	ids, _ := t.RawGetString("ids").(*lua.LTable)
	agents, _ := t.RawGetString("agents").(*lua.LTable)
	trees, _ := t.RawGetString("trees").(*lua.LTable)
	if ids != nil && agents != nil && trees != nil {
		g.tableAgent(ids, agents, trees, ga)
	}
}

// worldRefill makes the world's game table's lists the game's agents
// again, in place (the world script may keep them).
func (g *Game) worldRefill() {
	t := g.lua.game
	for _, name := range []string{"ids", "agents", "trees"} {
		if m, ok := t.RawGetString(name).(*lua.LTable); ok {
			clearTable(m)
		}
	}
	for _, ga := range g.agents {
		g.worldAdd(ga)
	}
}

// clearTable removes every entry of a Lua table.
func clearTable(t *lua.LTable) {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
}

// luaEngineOf is the Lua engine an agent is attached to, or nil.
func luaEngineOf(a *runtime.Agent) *luabind.Engine { return luabind.EngineOf(a) }

// worldRemove takes an agent out of the world's game table.
func (g *Game) worldRemove(ga *gameAgent) {
	t := g.lua.game
	id := g.agentID(ga)
	if ids, ok := t.RawGetString("ids").(*lua.LTable); ok {
		for i := 1; i <= ids.Len(); i++ {
			if ids.RawGetInt(i) == lua.LString(id) {
				removeAt(ids, i)
				break
			}
		}
	}
	for _, name := range []string{"agents", "trees"} {
		if m, ok := t.RawGetString(name).(*lua.LTable); ok {
			m.RawSetString(id, lua.LNil)
		}
	}
}

// removeAt removes element i of a Lua list, moving the later ones down.
func removeAt(list *lua.LTable, i int) {
	n := list.Len()
	for j := i; j < n; j++ {
		list.RawSetInt(j, list.RawGetInt(j+1))
	}
	list.RawSetInt(n, lua.LNil)
}
