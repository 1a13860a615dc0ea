package liveview

import (
	"strings"
	"testing"
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
