package liveview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

// The editor's requests on a big tree (issue 40): an edit and the check
// that follows it cost work in proportion to the file, not more. The work
// is counted (bytes allocated by the process, bytes answered), not timed:
// a tree of 60,000 rules costs at most the stated bytes per byte of its
// file, and no more per byte than a tree of 6,000 (within a margin), so
// nothing in the path grows with the square of the rules.

// Bounds, per byte of the tree file, for one edit request (an attribute
// changed, the result loaded and bound to find a breaking op, the outline
// answered) and one check request (load, bind and lints). Measured: 125
// and 77 bytes allocated a byte at 6,000 and at 60,000 rules alike, 3.5
// bytes answered a byte (the text, and the outline's rules).
const (
	maxEditAllocPerByte  = 160 // bytes allocated
	maxCheckAllocPerByte = 100
	maxAnswerPerByte     = 4 // bytes of JSON answered by the edit (the text and its outline)
	maxGrowth            = 1.5
)

// bigTreeGame writes a game whose one tree is treegen's tree of rules
// rules, with Lua that registers the names it calls, and runs it paused.
func bigTreeGame(t *testing.T, rules int) (*harness, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "ai"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "../runtime/internal/treegen/cmd/treegen", "-rules", fmt.Sprint(rules))
	tree, err := cmd.Output()
	if err != nil {
		t.Fatalf("treegen: %v", err)
	}
	lua := "local bt = require(\"bt\")\n"
	for _, a := range []string{"attack", "moveTo", "wait", "shoot", "reload", "report", "idle"} {
		lua += fmt.Sprintf("bt.action(%q, { run = function(ctx, params) return bt.SUCCESS end })\n", a)
	}
	for _, c := range []string{"canSee", "inRange"} {
		lua += fmt.Sprintf("bt.condition(%q, function(ctx, params) return true end)\n", c)
	}
	files := map[string]string{
		"config.toml": "[run]\nsteps = 1000\ndt = 0.25\nseed = 1\n\n[scripts]\npaths = [\"ai\"]\n\n[[trees]]\nname = \"big\"\nfile = \"ai/big.xml\"\n\n[[agents]]\ntree = \"big\"\ncount = 1\n",
		"ai/big.xml":  string(tree),
		"ai/big.lua":  lua,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return start(t, filepath.Join(dir, "config.toml"), 1000, Options{Paused: true, Edit: true}), string(tree)
}

// requestCost sends one request and returns the bytes the process
// allocated meanwhile and the bytes answered.
func requestCost(t *testing.T, h *harness, path string, body any) (alloc, answered uint64) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	goruntime.GC()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	resp, err := http.Post(h.srv.URL+path, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = out.ReadFrom(resp.Body)
	resp.Body.Close()
	goruntime.ReadMemStats(&after)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %v %.300s", path, resp.StatusCode, err, out.String())
	}
	return after.TotalAlloc - before.TotalAlloc, uint64(out.Len())
}

func TestEditor_bigTreeRequestCost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and loads a tree of 60,000 rules")
	}
	if raceOn {
		t.Skip("counts allocations, which the race detector changes (and slows tenfold); the run without -race counts them")
	}
	type cost struct{ edit, check, answer float64 }
	measure := func(rules int) cost {
		h, text := bigTreeGame(t, rules)
		// The last squad's first action: an edit deep in the file.
		at := strings.LastIndex(text, `<action id=".`)
		id := text[at+len(`<action id="`):]
		id = id[:strings.IndexByte(id, '"')]
		o, err := readSource("ai/big.xml", text)
		if err != nil {
			t.Fatal(err)
		}
		label := ""
		for _, r := range o.Rules {
			if strings.HasSuffix(r.ID, id) && r.Line == o.doc.line(at) {
				label = r.Label
			}
		}
		if label == "" {
			t.Fatalf("no rule %s at byte %d", id, at)
		}
		op := json.RawMessage(fmt.Sprintf(`{"op":"attr","rule":%q,"name":"timeout","value":"7"}`, label))
		edit, answered := requestCost(t, h, "/api/trees/big/edit", map[string]any{"file": "ai/big.xml", "source": text, "ops": []json.RawMessage{op}})
		check, _ := requestCost(t, h, "/api/check", map[string]any{"tree": "big", "file": "ai/big.xml", "source": text})
		n := float64(len(text))
		c := cost{float64(edit) / n, float64(check) / n, float64(answered) / n}
		t.Logf("%d rules, %d bytes: an edit allocates %.1f bytes a byte of the file and answers %.2f; a check allocates %.1f", rules, len(text), c.edit, c.answer, c.check)
		return c
	}
	small, big := measure(6000), measure(60000)
	if big.edit > maxEditAllocPerByte || big.check > maxCheckAllocPerByte || big.answer > maxAnswerPerByte {
		t.Errorf("60,000 rules: an edit allocates %.1f bytes a byte (at most %d), answers %.2f (at most %d); a check allocates %.1f (at most %d)",
			big.edit, maxEditAllocPerByte, big.answer, maxAnswerPerByte, big.check, maxCheckAllocPerByte)
	}
	if big.edit > small.edit*maxGrowth || big.check > small.check*maxGrowth {
		t.Errorf("the cost a byte grows with the tree: an edit %.1f -> %.1f, a check %.1f -> %.1f bytes a byte from 6,000 to 60,000 rules (at most %.1fx)",
			small.edit, big.edit, small.check, big.check, maxGrowth)
	}
}
