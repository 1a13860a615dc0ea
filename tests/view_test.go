package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestView_badFiles: what btrun view refuses, before it serves anything:
// a file that is neither a trace nor a save (with its line), an empty
// trace, a trace that continues a save given without it, a missing file.
func TestView_badFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\n",
		"t.xml":       "<behaviorTree><success id=\"s\"/></behaviorTree>\n",
		"notes.txt":   "{\"step\":1}\nhello\n",
		"empty.jsonl": "\n",
		"later.jsonl": "{\"step\":41,\"time\":4.1,\"agent\":\"t-1\",\"runs\":[[\"s\",\"success\"]],\"result\":\"success\",\"cursor\":\"s\"}\n",
	})
	config := filepath.Join(dir, "config.toml")
	for _, c := range []struct{ file, want string }{
		{"notes.txt", `notes.txt:2: not a trace line (a JSON object with a "step") nor a save`},
		{"empty.jsonl", "empty.jsonl: no step in it: an empty trace"},
		{"later.jsonl", "later.jsonl starts at step 41: it continues a save; give that save with -load"},
		{"missing.jsonl", "missing.jsonl: no such file or directory"},
	} {
		r := run(t, "", "view", "-config", config, "-debug", "127.0.0.1:0", filepath.Join(dir, c.file))
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %q", c.file, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "trace.jsonl")); err == nil {
		t.Error("view wrote a trace")
	}
}
