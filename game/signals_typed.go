package game

import (
	"errors"
	"fmt"

	"github.com/btrun/btrun/runtime"
)

// Signal lines may set typed variables from a signal's data (<signal
// name="OnHurt" variable="Health" from="hp"/>). Data that does not fit the
// receiver's lines is the sender's error and nothing is delivered: a
// [[signals]] entry is refused when the game opens (checkSchedule), and a
// reload whose trees no longer take it is refused (checkScheduleOn, while
// the entry is still to come); a send between agents is the sending
// step's error (checkRouteData).

// checkSchedule checks the data of every [[signals]] entry against the
// trees of the agents it goes to.
func (g *Game) checkSchedule() error {
	return g.checkScheduleOn(g.treeOf)
}

// checkScheduleOn checks the data of every [[signals]] entry not delivered
// yet against the trees tree gives the agents it goes to (a reload's new
// ones).
func (g *Game) checkScheduleOn(tree func(*gameAgent) *runtime.Tree) error {
	var errs []error
	for i, sc := range g.cfg.Signals {
		if i < len(g.delivered) && g.delivered[i] {
			continue
		}
		var err error
		for _, to := range sc.To {
			if to == "all" {
				for _, ga := range g.agents {
					err = runtime.CheckSignalData(tree(ga), sc.Signal, sc.Data)
					if err != nil {
						break
					}
				}
			} else if ga := g.byID[to]; ga != nil {
				err = runtime.CheckSignalData(tree(ga), sc.Signal, sc.Data)
			}
			if err != nil {
				line := newKeyFinder(g.cfgText()).lineIn(i, "signals", "data")
				errs = append(errs, fmt.Errorf("%s:%d: signals[%d]: data does not fit: %w", g.cfg.Path, line, i, err))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// checkRouteData checks data an agent sends others against the trees of
// the agents that will receive it.
func (g *Game) checkRouteData(from *runtime.Agent, to, signal string, data runtime.Value) error {
	if to != "all" {
		return runtime.CheckSignalData(g.treeOf(g.byID[to]), signal, data)
	}
	for _, ga := range g.agents {
		if ga.a != from {
			if err := runtime.CheckSignalData(g.treeOf(ga), signal, data); err != nil {
				return fmt.Errorf("game: agent %s: %w", g.agentID(ga), err)
			}
		}
	}
	return nil
}

// SetAgentVar sets an agent's declared variable now, between steps, to a
// value of its type (the live view's edit): the output says so and the
// trace writes the change at once. A value of another type or an unknown
// name is an error and changes nothing.
func (h *debugHost) SetAgentVar(agent, name string, v runtime.VarValue) error {
	g := (*Game)(h)
	ga, err := g.debugAgent(agent)
	if err != nil {
		return err
	}
	if err := ga.a.SetVarValue(name, v); err != nil {
		return fmt.Errorf("game: %w", err)
	}
	g.out.line(g.Time(g.step), agent, "set "+printable(name)+" = "+printable(v.String())+" (debugger)")
	g.writeChanges(ga, g.step, g.Time(g.step))
	return nil
}
