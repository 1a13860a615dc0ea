package game_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guideSources are the files the Go blocks of docs/embedding.md are taken
// from: code the tests compile and run.
var guideSources = []string{
	"example_test.go",
	"../liveview/example_test.go",
	"../examples/embed/*.go",
	"../examples/embed/plugins/sight/*.go",
	"../rules/*.go", // the rule set btrun ships: the guide's rule of your own
}

// TestEmbeddingGuide_blocksAreCompiled: every Go block of the embedding
// guide is a piece of the examples' code (indentation aside), so that the
// guide shows code that compiles and runs, and changes with it.
func TestEmbeddingGuide_blocksAreCompiled(t *testing.T) {
	guide, err := os.ReadFile("../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	for _, pattern := range guideSources {
		names, _ := filepath.Glob(pattern)
		if len(names) == 0 {
			t.Fatalf("no file %s", pattern)
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			code.WriteString(normalize(string(data)))
			code.WriteString("\n")
		}
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(guide), -1)
	if len(blocks) < 10 {
		t.Fatalf("the guide has %d Go blocks; the test does not read what it should", len(blocks))
	}
	for _, b := range blocks {
		if !strings.Contains(code.String(), normalize(b[1])) {
			t.Errorf("this block of docs/embedding.md is not in the examples' code (%s):\n%s", strings.Join(guideSources, ", "), b[1])
		}
	}
}

// normalize drops the indentation and blank lines.
func normalize(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
