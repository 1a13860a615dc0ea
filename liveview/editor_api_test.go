package liveview

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The editor's API against a running game (a copy of testdata/editor, so
// that saves write a temporary folder): reading a file's source, edit
// operations, checks, and saves that write the file and reload the game.

// editorGame copies testdata/editor and runs it under a debugger.
func editorGame(t *testing.T, opts Options) (*harness, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/editor")); err != nil {
		t.Fatal(err)
	}
	return start(t, filepath.Join(dir, "config.toml"), 100000, opts), dir
}

// send sends a JSON body (any value) and decodes the answer.
func (h *harness) send(method, path string, body any) (int, map[string]any) {
	h.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.do(method, path, string(data))
}

// source reads a file's source from the API.
func (h *harness) source(tree, file string) (text, version string, v map[string]any) {
	h.t.Helper()
	path := "/api/trees/" + tree + "/source"
	if file != "" {
		path += "?file=" + file
	}
	v = h.ok("GET", path, "")
	return v["source"].(string), v["version"].(string), v
}

// edited applies ops to a file's source through the API.
func (h *harness) edited(tree, file, source string, ops ...string) string {
	h.t.Helper()
	var raw []json.RawMessage
	for _, o := range ops {
		raw = append(raw, json.RawMessage(o))
	}
	code, v := h.send("POST", "/api/trees/"+tree+"/edit", map[string]any{"file": file, "source": source, "ops": raw})
	if code != 200 {
		h.t.Fatalf("edit %v: %d %v", ops, code, v)
	}
	return v["source"].(string)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEditorAPI_source(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	text, version, v := h.source("guard", "")
	if v["file"] != "ai/guard.xml" || v["encoding"] != "UTF-8" || text != string(readFile(t, filepath.Join(dir, "ai/guard.xml"))) {
		t.Errorf("the main file: %v", v)
	}
	if files := v["files"].([]any); !reflect.DeepEqual(files, []any{"ai/guard.xml", "ai/rounds.xml"}) {
		t.Errorf("files %v", files)
	}
	if _, again, _ := h.source("guard", "ai/guard.xml"); again != version {
		t.Errorf("the version changed with nothing written: %s, %s", version, again)
	}
	o := v["outline"].(map[string]any)
	var labels []string
	for _, r := range o["rules"].([]any) {
		labels = append(labels, r.(map[string]any)["label"].(string))
	}
	if want := []string{"guard", "guard.alarm", "guard.alarm.shout", "guard.rounds", "guard.rounds.leg", "guard.rounds.rest"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	// A subtree file: its ids as the file writes them.
	_, _, v = h.source("guard", "ai/rounds.xml")
	if r := v["outline"].(map[string]any)["rules"].([]any)[0].(map[string]any); r["label"] != "out" || r["line"] != 4.0 || r["col"] != 3.0 {
		t.Errorf("the subtree file's first rule: %v", r)
	}
	// ISO-8859-1: decoded to text, the declaration says so.
	text, _, v = h.source("latin", "")
	if v["encoding"] != "ISO-8859-1" || !strings.Contains(text, "déjà vu") || !strings.Contains(text, "café") {
		t.Errorf("latin: %v", v)
	}
	for path, code := range map[string]int{
		"/api/trees/nobody/source":                  404,
		"/api/trees/guard/source?file=ai/guard.lua": 404,
		"/api/trees/guard/source?file=ai/latin.xml": 404, // another tree's
		"/api/trees/guard/source?file=../../x.xml":  404,
	} {
		if c, v := h.do("GET", path, ""); c != code {
			t.Errorf("GET %s: %d %v, want %d", path, c, v, code)
		}
	}
	if c, v := h.do("DELETE", "/api/trees/guard/source", ""); c != 405 || v["allow"] != "GET, PUT" {
		t.Errorf("DELETE: %d %v", c, v)
	}
}

func TestEditorAPI_edit(t *testing.T) {
	h, _ := editorGame(t, Options{Paused: true, Edit: true})
	text, _, _ := h.source("guard", "")
	code, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"source": text, "ops": []any{
		map[string]any{"op": "param", "rule": "guard.rounds.rest", "name": "wait.seconds", "value": "2"},
		map[string]any{"op": "move", "rule": "guard.rounds.rest", "parent": "guard.rounds", "index": 0},
	}})
	if code != 200 || v["changed"] != true {
		t.Fatalf("%d %v", code, v)
	}
	got := v["source"].(string)
	want := strings.Replace(strings.Replace(text, "      <subtree id=\".leg\">rounds.xml</subtree>\n", "", 1),
		"        <parameter name=\"wait.seconds\">1</parameter>\n      </action>\n",
		"        <parameter name=\"wait.seconds\">2</parameter>\n      </action>\n      <subtree id=\".leg\">rounds.xml</subtree>\n", 1)
	if got != want {
		t.Errorf("edited:\n%s", change(text, got))
	}
	if r := v["outline"].(map[string]any)["rules"].([]any)[4].(map[string]any); r["label"] != "guard.rounds.rest" {
		t.Errorf("the outline of the result: %v", r)
	}
	// No operations: the text comes back as it is, with its outline.
	code, v = h.send("POST", "/api/trees/guard/edit", map[string]any{"source": text, "ops": []any{}})
	if code != 200 || v["source"] != text || v["changed"] != false || v["outline"] == nil {
		t.Errorf("no operations: %d %v", code, v)
	}
	// Text that is not well formed: no outline, and why.
	code, v = h.send("POST", "/api/trees/guard/edit", map[string]any{"source": "<behaviorTree>", "ops": []any{}})
	if code != 200 || v["outline"] != nil || !strings.Contains(v["outlineError"].(string), "ai/guard.xml:1:1: <behaviorTree> is not closed") {
		t.Errorf("not well formed: %d %v", code, v)
	}
	// A bad operation is a 422 naming it.
	code, v = h.send("POST", "/api/trees/guard/edit", map[string]any{"source": text, "ops": []any{
		map[string]any{"op": "param", "rule": "guard.rounds.rest", "name": "wait.seconds", "value": "2"},
		map[string]any{"op": "attr", "rule": "guard.rounds", "name": "loop", "value": "often"},
	}})
	if code != 422 || v["op"] != 1.0 || !strings.HasPrefix(v["error"].(string), "op 1 (attr): the result would not load: ai/guard.xml:18:5: ") {
		t.Errorf("a bad op: %d %v", code, v)
	}
	// In a subtree file: a result that does not load with the tree is
	// refused (the tree, loaded with the subtree file's new text).
	rounds, _, _ := h.source("guard", "ai/rounds.xml")
	code, v = h.send("POST", "/api/trees/guard/edit", map[string]any{"file": "ai/rounds.xml", "source": rounds, "ops": []any{
		map[string]any{"op": "attr", "rule": "back", "name": "id", "value": "out"},
	}})
	if code != 422 || !strings.Contains(v["error"].(string), "duplicate id guard.rounds.leg.out") {
		t.Errorf("a duplicate id in the subtree file: %d %v", code, v)
	}
	if c, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"file": "ai/guard.lua", "source": "x", "ops": []any{}}); c != 403 {
		t.Errorf("a file that is not the tree's: %d %v", c, v)
	}
	if c, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"ops": []any{}}); c != 400 {
		t.Errorf("no source: %d %v", c, v)
	}
}

func TestEditorAPI_check(t *testing.T) {
	h, _ := editorGame(t, Options{Paused: true, Edit: true})
	text, _, _ := h.source("guard", "")
	bad := h.edited("guard", "", text,
		`{"op":"attr","rule":"guard.rounds.rest","name":"name","value":"bt.wiat"}`,
		`{"op":"param","rule":"guard.alarm.shout","name":"log.mesage","value":"x"}`)
	code, v := h.send("POST", "/api/check", map[string]any{"tree": "guard", "file": "ai/guard.xml", "source": bad})
	if code != 200 {
		t.Fatalf("%d %v", code, v)
	}
	want := []any{
		map[string]any{"file": "ai/guard.xml", "line": 20.0, "col": 7.0, "rule": "guard.rounds.rest", "severity": "error",
			"message": `unknown action "bt.wiat": not a built-in, nor registered by a script or plugin; did you mean "bt.wait"?`},
	}
	if !reflect.DeepEqual(v["problems"], want) {
		t.Errorf("problems %v\nwant %v", v["problems"], want)
	}
	// Fixed: the lint shows (a warning), as validate prints it.
	fixed := h.edited("guard", "", bad, `{"op":"attr","rule":"guard.rounds.rest","name":"name","value":"bt.wait"}`)
	_, v = h.send("POST", "/api/check", map[string]any{"tree": "guard", "source": fixed})
	ps := v["problems"].([]any)
	if len(ps) != 1 || ps[0].(map[string]any)["severity"] != "warning" || ps[0].(map[string]any)["rule"] != "guard.alarm.shout" ||
		!strings.Contains(ps[0].(map[string]any)["message"].(string), `parameter "log.mesage" is read by nothing`) {
		t.Errorf("the lint: %v", ps)
	}
	// A subtree file's problem names the rule by its label in the tree.
	rounds, _, _ := h.source("guard", "ai/rounds.xml")
	rounds = h.edited("guard", "ai/rounds.xml", rounds, `{"op":"attr","rule":"back","name":"name","value":"wlak"}`)
	_, v = h.send("POST", "/api/check", map[string]any{"tree": "guard", "file": "ai/rounds.xml", "source": rounds})
	ps = v["problems"].([]any)
	if len(ps) != 1 || ps[0].(map[string]any)["rule"] != "guard.rounds.leg.back" || ps[0].(map[string]any)["file"] != "ai/rounds.xml" || ps[0].(map[string]any)["line"] != 5.0 {
		t.Errorf("in the subtree file: %v", ps)
	}
	// A load error has its position, and the rule there is named.
	_, v = h.send("POST", "/api/check", map[string]any{"tree": "guard", "source": strings.Replace(text, `loop="true"`, `loop="yes"`, 1)})
	ps = v["problems"].([]any)
	if len(ps) != 1 || ps[0].(map[string]any)["line"] != 18.0 || ps[0].(map[string]any)["rule"] != "guard.rounds" {
		t.Errorf("a load error: %v", ps)
	}
	if c, v := h.send("POST", "/api/check", map[string]any{"source": text}); c != 400 {
		t.Errorf("no tree: %d %v", c, v)
	}
}

func TestEditorAPI_saveReloadsTheGame(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	h.ok("POST", "/api/step", `{"steps":7}`)
	before := h.agent("guard-1")
	text, version, _ := h.source("guard", "")
	next := h.edited("guard", "", text, `{"op":"param","rule":"guard.rounds.rest","name":"wait.seconds","value":"3"}`)
	code, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"file": "ai/guard.xml", "source": next, "version": version})
	if code != 200 {
		t.Fatalf("%d %v", code, v)
	}
	if got := string(readFile(t, filepath.Join(dir, "ai/guard.xml"))); got != next {
		t.Errorf("the file holds:\n%s", change(next, got))
	}
	rl := v["reload"].(map[string]any)
	if !reflect.DeepEqual(rl["kept"], []any{"guard-1", "guard-2", "latin-1"}) || len(rl["restarted"].([]any)) != 0 || rl["step"] != 7.0 ||
		rl["summary"] != "ai/guard.xml: 3 agents kept their place" || v["version"] == version {
		t.Errorf("the reload: %v", v)
	}
	after := h.agent("guard-1")
	if after.Rule != before.Rule || !reflect.DeepEqual(after.Ctx, before.Ctx) || after.Step != before.Step {
		t.Errorf("guard-1 did not keep its state: before %+v\nafter %+v", before, after)
	}
	tree := h.ok("GET", "/api/trees/guard", "")
	if !strings.Contains(mustJSON(t, tree), `["wait.seconds","3"]`) {
		t.Errorf("the game runs the old tree: %v", tree)
	}
	// The old version: 409, and the file stays as it is.
	code, v = h.send("PUT", "/api/trees/guard/source", map[string]any{"file": "ai/guard.xml", "source": text, "version": version})
	// Its message names the file, not the versions (opaque hashes a
	// designer cannot read; issue 40).
	if code != 409 || v["version"] == version || string(readFile(t, filepath.Join(dir, "ai/guard.xml"))) != next ||
		v["error"] != "ai/guard.xml changed on disk since it was opened: compare the two versions and merge them, or reload it" {
		t.Errorf("an old version: %d %v", code, v)
	}
	version = v["version"].(string)
	// A tree that does not bind: 422 with the problems, the file untouched.
	bad := h.edited("guard", "", next, `{"op":"attr","rule":"guard.rounds.rest","name":"name","value":"bt.wiat"}`)
	code, v = h.send("PUT", "/api/trees/guard/source", map[string]any{"source": bad, "version": version})
	if code != 422 || len(v["problems"].([]any)) != 1 || string(readFile(t, filepath.Join(dir, "ai/guard.xml"))) != next {
		t.Errorf("a tree that does not bind: %d %v", code, v)
	}
	// Removing the rule an agent sits on restarts it, and says so.
	h.ok("POST", "/api/step", `{"steps":1}`)
	sits := h.agent("guard-1").Rule
	gone := h.edited("guard", "", next, `{"op":"attr","rule":"`+sits+`","name":"id","value":".moved"}`)
	code, v = h.send("PUT", "/api/trees/guard/source", map[string]any{"source": gone, "version": version})
	if code != 200 {
		t.Fatalf("%d %v", code, v)
	}
	restarted := v["reload"].(map[string]any)["restarted"].([]any)
	if len(restarted) == 0 || restarted[0].(map[string]any)["agent"] != "guard-1" || restarted[0].(map[string]any)["rule"] != sits {
		t.Errorf("the restarts: %v (guard-1 sat on %s)", v, sits)
	}
	// Saving what is on disk writes nothing.
	_, version, _ = h.source("guard", "")
	code, v = h.send("PUT", "/api/trees/guard/source", map[string]any{"source": gone, "version": version})
	if code != 200 || v["unchanged"] != true {
		t.Errorf("saving the same text: %d %v", code, v)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestEditorAPI_subtreeFiles: a subtree file is saved on its own; a new
// subtree file is saved with the file that includes it.
func TestEditorAPI_subtreeFiles(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	rounds, version, _ := h.source("guard", "ai/rounds.xml")
	next := h.edited("guard", "ai/rounds.xml", rounds, `{"op":"param","rule":"back","name":"walk.steps","value":"2"}`)
	if c, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"file": "ai/rounds.xml", "source": next, "version": version}); c != 200 {
		t.Fatalf("%d %v", c, v)
	}
	if got := string(readFile(t, filepath.Join(dir, "ai/rounds.xml"))); got != next {
		t.Errorf("rounds.xml holds %s", got)
	}
	text, version, _ := h.source("guard", "")
	newFile := map[string]any{"file": "ai/look/around.xml", "source": "<behaviorTree>\n  <yield id=\"glance\"/>\n</behaviorTree>\n"}
	insert := []any{map[string]any{"op": "insert", "parent": "guard.rounds", "index": 1, "xml": `<subtree id=".look">look/around.xml</subtree>`}}
	// The edit that includes a new file loads with it, and not without.
	if c, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"source": text, "ops": insert}); c != 422 ||
		!strings.Contains(v["error"].(string), "subtree file ai/look/around.xml does not exist") {
		t.Errorf("including a file that is not there: %d %v", c, v)
	}
	code, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"source": text, "ops": insert, "new": []any{newFile}})
	if code != 200 {
		t.Fatalf("%d %v", code, v)
	}
	with := v["source"].(string)
	// Without the new file, the tree does not load.
	if c, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"source": with, "version": version}); c != 422 ||
		!strings.Contains(mustJSON(t, v), "subtree file ai/look/around.xml does not exist") {
		t.Errorf("without the new file: %d %v", c, v)
	}
	// A new file the tree does not include is refused.
	if c, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"source": text, "version": version, "new": []any{newFile}}); c != 403 {
		t.Errorf("a new file not included: %d %v", c, v)
	}
	// Files that exist, or lie outside the game's folder, are not new files.
	for _, f := range []string{"ai/latin.xml", "../outside.xml", "/tmp/abs.xml", "ai/notes.txt"} {
		if c, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"source": with, "version": version,
			"new": []any{map[string]any{"file": f, "source": "<behaviorTree/>"}}}); c != 403 {
			t.Errorf("new file %s: %d %v", f, c, v)
		}
	}
	code, v = h.send("PUT", "/api/trees/guard/source", map[string]any{"source": with, "version": version, "new": []any{newFile}})
	if code != 200 || !reflect.DeepEqual(v["written"], []any{"ai/guard.xml", "ai/look/around.xml"}) {
		t.Fatalf("%d %v", code, v)
	}
	if got := string(readFile(t, filepath.Join(dir, "ai/look/around.xml"))); got != newFile["source"] {
		t.Errorf("the new file holds %q", got)
	}
	if _, _, v := h.source("guard", ""); !reflect.DeepEqual(v["files"], []any{"ai/guard.xml", "ai/rounds.xml", "ai/look/around.xml"}) {
		t.Errorf("the tree's files: %v", v["files"])
	}
}

// TestEditorAPI_latin1: an ISO-8859-1 file stays one: characters it holds
// are written as bytes, others as character references, and the rest of
// the file keeps its bytes.
func TestEditorAPI_latin1(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	path := filepath.Join(dir, "ai/latin.xml")
	old := readFile(t, path)
	text, version, _ := h.source("latin", "")
	if c, v := h.send("PUT", "/api/trees/latin/source", map[string]any{"source": text, "version": version}); c != 200 || v["unchanged"] != true {
		t.Errorf("the same text: %d %v", c, v)
	}
	next := h.edited("latin", "", text, `{"op":"param","rule":"s.say","name":"log.message","value":"déjà €"}`)
	if c, v := h.send("PUT", "/api/trees/latin/source", map[string]any{"source": next, "version": version}); c != 200 {
		t.Fatalf("%d %v", c, v)
	}
	want := bytes.Replace(old, []byte("d\xe9j\xe0 vu"), []byte("d\xe9j\xe0 &#8364;"), 1)
	if got := readFile(t, path); !bytes.Equal(got, want) {
		t.Errorf("the file:\n%q\nwant\n%q", got, want)
	}
}

// TestEditorAPI_failedReloadPutsTheFileBack: a save whose reload fails
// (here a script broken on disk since the game loaded it) leaves the tree
// file as it was.
func TestEditorAPI_failedReloadPutsTheFileBack(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	path := filepath.Join(dir, "ai/guard.xml")
	old := readFile(t, path)
	if err := os.WriteFile(filepath.Join(dir, "ai/guard.lua"), []byte("bt.action(\"walk\", {"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, version, _ := h.source("guard", "")
	next := h.edited("guard", "", text, `{"op":"param","rule":"guard.rounds.rest","name":"wait.seconds","value":"3"}`)
	code, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"source": next, "version": version})
	if code != 422 || !strings.Contains(v["error"].(string), "not applied, and ai/guard.xml is back as it was") {
		t.Errorf("%d %v", code, v)
	}
	if got := readFile(t, path); !bytes.Equal(got, old) {
		t.Errorf("the file was left changed:\n%s", change(string(old), string(got)))
	}
	if tree := h.ok("GET", "/api/trees/guard", ""); !strings.Contains(mustJSON(t, tree), `["wait.seconds","1"]`) {
		t.Errorf("the game changed: %v", tree)
	}
}

// TestEditorAPI_refused: without -edit nothing answers and nothing is
// written; other sites, other files and big bodies are refused.
func TestEditorAPI_refused(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true})
	path := filepath.Join(dir, "ai/guard.xml")
	old := readFile(t, path)
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/palette", ""},
		{"GET", "/api/trees/guard/source", ""},
		{"POST", "/api/trees/guard/edit", `{"source":"<behaviorTree/>","ops":[]}`},
		{"POST", "/api/check", `{"tree":"guard","source":"<behaviorTree/>"}`},
		{"PUT", "/api/trees/guard/source", `{"source":"<behaviorTree/>","version":"x"}`},
	} {
		if c, v := h.do(r.method, r.path, r.body); c != 403 || !strings.Contains(v["error"].(string), "-edit") {
			t.Errorf("without -edit, %s %s: %d %v", r.method, r.path, c, v)
		}
	}
	if !bytes.Equal(readFile(t, path), old) {
		t.Error("a run without -edit wrote the file")
	}

	h, dir = editorGame(t, Options{Paused: true, Edit: true})
	path = filepath.Join(dir, "ai/guard.xml")
	old = readFile(t, path)
	_, version, _ := h.source("guard", "")
	put := `{"source":"<behaviorTree/>","version":"` + version + `"}`
	for _, tc := range []struct {
		name, method, path, body string
		header                   http.Header
		code                     int
	}{
		{"otherOriginReads", "GET", "/api/trees/guard/source", "", http.Header{"Origin": {"http://evil.example"}}, 403},
		{"otherOriginPalette", "GET", "/api/palette", "", http.Header{"Origin": {"http://evil.example"}}, 403},
		{"otherOriginSaves", "PUT", "/api/trees/guard/source", put, http.Header{"Origin": {"http://evil.example"}}, 403},
		{"otherHost", "PUT", "/api/trees/guard/source", put, http.Header{"Host": {"evil.example"}}, 403},
		{"ownOrigin", "GET", "/api/palette", "", http.Header{"Origin": {"http://127.0.0.1:7070"}}, 200},
		{"notATreeFile", "PUT", "/api/trees/guard/source", `{"file":"config.toml","source":"x","version":"` + version + `"}`, nil, 403},
		{"anotherTreesFile", "PUT", "/api/trees/guard/source", `{"file":"ai/latin.xml","source":"x","version":"` + version + `"}`, nil, 403},
		{"tooBig", "PUT", "/api/trees/guard/source", `{"source":"` + strings.Repeat("x", maxEditBody) + `","version":"x"}`, nil, 413},
		{"noVersion", "PUT", "/api/trees/guard/source", `{"source":"<behaviorTree/>"}`, nil, 400},
		{"unknownField", "PUT", "/api/trees/guard/source", `{"source":"<behaviorTree/>","version":"x","force":true}`, nil, 400},
		{"unknownTree", "PUT", "/api/trees/nobody/source", put, nil, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			req.Host = "127.0.0.1:7070"
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v[0]
				} else {
					req.Header[k] = v
				}
			}
			rec := httptest.NewRecorder()
			h.d.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("%d %.300s", rec.Code, rec.Body)
			}
		})
	}
	if !bytes.Equal(readFile(t, path), old) {
		t.Error("a refused request wrote the file")
	}
}

// TestEditorAPI_palette: what the editor offers comes from the code's
// declarations: every tag and attribute of the format, the registry's
// actions, conditions and scorers with the parameters they declare.
func TestEditorAPI_palette(t *testing.T) {
	h, _ := editorGame(t, Options{Paused: true, Edit: true})
	code, raw := h.raw("GET", "/api/palette", "", nil)
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var p paletteView
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Tags) != len(tagFormat().specs) {
		t.Errorf("%d tags, the format has %d", len(p.Tags), len(tagFormat().specs))
	}
	find := func(list []paletteName, name string) *paletteName {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
		t.Fatalf("%s is not in the palette", name)
		return nil
	}
	walk := find(p.Actions, "walk")
	if len(walk.Params) != 1 || walk.Params[0].Name != "walk.steps" || walk.Params[0].Doc != "how many steps the walk takes (default 3)" || !strings.HasPrefix(walk.Origin, "lua ai/guard.lua:") {
		t.Errorf("walk: %+v", walk)
	}
	if w := find(p.Actions, "bt.wait"); !w.Declares || w.Params[0].Name != "wait.seconds" || w.Doc == "" {
		t.Errorf("bt.wait: %+v", w)
	}
	find(p.Scorers, "eager")
	find(p.Declared, "T.lessThan")
	completes := map[string]string{}
	for _, tag := range p.Tags {
		for _, a := range tag.Attrs {
			completes[tag.Tag+" "+a.Name] = a.Complete
		}
	}
	// The rules btrun ships are rule tags of the palette, held where rules are.
	var noRepeat *paletteTag
	for i := range p.Tags {
		if p.Tags[i].Tag == "noRepeat" {
			noRepeat = &p.Tags[i]
		}
		if p.Tags[i].Tag == "sequence" && !slices.Contains(p.Tags[i].Inside, "noRepeat") {
			t.Errorf("<sequence> does not hold <noRepeat>: %v", p.Tags[i].Inside)
		}
	}
	if noRepeat == nil || noRepeat.Kind != "rule" || !slices.Contains(noRepeat.Inside, "action") {
		t.Errorf("<noRepeat>: %+v", noRepeat)
	}
	for k, want := range map[string]string{"action name": "actions", "choice order": "values", "sequence loop": "boolean", "action gate": "gates", "action id": "", "slot default": "trees"} {
		if completes[k] != want {
			t.Errorf("%s completes with %q, want %q", k, completes[k], want)
		}
	}
}
