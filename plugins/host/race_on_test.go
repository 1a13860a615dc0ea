//go:build race

package host

// raceOn: the test binary is built with the race detector, whose
// instrumentation allocates on its own (the garbage test counts bytes).
const raceOn = true
