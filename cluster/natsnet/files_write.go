package natsnet

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// WriteFiles writes files (a shard's, ShardLink.Files) below dir, each at
// its path: a shard that has only the btrun binary opens the game from
// there. A path that is not a clean relative slash-separated path inside
// dir (absolute, with "..", empty, or naming a file twice as a folder) is
// refused before anything is written: the files come from the network.
func WriteFiles(dir string, files []File) error {
	for _, f := range files {
		if f.Path == "." || !filepath.IsLocal(filepath.FromSlash(f.Path)) || path.Clean(f.Path) != f.Path || strings.Contains(f.Path, `\`) {
			return fmt.Errorf("%w: the path %q is not a relative path inside the game's folder", ErrFiles, f.Path)
		}
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("%w: writing %s: %w", ErrFiles, f.Path, err)
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Data, mode); err != nil {
			return fmt.Errorf("%w: writing %s: %w", ErrFiles, f.Path, err)
		}
	}
	return nil
}
