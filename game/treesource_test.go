package game

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// The tree files as an editor sees them: a tree checked with a file
// replaced (load, bind, lints, as validate), and files written in place,
// within [scripts] root.

func openTreeGame(t *testing.T, files map[string]string) (*Game, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := LoadConfig(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, dir
}

const treeGameConfig = "[scripts]\nroot = \"mod\"\n\n[[trees]]\nname = \"t\"\nfile = \"mod/t.xml\"\n\n[[agents]]\ntree = \"t\"\n"

func TestCheckTree_asValidate(t *testing.T) {
	g, _ := openTreeGame(t, map[string]string{
		"config.toml": treeGameConfig,
		"mod/t.xml":   "<behaviorTree>\n  <sequence id=\"s\">\n    <subtree>sub.xml</subtree>\n  </sequence>\n</behaviorTree>\n",
		"mod/sub.xml": "<behaviorTree>\n  <action id=\"w\" name=\"bt.wait\"><parameter name=\"wait.seconds\">1</parameter></action>\n</behaviorTree>\n",
	})
	files, err := g.host().TreeFiles("t")
	if err != nil || !reflect.DeepEqual(files, []string{"mod/t.xml", "mod/sub.xml"}) {
		t.Errorf("files %v %v", files, err)
	}
	if _, err := g.host().TreeFiles("nope"); !errors.Is(err, ErrNoTree) {
		t.Errorf("an unknown tree: %v", err)
	}
	// The subtree file replaced: an unknown action (an error at its rule)
	// and an unread parameter (a lint, a warning).
	tree, ps := g.host().CheckTree("t", map[string][]byte{"mod/sub.xml": []byte(
		"<behaviorTree>\n  <action name=\"bt.wiat\"/>\n  <action name=\"bt.wait\" id=\"w\"><parameter name=\"wait.seconds\">1</parameter><parameter name=\"wait.secs\">2</parameter></action>\n</behaviorTree>\n")})
	if tree == nil || len(ps) != 1 || ps[0].Warning || ps[0].Pos.String() != "mod/sub.xml:2:3" || ps[0].Rule != "action@mod/sub.xml:2:3" ||
		!strings.HasPrefix(ps[0].Msg, `unknown action "bt.wiat"`) {
		t.Errorf("bind: %+v", ps)
	}
	_, ps = g.host().CheckTree("t", map[string][]byte{"mod/sub.xml": []byte(
		"<behaviorTree>\n  <action name=\"bt.wait\" id=\"w\"><parameter name=\"wait.seconds\">1</parameter><parameter name=\"wait.secs\">2</parameter></action>\n</behaviorTree>\n")})
	if len(ps) != 1 || !ps[0].Warning || ps[0].Rule != "w" || !strings.Contains(ps[0].Msg, `parameter "wait.secs" is read by nothing`) || strings.HasPrefix(ps[0].Msg, "rule ") {
		t.Errorf("lint: %+v", ps)
	}
	// A load error: no tree, the problem at its position.
	tree, ps = g.host().CheckTree("t", map[string][]byte{"mod/t.xml": []byte("<behaviorTree>\n  <sequence loop=\"often\"/>\n</behaviorTree>")})
	if tree != nil || len(ps) != 1 || ps[0].Pos.String() != "mod/t.xml:2:3" {
		t.Errorf("load: %+v", ps)
	}
	// The files on disk are what the game loaded.
	if _, ps := g.host().CheckTree("t", nil); len(ps) != 0 {
		t.Errorf("as it is: %+v", ps)
	}
}

func TestWriteTreeFile_inPlaceAndConfined(t *testing.T) {
	g, dir := openTreeGame(t, map[string]string{
		"config.toml": treeGameConfig,
		"mod/t.xml":   "<behaviorTree><success id=\"s\"/></behaviorTree>",
	})
	path := filepath.Join(dir, "mod", "t.xml")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := g.host().WriteTreeFile("mod/t.xml", []byte("<behaviorTree/>"), false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "<behaviorTree/>" {
		t.Errorf("the file holds %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode became %v", fi.Mode().Perm())
	}
	if err := g.host().WriteTreeFile("mod/t.xml", nil, true); !errors.Is(err, fs.ErrExist) {
		t.Errorf("creating a file that exists: %v", err)
	}
	if err := g.host().WriteTreeFile("mod/new/n.xml", []byte("<behaviorTree/>"), true); err != nil {
		t.Errorf("a new file in a new folder: %v", err)
	}
	err := g.host().WriteTreeFile("other/x.xml", []byte("<behaviorTree/>"), true)
	if err == nil || !strings.Contains(err.Error(), "it lies outside the game's folder mod ([scripts] root)") {
		t.Errorf("outside the root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a refused file left a folder behind")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "mod", ".t.xml.tmp-*"))
	if len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// TestCheckTree_signalDataParametersAreRead: bt.signal.send reads every
// signal.data.KEY parameter; a misspelt family is still unread.
func TestCheckTree_signalDataParametersAreRead(t *testing.T) {
	g, _ := openTreeGame(t, map[string]string{
		"config.toml": treeGameConfig,
		"mod/t.xml":   "<behaviorTree>\n  <action id=\"s\" name=\"bt.signal.send\"><parameter name=\"signal.name\">Hurt</parameter></action>\n</behaviorTree>\n",
		"mod/sub.xml": "<behaviorTree/>\n",
	})
	_, ps := g.host().CheckTree("t", map[string][]byte{"mod/t.xml": []byte("<behaviorTree><signals><signal name=\"Hurt\"/></signals>\n  <action id=\"s\" name=\"bt.signal.send\"><parameter name=\"signal.name\">Hurt</parameter>" +
		"<parameter name=\"signal.data.hp\">3</parameter><parameter name=\"signal.data.at.x\">1</parameter><parameter name=\"signal.dat.who\">me</parameter></action>\n</behaviorTree>\n")})
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, `parameter "signal.dat.who" is read by nothing`) || !strings.Contains(ps[0].Msg, `did you mean "signal.data.KEY"?`) {
		t.Errorf("lints: %+v", ps)
	}
}

// TestCheckTree_behaviourLintsAsValidate: the page's check reports, at
// their rules, the variable nothing sets and the rule that can never run,
// in the candidate source (a setter added in it counts); Go code in the
// game, which may set any variable by a computed name, silences them.
func TestCheckTree_behaviourLintsAsValidate(t *testing.T) {
	files := map[string]string{
		"config.toml": treeGameConfig,
		"mod/t.xml":   "<behaviorTree/>\n",
	}
	g, dir := openTreeGame(t, files)
	src := "<behaviorTree><variables><variable name=\"Aware\"/></variables>\n" +
		"  <choice id=\"c\"><success id=\"a\"><condition>Aware</condition></success><success id=\"b\"/><success id=\"z\"/></choice>\n</behaviorTree>\n"
	_, ps := g.host().CheckTree("t", map[string][]byte{"mod/t.xml": []byte(src)})
	var got []string
	for _, p := range ps {
		got = append(got, p.Pos.String()+" "+p.Rule+": "+p.Msg)
	}
	want := []string{
		`mod/t.xml:2:34 a: can never run: its condition "Aware" is always false, since nothing in the game sets Aware (default false)`,
		`mod/t.xml:2:34 a: condition "Aware" reads variable "Aware", which nothing in the game sets (no <signal> line, no bt.variable.set, no script names it): it always reads its default, false`,
		`mod/t.xml:2:89 z: can never run: it comes after b in choice c, and b is a <success> with no conditions: it always succeeds, which ends the choice; only a jump can reach it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	set := strings.Replace(src, "<success id=\"b\"/>", "<action id=\"b\" name=\"bt.variable.set\"><parameter name=\"variable.name\">Aware</parameter><parameter name=\"variable.value\">true</parameter></action>", 1)
	if _, ps := g.host().CheckTree("t", map[string][]byte{"mod/t.xml": []byte(set)}); len(ps) != 0 {
		t.Errorf("a setter in the candidate: %+v", ps)
	}

	cfg, err := LoadConfig(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	goGame, err := Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, Register: func(reg *runtime.Registry) error {
		return reg.RegisterAction("aim", runtime.ActionFunc(func(*runtime.Agent, runtime.Params) (runtime.Status, error) { return runtime.Success, nil }))
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer goGame.Close()
	if _, ps := goGame.host().CheckTree("t", map[string][]byte{"mod/t.xml": []byte(src)}); len(ps) != 0 {
		t.Errorf("with a Go action: %+v", ps)
	}
}
