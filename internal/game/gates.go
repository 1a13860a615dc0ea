package game

import (
	"errors"
	"fmt"
	"io"

	"github.com/btrun/btrun/runtime"
)

// openGates makes the Gates every agent of the game shares when a tree
// declares gates: the trees' declarations of one gate must agree (an error
// names both declarations, and so both files).
func (g *Game) openGates() error {
	declared := false
	for _, b := range g.trees {
		declared = declared || len(b.Tree.Gates) > 0
	}
	if !declared {
		return nil
	}
	g.gates = runtime.NewGates()
	var errs []error
	for _, tc := range g.cfg.Trees { // config order: the first declaration is the one errors cite first
		if b := g.trees[tc.Name]; b != nil {
			if err := g.gates.Add(b); err != nil {
				errs = append(errs, err)
			}
		}
	}
	g.env.Gates = g.gates
	return errors.Join(errs...)
}

// Gates is the state of the gates the game's agents share; nil when no
// tree declares a gate.
func (g *Game) Gates() *runtime.Gates { return g.gates }

// writeGates writes the summary's table of gates: each gate's takes,
// refusals and longest hold (ongoing holds included), in steps and seconds.
func writeGates(w io.Writer, gates []runtime.GateInfo) {
	if len(gates) == 0 {
		return
	}
	width := len("gate")
	for _, gi := range gates {
		width = max(width, len(gi.Name))
	}
	fmt.Fprintf(w, "  %-*s  %5s  %8s  %8s  %8s  %s\n", width, "gate", "users", "cooldown", "takes", "refusals", "longest hold")
	for _, gi := range gates {
		fmt.Fprintf(w, "  %-*s  %5d  %7gs  %8d  %8d  %d steps (%.2f s)\n", width, gi.Name, gi.Users, gi.Cooldown,
			gi.Takes, gi.Refusals, gi.LongestSteps, gi.LongestSeconds)
	}
}
