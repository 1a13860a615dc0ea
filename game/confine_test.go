package game

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfine_pathsOutsideTheRootAreRefused: with [scripts] root, a tree
// file, a subtree file, a script (through a symbolic link) and a world
// script outside the folder are errors where they are named; inside it,
// everything loads as usual.
func TestConfine_pathsOutsideTheRootAreRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("outside.xml", "<behaviorTree><success id='x'/></behaviorTree>")
	write("outside.lua", "return {}")
	write("mod/ok.xml", "<behaviorTree><sequence id='root'><success/></sequence></behaviorTree>")
	write("mod/escape.xml", "<behaviorTree>\n<sequence id='root'>\n  <subtree>../outside.xml</subtree>\n</sequence></behaviorTree>")
	write("mod/ai/act.lua", "local bt = require('bt')")
	if err := os.Symlink(filepath.Join(dir, "outside.lua"), filepath.Join(dir, "mod", "ai", "linked.lua")); err != nil {
		t.Fatal(err)
	}
	cfgText := func(tree, extra string) string {
		return "[scripts]\nroot = \"mod\"\npaths = [\"mod/ai\"]\n" + extra + "\n[[trees]]\nname = \"t\"\nfile = \"" + tree + "\"\n\n[[agents]]\ntree = \"t\"\n"
	}
	path := filepath.Join(dir, "config.toml")

	_, err := ParseConfig(path, []byte(cfgText("outside.xml", "world = \"outside.lua\"")))
	got := ""
	if err != nil {
		got = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	}
	for _, want := range []string{
		`config.toml:4: scripts.world = "outside.lua": it lies outside the game's folder mod ([scripts] root)`,
		`config.toml:7: trees[0] (t): file "outside.xml": it lies outside the game's folder mod ([scripts] root)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to contain\n%s", got, want)
		}
	}

	cfg, err := ParseConfig(path, []byte(cfgText("mod/escape.xml", "")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard})
	got = ""
	if err != nil {
		got = err.Error()
	}
	for _, want := range []string{
		"mod/escape.xml:3:3: cannot read subtree file outside.xml: it lies outside the game's folder mod ([scripts] root)",
		"mod/ai/linked.lua: cannot read the script: it lies outside the game's folder mod ([scripts] root)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to contain\n%s", got, want)
		}
	}

	os.Remove(filepath.Join(dir, "mod", "ai", "linked.lua"))
	cfg, err = ParseConfig(path, []byte(cfgText("mod/ok.xml", "")))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatalf("a confined game inside its folder: %v", err)
	}
	g.Close()
}
