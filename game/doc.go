// Package game is a running btrun game: everything `btrun run` does, for a
// Go program to use. A game is its trees, Lua scripts and world script,
// plugins, agents and a schedule of signals, loaded and bound together,
// stepped in the order the project's docs describe (the world's tick, the
// scheduled signals due, every agent's step in order, then the signals
// agents sent each other), and traced, saved, restored and hot-reloaded.
// The command (cmd/btrun) is a thin client of this package; a Go game that
// embeds btrun is another. docs/embedding.md is the guide.
//
// # Opening a game
//
// A game comes from a Config: read from a config.toml (LoadConfig), or
// made in Go (NewConfig and its fields, which are the file's keys) and
// checked by Open. Options give what a program adds: where the trees and
// scripts are (Files, an fs.FS: an embed.FS or sources in memory), the Go
// actions to register in every registry the game fills (Register), the
// game's own data of each agent (AgentData, runtime.AgentData: what Lua's
// ctx.agent and plugins' fields then read and write), where the trace goes
// (TraceTo).
//
//	g, err := game.Open(cfg, game.Options{Files: files, Register: register})
//	err = g.OpenTrace()  // when there is one
//	err = g.Start()      // the world script's init and spawn
//	for running {
//		stepped, err := g.Advance() // one step, from the program's loop
//		...
//	}
//	g.Close()
//
// Run(n) is the command's loop: n steps, with the periodic saves and the
// closing summary. Options.BeforeStep and AfterStep are the program's own
// work around each step, which time travel replays (StepInfo).
//
// # Output and logs
//
// A game prints nothing unless asked: Options.Stdout and Stderr take the
// lines `btrun run` prints for people, Options.Logger (a *slog.Logger)
// takes them as records instead (an agent's log lines at Info with its id
// and rule, errors at Error, rule changes at Debug). The trace (OpenTrace,
// Options.TraceTo) is apart from both.
//
// # Changing a running game
//
// Between steps a program may add and remove agents (AddAgent,
// RemoveAgent), send signals with data (Signal), save and restore the whole
// game (Save, Load, SaveState, RestoreState), reload its sources (Reload,
// or Watch for files on disk), and read any agent (Agent, AgentInfos,
// Outcome). A debugger (Debugger; liveview is one) attached with
// AttachDebugger watches and steers the steps; the game hands it a
// DebugHost for what only a debugger does (time travel's quiet replays,
// the editor's files), which are not Game's methods.
//
// # Concurrency
//
// A Game belongs to one goroutine: the one that opens, steps (Advance, Run)
// and changes it. Its methods are not safe for concurrent use, and changes
// to its agents are refused during a step (ErrBusy), from an action or
// condition; Advance, Signal, AddAgent, RemoveAgent, Save and Load called
// from a second goroutine while one of them runs get ErrBusy too, and every
// one of them gets ErrClosed after Close. With run.workers (or Options.Workers) other than 1, the agents'
// steps run on several goroutines, each worker with its own Lua state,
// registry and bound trees: Go actions, conditions and scorers registered
// through Options.Register are then called from several goroutines at once
// (for different agents), and must keep per-agent data in the agent (its
// typed state, runtime.Agent.Data), never in shared variables (Register
// itself is called on the game's goroutine, once per registry, one at a
// time). Everything
// else (the world's tick, the delivery of signals, the ends of plugin and
// gate rounds, the trace) stays on the game's goroutine, in the agents'
// order, so that a run is the same for any number of workers. The live
// view's HTTP handlers run on the server's goroutines and reach the game
// only through the debugger's queue, served between steps.
package game
