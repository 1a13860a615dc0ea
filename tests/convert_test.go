package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvert_seedDocument: btrun convert writes an MBT document as a tree
// file that btrun tree loads, lists the actions it expects on stderr, and
// a document with a problem is a usage error at the document's position.
func TestConvert_seedDocument(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "limit.xml")
	r := run(t, "", "convert", "-o", out, filepath.Join("..", "runtime", "testdata", "native", "mbt_limit.xml"))
	if r.code != 0 || !strings.Contains(r.stderr, "expects 2 actions to be registered (by a script or a plugin): ChasePlayer, TauntPlayer") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!-- MBT Selector, line 3 -->", `<sequence gate="limitconcurrentusers_mbt_limit_3_34" id="Selector.LimitConcurrentUsers">`, "only one monster"} {
		if !strings.Contains(string(text), want) {
			t.Fatalf("no %q in\n%s", want, text)
		}
	}
	if r := run(t, "", "tree", out); r.code != 0 || !strings.Contains(r.stdout, "4 rules in 1 file") {
		t.Fatalf("tree of the conversion: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(bad, []byte("<BehaviorTree><Root>\n <Loop count=\"x\"><A/></Loop></Root></BehaviorTree>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"convert", "bad.xml"}, {"tree", "bad.xml"}, {"validate", "-tree", "bad.xml"}} {
		r := run(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, `bad.xml:2:2: count="x" on MBT <Loop> is not a whole number`) {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestConvert_stateMachineFile: a Drag[en]gine state machine file with an
// import converts to one tree file (the imported states in place), which
// btrun tree loads; tree and validate name a bad one's own position.
func TestConvert_stateMachineFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "guard.xml")
	r := run(t, "", "convert", "-o", out, filepath.Join("..", "runtime", "testdata", "native", "desm_guard.xml"))
	if r.code != 0 || !strings.Contains(r.stderr, "expects 4 actions to be registered (by a script or a plugin): draw, lookAround, shout, yawn") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a Drag[en]gine state machine", "guard_common.desm line 4 -->", `<state name="watch (noise 1 if)">`} {
		if !strings.Contains(string(text), want) {
			t.Fatalf("no %q in\n%s", want, text)
		}
	}
	if r := run(t, "", "tree", out); r.code != 0 || !strings.Contains(r.stdout, "9 rules in 1 file") {
		t.Fatalf("tree of the conversion: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(dir, "bad.desm")
	if err := os.WriteFile(bad, []byte("<stateMachine>\n <state id=\"a\"><transition event=\"e\" state=\"b\"/></state></stateMachine>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"convert", "bad.desm"}, {"tree", "bad.desm"}, {"validate", "-tree", "bad.desm"}} {
		r := run(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, `bad.desm:2:16: <transition state=...> names state "b", which the state machine does not have`) {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}
