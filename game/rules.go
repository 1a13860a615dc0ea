package game

import (
	"github.com/btrun/btrun/rules"
	"github.com/btrun/btrun/runtime"
)

// Rules of your own (runtime.RuleDef) are tags of the game's tree files:
// the loader takes their declarations before any registry is filled (the
// trees load before the scripts and plugins), so the game asks a registry
// of their own for them: btrun's rule set (package rules) and what
// Options.Register adds. Registration errors are reported where the
// game's registries are filled (registerGo).

// ruleDecls are the custom rules the game's registries hold, made once.
func (g *Game) ruleDecls() []runtime.RuleDecl {
	if !g.rulesMade {
		reg := runtime.NewRegistry()
		_ = rules.Register(reg)
		if g.opts.Register != nil {
			_ = g.opts.Register(reg)
		}
		g.rules, g.rulesMade = reg.RuleDecls(), true
	}
	return g.rules
}
