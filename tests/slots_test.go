package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSlots_workersGiveTheSameTraceAndSave: the slots fixture (grafts from
// Lua, composites bound on whichever worker needs them first) gives a
// byte-identical trace and save on 1, 2 and 3 workers.
func TestSlots_workersGiveTheSameTraceAndSave(t *testing.T) {
	dir := t.TempDir()
	var wantTrace, wantSave []byte
	for _, n := range []string{"1", "2", "3"} {
		trace, save := filepath.Join(dir, n+".trace"), filepath.Join(dir, n+".save")
		if r := run(t, "", "run", "-config", fixture("slots"), "-workers", n, "-trace", trace, "-save", save, "-quiet"); r.code != 0 {
			t.Fatalf("-workers %s: exit %d: %s", n, r.code, r.stderr)
		}
		gotTrace, _ := os.ReadFile(trace)
		gotSave, _ := os.ReadFile(save)
		if !bytes.Contains(gotTrace, []byte(`"use.man.fire.aim.load"`)) {
			t.Fatalf("-workers %s: no grafted rule in the trace", n)
		}
		if wantTrace == nil {
			wantTrace, wantSave = gotTrace, gotSave
			continue
		}
		if !bytes.Equal(gotTrace, wantTrace) || !bytes.Equal(gotSave, wantSave) {
			t.Errorf("-workers %s: the trace or the save differs from -workers 1's", n)
		}
	}
}

// TestSlots_validateAndTree: validate names a slot's unknown default tree
// and a slot without an id, with their positions; btrun tree shows slots.
func TestSlots_validateAndTree(t *testing.T) {
	src := filepath.Join("testdata", "fixtures", "slots")
	for _, c := range []struct{ from, to, want string }{
		{`default="patrol"`, `default="patrl"`, `ai/grunt.xml:17:7: rule use: default tree: no tree "patrl" in the game's [[trees]]`},
		{`<slot id="use" default="patrol"/>`, `<slot default="patrol"/>`, `ai/grunt.xml:17:7: <slot> needs an id`},
	} {
		dir := t.TempDir()
		copyDir(t, src, dir)
		path := filepath.Join(dir, "ai", "grunt.xml")
		data, _ := os.ReadFile(path)
		if err := os.WriteFile(path, bytes.Replace(data, []byte(c.from), []byte(c.to), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, "", "validate", "-config", filepath.Join(dir, "config.toml"))
		if r.code != 2 || !bytes.Contains([]byte(r.stderr), []byte(c.want)) {
			t.Errorf("validate with %s: exit %d, %s; want %q", c.to, r.code, r.stderr, c.want)
		}
	}
	r := run(t, "", "tree", filepath.Join(src, "ai", "grunt.xml"))
	if r.code != 0 || !bytes.Contains([]byte(r.stdout), []byte("slot use  default=patrol  (runs the tree grafted for the agent)")) {
		t.Errorf("btrun tree: exit %d:\n%s", r.code, r.stdout)
	}
}

// TestSlots_inALane: a slot in a parallel's lane, its tree grafted from
// the lane just before: the other lane keeps running beside the grafted
// tree, and the parallel finishes when both are done, as with the tree
// written inline. (The first design of slots dropped the other lane when
// the slot took its tree, then panicked when the grafted tree finished.)
func TestSlots_inALane(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	if r := run(t, "", "run", "-config", fixture("slotlanes"), "-trace", trace, "-quiet"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got, _ := os.ReadFile(trace)
	for _, want := range []string{
		`"step":1,"time":0.25,"agent":"host-1","runs":[["host.both.watch","running"],["host.both.work.pick","success"],["use.obj.hold","running"]],"result":"running","cursor":"host.both","lanes":["host.both.watch","use.obj.hold"]}`,
		`"step":3,"time":0.75,"agent":"host-1","runs":[["host.both.watch","running"],["use.obj.hold","success"],["use.obj.done","success"]],"result":"running","cursor":"host.both","lanes":["host.both.watch"]}`,
		`["host.rest","success"]`,
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("the trace lacks %s:\n%s", want, got)
		}
	}
}
