//go:build race

package liveview

// raceOn: the test binary is built with the race detector, which slows
// the big-tree test tenfold and changes the allocations it counts.
const raceOn = true
