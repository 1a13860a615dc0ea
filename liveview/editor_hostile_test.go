package liveview

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// The editor under attack (issue 33): text that is not well formed, or in
// an encoding the loader does not read, while a designer types; requests
// that would cost unbounded memory or hold the game; file names that
// forge output lines; saves that fail.

// TestEditorAPI_checkMalformed: /api/check and Save answer the problems
// of text that is not well formed XML, or declares an encoding the loader
// does not read, at their line (no 500).
func TestEditorAPI_checkMalformed(t *testing.T) {
	h, _ := editorGame(t, Options{Paused: true, Edit: true})
	text, version, _ := h.source("guard", "")
	for _, tt := range []struct {
		name, source string
		line         float64
		msg          string
	}{
		{"not closed", strings.Replace(text, "</behaviorTree>", "", 1), 3, "<behaviorTree> is not closed"},
		{"a tag cut", strings.Replace(text, `<action id=".rest"`, `<action id=".rest`, 1), 20, "malformed XML"},
		{"an unsupported encoding", strings.Replace(text, `encoding="UTF-8"`, `encoding="EBCDIC"`, 1), 1, "EBCDIC"},
	} {
		for _, req := range []struct{ method, path string }{{"POST", "/api/check"}, {"PUT", "/api/trees/guard/source"}} {
			body, want := map[string]any{"tree": "guard", "source": tt.source}, 200
			if req.method == "PUT" {
				body, want = map[string]any{"source": tt.source, "version": version}, 422
			}
			code, v := h.send(req.method, req.path, body)
			ps, _ := v["problems"].([]any)
			if code != want || len(ps) == 0 {
				t.Errorf("%s, %s %s: %d %v", tt.name, req.method, req.path, code, v)
				continue
			}
			p := ps[0].(map[string]any)
			if p["file"] != "ai/guard.xml" || p["severity"] != "error" || p["line"].(float64) < 1 ||
				tt.line > 0 && p["line"] != tt.line || !strings.Contains(p["message"].(string), tt.msg) {
				t.Errorf("%s, %s %s: problem %v", tt.name, req.method, req.path, p)
			}
		}
	}
}

// dottedDeep is a tree file of depth rules nested in one another, each with
// an id of idLen bytes starting with ".": the full id of the rule at depth
// k is k ids long, so all the labels add up to depth² × idLen / 2 bytes.
func dottedDeep(depth, idLen int) string {
	var b strings.Builder
	b.WriteString("<behaviorTree>\n")
	id := "." + strings.Repeat("a", idLen-1)
	for range depth {
		b.WriteString(`<sequence id="` + id + `">`)
	}
	b.WriteString("<success/>")
	for range depth {
		b.WriteString("</sequence>")
	}
	b.WriteString("\n</behaviorTree>\n")
	return b.String()
}

// TestEditOps_longDottedIDsAreBounded: the outline of deeply nested rules
// with dotted ids stops where the loader stops (a full id of at most
// runtime.MaxIDBytes), with the loader's error at the rule: 128 KB of such
// text made some 70 MB of labels, 800 KB some 3 GB.
func TestEditOps_longDottedIDsAreBounded(t *testing.T) {
	text := dottedDeep(2200, 30) // 128 KB
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	_, err := readSource("deep.xml", text)
	goruntime.ReadMemStats(&after)
	want := "deep.xml:2:1565: id .aaaaaaaaaaaaaaaaaaaaaaaaaaaaa.aaaaaaaaa... (written .aaaaaaaaaaaaaaaaaaaaaaaaaaaaa) is 1050 bytes long with the prefixes of the rules around it; a full id may be at most 1024 bytes"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("reading 128 KB took %d MB", got>>20)
	}
	// The loader refuses it as well, at the same rule, with the same words.
	if _, lerr := runtime.LoadBytes("deep.xml", []byte(text), runtime.LoadOptions{}); lerr == nil || lerr.Error() != want {
		t.Errorf("the loader: %v", lerr)
	}
	// Just within the bound, the editor reads what the loader reads.
	ok := dottedDeep(34, 30) // 34 × 30 = 1020 bytes, the dots included
	if _, err := readSource("deep.xml", ok); err != nil {
		t.Errorf("within the bound: %v", err)
	}
	if _, err := runtime.LoadBytes("deep.xml", []byte(ok), runtime.LoadOptions{}); err != nil {
		t.Errorf("the loader, within the bound: %v", err)
	}
}

// TestEditOps_labelsAddUpBounded: ids each within the bound, but many:
// the outline stops where the loader's bound on a tree's labels stops it.
func TestEditOps_labelsAddUpBounded(t *testing.T) {
	deep := dottedDeep(34, 30) // the innermost full id is 1,020 bytes
	many := strings.Repeat(`<success id=".b"/>`, runtime.MaxLabelBytes/1022+1)
	text := strings.Replace(deep, "<success/>", many, 1)
	_, err := readSource("many.xml", text)
	if err == nil || !strings.Contains(err.Error(), "the file's ids and labels add up to more than 64 MB") {
		t.Errorf("the editor: %v", err)
	}
	if _, lerr := runtime.LoadBytes("many.xml", []byte(text), runtime.LoadOptions{}); lerr == nil || !strings.Contains(lerr.Error(), "add up to more than 64 MB") {
		t.Errorf("the loader: %v", lerr)
	}
}

// TestEditorAPI_longDottedIDs: an edit request of such a source is a 422
// naming the request's field, and GET .../source of such a file says why
// it has no outline.
func TestEditorAPI_longDottedIDs(t *testing.T) {
	h, _ := editorGame(t, Options{Paused: true, Edit: true})
	code, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"source": dottedDeep(2200, 30), "ops": []any{
		map[string]any{"op": "delete", "rule": "x"}}})
	if code != 422 || v["field"] != "source" || !strings.HasPrefix(v["error"].(string), `"source": ai/guard.xml:2:1565: id `) {
		t.Errorf("%d %v", code, v)
	}
	code, v = h.send("POST", "/api/trees/guard/edit", map[string]any{"source": dottedDeep(2200, 30), "ops": []any{}})
	if code != 200 || v["outline"] != nil || !strings.Contains(v["outlineError"].(string), "a full id may be at most 1024 bytes") {
		t.Errorf("no operations: %d %v", code, v)
	}
}

// TestEditOps_oneLoadPerRequest: a request's operations are checked by
// loading the result once, not once an operation (a thousand operations
// on a big tree loaded it a thousand times, on the game's goroutine); when
// the result does not load, a few loads more find the operation to blame.
func TestEditOps_oneLoadPerRequest(t *testing.T) {
	loads := 0
	load := func(text string) error {
		loads++
		return loadText("editor.xml")(text)
	}
	var list []string
	for i := range maxOps {
		list = append(list, fmt.Sprintf(`{"op":"param","rule":"guard.fight.chase","name":"walk.steps","value":"%d"}`, i))
	}
	got, err := applyOps("editor.xml", opsTree, ops(t, list...), load)
	if err != nil || !strings.Contains(got, `<parameter name="walk.steps">999</parameter>`) {
		t.Fatalf("%v\n%s", err, got)
	}
	if loads != 1 {
		t.Errorf("%d operations loaded the tree %d times, want once", maxOps, loads)
	}
	// Operation 700 breaks the tree: it is named, for ⌈log2 1000⌉ + 2 loads.
	list[700] = `{"op":"attr","rule":"guard","name":"loop","value":"sometimes"}`
	loads = 0
	_, err = applyOps("editor.xml", opsTree, ops(t, list...), load)
	var oe *opError
	if !errors.As(err, &oe) || oe.index != 700 || !strings.HasPrefix(err.Error(), "op 700 (attr): the result would not load: editor.xml:8:3: ") {
		t.Errorf("the operation that breaks the tree: %v", err)
	}
	if loads > 12 {
		t.Errorf("finding it loaded the tree %d times", loads)
	}
}

// TestEditOps_workIsBounded: every operation reads the text the one before
// made, so the text a request's operations read is bounded.
func TestEditOps_workIsBounded(t *testing.T) {
	text := strings.Replace(opsTree, "<!-- a guard -->", "<!-- "+strings.Repeat("a guard ", 1<<17)+"-->", 1) // 1 MB
	var list []string
	for i := range 100 {
		list = append(list, fmt.Sprintf(`{"op":"param","rule":"guard.fight.chase","name":"walk.steps","value":"%d"}`, i))
	}
	_, err := applyOps("editor.xml", text, ops(t, list...), nil)
	var oe *opError
	if !errors.As(err, &oe) || oe.index != 15 || !strings.Contains(err.Error(), "the operations of one request read at most 16 MB of text") {
		t.Errorf("100 operations on 1 MB: %v", err)
	}
	if _, err := applyOps("editor.xml", text, ops(t, list[:15]...), nil); err != nil {
		t.Errorf("15 operations on 1 MB: %v", err)
	}
}

// TestEditorAPI_editLeavesTheGameFree: an edit's operations and the loads
// that check them run off the game's goroutine: while one is loading, the
// game answers another request.
func TestEditorAPI_editLeavesTheGameFree(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/editor")); err != nil {
		t.Fatal(err)
	}
	var h *harness
	answered := make(chan int, 10)
	h = startWith(t, filepath.Join(dir, "config.toml"), 100000, Options{Paused: true, Edit: true, Timeout: 5 * time.Second}, func(d *Debugger) {
		d.loadHook = func() {
			// The game's goroutine, were it loading, could not answer this.
			resp, err := http.Get(h.srv.URL + "/api/status")
			if err != nil {
				answered <- 0
				return
			}
			resp.Body.Close()
			answered <- resp.StatusCode
		}
	})
	text, _, _ := h.source("guard", "")
	h.edited("guard", "", text, `{"op":"param","rule":"guard.rounds.rest","name":"wait.seconds","value":"2"}`)
	if len(answered) != 1 {
		t.Fatalf("%d loads, want 1", len(answered))
	}
	if code := <-answered; code != 200 {
		t.Errorf("while an edit was loading, the game answered %d", code)
	}
}

// TestEditorAPI_newFileNames: a new subtree file's name with control
// characters (btrun prints it: a newline would forge a line of its output)
// is refused wherever a request names one.
func TestEditorAPI_newFileNames(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	text, version, _ := h.source("guard", "")
	for _, name := range []string{"ai/x\nguard-1 fought.xml", "ai/x\r.xml", "ai/\x1b[2Jx.xml", "ai/\u0085.xml", "ai/" + strings.Repeat("x", 1100) + ".xml"} {
		newFile := []any{map[string]any{"file": name, "source": "<behaviorTree><success/></behaviorTree>"}}
		for _, req := range []struct {
			method, path string
			body         map[string]any
		}{
			{"POST", "/api/trees/guard/edit", map[string]any{"source": text, "ops": []any{}, "new": newFile}},
			{"POST", "/api/trees/guard/edit", map[string]any{"file": name, "source": text, "ops": []any{}}},
			{"POST", "/api/check", map[string]any{"tree": "guard", "source": text, "new": newFile}},
			{"PUT", "/api/trees/guard/source", map[string]any{"source": text, "version": version, "new": newFile}},
		} {
			code, v := h.send(req.method, req.path, req.body)
			if code != 403 || !strings.Contains(v["error"].(string), "a file's name") {
				t.Errorf("%q, %s %s: %d %v", name, req.method, req.path, code, v)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "ai"))
	if len(entries) != 4 {
		t.Errorf("ai/ holds %d files", len(entries))
	}
}

// stubbornDisk writes tree files through the game, but fails the writes
// and removals fail says to.
type stubbornDisk struct {
	g      treeWriter
	writes int
	fail   func(write int, file string) (data []byte, err error)
}

func (s *stubbornDisk) WriteTreeFile(file string, data []byte, create bool) error {
	s.writes++
	d, err := s.fail(s.writes, file)
	if err != nil {
		return err
	}
	if d != nil {
		data = d
	}
	return s.g.WriteTreeFile(file, data, create)
}

func (s *stubbornDisk) RemoveTreeFile(file string) error { return errors.New("the disk refuses") }

// TestEditorAPI_failedUndoIsSaid: when a save fails and putting the files
// back fails too, the answer does not say they are back as they were.
func TestEditorAPI_failedUndoIsSaid(t *testing.T) {
	for _, tt := range []struct {
		name string
		new  bool
		fail func(write int, file string) ([]byte, error)
		want string
	}{
		{"the reload fails (the file changed on disk meanwhile), the undo's write fails", false,
			func(write int, file string) ([]byte, error) {
				if write == 1 {
					return []byte("<behaviorTree>"), nil
				}
				return nil, errors.New("the disk is full")
			}, "not applied: "},
		{"the file's write fails, the new file's removal fails", true,
			func(write int, file string) ([]byte, error) {
				if file == "ai/guard.xml" {
					return nil, errors.New("the disk is full")
				}
				return nil, nil
			}, "not saved: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("testdata/editor")); err != nil {
				t.Fatal(err)
			}
			h := startWith(t, filepath.Join(dir, "config.toml"), 100000, Options{Paused: true, Edit: true}, func(d *Debugger) {
				d.disk = &stubbornDisk{g: d.host, fail: tt.fail}
			})
			text, version, _ := h.source("guard", "")
			body := map[string]any{"source": h.edited("guard", "", text, `{"op":"param","rule":"guard.rounds.rest","name":"wait.seconds","value":"2"}`), "version": version}
			if tt.new {
				body["new"] = []any{map[string]any{"file": "ai/look.xml", "source": "<behaviorTree><success/></behaviorTree>"}}
				_, v := h.send("POST", "/api/trees/guard/edit", map[string]any{"source": text, "new": body["new"], "ops": []any{
					map[string]any{"op": "insert", "parent": "guard.rounds", "xml": `<subtree id=".look">look.xml</subtree>`}}})
				body["source"] = v["source"]
			}
			code, v := h.send("PUT", "/api/trees/guard/source", body)
			msg, _ := v["error"].(string)
			if code != 500 || !strings.HasPrefix(msg, tt.want) || strings.Contains(msg, "as it was:") || !strings.Contains(msg, "putting the files back as they were failed") {
				t.Errorf("%d %v", code, v)
			}
		})
	}
}

// TestEditorAPI_filesFromAnFS: a game that reads its sources from an
// fs.FS (game.Options.Files) runs what the FS holds; the editor, which
// reads and writes files on disk, refuses to edit it, and writes nothing.
func TestEditorAPI_filesFromAnFS(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/editor")); err != nil {
		t.Fatal(err)
	}
	cfg, err := game.LoadConfig(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := game.Open(cfg, game.Options{Files: os.DirFS(dir), Quiet: true, Stdout: io.Discard, Stderr: io.Discard, SaveEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	d := New(g, Options{Paused: true, Edit: true, Timeout: time.Second}) // no game runs: a request that reached it would wait
	if err := d.host.WriteTreeFile("ai/guard.xml", []byte("<behaviorTree/>"), false); !errors.Is(err, game.ErrTreesNotFiles) {
		t.Errorf("WriteTreeFile: %v", err)
	}
	defer d.Close()
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	before := readFile(t, filepath.Join(dir, "ai/guard.xml"))
	for _, req := range []struct{ method, path, body string }{
		{"GET", "/api/palette", ""},
		{"GET", "/api/trees/guard/source", ""},
		{"POST", "/api/check", `{"tree":"guard","source":"<behaviorTree/>"}`},
		{"PUT", "/api/trees/guard/source", `{"source":"<behaviorTree/>","version":"x"}`},
	} {
		r, _ := http.NewRequest(req.method, srv.URL+req.path, strings.NewReader(req.body))
		resp, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(body), "Options.Files") {
			t.Errorf("%s %s: %d %s", req.method, req.path, resp.StatusCode, body)
		}
	}
	if after := readFile(t, filepath.Join(dir, "ai/guard.xml")); string(after) != string(before) {
		t.Errorf("the file was written:\n%s", after)
	}
}
