package game

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestConductorReload_sendsAPluginsNewBuildToTheShards: the example game
// with nav shardable (each shard runs its own instance, from the program
// the conductor sent), its program beside the game, replaced by another
// build (the same program with bytes after it) and reloaded with nav named:
// the conductor restarts it, stores the new program for the shards, and
// each shard fetches it by hash and restarts its instance with it before
// the next step; the manifest the run then runs with (Reloaded) names the
// new build.
func TestConductorReload_sendsAPluginsNewBuildToTheShards(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	rc := navReloadCase(t)
	rc.files["config.toml"] = strings.Replace(rc.files["config.toml"], "shardable = false", "shardable = true", 1)
	config := writeGame(t, rc.files)
	prog, err := os.ReadFile(rc.programs["plugins/nav"])
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(filepath.Dir(config), "plugins", "nav")
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	stored := newStoredRun(t, config)
	tc, c := stored.open(2)
	if err := c.Run(10); err != nil {
		t.Fatal(err)
	}
	pids := make([]int, len(tc.shards))
	for k, h := range tc.shards {
		pids[k] = h.g.plugins.Plugins()[0].Pid
	}
	next := append(slices.Clip(prog), "\nanother build\n"...) // runs as prog does
	if err := os.WriteFile(at+".new", next, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(at+".new", at); err != nil {
		t.Fatal(err)
	}
	rep, err := c.Reload(ReloadOptions{Plugins: []string{"nav"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Plugins, []string{"nav"}) {
		t.Fatalf("the conductor restarted %q", rep.Plugins)
	}
	want := cluster.HashOf(next)
	for k, h := range tc.shards {
		info := h.g.plugins.Plugins()[0]
		if got, err := hashFile(info.Executable); err != nil || got != want {
			t.Errorf("shard %d runs nav from %s, whose hash is %s (%v), not the new build's", k, info.Executable, got, err)
		}
		if info.Pid == 0 || info.Pid == pids[k] {
			t.Errorf("shard %d's nav was not restarted (pid %d, before %d)", k, info.Pid, pids[k])
		}
	}
	if i := slices.IndexFunc(c.Reloaded().Files, func(f cluster.ReloadFile) bool { return f.Path == "plugins/nav" }); i < 0 || c.Reloaded().Files[i].Hash != want {
		t.Errorf("the run's manifest does not name the new build at plugins/nav: %+v", c.Reloaded().Files)
	}
	if _, err := stored.files.Get(want); err != nil {
		t.Errorf("the new build is not in the run's store: %v", err)
	}
	if err := c.Run(10); err != nil {
		t.Fatal(err)
	}
}
