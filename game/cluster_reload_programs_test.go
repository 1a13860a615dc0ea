package game

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestWriteCheckpointFiles_findsThePluginsProgram: a checkpoint's copy of
// the game's files gets at a plugin's path the program the conductor ran
// (where it ran, while it is that program there), else the run's folder's
// build of the plugin if it is the same program; another program (the
// plugin's sources changed since) is refused, naming the plugin. What
// stands there in the store (the shards' declarations) is never written.
func TestWriteCheckpointFiles_findsThePluginsProgram(t *testing.T) {
	prog := []byte("#!/bin/sh\necho plugin v1\n")
	home := writeGame(t, map[string]string{"config.toml": "[[plugins]]\nname = \"p\"\npath = \"bin/p\"\n"})
	homeCfg := &Config{Path: home, Dir: filepath.Dir(home), Plugins: []PluginConfig{{Name: "p", Path: "bin/p"}}}
	at := filepath.Join(filepath.Dir(home), "bin", "p")
	write := func(p string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(at, prog)
	var store cluster.MemFiles
	decl := []byte("#!btrun plugin declarations 1\n{}")
	cfgText, _ := os.ReadFile(home)
	man := &cluster.ReloadManifest{Config: "config.toml"}
	for _, f := range []SourceFile{{Path: "config.toml", Data: cfgText}, {Path: "bin/p", Data: decl}} {
		h, _ := store.Put(f.Data)
		man.Files = append(man.Files, cluster.ReloadFile{Path: f.Path, Hash: h})
	}
	ran := filepath.Join(t.TempDir(), "cache", "p") // the program that ran: a build in the cache, say
	write(ran, prog)
	programs := []PluginProgram{{Name: "p", Path: "bin/p", Exe: ran, Hash: cluster.HashOf(prog)}}
	placed := func() string {
		t.Helper()
		dir := t.TempDir()
		if _, err := WriteCheckpointFiles(&store, man, programs, homeCfg, dir); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "bin", "p"))
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	if got := placed(); got != string(prog) {
		t.Errorf("where it ran: the copy holds %q", got)
	}
	os.Remove(ran)
	if got := placed(); got != string(prog) {
		t.Errorf("from the run's folder: the copy holds %q", got)
	}
	write(at, []byte("#!/bin/sh\necho plugin v2\n"))
	_, err := WriteCheckpointFiles(&store, man, programs, homeCfg, t.TempDir())
	if !errors.Is(err, errProgramGone) || !strings.Contains(err.Error(), "plugin p") {
		t.Errorf("another program: %v", err)
	}
}

// TestDecodePrograms_refusesWhatEncodeDoesNotWrite: the programs part of
// a checkpoint read back is what was written; a line that names no
// program, a path out of the game's folder or a relative program is
// refused with its line.
func TestDecodePrograms_refusesWhatEncodeDoesNotWrite(t *testing.T) {
	want := []PluginProgram{{Name: "nav", Path: "plugins/nav", Exe: "/cache/k/nav", Hash: strings.Repeat("a", 64)}}
	data, err := EncodePrograms(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodePrograms(data)
	if err != nil || len(got) != 1 || got[0] != want[0] {
		t.Fatalf("read back %v, %v", got, err)
	}
	h := strings.Repeat("a", 64)
	for _, bad := range []string{"program\t" + h + "\tnav\tplugins/nav\n", "program\t" + h + "\tnav\t../nav\t/x\n",
		"program\t" + h + "\tnav\tplugins/nav\tx/nav\n", "file\t" + h + "\tnav\tplugins/nav\t/x\n", "program\tab\tnav\tp\t/x\n"} {
		if _, err := DecodePrograms([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := EncodePrograms([]PluginProgram{{Name: "a\tb", Path: "p", Exe: "/x", Hash: h}}); err == nil {
		t.Error("a name with a tab was written")
	}
}

// FuzzDecodePrograms: a checkpoint's programs part read back never
// panics, and what it reads is written back as it was read.
func FuzzDecodePrograms(f *testing.F) {
	f.Add([]byte("program\t" + strings.Repeat("a", 64) + "\tnav\tplugins/nav\t/cache/k/nav\n"))
	f.Add([]byte("program\t\t\t\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		progs, err := DecodePrograms(data)
		if err != nil {
			return
		}
		again, err := EncodePrograms(progs)
		if err != nil {
			t.Fatalf("%q read as %v, which cannot be written: %v", data, progs, err)
		}
		back, err := DecodePrograms(again)
		if err != nil || len(back) != len(progs) {
			t.Fatalf("%q written as %q reads %v, %v", data, again, back, err)
		}
		for i := range back {
			if back[i] != progs[i] {
				t.Fatalf("%q: %v read back as %v", data, progs[i], back[i])
			}
		}
	})
}
