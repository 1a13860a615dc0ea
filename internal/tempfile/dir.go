package tempfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir makes a new folder NAME.tmp-PID-RANDOM in the system's temporary
// folder, readable by its owner only, for the calling process's own use;
// the caller removes it when done. First it removes the folders of the
// same NAME left by processes that no longer run: a process killed with
// SIGKILL, or on a machine that lost power, cannot remove its own, and a
// shard's folder holds a copy of the game's files (plugins included: tens
// of megabytes each), so without this a machine whose shards are killed
// now and then fills its disk.
func Dir(name string) (string, error) {
	return DirIn(os.TempDir(), name)
}

// DirIn is Dir in the folder base instead of the system's temporary folder.
func DirIn(base, name string) (string, error) {
	prefix := filepath.Join(base, name)
	RemoveStaleDirs(prefix)
	var err error
	for range 10 {
		dir := Name(prefix)
		if err = os.Mkdir(dir, 0o700); err == nil {
			return dir, nil
		} else if !os.IsExist(err) {
			break
		}
	}
	return "", fmt.Errorf("temporary folder %s: %w", prefix, err)
}

// RemoveStaleDirs removes, with everything in them, the folders of prefix
// that Dir made for processes that no longer run, and returns their
// number. Folders of live processes and of this one are left alone, and
// so is anything that is not a folder.
func RemoveStaleDirs(prefix string) int {
	return removeStale(prefix, true)
}
