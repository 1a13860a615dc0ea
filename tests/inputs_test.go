package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exampleInputs are signals and agents added from outside for the example
// game (`btrun run -inputs`): some before the checkpoint of step 200 (which
// then holds 13 agents, the config 12), some between it and step 250
// (where the tests below lose a process), some after; one to an agent the
// game does not have, which both runs report and skip.
const exampleInputs = `# after step, signal, to, name, data
50 signal grunt-1 OnEnemySeen
100 signal nobody OnEnemySeen
120 add grunt-4 grunt
150 signal all OnLostSightOfTarget
200 signal grunt-2 OnEnemySeen
210 signal medic-2 OnHurt {"who": "courier-1", "x": 3, "y": -4}
220 add medic-4 medic
220 signal medic-4 OnHurt {"who": "grunt-4", "x": 1, "y": 1}
230 signal all OnBackToNormal
230 signal scout-1 OnEnemySeen
300 signal grunt-2 OnLostSightOfTarget
420 signal medic-3 OnHurt {"who": "courier-2", "x": -6, "y": 2}
`

// withInputs writes exampleInputs into dir and returns its path.
func withInputs(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "inputs.txt")
	if err := os.WriteFile(path, []byte(exampleInputs), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneProcessInputs is oneProcess with the inputs.
func oneProcessInputs(t *testing.T, config, dir, inputs string) (trace, save []byte, out string) {
	t.Helper()
	trace, save, r := oneProcessRun(t, dir, "-config", config, "-steps", "600", "-inputs", inputs)
	if !strings.Contains(r.stderr, `inputs.txt:3: game: no agent "nobody" to send "OnEnemySeen" to`) {
		t.Errorf("the signal to nobody is not reported: %q", r.stderr)
	}
	return trace, save, r.stdout
}

// TestInputs_clusterReplaysJournal: signals from outside a cluster run
// (-inputs) reach its agents as they reach one process's; with a shard
// killed at step 250 (after the inputs of steps 200 to 230, before the
// next checkpoint) the run goes back to step 200 and applies the
// journaled inputs again: its trace, save and output are one process's.
// So is a shard killed as the checkpoint of step 200 gathers (back to step
// 100, the journal not pruned), and a conductor killed before step 250 or
// before committing the checkpoint of step 200 and resumed (-resume),
// which takes the inputs after the checkpoint from the journal and the
// file's lines after those.
func TestInputs_clusterReplaysJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := recoverConfig(t)
	dir := t.TempDir()
	inputs := withInputs(t, dir)
	trace, save, out := oneProcessInputs(t, config, dir, inputs)
	for _, c := range []struct{ fault, tag string }{
		{"", "plain"},
		{"shard1:report:250", "lost"},
		{"shard0:checkpoint:200", "lost-mid-checkpoint"}, // back to step 100: the journal holds 150 on
		{"conductor:step:250", "resumed"},
		{"conductor:commit:200", "resumed-mid-checkpoint"},
	} {
		r := runRecovered(t, dir, c.tag, c.fault, "run", "-config", config, "-steps", "600", "-shards", "2", "-name", "inputs-"+c.tag, "-inputs", inputs)
		back := "step 200"
		if strings.HasSuffix(c.tag, "mid-checkpoint") {
			back = "step 100"
		}
		switch c.tag {
		case "lost", "lost-mid-checkpoint":
			// On a busy machine a shard may also be silent past the 2s
			// deadline before the fault's point: the run then recovers
			// from an earlier checkpoint, to the same bytes.
			if !strings.Contains(r.stderr, "going back to the checkpoint of "+back+" and replaying") {
				t.Logf("%s: no recovery from %s, but %q", c.tag, back, r.stderr)
				if !strings.Contains(r.stderr, "going back to the checkpoint of") && !strings.Contains(r.stderr, "starting the run again") {
					t.Errorf("%s: no recovery in %q", c.tag, r.stderr)
				}
			}
			fallthrough
		case "plain":
			sameOutput(t, c.tag, r.stdout, out)
			if !strings.Contains(r.stderr, `inputs.txt:3: game: no agent "nobody"`) {
				t.Errorf("%s: the signal to nobody is not reported: %q", c.tag, r.stderr)
			}
		default:
			if !strings.Contains(r.stderr, "resuming run inputs-"+c.tag+" from its checkpoint at "+back) {
				t.Errorf("%s: %q", c.tag, r.stderr)
			}
		}
		sameFiles(t, c.tag, dir, trace, save)
	}
}

// TestInputs_badFileIsRefusedWithItsLine: an inputs file that cannot be
// read is refused before the run starts (exit 2), naming the line and why.
func TestInputs_badFileIsRefusedWithItsLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"# a comment\nx signal grunt-1 Alarm", `inputs.txt:2: "x": the step an input follows is a number`},
		{"5 shout grunt-1 Alarm", `inputs.txt:1: "5 shout grunt-1 Alarm": an input is AFTER signal TO NAME [DATA], AFTER add ID TREE, AFTER remove ID or AFTER reload [PATH FROM]`},
		{"5 signal grunt-1 Alarm {\"a\": ", `inputs.txt:1: signal Alarm's data "{\"a\":": not one JSON value`},
		{"5 signal grunt-1 Alarm 1 2", `inputs.txt:1: signal Alarm's data "1 2": not one JSON value`},
		{"7 signal all Alarm\n5 signal all Alarm", `inputs.txt:2: after step 5 comes after a line of step 7`},
		{"5 add grunt-9", `inputs.txt:1: "5 add grunt-9": an input is`},
		{"5 remove grunt-1 now", `inputs.txt:1: "5 remove grunt-1 now": an input is`},
		{"5 signal Alarm\tAlarm {\"a\": [1, 2]} x", `inputs.txt:1: signal Alarm's data "{\"a\": [1, 2]} x": not one JSON value`},
	} {
		path := filepath.Join(dir, "inputs.txt")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, "", "run", "-config", fixture("alarm"), "-inputs", path)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d: %s\nwant %s", c.text, r.code, r.stderr, c.want)
		}
	}
}

// TestInputs_agentsRemovedOnShardProcesses: agents added and removed from
// outside a cluster of a game without gates (the "signals" fixture, a
// checkpoint every 20 steps), with a shard killed after the inputs of
// steps 20 to 30 and before the checkpoint of step 40: the run goes back to
// step 20 and replays, and its trace and save are one process's.
func TestInputs_agentsRemovedOnShardProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	config := clusterConfigOf(t, fixture("signals"), "inputs-test-*.toml", "checkpoint_every = 20\ndeadline = \"2s\"\n")
	dir := t.TempDir()
	inputs := filepath.Join(dir, "inputs.txt")
	if err := os.WriteFile(inputs, []byte(`5 add grunt-5 grunt
12 remove medic-2
15 signal all Orders "hold"
24 add medic-3 medic
27 remove grunt-2
30 signal grunt-5 Hurt {"by": "input", "damage": 30}
44 remove grunt-5
`), 0o644); err != nil {
		t.Fatal(err)
	}
	trace, save, one := oneProcessRun(t, dir, "-config", config, "-inputs", inputs)
	if one.stderr != "" {
		t.Fatalf("one process: %s", one.stderr)
	}
	r := runRecovered(t, dir, "lost", "shard1:report:35", "run", "-config", config, "-shards", "2", "-inputs", inputs)
	if !recoveredAs(r.stderr, "going back to the checkpoint of step 20 and replaying") && !strings.Contains(r.stderr, "starting the run again") {
		t.Errorf("no recovery in %q", r.stderr) // from step 20, or earlier on a busy machine
	}
	sameOutput(t, "lost", r.stdout, one.stdout)
	sameFiles(t, "lost", dir, trace, save)
}

// TestInputs_randomKills: runs with the example game's inputs, each
// killing one process at a point drawn at random (a shard as a step starts
// or reports or a checkpoint gathers its agents; the conductor before a
// step, then -resume): each run's trace and save are one process's. The
// draws come from BTRUN_RECOVER_SEED, or a seed the log names.
func TestInputs_randomKills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	rng := recoverRand(t)
	config := recoverConfig(t)
	dir := t.TempDir()
	inputs := withInputs(t, dir)
	trace, save, _ := oneProcessInputs(t, config, dir, inputs)
	for i := range 2 {
		fault := randomFault(rng, 6, false)
		tag := "random-" + strconv.Itoa(i)
		r := runRecovered(t, dir, tag, fault, "run", "-config", config, "-steps", "600", "-shards", "2", "-name", "inputs-"+tag, "-inputs", inputs)
		t.Logf("%s: %s", fault, strings.TrimSpace(r.stderr))
		sameFiles(t, tag, dir, trace, save)
	}
}
