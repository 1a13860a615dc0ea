package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCluster_checkpointAfterAReloadHoldsItsSignals: `btrun run -shards 2
// -inputs F` whose line reloads after step 12 over agents whose old cancel
// hook sends a signal to itself and one to g-9 (on the other shard): the
// checkpoint taken after the reload, between steps, holds those signals,
// which one process delivers at the head of step 13's queue. A shard
// killed in step 13 sends the run back to that checkpoint (the journal
// pruned up to it): the trace and the save are one process's, byte for
// byte.
func TestCluster_checkpointAfterAReloadHoldsItsSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	dir := t.TempDir()
	out := t.TempDir()
	aim := strings.Replace(reloadGame["ai/aim.lua"], `ctx:log("v1 cancel at "`,
		`ctx:send(ctx.id, "Self", {}); ctx:send("g-9", "Aborted", {by = ctx.id}); ctx:log("v1 cancel at "`, 1)
	write := func() { // the game as it is before the reload (the reload's line writes over ai/g.xml)
		writeReloadGame(t, dir)
		for name, text := range map[string]string{"ai/aim.lua": aim, "inputs.txt": "12 reload ai/g.xml edits/g-renamed.xml\n"} {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	common := []string{"-config", filepath.Join(dir, "config.toml"), "-inputs", filepath.Join(dir, "inputs.txt")}
	trace, save, one := oneProcessRun(t, out, common...)
	if !strings.Contains(string(trace), `{"step":13,"time":0.13,"agent":"g-9","signal":"Aborted"`) {
		t.Fatalf("one process's trace has no signal Aborted to g-9 at step 13:\n%s", trace)
	}
	write()
	r := runRecovered(t, out, "lost", "shard1:report:13", append([]string{"run", "-shards", "2", "-name", "ckptwait"}, common...)...)
	if want := "going back to the checkpoint of step 12 and replaying"; !strings.Contains(r.stderr, want) {
		t.Errorf("%q lacks %q", r.stderr, want)
	}
	sameOutput(t, "lost", r.stdout, one.stdout)
	sameFiles(t, "lost", out, trace, save)
}
