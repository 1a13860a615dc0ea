package liveview

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/formatspec"
)

// TestEditRoundTrip_everyTreeFile: every tree file of the repository (the
// example game, the test games and fixtures, the loader's valid and
// invalid files, the reference example from Drag[en]gine, which declares
// ISO-8859-1) goes through the editor: decoded to text, given operations
// that set every attribute, parameter, condition, condition mode and text
// to what it is, move every rule to where it is, retag it with its own tag
// and declare every declaration again, and encoded: the bytes that come
// back are the file's, byte for byte. A file the editor cannot read must
// be one the loader refuses too.
func TestEditRoundTrip_everyTreeFile(t *testing.T) {
	var files []string
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".xml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 90 {
		t.Fatalf("found %d tree files; the repository has more than 90", len(files))
	}
	var edited, textOnly, undecodable, ops int
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.ToSlash(path)
		loadErr := func() error {
			_, err := runtime.LoadBytes(path, raw, runtime.LoadOptions{Subtree: true, ReadFile: func(string) ([]byte, error) { return []byte("<behaviorTree/>"), nil }})
			return err
		}
		text, err := runtime.DecodeSource(file, raw)
		if err != nil {
			if loadErr() == nil {
				t.Errorf("%s: the editor cannot decode it (%v) but the loader reads it", path, err)
			}
			undecodable++
			continue
		}
		back, err := runtime.EncodeSource(file, text)
		if err != nil || !bytes.Equal(back, raw) {
			t.Errorf("%s: decoded and encoded, it is not the same bytes (%v)", path, err)
			continue
		}
		o, err := readSource(file, text)
		if err != nil {
			if loadErr() == nil && !strings.Contains(err.Error(), "the editor edits as text only") {
				t.Errorf("%s: the editor cannot read it (%v) but the loader reads it", path, err)
			}
			textOnly++
			continue
		}
		same := sameValueOps(t, o)
		got := text
		for k := 0; k < len(same) && err == nil; k += maxOps {
			got, err = applyOps(file, got, same[k:min(k+maxOps, len(same))], nil)
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		out, err := runtime.EncodeSource(file, got)
		if err != nil || !bytes.Equal(out, raw) {
			t.Errorf("%s: after %d operations that change nothing, the file changed (%v):\n%s", path, len(same), err, change(text, got))
			continue
		}
		edited++
		ops += len(same)
	}
	t.Logf("%d tree files: %d edited with %d operations, byte for byte the same; %d not well formed (edited as text only), %d not decodable (the loader refuses them too)",
		len(files), edited, ops, textOnly, undecodable)
	if edited < 40 {
		t.Errorf("only %d files were edited", edited)
	}
}

// sameValueOps are operations that set everything of a file to what it is
// (what an operation may set: an invalid file's empty condition, bad
// condition mode, nameless parameter, rule inside an action, or
// declaration in another's block are left out).
func sameValueOps(t *testing.T, o *outline) []json.RawMessage {
	var out []json.RawMessage
	add := func(v map[string]any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	f := tagFormat()
	for i, r := range o.Rules {
		label := positionLabel(r.Tag, o.File, r.Line, r.Col)
		if f.rule[r.Tag] {
			add(map[string]any{"op": "tag", "rule": label, "tag": r.Tag})
		}
		for _, a := range r.Attrs {
			if f.takes(r.Tag, a[0]) {
				add(map[string]any{"op": "attr", "rule": label, "name": a[0], "value": a[1]})
			}
		}
		for _, p := range r.Params {
			if p[0] != "" {
				add(map[string]any{"op": "param", "rule": label, "name": p[0], "value": p[1]})
			}
		}
		mode := any(nil)
		if r.Mode != "" {
			mode = r.Mode
		}
		if !slices.Contains(r.Conditions, "") && !slices.Contains(r.Conditions, "!") && (r.Mode == "" || slices.Contains(formatspec.CondModes(), r.Mode)) {
			add(map[string]any{"op": "conditions", "rule": label, "conditions": r.Conditions, "mode": mode})
		}
		if spec := f.tag[r.Tag]; spec != nil && spec.Text != "" {
			add(map[string]any{"op": "text", "rule": label, "value": r.Text})
		}
		parent, index := "", indexOf(o.Top, i)
		if r.Parent >= 0 {
			p := o.Rules[r.Parent]
			parent, index = positionLabel(p.Tag, o.File, p.Line, p.Col), indexOf(p.Children, i)
		}
		if r.Parent < 0 || f.list[o.Rules[r.Parent].Tag] {
			add(map[string]any{"op": "move", "rule": label, "parent": parent, "index": index})
		}
	}
	for _, d := range o.Decls {
		if f.blockOf[d.Tag] != d.Block {
			continue
		}
		var b strings.Builder
		b.WriteString("<" + d.Tag)
		for _, a := range d.Attrs {
			v, _ := escaper{}.attr(a[1], '"')
			b.WriteString(" " + a[0] + `="` + v + `"`)
		}
		b.WriteString("/>")
		add(map[string]any{"op": "declare", "xml": b.String()})
	}
	return out
}

func indexOf(list []int, x int) int {
	for i, v := range list {
		if v == x {
			return i
		}
	}
	return -1
}
