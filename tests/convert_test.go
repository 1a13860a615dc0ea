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
