//go:build race

package game

// raceOn: the test binary is built with the race detector, which changes
// the allocations a test counts (sync.Pool keeps nothing, every goroutine
// start allocates its shadow state).
const raceOn = true
