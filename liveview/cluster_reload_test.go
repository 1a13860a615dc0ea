package liveview

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/btrun/btrun/game"
)

// The live view's reloads on a cluster's conductor (the Reload button, the
// editor's save), in one process (cluster.NewLocal): each is the whole
// cluster's journaled reload, and every answer, drawing, trace and output
// is one process's given the same clicks at the same steps.

// guardsCopy is a copy of the guards game in a folder of its own: its
// config, and the folder.
func guardsCopy(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/guards")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "config.toml"), dir
}

// rewrite replaces old by new in the file at dir/name, written beside and
// renamed over it, as an editor saves.
func rewrite(t *testing.T, dir, name, old, new string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s holds no %q", name, old)
	}
	if err := os.WriteFile(path+".new", bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// withReload is a live view with the Reload button (the game's
// ReloadAll, as btrun run gives it).
func withReload(g *game.Game) Options { return Options{Reload: g.ReloadAll} }

// bothSame sends a request to both sessions and wants the same status and
// the same answer, but for what the status of a cluster's page says of
// itself (time travel, the trace's kind, "cluster"): of its status, the
// step, the reloads and the reason are compared.
func bothSame(t *testing.T, a, b *session, method, path, body string) (int, map[string]any) {
	t.Helper()
	ca, va := a.do(method, path, body)
	cb, vb := b.do(method, path, body)
	if ca != cb || !sameJSON(comparable(va), comparable(vb)) {
		t.Fatalf("%s %s %s: one process answers %d %v, the cluster %d %v", method, path, body, ca, va, cb, vb)
	}
	return ca, va
}

// comparable is an answer without what a cluster's page says of itself.
func comparable(v map[string]any) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		out[k] = x
	}
	if st, ok := v["status"].(map[string]any); ok {
		out["status"] = map[string]any{"step": st["step"], "reloads": st["reloads"], "reason": st["reason"], "paused": st["paused"]}
	}
	return out
}

func TestCluster_reloadButtonIsOneProcesssReload(t *testing.T) {
	for _, c := range []struct{ shards, workers int }{{3, 1}, {2, 2}} {
		t.Run(fmt.Sprintf("%d shards of %d workers", c.shards, c.workers), func(t *testing.T) {
			reloadAsOneProcess(t, c.shards, c.workers)
		})
	}
}

func reloadAsOneProcess(t *testing.T, shards, workers int) {
	oneCfg, oneDir := guardsCopy(t)
	twoCfg, twoDir := guardsCopy(t)
	one := single(t, oneCfg, 80, withReload)
	two := onShards(t, twoCfg, shards, workers, 80, withReload)
	for _, s := range []*session{one, two} {
		s.waitPaused("start")
	}
	if st := two.ok("GET", "/api/status", ""); st["reload"] != true {
		t.Fatalf("the cluster's page shows no Reload button: %v", st)
	}
	both(t, one, two, "POST", "/api/step", `{"steps":13}`)
	// A Lua action edited (its cancel hook's line, its step) and a rule
	// renamed under the agents that run it: they restart, and the old
	// cancel hook logs.
	edit := func(dir string) {
		rewrite(t, dir, "ai/guard.lua", `ctx.agent.x = ctx.agent.x + 1`, `ctx.agent.x = ctx.agent.x + 2`)
		rewrite(t, dir, "ai/guard.lua", `ctx:log("walk interrupted")`, `ctx:log("walk interrupted (v2)")`)
		rewrite(t, dir, "ai/guard.xml", `id=".patrol"`, `id=".stroll"`)
	}
	edit(oneDir)
	edit(twoDir)
	_, v := bothSame(t, one, two, "POST", "/api/reload", "")
	if sum, _ := v["summary"].(string); !strings.Contains(sum, "restarted") {
		t.Errorf("the reload restarted nobody: the test shows little: %v", v)
	}
	for _, id := range []string{"guard-1", "guard-2", "guard-3"} {
		if a, b := drawing(t, one, id), drawing(t, two, id); a != b {
			t.Errorf("agent %s after the reload: one process draws\n%s\nthe cluster\n%s", id, a, b)
		}
	}
	bothSame(t, one, two, "GET", "/api/trees/guard", "")
	both(t, one, two, "POST", "/api/step", `{"steps":5}`)

	// A broken tree file: the same 422, naming the file, its line and
	// column, and nothing changed anywhere.
	for _, dir := range []string{oneDir, twoDir} {
		rewrite(t, dir, "ai/guard.xml", `<choice id=".idle" order="random">`, `<choice id=".idle" order="random>`)
	}
	code, v := bothSame(t, one, two, "POST", "/api/reload", "")
	if msg, _ := v["error"].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "ai/guard.xml:") {
		t.Errorf("a broken file's reload: %d %v", code, v)
	} else if !hasLineCol(msg, "guard.xml:") {
		t.Errorf("a broken file's reload names no line and column: %s", msg)
	}
	for _, dir := range []string{oneDir, twoDir} {
		rewrite(t, dir, "ai/guard.xml", `<choice id=".idle" order="random>`, `<choice id=".idle" order="random">`)
	}
	both(t, one, two, "POST", "/api/step", `{"steps":30}`)
	for _, id := range []string{"guard-1", "guard-2", "guard-3"} {
		if a, b := drawing(t, one, id), drawing(t, two, id); a != b {
			t.Errorf("agent %s at the end: one process draws\n%s\nthe cluster\n%s", id, a, b)
		}
	}
	one.end()
	two.end()
	a, b := one.trace(), two.trace()
	if !bytes.Equal(a, b) {
		t.Errorf("the traces differ:\n%s", firstDiff(a, b))
	}
	if oa, ob := one.out(), two.out(); !bytes.Equal(oa, ob) {
		t.Errorf("the outputs differ:\n%s", firstDiff(oa, ob))
	} else {
		for _, want := range []string{"reload: ", "walk interrupted\n", "reload: not applied", "ai/guard.xml:20:7: malformed XML"} {
			if !bytes.Contains(oa, []byte(want)) {
				t.Errorf("the output has no %q: the test shows nothing\n%s", want, oa)
			}
		}
	}
	if !bytes.Contains(a, []byte(`stroll`)) {
		t.Error("the trace never runs the renamed rule: the test shows nothing")
	}
}

// hasLineCol reports whether msg holds file followed by LINE:COL.
func hasLineCol(msg, file string) bool {
	i := strings.Index(msg, file)
	if i < 0 {
		return false
	}
	var line, col int
	n, _ := fmt.Sscanf(msg[i+len(file):], "%d:%d", &line, &col)
	return n == 2 && line > 0 && col > 0
}

// TestCluster_editorSaveReloadsTheCluster: the editor's save on a
// cluster's page writes the conductor's file and reloads the whole
// cluster, with one process's answer, drawings, trace and output.
func TestCluster_editorSaveReloadsTheCluster(t *testing.T) {
	oneCfg, oneDir := guardsCopy(t)
	twoCfg, twoDir := guardsCopy(t)
	editor := func(g *game.Game) Options { return Options{Reload: g.ReloadAll, Edit: true} }
	one := single(t, oneCfg, 60, editor)
	two := onShards(t, twoCfg, 3, 1, 60, editor)
	for _, s := range []*session{one, two} {
		s.waitPaused("start")
	}
	both(t, one, two, "POST", "/api/step", `{"steps":13}`) // guard-2 (shard 1) patrols: it restarts
	text, version, _ := two.source("guard", "")
	next := two.edited("guard", "", text, `{"op":"param","rule":"guard.idle.rest","name":"wait.seconds","value":"2"}`,
		`{"op":"attr","rule":"guard.idle.patrol","name":"id","value":".stroll"}`)
	body := fmt.Sprintf(`{"file":"ai/guard.xml","source":%q,"version":%q}`, next, version)
	_, v := bothSame(t, one, two, "PUT", "/api/trees/guard/source", body)
	if rl, _ := v["reload"].(map[string]any); rl == nil || rl["step"] != 13.0 || len(rl["restarted"].([]any)) != 1 {
		t.Errorf("the save's reload: %v", v)
	}
	for _, dir := range []string{oneDir, twoDir} {
		if got := string(readFile(t, filepath.Join(dir, "ai/guard.xml"))); got != next {
			t.Errorf("%s holds:\n%s", dir, got)
		}
	}
	for _, id := range []string{"guard-1", "guard-2", "guard-3"} {
		if a, b := drawing(t, one, id), drawing(t, two, id); a != b {
			t.Errorf("agent %s after the save: one process draws\n%s\nthe cluster\n%s", id, a, b)
		}
	}
	both(t, one, two, "POST", "/api/step", `{"steps":20}`)
	one.end()
	two.end()
	a, b := one.trace(), two.trace()
	if !bytes.Equal(a, b) {
		t.Errorf("the traces differ:\n%s", firstDiff(a, b))
	}
	if oa, ob := one.out(), two.out(); !bytes.Equal(oa, ob) || !bytes.Contains(oa, []byte("reload: ai/guard.xml")) {
		t.Errorf("the outputs differ, or show no reload:\n%s\n%s", firstDiff(oa, ob), oa)
	}
	if !reflect.DeepEqual(readFile(t, filepath.Join(oneDir, "ai/guard.xml")), readFile(t, filepath.Join(twoDir, "ai/guard.xml"))) {
		t.Error("the two games' files differ")
	}
}
