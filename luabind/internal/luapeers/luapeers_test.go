package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReplay_enginesAgreeOnTheExampleGamesCalls records a few steps of the
// example game and replays them on bare gopher-lua, and on C Lua 5.1 and
// LuaJIT where they are installed (skipped otherwise: CI need not have
// them): every engine replays every call, with the same results.
func TestReplay_enginesAgreeOnTheExampleGamesCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example game")
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "calls.log")
	calls, err := record(filepath.Join("..", "..", "..", "config.toml"), "", logPath, 40, 8)
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("no calls recorded")
	}
	script := filepath.Join(dir, "replay.lua")
	if err := writeScript(script); err != nil {
		t.Fatal(err)
	}
	here, err := replayHere(script, logPath, 1)
	if err != nil {
		t.Fatal(err)
	}
	if here.calls != calls || here.errors*20 > calls {
		t.Fatalf("gopher-lua replayed %d of %d calls, %d of them raising errors", here.calls, calls, here.errors)
	}
	// The patched glua reads its CPU time from /proc (its os.clock is wall
	// time) and reports the figure of its replay loop as every engine does:
	// the log's calls, once each.
	glua := buildGlua(filepath.Join("..", "..", "..", "third_party", "gopher-lua"), filepath.Join(dir, "glua"))
	if glua == "" {
		t.Fatal("the patched glua did not build")
	}
	g, err := replayExec("glua", glua, script, logPath, 1, runtime.GOOS == "linux")
	if err != nil {
		t.Fatal(err)
	}
	if g.calls != calls || g.errors != here.errors || g.checksum != here.checksum {
		t.Errorf("glua: %d calls, %d errors, checksum %s; the log %d calls, in process %d errors, %s", g.calls, g.errors, g.checksum, calls, here.errors, here.checksum)
	}
	for _, bin := range []string{"lua5.1", "luajit"} {
		path, err := exec.LookPath(bin)
		if err != nil {
			t.Logf("%s is not installed: not compared", bin)
			continue
		}
		r, err := replayExec(bin, path, script, logPath, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.calls != here.calls || r.errors != here.errors || r.checksum != here.checksum {
			t.Errorf("%s: %d calls, %d errors, checksum %s; gopher-lua: %d, %d, %s", bin, r.calls, r.errors, r.checksum, here.calls, here.errors, here.checksum)
		}
	}
}
