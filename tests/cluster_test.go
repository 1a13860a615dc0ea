package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster/natsnet"
)

// beforeSummary is a run's output for people up to its closing summary
// (which a cluster writes as one line of its own).
//
// The lines that say a plugin is being built are left out: only the first
// run after the plugin's sources changed builds it, whichever test that is
// (on a fresh machine, the single run these tests compare with).
func beforeSummary(out string) string {
	var keep strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(line, "btrun: plugin ") ||
			!(strings.Contains(line, ": building ") || strings.Contains(line, ": still building ") || strings.Contains(line, ": built in ")) {
			keep.WriteString(line)
		}
	}
	out = keep.String()
	if i := strings.Index(out, "\nbtrun: "); i >= 0 {
		return out[:i+1]
	}
	return out
}

// TestCluster_sameAsOneProcess: `btrun run -shards N` (shard processes over
// an embedded NATS server) writes the trace, the output and the save of
// `btrun run`: the example game for 600 steps on 2 shards and on 3 shards
// of 2 workers, and the gates fixture; a save made on 2 shards at step
// 300, loaded by 3 shards, ends with one process's save.
func TestCluster_sameAsOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	for _, c := range []struct {
		name, config string
		steps        string
	}{{"example", "../config.toml", "600"}, {"gates", fixture("gates"), "60"}, {"sharedwire", fixture("sharedwire"), "12"}} {
		t.Run(c.name, func(t *testing.T) {
			// The embedded server's store, beside the config ([cluster] store).
			t.Cleanup(func() { os.RemoveAll(filepath.Join(filepath.Dir(c.config), "btrun-cluster")) })
			dir := t.TempDir()
			file := func(n string) string { return filepath.Join(dir, n) }
			trace, save, want := oneProcessRun(t, dir, "-config", c.config, "-steps", c.steps)
			for _, layout := range [][]string{{"-shards", "2"}, {"-shards", "3", "-workers", "2"}} {
				tag := strings.Join(layout, "")
				got := runTo(t, nil, dir, tag, append([]string{"run", "-config", c.config, "-steps", c.steps}, layout...)...)
				sameOutput(t, tag, got.stdout, want.stdout)
				if !strings.Contains(got.stdout, "btrun: "+c.steps+" steps on ") {
					t.Errorf("%s: no cluster summary in %q", tag, got.stdout[max(0, len(got.stdout)-200):])
				}
				sameFiles(t, tag, dir, trace, save)
			}
			if c.name != "example" {
				return
			}
			half := run(t, "", "run", "-config", c.config, "-steps", "300", "-shards", "2", "-save", file("half.sav"), "-quiet")
			if half.code != 0 {
				t.Fatalf("exit %d: %s", half.code, half.stderr)
			}
			rest := run(t, "", "run", "-config", c.config, "-steps", "300", "-shards", "3", "-load", file("half.sav"), "-save", file("rest.sav"), "-quiet")
			if rest.code != 0 {
				t.Fatalf("exit %d: %s", rest.code, rest.stderr)
			}
			a, _ := os.ReadFile(file("one.sav"))
			b, _ := os.ReadFile(file("rest.sav"))
			if !bytes.Equal(a, b) {
				t.Errorf("300 steps on 2 shards, 300 on 3 from its save: the save differs from 600 steps in one process")
			}
		})
	}
}

// TestCluster_unreachableNATS: a cluster whose NATS cannot be reached is a
// clear error, at once.
func TestCluster_unreachableNATS(t *testing.T) {
	r := run(t, "", "run", "-config", fixture("alarm"), "-shards", "2", "-cluster", "nats://127.0.0.1:1", "-name", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "cannot reach NATS at nats://127.0.0.1:1") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

// TestCluster_shardNeedsOnlyTheBinary: shards started by hand in empty
// folders, with no config of their own, fetch the game's files (the
// config, trees, scripts and the nav plugin's program) from the run's
// object store by content hash, and the run is one process's, byte for
// byte; each shard removes its copy of the files when the run ends.
func TestCluster_shardNeedsOnlyTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	srv, err := natsnet.StartServer(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	file := func(n string) string { return filepath.Join(dir, n) }
	want := run(t, "", "run", "-config", "../config.toml", "-steps", "100", "-trace", file("one.jsonl"), "-save", file("one.sav"))
	if want.code != 0 {
		t.Fatalf("btrun run: exit %d: %s", want.code, want.stderr)
	}
	var shards []*exec.Cmd
	var errs []*bytes.Buffer
	var tmps []string
	for range 2 {
		empty, tmp := t.TempDir(), t.TempDir()
		cmd := command("shard", "-cluster", srv.URL(), "-name", "bare", "-trace")
		cmd.Dir = empty
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var e bytes.Buffer
		cmd.Stderr = &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		shards, errs, tmps = append(shards, cmd), append(errs, &e), append(tmps, empty, tmp)
	}
	got := run(t, "", "run", "-config", "../config.toml", "-steps", "100", "-shards", "2", "-cluster", srv.URL(), "-name", "bare",
		"-trace", file("two.jsonl"), "-save", file("two.sav"))
	if got.code != 0 {
		t.Fatalf("btrun run -cluster: exit %d: %s", got.code, got.stderr)
	}
	for k, cmd := range shards {
		if err := cmd.Wait(); err != nil {
			t.Errorf("shard %d: %v: %s", k, err, errs[k])
		}
	}
	sameOutput(t, "cluster", got.stdout, want.stdout)
	for _, ext := range []string{".jsonl", ".sav"} {
		a, _ := os.ReadFile(file("one" + ext))
		b, _ := os.ReadFile(file("two" + ext))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("the %s differs from one process's (%d and %d bytes)", ext, len(b), len(a))
		}
	}
	for _, d := range tmps {
		if left, _ := os.ReadDir(d); len(left) > 0 {
			t.Errorf("%s holds %d entries after the run (%s...)", d, len(left), left[0].Name())
		}
	}
}
