package game

import (
	"errors"
	"fmt"
	"io"

	"github.com/btrun/btrun/runtime"
)

// openGates makes the Gates every agent of a loadout shares when one of
// its trees declares gates: the trees' declarations of one gate must agree
// (an error names both declarations, and so both files).
func (g *Game) openGates(l *loadout) error {
	declared := false
	for _, b := range l.trees {
		declared = declared || len(b.Tree.Gates) > 0
	}
	if !declared {
		return nil
	}
	l.gates = runtime.NewGates()
	var errs []error
	for _, tc := range g.cfg.Trees { // config order: the first declaration is the one errors cite first
		if b := l.trees[tc.Name]; b != nil {
			if err := l.gates.Add(b); err != nil {
				errs = append(errs, err)
			}
		}
	}
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
