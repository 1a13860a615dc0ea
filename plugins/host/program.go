package host

import (
	"context"
)

// Program is the executable a plugin's Spec names, as Start finds it: an
// executable file as it is, or a Go main package built once into the
// cache (cacheDir, "" for the user's cache folder) keyed by its sources'
// hash, so that a package whose sources are those of an earlier build
// gets that build back without building. It starts nothing: a cluster's
// conductor that goes back to a checkpoint runs the program the run ran
// then (docs/cluster.md, "Reloads").
func Program(ctx context.Context, spec Spec, cacheDir string) (string, error) {
	nop := func(string, string) {}
	return resolve(ctx, &spec, cacheDir, nop, func(string) {})
}
