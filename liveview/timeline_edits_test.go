package liveview

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTimeTravel_keepsTheStepsBeforeAnEditorSave: after a save from the
// editor, the steps before it can still be shown, as they were (with the
// trees as they were then, loaded in memory: the file keeps the new text),
// and are marked; the game cannot go on from them, and goes on from any
// step after the save.
func TestTimeTravel_keepsTheStepsBeforeAnEditorSave(t *testing.T) {
	h, dir := editorGame(t, Options{Paused: true, Edit: true})
	h.ok("POST", "/api/step", `{"steps":3}`)
	at3 := h.agent("guard-1")
	h.ok("POST", "/api/step", `{"steps":4}`)
	text, version, _ := h.source("guard", "")
	next := h.edited("guard", "", text, `{"op":"param","rule":"guard.rounds.rest","name":"wait.seconds","value":"3"}`)
	if code, v := h.send("PUT", "/api/trees/guard/source", map[string]any{"file": "ai/guard.xml", "source": next, "version": version}); code != 200 {
		t.Fatalf("save: %d %v", code, v)
	}
	h.ok("POST", "/api/step", `{"steps":5}`)
	at12 := h.agent("guard-1")
	newTree := func() bool {
		return strings.Contains(mustJSON(t, h.ok("GET", "/api/trees/guard", "")), `["wait.seconds","3"]`)
	}

	st := h.ok("POST", "/api/travel", `{"step":3}`)
	if got := h.agent("guard-1"); got.Rule != at3.Rule || got.Step != 3 || !reflect.DeepEqual(got.Ctx, at3.Ctx) {
		t.Errorf("step 3 after the save: %+v\nwant %+v", got, at3)
	}
	if newTree() {
		t.Error("step 3 shows the tree saved after step 7")
	}
	if tt := h.ok("GET", "/api/status", "")["timeTravel"].(map[string]any); !reflect.DeepEqual(tt["edits"], []any{7.0}) || tt["oldest"] != 0.0 {
		t.Errorf("the status marks: %v (travel answered %v)", tt, st)
	}
	code, v := h.do("POST", "/api/resume", `{}`)
	if code != 409 || !strings.Contains(v["error"].(string), "step 3 ran the trees as they were before the save after step 7") {
		t.Errorf("going on from before the save: %d %v", code, v)
	}
	if string(readFile(t, filepath.Join(dir, "ai/guard.xml"))) != next {
		t.Error("travel changed the file")
	}

	h.ok("POST", "/api/travel", `{"step":12}`)
	if got := h.agent("guard-1"); got.Rule != at12.Rule || got.Step != 12 || !reflect.DeepEqual(got.Ctx, at12.Ctx) || !newTree() {
		t.Errorf("back at step 12: %+v\nwant %+v (new tree %t)", got, at12, newTree())
	}
	h.ok("POST", "/api/travel", `{"step":9}`)
	if !newTree() {
		t.Error("step 9 (after the save) shows the old tree")
	}
	h.ok("POST", "/api/step", `{"steps":1}`) // goes on from 9: the steps after it are discarded, the edit stays
	if tt := h.ok("GET", "/api/status", "")["timeTravel"].(map[string]any); !reflect.DeepEqual(tt["edits"], []any{7.0}) {
		t.Errorf("after going on from step 9: %v", tt)
	}
	h.ok("POST", "/api/travel", `{"step":5}`)
	if newTree() {
		t.Error("step 5 shows the tree saved after step 7")
	}
}
