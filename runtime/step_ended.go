package runtime

// StepEnded is a hook of Rounds and Workers: it is called as soon as an
// agent's step has ended (with any status but Paused), on the goroutine
// that ran the step. A host looks at the agent there, while it is still in
// that core's cache and, with Workers, on every worker at once, instead of
// in a pass over every agent once all have stepped: at 100,000 agents the
// game's pass that picked out the steps it must report (an agent that
// failed, or now runs another rule) took about 2.8 ms of every step, on
// one thread, to find a few hundred.
//
// worker is the agent's worker (0 with Rounds), i its index in the agents
// passed to StepAt, st and err its outcome. With Workers it is called for
// agents of different workers at once: it may write only what belongs to
// that agent or that worker. It is not called for the agents a broken
// round leaves paused.
type StepEnded func(worker int, i int32, a *Agent, st Status, err error)
