package main

import (
	"github.com/btrun/btrun/rules"
	"github.com/btrun/btrun/runtime"
)

// shippedRules is a registry holding the built-ins and the rule set btrun
// ships (package rules): what `btrun tree` and `btrun validate` of a lone
// tree file know, as a game's trees do.
func shippedRules() *runtime.Registry {
	reg := runtime.NewRegistry()
	if err := rules.Register(reg); err != nil {
		panic(err) // the rule set is btrun's own: a conflict is a bug of this build
	}
	return reg
}
