package game

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestConductorReload_replaysFromACheckpointsFiles: a run lost during a
// reload goes back to the checkpoint before it, whose files the game's
// folder no longer holds (the reload read them edited). Every process
// opens the checkpoint's files, written from the store by hash into a
// folder of their own (WriteStoredFiles); the replayed reload brings that
// copy to the reload's files at its step: the trace, output and save are
// one process's, the run's folder is not written, and the conductor's
// next reload reads the run's folder again.
func TestConductorReload_replaysFromACheckpointsFiles(t *testing.T) {
	for _, rc := range reloadCases() {
		if rc.name == "rule renamed" || rc.name == "cancel sends" {
			t.Run(rc.name, func(t *testing.T) { testReloadFromCheckpointFiles(t, rc) })
		}
	}
}

func testReloadFromCheckpointFiles(t *testing.T, rc reloadCase) {
	config := writeGame(t, rc.files)
	dir := filepath.Dir(config)
	for at, exe := range rc.programs {
		data, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(at))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wantTrace, wantOut, wantSave := soloReload(t, config, rc)
	const back = 1 // the checkpoint's step, before the reload's
	// The files the checkpoint names (btrun run's "files" part), which the
	// shards open, each from a copy of its own, as btrun shard does.
	stored := newStoredRun(t, config)
	first, c := stored.open(2)
	if err := c.Run(back); err != nil {
		t.Fatal(err)
	}
	checkpoint := first.save()
	trace, out := first.trace.Len(), first.out.Len()
	if err := c.Run(rc.at - back); err != nil {
		t.Fatal(err)
	}
	if c.Reloaded() != nil {
		t.Error("Reloaded names files before any reload")
	}
	if _, err := c.Reload(ReloadOptions{Changed: rc.apply(t, dir)}); err != nil {
		t.Fatal(err)
	}
	if r := c.Reloaded(); r == nil || len(r.Files) != len(stored.man.Files) || sameHashes(r, stored.man) {
		t.Errorf("Reloaded names %v, not the reload's files", r)
	}
	first.stop()
	ins, _ := stored.journal.From(back)
	edited := readAll(t, dir, stored.man)

	tc, c2, home := stored.recover(3, checkpoint, first, trace, out)
	if err := c2.Replay(ins); err != nil {
		t.Fatal(err)
	}
	if err := c2.Run(rc.steps - back); err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("from the checkpoint's files", wantTrace, wantOut, wantSave)
	if got := readAll(t, dir, stored.man); got != edited {
		t.Error("the replay wrote into the run's folder")
	}
	if c2.g.cfg.Dir != home.Dir {
		t.Errorf("after the replayed reload the game reads %s, not the run's folder %s", c2.g.cfg.Dir, home.Dir)
	}
	rc.undo(t, dir)
}

// storeFiles puts the files of config's game, as its shards open it
// (ClusterFiles), into files, and returns their manifest and the programs
// its plugins run (btrun run's checkpoint parts "files" and "programs").
// storedFiles is storeFiles, with a clusterSetup.shardFiles that writes a
// copy of the stored files for each shard to open from, as btrun shard
// does.
func storedFiles(t *testing.T, config string, files *cluster.MemFiles) (*cluster.ReloadManifest, []PluginProgram, func() string) {
	t.Helper()
	man, programs := storeFiles(t, config, files)
	return man, programs, func() string {
		p, err := WriteStoredFiles(files, man, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func storeFiles(t *testing.T, config string, files cluster.FileStore) (*cluster.ReloadManifest, []PluginProgram) {
	t.Helper()
	g := openQuiet(t, config)
	defer g.Close()
	src, cfgPath, err := g.ClusterFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range src {
		if _, err := files.Put(f.Data); err != nil {
			t.Fatal(err)
		}
	}
	programs, err := g.PluginPrograms(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	return FilesManifest(src, cfgPath), programs
}

// sameHashes reports whether a and b name the same contents.
func sameHashes(a, b *cluster.ReloadManifest) bool {
	for i := range a.Files {
		if a.Files[i] != b.Files[i] {
			return false
		}
	}
	return true
}

// readAll is the content of the files man names under the folder dir.
func readAll(t *testing.T, dir string, man *cluster.ReloadManifest) string {
	t.Helper()
	var s string
	for _, f := range man.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		s += string(b)
	}
	return s
}

// TestConductorReload_replaysWithPluginsOnTheConductor: the example game
// with its nav plugin run on the conductor (not shardable: what the shards
// get at its path is its declarations) goes back over a reload to the
// checkpoint before it: the conductor's copy of the checkpoint's files has
// at the plugin's path the program the run ran (PluginPrograms,
// WriteCheckpointFiles), not what the shards got, so it runs the shards'
// calls to nav as before, and the trace, output and save are one
// process's.
func TestConductorReload_replaysWithPluginsOnTheConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the nav plugin")
	}
	testReloadFromCheckpointFiles(t, navReloadCase(t))
}

// navReloadCase is the example game with nav on the conductor, its
// program beside the game (the config names it by a relative path, as a
// cluster needs), reloaded with the couriers' dodge renamed under them.
func navReloadCase(t *testing.T) reloadCase {
	t.Helper()
	g := openQuiet(t, clusterConfig("example"))
	defer g.Close()
	files := map[string]string{}
	for _, name := range []string{"config.toml", "scripts/ai"} {
		filepath.WalkDir(filepath.Join("..", name), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel("..", p)
			files[filepath.ToSlash(rel)] = string(data)
			return err
		})
	}
	files["config.toml"] = strings.Replace(files["config.toml"], "shardable = true", "shardable = false", 1)
	rc := reloadCase{name: "nav", files: files, at: 40, steps: 80, edit: map[string]func(string) string{
		"scripts/ai/courier.xml": func(s string) string { return strings.Replace(s, `id=".dodge"`, `id=".dodge2"`, 1) },
	}}
	rc.programs = map[string]string{"plugins/nav": g.plugins.Plugins()[0].Executable}
	return rc
}
