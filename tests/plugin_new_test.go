package tests

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginNew_buildsAndRunsOutsideTheRepo: `btrun plugin new` writes a
// plugin module into a folder outside btrun's repository; its own tests
// pass; a game there uses it (btrun builds it through the replace to the
// btrun source); its compiler errors name its package and count as one
// problem.
func TestPluginNew_buildsAndRunsOutsideTheRepo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	plugin := filepath.Join(outside, "sight")
	r := run(t, outside, "plugin", "new", "-btrun", repo, "sight")
	if r.code != 0 {
		t.Fatalf("plugin new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"wrote the plugin sight in " + plugin, "[[plugins]]\nname = \"sight\"\npath = "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	gomod, _ := os.ReadFile(filepath.Join(plugin, "go.mod"))
	if !strings.Contains(string(gomod), "replace github.com/btrun/btrun => "+filepath.ToSlash(repo)) {
		t.Errorf("go.mod:\n%s", gomod)
	}
	test := exec.Command("go", "test", "./...")
	test.Dir = plugin
	if out, err := test.CombinedOutput(); err != nil {
		t.Fatalf("go test in the new plugin: %v\n%s", err, out)
	}

	game := filepath.Join(outside, "game")
	writeFiles(t, game, map[string]string{
		"config.toml": "[run]\nsteps = 3\n[scripts]\npaths = [\"ai\"]\nworld = \"ai/world.lua\"\n" +
			"[[trees]]\nname = \"t\"\nfile = \"ai/t.xml\"\n[[plugins]]\nname = \"sight\"\npath = \"../sight\"\n[[agents]]\ntree = \"t\"\n",
		"ai/world.lua": "local world = {}\nfunction world.spawn(ctx) ctx.agent.x = 1 end\nreturn world\n",
		"ai/t.xml": `<behaviorTree><sequence id="root">
  <action id=".greet" name="sight.hello"><parameter name="sight.times">2</parameter><condition>sight.ready</condition></action>
  <running id=".rest"/>
</sequence></behaviorTree>`,
	})
	r = run(t, game, "run", "-trace", "-")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	want := `{"step":1,"time":0.1,"agent":"t-1","runs":[["root.greet","running"]],"result":"running","cursor":"root.greet"}
{"step":2,"time":0.2,"agent":"t-1","runs":[["root.greet","success"],["root.rest","running"]],"result":"running","cursor":"root.rest"}
`
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("trace:\n%s\nwant it to start with\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "t=0.10 t-1 log root.greet: hello 1 of 2") {
		t.Errorf("output:\n%s", r.stderr)
	}

	// A compiler error: one problem, naming the module's package.
	os.WriteFile(filepath.Join(plugin, "broken.go"), []byte("package main\n\nfunc broken() { undefinedThing() }\n"), 0o644)
	r = run(t, game, "validate")
	if r.code != 1 {
		t.Errorf("validate with a plugin that does not build: exit %d, want 1", r.code)
	}
	for _, want := range []string{
		"go build example.com/sight (in " + plugin + ") failed (1 compiler error):\n",
		"\n    ./broken.go:3:17: undefined: undefinedThing",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "problems") || strings.Contains(r.stderr, "./.") {
		t.Errorf("one problem, named by its package:\n%s", r.stderr)
	}
}

// TestPluginNew_refusesBadNamesAndFolders: a name that cannot prefix action
// names, and a folder that holds files, are refused; without -btrun the
// source is found from the current folder.
func TestPluginNew_refusesBadNamesAndFolders(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "plugin", "new", "-btrun", "..", "Bad-Name"); r.code != 2 || !strings.Contains(r.stderr, `"Bad-Name" is not a plugin name`) {
		t.Errorf("bad name: exit %d %s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644)
	abs, _ := filepath.Abs("..")
	if r := run(t, "", "plugin", "new", "-btrun", abs, "ok", dir); r.code != 2 || !strings.Contains(r.stderr, "exists and is not empty") {
		t.Errorf("non-empty folder: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, dir, "plugin", "new", "ok"); r.code != 2 || !strings.Contains(r.stderr, "cannot find the btrun source folder") {
		t.Errorf("outside the source without -btrun: exit %d %s", r.code, r.stderr)
	}
}

// TestPluginNew_quotesAFolderWithASpace: a btrun source folder whose path
// has a space is written to go.mod as a quoted path, and the plugin's
// tests pass against it.
func TestPluginNew_quotesAFolderWithASpace(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(t.TempDir(), "my games", "btrun")
	if err := os.MkdirAll(filepath.Dir(spaced), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(repo, spaced); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	outside := t.TempDir()
	r := run(t, outside, "plugin", "new", "-btrun", spaced, "sight")
	if r.code != 0 {
		t.Fatalf("plugin new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	gomod, _ := os.ReadFile(filepath.Join(outside, "sight", "go.mod"))
	if want := "replace github.com/btrun/btrun => \"" + filepath.ToSlash(spaced) + "\"\n"; !strings.Contains(string(gomod), want) {
		t.Errorf("go.mod lacks %q:\n%s", want, gomod)
	}
	test := exec.Command("go", "test", "./...")
	test.Dir = filepath.Join(outside, "sight")
	if out, err := test.CombinedOutput(); err != nil {
		t.Fatalf("go test in the new plugin: %v\n%s", err, out)
	}
}

// TestPluginNew_refusesAModulePathThatIsNotOne: -module must be a module
// path; a newline cannot add lines to go.mod. Nothing is written.
func TestPluginNew_refusesAModulePathThatIsNotOne(t *testing.T) {
	repo, _ := filepath.Abs("..")
	for _, c := range []struct{ module, why string }{
		{"example.com/x\nreplace github.com/evil/x => ../evil", `it holds '\n'`},
		{"example.com/my plugin", `it holds ' '`},
		{"example.com//x", "it has an empty element"},
		{"/x", "it has an empty element"},
		{"example.com/.x", `its element ".x" starts or ends with a dot`},
		{`example.com/"x"`, `it holds '"'`},
	} {
		dir := t.TempDir()
		r := run(t, dir, "plugin", "new", "-btrun", repo, "-module", c.module, "sight")
		want := fmt.Sprintf("btrun plugin new: -module %q is not a Go module path: %s", c.module, c.why)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("-module %q: exit %d\n%s\nwant exit 2 and %q", c.module, r.code, r.stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "sight")); err == nil {
			t.Errorf("-module %q: the plugin's folder was written", c.module)
		}
	}
}

// TestPluginNew_withoutGoSaysToInstallIt: with no go command on the PATH,
// the advice is to install Go, not to wait for the network.
func TestPluginNew_withoutGoSaysToInstallIt(t *testing.T) {
	repo, _ := filepath.Abs("..")
	dir := t.TempDir()
	cmd := command("plugin", "new", "-btrun", repo, "sight")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v\n%s", err, out)
	}
	if want := "but there is no go command to complete its go.mod"; !strings.Contains(string(out), want) || strings.Contains(string(out), "proxy is reachable") {
		t.Errorf("output:\n%s\nwant it to contain %q", out, want)
	}
}
