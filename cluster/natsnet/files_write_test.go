package natsnet

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The config's path and a program's mode reach the shards with the files.
func TestNATS_filesNameTheConfigAndPrograms(t *testing.T) {
	s := startServer(t)
	files := []File{{Path: "game/config.toml", Data: []byte("[run]\n")}, {Path: "plugins/nav", Data: []byte("#!/bin/sh\n"), Exec: true}}
	o := Options{URL: s.URL(), Run: "named", Version: "v1", Files: files, Config: "game/config.toml"}
	c, ends := joinAll(t, o, 1)
	defer c.Close()
	sh := ends[0].(*ShardLink)
	if sh.Config() != "game/config.toml" {
		t.Errorf("config %q", sh.Config())
	}
	dir := t.TempDir()
	if err := WriteFiles(dir, sh.Files()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "plugins", "nav"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("plugins/nav: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "game", "config.toml")); string(b) != "[run]\n" {
		t.Errorf("config %q", b)
	}
	if _, err := Conduct(Options{URL: s.URL(), Run: "unnamed", Version: "v1", Files: files, Config: "config.toml"}, 1); !errors.Is(err, ErrFiles) {
		t.Errorf("a config not among the files: %v", err)
	}
}

// Paths from the network never write outside the shard's folder.
func TestWriteFiles_refusesPathsOutside(t *testing.T) {
	for _, p := range []string{"../x", "/etc/x", "a/../../x", "", ".", "a//b", "a/./b", `a\..\..\x`} {
		dir := t.TempDir()
		err := WriteFiles(dir, []File{{Path: "ok.lua"}, {Path: p, Data: []byte("x")}})
		if !errors.Is(err, ErrFiles) {
			t.Errorf("%q: %v", p, err)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%q: wrote %s before refusing", p, left[0].Name())
		}
	}
}
