package tests

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// saveConfigs are the configs whose runs must continue exactly after a save:
// every example config and fixture.
var saveConfigs = []struct {
	name, config string
	steps        int
	cuts         []int // steps after which the run is saved and continued in a new process
}{
	// Cuts where bt.wait, bt.timestamp.wait and bt.signal.wait are current,
	// right after a relayed signal, and where agents are mid-action.
	{"alarm", fixture("alarm"), 30, []int{2, 5, 9, 16, 19, 21}},
	{"failing", fixture("failing"), 8, []int{1, 2, 5}},
	// The example game: Lua actions mid-run (wander, shoot with ctx.state),
	// the nav plugin's path in its state bytes, the world's player, the
	// agents' and the world's generators, signals from the schedule (at 20 s
	// and 24 s); grunt-1 shooting while the grenade gate cools down (95),
	// grunt-3's search mid-timeout (265) and its idle choice's score order
	// (295); grunts closing in on the player, the chase and the tracking in
	// two lanes, the chase lane's nav path in its state bytes (73, 201,
	// 238); grunt-1 holding the grenade gate mid-throw (80, 265); courier-1
	// holding the rendezvous alone, waiting (162), and both couriers
	// holding it as they swap parcels (163).
	{"example", "../config.toml", 300, []int{7, 66, 73, 80, 95, 133, 162, 163, 201, 238, 265, 295}},
	// Interruption and choice orders with Lua, cut after every step: timeout
	// clocks, cooldowns, choice orders and the agents' generators.
	{"interrupt", fixture("interrupt"), 40, everyStep(39)},
	// Parallel lanes with Lua, cut after every step: lanes and nested lanes
	// mid-run and done, each lane's ctx.state and bt.wait, cooldowns and
	// timeouts in and around lanes, right after jumps between lanes.
	{"parallel", fixture("parallel"), 48, everyStep(47)},
	// Gates with Lua, cut after every step: holders mid-hold and in take
	// order, the grenade's cooldown running, a rendezvous half met (the
	// waiter's latch), takes refused, releases by errors and aborts.
	{"gates", fixture("gates"), 60, everyStep(59)},
	// Signals with data, stimuli and handlers, cut after every step:
	// stimuli mid-expiry, handlers' results pending in running actions
	// (of lanes too), a handler's error.
	{"signals", fixture("signals"), 80, everyStep(79)},
	// Child trees in slots, cut after every step: grafted trees mid-run
	// (their lanes, cooldowns, random orders and ctx.state), grafts waiting
	// for the slot's next entry, slots back on their default.
	{"slots", fixture("slots"), 60, everyStep(59)},
}

// everyStep is the cuts 1..n.
func everyStep(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// TestSave_continuedRunsGiveTheSameTrace: a run of N steps gives the same
// trace and the same final save as a run of k steps, saved, loaded in a
// new process and run for N-k steps.
func TestSave_continuedRunsGiveTheSameTrace(t *testing.T) {
	for _, c := range saveConfigs {
		t.Run(c.name, func(t *testing.T) {
			continuedRunsMatch(t, c.config, c.steps, c.cuts)
		})
	}
}

// continuedRunsMatch runs config for steps steps, then, for each cut k,
// for k steps, saved, and for the rest in a new process from the save: the
// two parts' traces together and the final save must be the whole run's.
func continuedRunsMatch(t *testing.T, config string, steps int, cuts []int) {
	t.Helper()
	dir := t.TempDir()
	whole, wholeSave := filepath.Join(dir, "whole.jsonl"), filepath.Join(dir, "whole.save")
	mustRun(t, "run", "-config", config, "-quiet", "-steps", strconv.Itoa(steps), "-trace", whole, "-save", wholeSave)
	want, _ := os.ReadFile(whole)
	wantSave, _ := os.ReadFile(wholeSave)
	for _, k := range cuts {
		first, second := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
		save, end := filepath.Join(dir, "run.save"), filepath.Join(dir, "end.save")
		mustRun(t, "run", "-config", config, "-quiet", "-steps", strconv.Itoa(k), "-trace", first, "-save", save)
		mustRun(t, "run", "-config", config, "-quiet", "-steps", strconv.Itoa(steps-k), "-trace", second, "-load", save, "-save", end)
		a, _ := os.ReadFile(first)
		b, _ := os.ReadFile(second)
		if got := append(a, b...); !bytes.Equal(got, want) {
			t.Fatalf("saved after step %d: the continued trace differs:\n%s", k, firstDifference(string(got), string(want)))
		}
		if got, _ := os.ReadFile(end); !bytes.Equal(got, wantSave) {
			t.Fatalf("saved after step %d: the continued run's final save differs from the whole run's", k)
		}
	}
}

func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("btrun %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + gl + "\n want " + wl
		}
	}
	return "same lines"
}

// TestSave_badFilesAreRejectedWithoutDamage: every kind of bad save is an
// error with exit code 1, and the save file is left as it was.
func TestSave_badFilesAreRejectedWithoutDamage(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "fixtures", "alarm"), dir)
	cfg := filepath.Join(dir, "config.toml")
	good := filepath.Join(dir, "good.save")
	mustRun(t, "run", "-config", cfg, "-quiet", "-steps", "7", "-save", good)
	data, _ := os.ReadFile(good)

	foreign := filepath.Join(dir, "foreign.save")
	mustRun(t, "run", "-config", fixture("failing"), "-quiet", "-steps", "3", "-save", foreign)

	// The same game with a tree whose rule ids changed: the saved cursor is gone.
	renamed := filepath.Join(dir, "renamed")
	copyDir(t, filepath.Join("testdata", "fixtures", "alarm"), renamed)
	tree := filepath.Join(renamed, "ai", "sentry.xml")
	xml, _ := os.ReadFile(tree)
	os.WriteFile(tree, bytes.ReplaceAll(xml, []byte(`id=".walk"`), []byte(`id=".stroll"`)), 0o644)

	version := append([]byte(nil), data...)
	version[8] = 10 // the version varint follows the 8-byte magic; the checksum is made right
	binary.LittleEndian.PutUint32(version[len(version)-4:], crc32.ChecksumIEEE(version[:len(version)-4]))
	flip := append([]byte(nil), data...)
	flip[len(flip)/2] ^= 1

	files := map[string][]byte{
		"empty":         {},
		"truncated":     data[:len(data)/3],
		"corrupted":     flip,
		"wrong-format":  []byte("[run]\nsteps = 3\n"),
		"wrong-version": version,
	}
	cases := []struct{ name, config, file, want string }{
		{"empty", cfg, "", "the file is empty"},
		{"truncated", cfg, "", "checksum mismatch"},
		{"corrupted", cfg, "", "checksum mismatch"},
		{"wrong-format", cfg, "", `not a btrun save file`},
		{"wrong-version", cfg, "", "save format version 10; this btrun reads versions 1 to 9"},
		{"foreign", cfg, foreign, "the save is of another game"},
		{"unknown-id", filepath.Join(renamed, "config.toml"), good, `agent sentry-2: cannot restore: the saved cursor "patrol.walk" is not an id of tree ai/sentry.xml`},
		{"missing", cfg, filepath.Join(dir, "nope.save"), "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.file
			if path == "" {
				path = filepath.Join(dir, c.name+".save")
				os.WriteFile(path, files[c.name], 0o644)
			}
			before, _ := os.ReadFile(path)
			r := run(t, "", "run", "-config", c.config, "-quiet", "-steps", "3", "-load", path, "-save", path)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr does not say %q:\n%s", c.want, r.stderr)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("the save file was changed by a failed load")
			}
		})
	}
}

// TestSave_crashBetweenWriteAndRenameKeepsTheOldSave kills btrun (SIGKILL)
// after it wrote a new save's temporary file and before it renamed it over
// the old one: the old save must still load.
func TestSave_crashBetweenWriteAndRenameKeepsTheOldSave(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "run.save")
	mustRun(t, "run", "-config", fixture("alarm"), "-quiet", "-steps", "5", "-save", save)
	old, _ := os.ReadFile(save)

	cmd := command("run", "-config", fixture("alarm"), "-quiet", "-steps", "9", "-save", save)
	cmd.Env = append(os.Environ(), "BTRUN_TEST_KILL_BEFORE_RENAME=1")
	err := cmd.Run()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("btrun was not killed: %v", err)
	}
	now, _ := os.ReadFile(save)
	if !bytes.Equal(old, now) {
		t.Fatal("the old save changed")
	}
	r := mustRun(t, "run", "-config", fixture("alarm"), "-steps", "2", "-load", save, "-trace", "-")
	if !strings.HasPrefix(r.stdout, `{"step":6,`) {
		t.Errorf("the old save does not continue at step 6: %.80s", r.stdout)
	}
}

// TestSave_version3SavesStillLoad: testdata/saves/parallel-v3.save was
// written by the btrun before save format version 4 (the parallel fixture
// after 17 steps: lanes and nested lanes mid-run, each with its state). It
// loads, and the run continues as the golden trace says.
func TestSave_version3SavesStillLoad(t *testing.T) {
	oldSaveContinues(t, "parallel-v3.save", 3, "parallel", 17, 31)
}

// TestSave_version2SavesStillLoad: testdata/saves/interrupt-v2.save was
// written by the btrun before save format version 3 (the interrupt fixture
// after 13 steps: timeout clocks, cooldowns, choice orders and the agents'
// generators). It loads, and the run continues as the golden trace says.
func TestSave_version2SavesStillLoad(t *testing.T) {
	oldSaveContinues(t, "interrupt-v2.save", 2, "interrupt", 13, 27)
}

// TestSave_version1SavesStillLoad: testdata/saves/alarm-v1.save was written
// by the btrun before save format version 2 (the alarm fixture after 9
// steps). It loads, and the run continues as the golden trace says.
func TestSave_version1SavesStillLoad(t *testing.T) {
	oldSaveContinues(t, "alarm-v1.save", 1, "alarm", 9, 21)
}

// TestWorkers_theTraceAndSaveOfTheBinaryDoNotDependOnWorkers: `btrun run
// -workers N` writes the same trace and save for N = 1, 2, 3 and 8 (the
// example game: Lua, the nav plugin's batches, gates), and a save made with
// 3 workers continues with 1 as a straight run does.
func TestWorkers_theTraceAndSaveOfTheBinaryDoNotDependOnWorkers(t *testing.T) {
	dir := t.TempDir()
	var wantTrace, wantSave []byte
	for _, n := range []string{"1", "2", "3", "8"} {
		trace, save := filepath.Join(dir, n+".trace"), filepath.Join(dir, n+".save")
		if r := run(t, "", "run", "-config", "../config.toml", "-steps", "240", "-workers", n, "-trace", trace, "-save", save, "-quiet"); r.code != 0 {
			t.Fatalf("-workers %s: exit %d: %s", n, r.code, r.stderr)
		}
		gotTrace, _ := os.ReadFile(trace)
		gotSave, _ := os.ReadFile(save)
		if wantTrace == nil {
			wantTrace, wantSave = gotTrace, gotSave
			continue
		}
		if !bytes.Equal(gotTrace, wantTrace) || !bytes.Equal(gotSave, wantSave) {
			t.Errorf("-workers %s: the trace or the save differs from -workers 1's", n)
		}
	}
	// Cut at step 212: grunt-1 mans the mounted gun, mid-burst, its tree
	// grafted into its slot (tests/testdata/golden/example.trace).
	half, end := filepath.Join(dir, "half.save"), filepath.Join(dir, "end.save")
	if r := run(t, "", "run", "-config", "../config.toml", "-steps", "212", "-workers", "3", "-save", half, "-quiet"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, "", "run", "-config", "../config.toml", "-steps", "28", "-workers", "1", "-load", half, "-save", end, "-quiet"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got, _ := os.ReadFile(end)
	if !bytes.Equal(got, wantSave) {
		t.Error("saved with 3 workers at step 212 and continued with 1: the save at step 240 differs from a straight run's")
	}
}

// TestSave_version4SavesStillLoad: testdata/saves/gates-v4.save was
// written by the btrun before save format version 5 (the gates fixture
// after 30 steps: holders mid-hold, a cooldown running, agents that had
// received signals, which version 4 did not keep as stimuli). It loads,
// and the run continues as the golden trace says.
func TestSave_version4SavesStillLoad(t *testing.T) {
	oldSaveContinues(t, "gates-v4.save", 4, "gates", 30, 30)
}

// oldSaveContinues loads testdata/saves/NAME, a save of format version
// (written by an older btrun after step cut of the fixture), continues it
// for steps steps, and checks that the run goes on as the fixture's golden
// trace says.
func oldSaveContinues(t *testing.T, name string, version byte, fix string, cut, steps int) {
	t.Helper()
	save := filepath.Join(t.TempDir(), "old.save")
	data, err := os.ReadFile(filepath.Join("testdata", "saves", name))
	if err != nil {
		t.Fatal(err)
	}
	if data[8] != version {
		t.Fatalf("the fixture is format version %d, want %d", data[8], version)
	}
	os.WriteFile(save, data, 0o644)
	r := mustRun(t, "run", "-config", fixture(fix), "-quiet", "-steps", strconv.Itoa(steps), "-trace", "-", "-load", save)
	golden, err := os.ReadFile(filepath.Join("testdata", "golden", fix+".trace"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(golden), "\n") {
		num, _, _ := strings.Cut(strings.TrimPrefix(l, `{"step":`), ",")
		if n, err := strconv.Atoi(num); err == nil && n > cut {
			want = append(want, l)
		}
	}
	if got := strings.TrimSuffix(r.stdout, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("continued from a version %d save:\n%s", version, firstDifference(got, strings.Join(want, "\n")))
	}
}
