package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileConductor starts a CPU profile of the conductor's process for the
// measured steps of `btrun bench -shards N -cpuprofile F`, written to
// F.conductor beside the shards' F.shardK: the conductor holds no agent, so
// what it spends per step is coordination, and its profile shows which of
// that follows the agents. It returns the function that stops it (a no-op
// without a profile).
func profileConductor(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path + ".conductor")
	if err != nil {
		return nil, fmt.Errorf("btrun bench: the conductor's profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("btrun bench: the conductor's profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
