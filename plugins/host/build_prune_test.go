package host

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Builds of the same plugin beyond the three most recently used, unused
// for a day, go; the new build, other names, and builds used within the
// day stay, whatever their rank.
func TestPruneBuilds_keepsRecentBuildsAndOtherNames(t *testing.T) {
	cache := t.TempDir()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	make := func(key, name string, age time.Duration) string {
		exe := filepath.Join(cache, key, name)
		if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, []byte("binary"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(exe, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return exe
	}
	day := 24 * time.Hour
	newBuild := make("k0", "nav", 0)
	kept := []string{
		newBuild,
		make("k1", "nav", 2*day), // the three most recently used others
		make("k2", "nav", 3*day),
		make("k3", "nav", 4*day),
		make("k9", "other", 30*day), // another plugin
	}
	stale := []string{make("k4", "nav", 5*day), make("k5", "nav", 40*day)}
	shared := make("k6", "nav", 6*day) // its folder also holds another name's build
	kept = append(kept, make("k6", "other", day))
	stale = append(stale, shared)
	removed := pruneBuilds(cache, "nav", newBuild, now)
	slices.Sort(removed)
	slices.Sort(stale)
	if !slices.Equal(removed, stale) {
		t.Errorf("removed %v, want %v", removed, stale)
	}
	for _, exe := range kept {
		if _, err := os.Stat(exe); err != nil {
			t.Errorf("%s: %v", exe, err)
		}
	}
	for _, key := range []string{"k4", "k5"} {
		if _, err := os.Stat(filepath.Join(cache, key)); !os.IsNotExist(err) {
			t.Errorf("empty key folder %s left: %v", key, err)
		}
	}
	// Builds used within the day count among the three most recent (k3,
	// now the fourth, goes) and are kept even beyond them.
	recent := []string{make("k7", "nav", time.Hour), make("k8", "nav", 2*time.Hour), make("k10", "nav", 3*time.Hour), make("k11", "nav", 4*time.Hour)}
	removed = pruneBuilds(cache, "nav", newBuild, now)
	slices.Sort(removed)
	if want := []string{kept[1], kept[2], kept[3]}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, exe := range recent {
		if _, err := os.Stat(exe); err != nil {
			t.Error(err)
		}
	}
}
