package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/btrun/btrun/internal/readfile"
)

// runPlugin is `btrun plugin SUBCOMMAND`.
func runPlugin(args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: btrun plugin new [-module PATH] [-btrun DIR] NAME [DIR]")
		fmt.Fprintln(w, "  new   write a new Go plugin module (a main package, a test, a README) into DIR (default ./NAME)")
	}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch {
	case isHelp(args[0]):
		usage(stdout)
		return exitOK
	case args[0] == "new":
		return runPluginNew(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "btrun plugin: unknown subcommand %q\n", args[0])
	usage(stderr)
	return exitUsage
}

// pluginName is what NAME may be: it prefixes the plugin's action names
// (NAME.hello) and names its folder and module.
var pluginName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// runPluginNew is `btrun plugin new NAME [DIR]`: a plugin module of its own,
// outside btrun's, that builds against this btrun's SDK. btrun's module
// (github.com/btrun/btrun) is not published, so go.mod points at the btrun
// source folder with a replace directive.
func runPluginNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plugin new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	module := fs.String("module", "", "the new module's path (default example.com/NAME)")
	btrunDir := fs.String("btrun", "", "the btrun source folder the module builds against (default: found from the current folder or this program)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun plugin new [-module PATH] [-btrun DIR] NAME [DIR]")
		fmt.Fprintln(fs.Output(), "Writes a new Go plugin module into DIR (default ./NAME): go.mod (with a replace to the btrun source),")
		fmt.Fprintln(fs.Output(), "main.go, plugin.go (an action NAME.hello and a condition NAME.ready), plugin_test.go and README.md.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		if fs.NArg() > 2 {
			fmt.Fprintf(stderr, "btrun plugin new: unexpected argument %q\n", fs.Arg(2))
		} else {
			fmt.Fprintln(stderr, "btrun plugin new: missing NAME")
		}
		fs.Usage()
		return exitUsage
	}
	name := fs.Arg(0)
	if !pluginName.MatchString(name) {
		fmt.Fprintf(stderr, "btrun plugin new: %q is not a plugin name: lower-case letters, digits and _, starting with a letter (it prefixes the action names: %s.hello)\n", name, "NAME")
		return exitUsage
	}
	dir := name
	if fs.NArg() == 2 {
		dir = fs.Arg(1)
	}
	if *module == "" {
		*module = "example.com/" + name
	}
	if err := checkModulePath(*module); err != nil {
		fmt.Fprintf(stderr, "btrun plugin new: -module %q is not a Go module path: %v\n", *module, err)
		return exitUsage
	}
	src := *btrunDir
	if src == "" {
		src = findBtrunSource()
	}
	if src == "" {
		fmt.Fprintln(stderr, "btrun plugin new: cannot find the btrun source folder (its go.mod says module github.com/btrun/btrun); run this from inside it, or give it with -btrun DIR")
		return exitUsage
	}
	src, _ = filepath.Abs(src)
	if !isBtrunSource(src) {
		fmt.Fprintf(stderr, "btrun plugin new: %s is not the btrun source folder (no go.mod of module github.com/btrun/btrun)\n", src)
		return exitUsage
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		fmt.Fprintf(stderr, "btrun plugin new: %s exists and is not empty; name a new folder\n", dir)
		return exitUsage
	}
	if err := writePlugin(dir, name, *module, src); err != nil {
		fmt.Fprintln(stderr, "btrun plugin new:", err)
		return exitRuntime
	}
	// go mod tidy completes go.mod and go.sum from the module cache (btrun's
	// own dependencies are there once btrun was built).
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	if out, err := tidy.CombinedOutput(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			fmt.Fprintf(stderr, "btrun plugin new: wrote %s, but there is no go command to complete its go.mod (%v): install Go (a plugin is a Go program), then run go mod tidy in %s\n", dir, err, dir)
		} else {
			fmt.Fprintf(stderr, "btrun plugin new: wrote %s, but go mod tidy failed there (%v):\n%s\n"+
				"go mod tidy takes btrun's dependencies from the module cache (building btrun puts them there) or the module proxy; "+
				"once the problem above is mended, run go mod tidy in %s\n", dir, err, indent(string(out)), dir)
		}
		return exitRuntime
	}
	abs, _ := filepath.Abs(dir)
	fmt.Fprintf(stdout, "wrote the plugin %s in %s (module %s, built against %s)\n", name, abs, *module, src)
	fmt.Fprintf(stdout, "next: go test in %s; then in a game's config.toml:\n\n[[plugins]]\nname = %q\npath = %q\n\n", abs, name, abs)
	fmt.Fprintf(stdout, "and in a tree: <action id=\"greet\" name=\"%s.hello\"><parameter name=\"%s.times\">3</parameter></action>\n", name, name)
	return exitOK
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// findBtrunSource looks for btrun's source folder above the current folder,
// then above this program's (a binary built inside the checkout).
func findBtrunSource() string {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, d := range starts {
		for {
			if isBtrunSource(d) {
				return d
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return ""
}

func isBtrunSource(dir string) bool {
	data, err := readfile.Read(filepath.Join(dir, "go.mod"), readfile.SourceLimit, "go.mod")
	return err == nil && regexp.MustCompile(`(?m)^module\s+github\.com/btrun/btrun\s*$`).Match(data)
}

// checkModulePath checks a module path the way the go command does for an
// import path: elements separated by single slashes, each of ASCII letters,
// digits and - . _ ~, none empty, none starting or ending with a dot. It
// keeps go.mod one module line, whatever -module holds.
func checkModulePath(p string) error {
	if p == "" {
		return errors.New("it is empty")
	}
	for _, elem := range strings.Split(p, "/") {
		switch {
		case elem == "":
			return errors.New("it has an empty element (a slash at an end, or two slashes in a row)")
		case elem[0] == '.' || elem[len(elem)-1] == '.':
			return fmt.Errorf("its element %q starts or ends with a dot", elem)
		}
		for _, r := range elem {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
				return fmt.Errorf("it holds %q; a module path holds ASCII letters, digits and - . _ ~ in elements separated by /", r)
			}
		}
	}
	return nil
}

// goModQuote writes a path as a go.mod token: as it is when it can be,
// else quoted as a Go string (a space, a quote, a bracket, a comment's
// start or a character that does not print would end or break the token).
func goModQuote(s string) string {
	need := s == "" || strings.Contains(s, "//") || strings.Contains(s, "/*")
	for _, r := range s {
		switch {
		case strings.ContainsRune(" \"'`", r):
			need = true
		case strings.ContainsRune("()[]{},", r) && len(s) > 1:
			need = true
		case !unicode.IsPrint(r):
			need = true
		}
	}
	if need {
		return strconv.Quote(s)
	}
	return s
}

// writePlugin writes the module's files from the templates below.
func writePlugin(dir, name, module, src string) error {
	goVersion := "1.22"
	if data, err := readfile.Read(filepath.Join(src, "go.mod"), readfile.SourceLimit, "go.mod"); err == nil {
		if m := regexp.MustCompile(`(?m)^go\s+(\S+)`).FindSubmatch(data); m != nil {
			goVersion = string(m[1])
		}
	}
	v := map[string]string{"Name": name, "Module": module, "Src": filepath.ToSlash(src), "ModSrc": goModQuote(filepath.ToSlash(src)), "Go": goVersion,
		"Title": strings.ToUpper(name[:1]) + name[1:]}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range pluginFiles {
		var b bytes.Buffer
		if err := template.Must(template.New(f.name).Delims("[[", "]]").Parse(f.text)).Execute(&b, v); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	// go.sum: btrun's, so that its dependencies are checked as btrun checks them.
	if sum, err := readfile.Read(filepath.Join(src, "go.sum"), readfile.SourceLimit, "go.sum"); err == nil {
		return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
	}
	return nil
}

var pluginFiles = []struct{ name, text string }{
	{"go.mod", `module [[.Module]]

go [[.Go]]

require github.com/btrun/btrun v0.0.0-00010101000000-000000000000

// btrun's module is not published: build against its source folder. Point
// this at your btrun checkout if it moves.
replace github.com/btrun/btrun => [[.ModSrc]]
`},
	{"main.go", `// Command [[.Name]] is a btrun plugin: btrun starts it and calls its
// actions and conditions over gRPC. See README.md.
package main

import "github.com/btrun/btrun/plugins/sdk"

func main() { sdk.Serve(Plugin()) }
`},
	{"plugin.go", `package main

import (
	"fmt"

	"github.com/btrun/btrun/plugins/sdk"
)

// Plugin declares what the plugin provides. Names start with "[[.Name]]."
// so that they stay apart from other plugins' and scripts'.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Name: "[[.Name]]",
		Actions: []sdk.Action{{
			Name: "[[.Name]].hello",
			Doc:  "logs a greeting [[.Name]].times times, one a step, then succeeds",
			// The rule parameters it reads: btrun validate warns about a
			// parameter of its rules that is not one of them.
			Params: []sdk.ParamInfo{{Name: "[[.Name]].times", Type: "integer", Default: "1", Doc: "how many greetings"}},
			Reads:  []string{"x"}, // agent fields sent with each call
			Run:    hello,
		}},
		Conditions: []sdk.Condition{{
			Name:   "[[.Name]].ready",
			Doc:    "true once the agent's field x is at least [[.Name]].minX",
			Params: []sdk.ParamInfo{{Name: "[[.Name]].minX", Type: "number", Default: "0", Doc: "the least x"}},
			Reads:  []string{"x"},
			Test:   ready,
		}},
	}
}

// greeted is what hello keeps between calls, in the rule's state bytes
// (plugins keep nothing per agent themselves: the runtime saves this).
type greeted struct{ N int }

func hello(c *sdk.Call) (sdk.Status, error) {
	times, err := c.Params.Int("[[.Name]].times", 1)
	if err != nil {
		return 0, err
	}
	var st greeted
	if err := c.LoadState(&st); err != nil {
		return 0, err
	}
	st.N++
	c.Log("hello", st.N, "of", times)
	if st.N >= times {
		return sdk.Success, nil
	}
	return sdk.Running, c.SaveState(st)
}

func ready(c *sdk.Call) (bool, error) {
	minX, err := c.Params.Float("[[.Name]].minX", 0)
	if err != nil {
		return false, err
	}
	x, ok := c.FieldFloat("x")
	if !ok {
		return false, fmt.Errorf("the agent has no number in its field x")
	}
	return x >= minX, nil
}
`},
	{"plugin_test.go", `package main

import (
	"testing"

	"github.com/btrun/btrun/plugins/sdk"
)

func TestHello_greetsTimesThenSucceeds(t *testing.T) {
	tt, err := sdk.NewTester(Plugin())
	if err != nil {
		t.Fatal(err)
	}
	ag := sdk.NewTestAgent("a-1", map[string]any{"x": 1.0})
	params := map[string]string{"[[.Name]].times": "2"}
	for i, want := range []sdk.Status{sdk.Running, sdk.Success} {
		st, err := tt.Run(ag, "[[.Name]].hello", params, 0.1)
		if err != nil || st != want {
			t.Fatalf("call %d: %v %v, want %v", i+1, st, err, want)
		}
	}
	ok, err := tt.Test(ag, "[[.Name]].ready", map[string]string{"[[.Name]].minX": "0.5"})
	if err != nil || !ok {
		t.Errorf("ready: %v %v", ok, err)
	}
}
`},
	{"README.md", `# [[.Name]]: a btrun plugin

A Go plugin for btrun, written by ` + "`btrun plugin new [[.Name]]`" + `. btrun builds it the first time a game
needs it (and again whenever its sources change) and calls it over gRPC.

` + "```toml" + `
[["[["]]plugins]]
name = "[[.Name]]"
path = "PATH/TO/THIS/FOLDER"   # relative to the game's config.toml, or absolute
` + "```" + `

` + "```xml" + `
<action id="greet" name="[[.Name]].hello"><parameter name="[[.Name]].times">3</parameter></action>
` + "```" + `

- ` + "`go test`" + ` tests it in-process (sdk.Tester); ` + "`btrun validate -v`" + ` lists its actions with their parameters.
- go.mod builds it against the btrun source at [[.Src]] (btrun's module is not published): if the
  checkout moves, change the replace line.
- Write nothing to standard output before sdk.Serve: it is the handshake channel. Log with c.Log or sdk.Logf.
`},
}
