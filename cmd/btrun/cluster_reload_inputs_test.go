package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestParseInput_reload: `AFTER reload` and `AFTER reload PATH FROM` are
// reloads; a reload with one path, or three, is an error naming the forms.
func TestParseInput_reload(t *testing.T) {
	for _, c := range []struct{ line, to, name string }{
		{"4 reload", "", ""},
		{"4 reload ai/g.xml edits/g.xml", "ai/g.xml", "edits/g.xml"},
	} {
		in, err := parseInput(c.line)
		if err != nil || in.after != 4 || in.op != "reload" || in.to != c.to || in.name != c.name {
			t.Errorf("%q: %+v, %v", c.line, in, err)
		}
	}
	for _, line := range []string{"4 reload ai/g.xml", "4 reload a b c"} {
		if _, err := parseInput(line); err == nil || !strings.Contains(err.Error(), "AFTER reload [PATH FROM]") {
			t.Errorf("%q: %v", line, err)
		}
	}
	// A reload's PATH is written over: it must be one of the game's files.
	for _, line := range []string{"4 reload /etc/passwd edits/g.xml", "4 reload ../other/g.xml edits/g.xml", "4 reload ai/../../g.xml edits/g.xml"} {
		if _, err := parseInput(line); err == nil || !strings.Contains(err.Error(), "inside the config's folder") {
			t.Errorf("%q: %v", line, err)
		}
	}
}

// TestReadInputs_reloadFirstInItsStep: a reload line after another line of
// its step is refused with its line (a cluster's checkpoint after a reload
// holds the reloads of its step and no other input).
func TestReadInputs_reloadFirstInItsStep(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "inputs.txt")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := readInputs(write("3 reload\n3 reload a.xml b.xml\n3 signal all X\n4 reload\n")); err != nil {
		t.Errorf("reloads first: %v", err)
	}
	_, err := readInputs(write("3 signal all X\n3 reload\n"))
	if err == nil || !strings.Contains(err.Error(), "inputs.txt:2: a reload comes first among the lines of its step (after step 3)") {
		t.Errorf("a reload after a signal of its step: %v", err)
	}
}

// TestRunInput_reloadsAPluginsSources: a journaled reload is a line's
// `reload PATH FROM` when it reloaded PATH, also when it built again the
// one plugin whose sources PATH is; a bare line is no reload that named a
// plugin (the page's Reload names them all), nor is a line one that named
// two.
func TestRunInput_reloadsAPluginsSources(t *testing.T) {
	journaled := func(changed, plugins []string) *cluster.Input {
		data, err := cluster.EncodeReload(&cluster.ReloadManifest{Config: "config.toml", Changed: changed, Plugins: plugins})
		if err != nil {
			t.Fatal(err)
		}
		return &cluster.Input{Kind: cluster.InputReload, Step: 20, Data: data}
	}
	line := &runInput{after: 20, op: "reload", to: "reloady/main.go", name: "edits/main.go"}
	bare := &runInput{after: 20, op: "reload"}
	for _, c := range []struct {
		in               *runInput
		changed, plugins []string
		want             bool
	}{
		{line, []string{"reloady/main.go"}, nil, true},
		{line, []string{"reloady/main.go"}, []string{"reloady"}, true},
		{line, []string{"reloady/main.go"}, []string{"reloady", "nav"}, false},
		{line, []string{"ai/w.xml"}, []string{"reloady"}, false},
		{bare, nil, nil, true},
		{bare, nil, []string{"reloady"}, false},
	} {
		if got := c.in.is(journaled(c.changed, c.plugins)); got != c.want {
			t.Errorf("%+v with a journaled reload of %q and plugins %q: %v, want %v", *c.in, c.changed, c.plugins, got, c.want)
		}
	}
}
