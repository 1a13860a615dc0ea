// Package rules is the rule set the btrun binary ships: composites written
// in Go against the runtime's extension point for rules of your own
// (runtime.TypedRule), which the example game's trees use. The game
// package registers it in every registry it fills, so that `btrun run`,
// `btrun validate` and `btrun tree` know its tags; a Go program that
// embeds the runtime without the game registers it with Register.
//
// It is also the worked example of docs/embedding.md: a rule's parameters
// and per-agent state are plain structs, its random draws come from the
// agent's own generator (so runs stay the same for a seed, with any
// number of workers, across saves), and its state is saved with the agent.
//
// Its functions are safe for concurrent use by different agents.
package rules
