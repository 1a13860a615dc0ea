package runtime

import (
	"io/fs"
	"strings"
	"testing"
)

// loadFiles loads main.xml from files held in memory.
func loadFiles(files map[string]string) (*Tree, error) {
	return LoadBytes("main.xml", []byte(files["main.xml"]), LoadOptions{ReadFile: func(p string) ([]byte, error) {
		s, ok := files[p]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		return []byte(s), nil
	}})
}

// TestLoad_includeSharesDeclarations: an included file's declarations join
// the tree (nested includes too, a file included twice once), and the tree
// may use them; its files count in the fingerprint.
func TestLoad_includeSharesDeclarations(t *testing.T) {
	files := map[string]string{
		"main.xml": bt(`<include file="shared/decls.xml"/><include file="shared/decls.xml"/>
<sequence id="root"><condition>Aware</condition><action id="a" name="x" gate="g"/></sequence>`),
		"shared/decls.xml": bt(`<variables><variable name="Aware"/></variables><include file="more.xml"/>
<signals><signal name="Seen" variable="Aware" value="true"/></signals>`),
		"shared/more.xml": bt(`<gates><gate name="g" users="2"/></gates><timestamps><timestamp name="T" setOnSignal="Seen"/></timestamps>`),
	}
	tree, err := loadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Vars) != 1 || len(tree.Signals) != 1 || len(tree.Gates) != 1 || len(tree.Stamps) != 1 || tree.Signals[0].Sets[0].Var != 0 {
		t.Errorf("declarations: %+v %+v %+v %+v", tree.Vars, tree.Signals, tree.Gates, tree.Stamps)
	}
	if got := strings.Join(tree.Files, " "); got != "main.xml shared/decls.xml shared/more.xml" {
		t.Errorf("files %s", got)
	}
}

// TestLoad_includeErrors: what an include refuses, at the include's (or
// the offending rule's) position.
func TestLoad_includeErrors(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"main.xml": bt(`<include file="nope.xml"/><success/>`)}, "main.xml:1:15: included file nope.xml does not exist"},
		{map[string]string{"main.xml": bt(`<include/><success/>`)}, `main.xml:1:15: <include> needs a file attribute`},
		{map[string]string{"main.xml": bt(`<include file="d.xml"/><success/>`), "d.xml": bt(`<success/>`)}, "d.xml:1:15: <success> in d.xml, which main.xml includes at main.xml:1:15: an included file holds only declarations"},
		{map[string]string{"main.xml": bt(`<include file="d.xml"/><success/>`), "d.xml": bt(`<include file="e.xml"/>`), "e.xml": bt(`<include file="d.xml"/>`)}, "e.xml:1:15: include cycle: d.xml -> e.xml -> d.xml"},
		{map[string]string{"main.xml": bt(`<include file="d.xml"/><variables><variable name="A" default="true"/></variables><success/>`), "d.xml": bt(`<variables><variable name="A"/></variables>`)}, `variable "A" declared again`},
		{map[string]string{"main.xml": bt(`<sequence><include file="d.xml"/></sequence>`)}, "<include> is not allowed in <sequence>"},
	} {
		_, err := loadFiles(c.files)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %s", c.files["main.xml"], err, c.want)
		}
	}
}
