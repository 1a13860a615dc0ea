package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// TestBuild_navPackageBuiltOnceAndRun starts the nav example from its Go
// package: the first Start builds it into the cache, the second reuses the
// binary; then nav.moveTo walks an agent across the arena in a real tree.
func TestBuild_navPackageBuiltOnceAndRun(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cache := t.TempDir()
	spec := Spec{Name: "nav", Path: "plugins/nav", Dir: "../.."}
	var logs logCapture
	start := time.Now()
	set, err := Start(context.Background(), []Spec{spec}, Options{CacheDir: cache, Logger: logs.log})
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(start)
	exe := set.Plugins()[0].Executable
	set.Close()
	if !strings.HasPrefix(exe, cache) || !strings.Contains(logs.text(), "plugin nav: building github.com/btrun/btrun/plugins/nav (in ") {
		t.Fatalf("not built into the cache: %s\n%s", exe, logs.text())
	}
	entries, _ := filepath.Glob(filepath.Join(filepath.Dir(exe), "*"))
	if len(entries) != 1 {
		t.Errorf("cache folder holds %v; temporary files left behind?", entries)
	}

	logs = logCapture{}
	start = time.Now()
	w := newWorld(t, `<behaviorTree><sequence id="root">
  <action id=".go" name="nav.moveTo"><parameter name="nav.target">player</parameter><parameter name="nav.speed">8</parameter>
    <condition>nav.reachable</condition></action>
</sequence></behaviorTree>`, []Spec{spec}, Options{CacheDir: cache, Logger: logs.log}, 1,
		func(int) fields { return fields{"x": 2.5, "y": 2.5, "playerX": 37.5, "playerY": 27.5} })
	second := time.Since(start)
	if got := w.set.Plugins()[0].Executable; got != exe || strings.Contains(logs.text(), "building") {
		t.Errorf("second start rebuilt (%s):\n%s", got, logs.text())
	}
	t.Logf("first start (build) %v, second start (cached) %v", first.Round(time.Millisecond), second.Round(time.Millisecond))
	data := w.agents[0].UserData().(fields)
	for i := range 200 {
		out := w.step()
		if out[0].Err != nil {
			t.Fatal(out[0].Err)
		}
		if out[0].Status == runtime.Success {
			t.Logf("arrived after %d steps at (%.2f, %.2f)", i+1, data["x"], data["y"])
			return
		}
	}
	t.Fatalf("not arrived: %v", data)
}

// TestBuild_keyFollowsSources: the cache key changes with a source file,
// go.mod, or a file of a package the plugin imports from its module.
func TestBuild_keyFollowsSources(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/p\n\ngo 1.22\n")
	write("lib/lib.go", "package lib\n\nconst N = 1\n")
	write("cmd/p/main.go", "package main\n\nimport _ \"example.com/p/lib\"\n\nfunc main() {}\n")
	write("other/other.go", "package other\n")
	key := func() string {
		k, err := sourceKey(context.Background(), goBin, dir, "./cmd/p")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	write("other/other.go", "package other\n\nconst M = 2\n")
	if key() != k0 {
		t.Error("a package the plugin does not import changed the key")
	}
	write("lib/lib.go", "package lib\n\nconst N = 2\n")
	k1 := key()
	if k1 == k0 {
		t.Error("an imported package changed, the key did not")
	}
	write("cmd/p/main.go", "package main\n\nimport _ \"example.com/p/lib\"\n\nfunc main() { println() }\n")
	k2 := key()
	if k2 == k1 {
		t.Error("the main package changed, the key did not")
	}
	write("go.mod", "module example.com/p\n\ngo 1.23\n")
	if key() == k2 {
		t.Error("go.mod changed, the key did not")
	}
}

func TestResolve_folderWithoutMainPackage(t *testing.T) {
	_, err := Start(context.Background(), []Spec{{Name: "sdk", Path: "../sdk"}}, Options{Logger: func(string, string) {}})
	if err == nil || !strings.Contains(err.Error(), "plugins/sdk is a folder without a Go main package") {
		t.Errorf("got %v", err)
	}
}

// TestBuild_compilerErrorsNameThePackage: a plugin module of its own (its
// main package at the module's root, outside btrun's module) that does not
// compile is named by its import path, not "./.", and the compiler's lines
// are indented under one problem with their count.
func TestBuild_compilerErrorsNameThePackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/sight\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {\n\tundefinedThing()\n\tvar x int = \"s\"\n}\n"), 0o644)
	var logs logCapture
	_, err := Start(context.Background(), []Spec{{Name: "sight", Path: dir}}, Options{CacheDir: t.TempDir(), Logger: logs.log})
	if err == nil || !errors.Is(err, ErrBuild) {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"host: plugin sight: go build example.com/sight (in " + dir + ") failed (3 compiler errors):\n",
		"\n    ./main.go:4:2: undefined: undefinedThing",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, line := range strings.Split(msg, "\n")[1:] {
		if !strings.HasPrefix(line, "    ") {
			t.Errorf("compiler line not indented (it would count as a problem of its own): %q", line)
		}
	}
	if strings.Contains(msg, "./.") {
		t.Errorf("names ./.: %s", msg)
	}
}
