package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCluster_reloadRestartsAPluginsNewBuildOnTheShards: a game whose
// plugin is Go sources in its folder (tests/testdata/plugins/reloady),
// run as one process and with -shards 2, reloads after step 20 with the
// plugin's source edited by the inputs file (its new build logs version
// 2 and declares a new action, reloady.rest), then after step 21 with the
// tree edited to use reloady.rest. The shards get the new build (a
// shardable plugin's program, through the run's object store) or its
// declarations (a plugin on the conductor), restart it and bind the tree
// against it: the trace, output and save are one process's. So too with
// a shard killed after the reload (the recovery goes back to the
// checkpoint the reload took, whose files hold the new build), one killed
// during it (the replayed reload builds and sends the new build again),
// and the conductor killed after it, then -resume (the checkpoint's
// programs part names the new build). A new build that does not build
// fails the reload everywhere, as in one process.
func TestCluster_reloadRestartsAPluginsNewBuildOnTheShards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes and builds a plugin")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, shardable := range []bool{true, false} {
		t.Run(fmt.Sprintf("shardable=%v", shardable), func(t *testing.T) { testPluginNewBuildOnShards(t, shardable) })
	}
}

func testPluginNewBuildOnShards(t *testing.T, shardable bool) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "plugins", "reloady", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(src), "const version = 1", "const version = 2", 1)
	v2 = strings.Replace(v2, "Actions: []sdk.Action{{", `Actions: []sdk.Action{{
			Name: "reloady.rest",
			Run: func(c *sdk.Call) (sdk.Status, error) {
				c.Log("rest", version)
				return sdk.Success, nil
			},
		}, {`, 1)
	if v2 == string(src) {
		t.Fatal("reloady's source changed: the test needs another edit")
	}
	dir := t.TempDir()
	game := filepath.Join(dir, "game")
	files := map[string]string{
		"reloady/go.mod": "module example.com/reloady\n\ngo 1.26\n\nrequire github.com/btrun/btrun v0.0.0\n\nreplace github.com/btrun/btrun => " +
			filepath.ToSlash(repo) + "\n",
		"reloady/main.go":  string(src),
		"edits/main.go.v2": v2,
		"config.toml": "[run]\nsteps = 40\ndt = 0.05\n[[trees]]\nname = \"w\"\nfile = \"ai/w.xml\"\n" +
			fmt.Sprintf("[[plugins]]\nname = \"reloady\"\npath = \"reloady\"\nshardable = %v\n[[agents]]\ntree = \"w\"\ncount = 4\n", shardable) +
			"[cluster]\ncheckpoint_every = 10\ndeadline = \"2s\"\nstore = \"store\"\n",
		"ai/w.xml":    `<behaviorTree><sequence id="root"><action id=".work" name="reloady.work"/></sequence></behaviorTree>`,
		"edits/w.xml": `<behaviorTree><sequence id="root"><action id=".rest" name="reloady.rest"/><action id=".work2" name="reloady.work"/></sequence></behaviorTree>`,
		"inputs.txt":  "20 reload reloady/main.go edits/main.go.v2\n21 reload ai/w.xml edits/w.xml\n",
	}
	writeFiles(t, game, files)
	fresh := func() { // each run starts from version 1: the inputs file edits the game's folder
		writeFiles(t, game, map[string]string{"reloady/main.go": files["reloady/main.go"], "ai/w.xml": files["ai/w.xml"]})
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = filepath.Join(game, "reloady")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	common := []string{"-config", filepath.Join(game, "config.toml"), "-inputs", filepath.Join(game, "inputs.txt")}
	trace, save, one := oneProcessRun(t, dir, common...)
	for _, want := range []string{"version 2", "rest 2", "plugin reloady restarted with its new build"} {
		if !strings.Contains(one.stdout, want) {
			t.Fatalf("one process's output lacks %q:\n%s", want, one.stdout)
		}
	}
	for _, c := range []struct{ tag, fault, back string }{
		{"cluster", "", ""},
		{"lost", "shard1:report:30", "going back to the checkpoint of step"},
		{"during", "shard1:reload:20", "going back to the checkpoint of step"}, // the reload replayed: built again, sent again
		{"conductor", "conductor:step:30", "from its checkpoint at step"},      // -resume: the programs part names the new build
	} {
		fresh()
		r := runRecovered(t, dir, c.tag, c.fault, append([]string{"run", "-shards", "2", "-name", fmt.Sprintf("newbuild-%s-%v", c.tag, shardable)}, common...)...)
		if !strings.Contains(r.stderr, c.back) {
			t.Errorf("%s: %q lacks %q", c.tag, r.stderr, c.back)
		}
		if c.tag != "conductor" { // a resumed run's output starts at its checkpoint
			sameOutput(t, c.tag, r.stdout, one.stdout)
		}
		sameFiles(t, c.tag, dir, trace, save)
	}
	// A new build that does not build: the reload fails everywhere, and
	// every process goes on with the old build, as one process does.
	writeFiles(t, game, map[string]string{
		"edits/main.go.v2": v2 + "\nfunc broken() { undefined() }\n",
		"inputs.txt":       "20 reload reloady/main.go edits/main.go.v2\n",
	})
	fresh()
	trace, save, one = oneProcessRun(t, dir, common...)
	if !strings.Contains(one.stdout, "a plugin could not be rebuilt") || strings.Contains(one.stdout, "version 2") {
		t.Fatalf("one process's output lacks the failed rebuild, or ran the new build:\n%s", one.stdout)
	}
	fresh()
	r := runRecovered(t, dir, "broken", "", append([]string{"run", "-shards", "2", "-name", fmt.Sprintf("newbuild-broken-%v", shardable)}, common...)...)
	sameOutput(t, "broken", r.stdout, one.stdout)
	sameFiles(t, "broken", dir, trace, save)
}
