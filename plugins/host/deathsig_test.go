//go:build linux

package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWatchdog_pluginHangingBeforeServeDiesWithItsHost: a plugin that never
// reaches sdk.Serve (so never watches its lifeline) still dies when its
// host is killed with SIGKILL: the parent-death signal is set at exec.
func TestWatchdog_pluginHangingBeforeServeDiesWithItsHost(t *testing.T) {
	killHostAndWatchPlugin(t, "host-hanging-plugin", pidFileEnv+"="+filepath.Join(t.TempDir(), "pid"))
}

// TestWatchdog_pluginBuildDiesWithItsHost: the go command building a plugin
// dies when its host is killed with SIGKILL, instead of building on for
// half a minute. The go command here is a fake that hangs in "build".
func TestWatchdog_pluginBuildDiesWithItsHost(t *testing.T) {
	dir := fakeGo(t, "exec sleep 60")
	killHostAndWatchPlugin(t, "host-build", fakeGoEnv+"="+dir, pidFileEnv+"="+filepath.Join(t.TempDir(), "pid"))
}

// fakeGo makes a folder with a go command answering env and list at once
// and running build as given (after writing its pid to $BTRUN_HOST_TEST_PIDFILE),
// and a main package in pkg/ to build.
func fakeGo(t *testing.T, build string) string {
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\n  env) echo go-fake; echo linux; echo amd64; echo 0; echo; echo ;;\n  list) ;;\n" +
		"  build) echo $$ > \"$" + pidFileEnv + "\"; " + build + " ;;\nesac\n"
	write := func(name, text string, mode os.FileMode) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("go", script, 0o755)
	write("pkg/go.mod", "module example.com/fake\n\ngo 1.22\n", 0o644)
	write("pkg/main.go", "package main\n\nfunc main() {}\n", 0o644)
	return dir
}

// TestBuild_staleTemporaryFilesAreRemoved: a build killed between writing
// its binary and renaming it leaves NAME.tmp-PID-...; the next build of
// that plugin removes it (and leaves the files of live builds alone).
func TestBuild_staleTemporaryFilesAreRemoved(t *testing.T) {
	dir := fakeGo(t, "shift 2; printf 'x' > \"$1\"")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(pidFileEnv, filepath.Join(t.TempDir(), "pid"))
	goBin, err := exec.LookPath("go")
	if err != nil || goBin != filepath.Join(dir, "go") {
		t.Fatalf("fake go not first on PATH: %s %v", goBin, err)
	}
	key, err := sourceKey(context.Background(), goBin, filepath.Join(dir, "pkg"), ".")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	keyDir := filepath.Join(cache, key)
	os.MkdirAll(keyDir, 0o755)
	dead := exec.Command("true")
	dead.Run()
	stale := filepath.Join(keyDir, "built.tmp-"+strconv.Itoa(dead.Process.Pid)+"-0a1b2c")
	live := filepath.Join(keyDir, "built.tmp-"+strconv.Itoa(os.Getppid())+"-0a1b2c")
	for _, p := range []string{stale, live} {
		os.WriteFile(p, []byte("half a binary"), 0o755)
	}
	exe, err := resolve(context.Background(), &Spec{Name: "built", Path: filepath.Join(dir, "pkg")}, cache, func(string, string) {}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if exe != filepath.Join(keyDir, "built") {
		t.Errorf("built %s", exe)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the temporary file of a live process was removed")
	}
}
