// Package host starts, supervises and calls btrun's Go action plugins, and
// batches the plugin calls of many agents.
//
// # Starting
//
//	set, err := host.Start(ctx, []host.Spec{{Name: "nav", Path: "plugins/nav", Dir: configDir}},
//		host.Options{CallTimeout: 2 * time.Second, Logger: logf, CacheDir: ""})
//	defer set.Close()
//	err = set.Register(registry) // every declared name, origin "plugin nav"
//
// Spec.Path is an executable, or a folder holding a Go main package that
// is built once with `go build` into Options.CacheDir (default
// os.UserCacheDir()/btrun/plugins), keyed by a hash of the Go version and
// platform, go.mod and go.sum, and every source file of the package and of
// the module's packages it imports. Builds write a temporary file and
// rename it, so concurrent runs share the cache safely.
//
// Start completes go-plugin's handshake (gRPC only, btrun plugin protocol
// sdk.ProtocolVersion) and asks each plugin what it provides. A program
// that prints to standard output before serving, speaks another protocol
// version or net/rpc, belongs to another application, or is not a plugin
// at all is reported in plain words (ErrStart, ErrHandshake). go-plugin's
// own logging goes to Options.Logger at debug level; plugins' log lines
// keep their level. With restarts counted in steps, Options.Logger runs only
// on the stepping goroutine: lines read from the plugins' pipes are held
// until Start, Advance, a round's end or Close (log.go).
//
// # Calling: rounds and batches
//
// A plugin action, condition or scorer never answers at once (a condition
// called by the start-of-step checks of a watched rule included): it
// queues its call and returns runtime.ErrPending, which pauses the agent's
// step. Flush sends every queued call, one batch (one round trip) per
// plugin, plugins concurrently; Resume applies an agent's reply (fields
// through FieldAccess, and numbers through NumberFields when the user data
// has it; state bytes, signals, variables, timestamps, log lines, then the
// jump) and continues its step, which may pause again. StepAll runs
// the runtime's rounds (runtime.Rounds) with the set as their resolver:
//
//	outcomes, err := host.StepAll(agents, func(a *runtime.Agent) (runtime.Status, error) {
//		return a.StepAt(t)
//	}, set)
//
// every agent in order until its step ends or pauses; Flush; the waiting
// agents resume in order; repeat until every step has ended. A large round
// is sent in chunks while its agents are still stepped (stream.go), and
// Flush waits for all of them: the agents resume as if it went whole. Because the
// order is fixed, a run is the same whether calls travel batched or, with
// Options.Unbatched, one round trip each. Cancel hooks are synchronous in
// the runtime and travel alone. A game whose agents also share gates puts
// the set in a runtime.Rounds beside the Gates (the set is a
// runtime.Resolver: EndRound, Continue), so that takes and calls share the
// rounds. A call can carry the state of the agent's gates through reserved
// read fields (gates.go).
//
// # Faults
//
// A plugin whose process dies is restarted after a backoff (RestartMin
// doubling up to RestartMax); its calls in flight fail with ErrCrashed,
// calls made while it is down fail at once with ErrDown, and the run goes
// on. A round trip that takes longer than CallTimeout fails with
// ErrTimeout; the plugin is killed and restarted. Other plugins are not
// held up: each has its own connection, supervision and timeout. The
// runtime adds the tree position, agent and rule to each error. Close
// stops every plugin; if btrun itself is killed, the SDK's watchdog makes
// the plugins exit on their own.
//
// # Replacing plugins while the game runs
//
// A hot reload rebuilds the plugins whose sources changed and swaps them
// in between two steps:
//
//	u, err := set.Prepare(ctx, []string{"nav"}) // build, start beside the old process
//	err = u.Register(newRegistry)                // what the new build declares
//	// ... bind the trees against newRegistry; on any problem: u.Abort()
//	u.Commit()                                   // the new process serves, the old one stops
//
// A Go package whose build did not change (same sources, same cached
// executable) is not restarted. Until Commit the old process serves every
// call; a failed build or start leaves it alone.
//
// # Concurrency
//
// Start, Plugins, Stats and Close are safe for concurrent use. Everything
// else (Register, the bound actions, conditions and scorers, Flush, Resume,
// StepAll, Prepare and an Update's methods) belongs to the one goroutine that
// steps the agents; Flush uses goroutines of its own for the round trips and
// returns when all are done.
package host
