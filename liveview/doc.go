// Package liveview is btrun's live view: `btrun run -debug ADDR` serves a
// web page (embedded in the binary, no build step) and the JSON API behind
// it, which show every agent of a running game and let a designer pause,
// step, set breakpoints, send signals, jump agents to rules and travel back
// to earlier steps. docs/debug.md documents the page and the API.
//
// # Using it
//
// New makes the live view of a game and attaches it; Handler is the page
// and its API, to mount on any http.ServeMux under any prefix; Close ends
// it after the run, and Quit asks the game to end. A game a Go program
// steps from its own loop (game.Game.Advance) takes Options.Embedded:
//
//	view := liveview.New(g, liveview.Options{Embedded: true})
//	defer view.Close()
//	mux.Handle("/bt/", http.StripPrefix("/bt", view.Handler()))
//
// The rest of this comment is how it works.
//
// # How it reaches the game
//
// The game knows nothing of HTTP: it calls a Debugger (game.Debugger,
// attached by New) between its steps and reports what happens during them (the rules each
// agent ran, signals, changes of variables and timestamps, log lines).
// HTTP handlers never touch the game. They put a request on a queue and
// wait for its answer; the game's goroutine runs the queued requests
// between two steps, in the order they came. So every view the API returns
// is of one moment between steps, and every command takes effect between
// steps, never in the middle of one.
//
// # Concurrency
//
//   - The game's goroutine (the one that runs game.Run) owns the game and
//     everything in Debugger but the queue, the subscribers and the done
//     channel. Requests run on it, one at a time.
//   - HTTP handlers run on their own goroutines. A request waits for the
//     game at most Options.Timeout (a step that takes long, a full queue):
//     then it is withdrawn and answered 503, and the game never runs it.
//     A request the game has taken is always answered.
//   - While the game runs, it looks at the queue once per step (a channel
//     receive that does not wait). While paused, it waits on the queue.
//   - Live updates (Server-Sent Events) are rendered on the game's
//     goroutine, at most ten times a second, and handed to each subscriber
//     through a one-slot channel that keeps only the latest update: a slow
//     browser skips updates and never slows the game.
//   - A panic in a request is recovered on the game's goroutine and
//     answered 500: no request can end the game.
//
// # Editing
//
// With Options.Edit (`btrun run -debug ADDR -edit`) the page edits the
// game's tree files too (editor_*.go, web/editor.js). The server reads a
// file's text with its own scanner, which keeps every node's byte offsets
// (editor_source.go), and makes each edit operation a byte-range
// replacement of the edited element's text (editor_ops.go,
// editor_place.go): whatever an operation does not touch stays byte for
// byte. Checks and saves go through the game (game.DebugHost's CheckTree
// and WriteTreeFile, game.Game.Reload), on the game's goroutine like every request; a
// save reloads the game between two steps. The editor's handlers are its
// own (editor_http.go); what it offers comes from formatspec.Tags and
// the registry (editor_palette.go). The structural operations (wrap,
// unwrap, paste) are editor_structure.go; the page draws the edited file
// as the live view draws a tree, with the agents on their rules, and edits
// it there (web/graphedit.js), with the structure bar, clipboard and
// search of web/structure.js, both hooked into editor.js (edHooks).
//
// # Time travel
//
// The debugger keeps snapshots of the whole game (game.SaveState) every
// Options.SnapshotEvery steps, within Options.Budget bytes, and a journal
// of the commands it applied between steps (signals, jumps). Showing an
// earlier step restores the nearest snapshot at or before it and replays
// the steps from there, with the journal, quietly (nothing reaches the
// trace or the output); a replayed step runs the program's
// game.Options.BeforeStep and AfterStep again, and without them the
// status says that travel replays btrun's part only (timeTravel.btrunOnly).
// Resuming, stepping or changing the game from an
// earlier step discards the steps after it: the snapshots, the journal,
// the recorded events, and the trace file's lines (cut back to that step).
// A reload starts time travel afresh, except a save from the editor: the
// timeline keeps the old text of the files it changed, and showing a step
// before it reloads those trees in memory (timeline_edits.go); the game
// goes on only from steps after the last save.
//
// # Memory
//
// Everything the debugger keeps is bounded: snapshots and the journal by
// Options.Budget (a step with many commands gets a snapshot of its own,
// and the journal takes at most half the budget, timeline.go); events by
// count per agent and by bytes across all agents, with long texts cut
// (record.go); breakpoints, queued requests and streams by count.
//
// # Other sites
//
// Every handler checks its request with checkRequest (http.go): a Host
// that names this machine, and for any method but GET and HEAD an Origin,
// when sent, that is exactly the view's own. Handlers added to the package
// call it too.
package liveview
