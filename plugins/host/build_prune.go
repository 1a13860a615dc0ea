package host

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The build cache keeps a plugin's builds by the hash of its sources, so
// every edit of a plugin adds a binary (tens of megabytes each); without
// pruning, a plugin's author filled gigabytes in a few weeks. A build
// marks its binary used (its modification time) whenever it is started;
// after a new build, the builds of the same plugin name beyond the
// keptBuilds most recently used are removed once unused for pruneAfter.
// Other names are left alone, and so is anything used lately: another
// btrun may be running a build this one would have removed.
const (
	keptBuilds = 3
	pruneAfter = 24 * time.Hour
)

// markUsed sets exe's modification time to now (errors are ignored: the
// binary then only looks older to pruneBuilds).
func markUsed(exe string) {
	now := time.Now()
	os.Chtimes(exe, now, now)
}

// pruneBuilds removes the cached binaries named name in cacheDir's key
// folders, other than keep, beyond the keptBuilds most recently used that
// were not used since pruneAfter before now, and their key folders once
// empty. It returns the binaries removed.
func pruneBuilds(cacheDir, name, keep string, now time.Time) []string {
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		return nil
	}
	type build struct {
		exe  string
		used time.Time
	}
	var builds []build
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		exe := filepath.Join(cacheDir, e.Name(), name)
		if exe == keep {
			continue
		}
		if fi, err := os.Lstat(exe); err == nil && fi.Mode().IsRegular() {
			builds = append(builds, build{exe, fi.ModTime()})
		}
	}
	slices.SortFunc(builds, func(a, b build) int { return b.used.Compare(a.used) }) // most recent first
	var removed []string
	for i, b := range builds {
		if i < keptBuilds || now.Sub(b.used) < pruneAfter {
			continue
		}
		if os.Remove(b.exe) == nil {
			removed = append(removed, b.exe)
			os.Remove(filepath.Dir(b.exe)) // fails while another name's build is in it
		}
	}
	return removed
}
