package game

import (
	"os"
	"path/filepath"
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
	wantTrace, wantOut, wantSave := soloReload(t, config, rc)
	const back = 1 // the checkpoint's step, before the reload's
	var journal cluster.MemJournal
	var files cluster.MemFiles
	first := openCluster(t, clusterSetup{name: config, shards: 2})
	c := first.conductor()
	c.SetJournal(&journal)
	c.SetFiles(&files)
	// The files the checkpoint names (btrun run's "files" part).
	src, cfgPath, err := c.g.ClusterFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range src {
		files.Put(f.Data)
	}
	man := FilesManifest(src, cfgPath)
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
	if r := c.Reloaded(); r == nil || len(r.Files) != len(man.Files) || sameHashes(r, man) {
		t.Errorf("Reloaded names %v, not the reload's files", r)
	}
	first.stop()
	ins, _ := journal.From(back)
	edited := readAll(t, dir, man)

	copied, err := WriteStoredFiles(&files, man, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tc := openCluster(t, clusterSetup{name: copied, shards: 3})
	tc.load(checkpoint)
	tc.trace.Reset()
	tc.out.Reset()
	tc.trace.WriteString(first.trace.String()[:trace])
	tc.out.WriteString(first.out.String()[:out])
	c2 := tc.conductor()
	c2.SetJournal(&journal)
	c2.SetFiles(&files)
	home, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	c2.SetFilesCopy(home)
	if err := c2.Replay(ins); err != nil {
		t.Fatal(err)
	}
	if err := c2.Run(rc.steps - back); err != nil {
		t.Fatal(err)
	}
	tc.wantSolo("from the checkpoint's files", wantTrace, wantOut, wantSave)
	if got := readAll(t, dir, man); got != edited {
		t.Error("the replay wrote into the run's folder")
	}
	if c2.g.cfg.Dir != home.Dir {
		t.Errorf("after the replayed reload the game reads %s, not the run's folder %s", c2.g.cfg.Dir, home.Dir)
	}
	rc.undo(t, dir)
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
