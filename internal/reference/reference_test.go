package reference

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files")

// root is the repository's root, from this package's folder.
const root = "../.."

var generated = []struct {
	path string
	gen  func(io.Writer) error
}{
	{"docs/reference.md", Markdown},
	{"editor/behaviortree.xsd", XSD},
	{"editor/config.schema.json", ConfigSchema},
}

// TestGenerated_upToDate: docs/reference.md and the editor schemas are what
// the code's declarations generate now. After changing a built-in, a tag,
// a config key or a trace line, run go test ./internal/reference -update.
func TestGenerated_upToDate(t *testing.T) {
	for _, g := range generated {
		var b bytes.Buffer
		if err := g.gen(&b); err != nil {
			t.Fatalf("%s: %v", g.path, err)
		}
		path := filepath.Join(root, g.path)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/reference -update writes it)", err)
		}
		if !bytes.Equal(have, b.Bytes()) {
			t.Errorf("%s is out of date: run go test ./internal/reference -update", g.path)
		}
	}
}
