// Package tempfile names the temporary files btrun writes before renaming
// them into place (saves, plugin builds) so that the leftovers of a process
// killed mid-write can be told apart and removed: a temporary file for
// PATH is PATH.tmp-PID-RANDOM, where PID is the writing process. A file of
// that form whose process no longer runs is stale.
package tempfile

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Name returns a fresh temporary name for prefix (a path; the file goes in
// the same folder so that a rename can replace prefix's target).
func Name(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// Create creates a new temporary file for prefix, readable and writable by
// its owner only until it is renamed.
func Create(prefix string) (*os.File, error) {
	for range 10 {
		f, err := os.OpenFile(Name(prefix), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !os.IsExist(err) {
			return f, err
		}
	}
	return os.OpenFile(Name(prefix), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// RemoveStale removes the temporary files of prefix left by processes that
// no longer run (killed between writing and renaming), and returns their
// number. Files of live processes, of this one, and anything that is not a
// regular file are left alone; so are names whose process cannot be told.
func RemoveStale(prefix string) int {
	return removeStale(prefix, false)
}

// removeStale removes prefix's temporary files (dirs false) or folders
// (dirs true) whose process no longer runs.
func removeStale(prefix string, dirs bool) int {
	matches, err := filepath.Glob(escapeGlob(prefix) + ".tmp-*")
	if err != nil {
		return 0
	}
	removed := 0
	for _, m := range matches {
		pid, ok := writer(strings.TrimPrefix(m, prefix+".tmp-"))
		if !ok || pid == os.Getpid() || alive(pid) {
			continue
		}
		fi, err := os.Lstat(m)
		switch {
		case err != nil:
		case dirs && fi.IsDir():
			if os.RemoveAll(m) == nil {
				removed++
			}
		case !dirs && fi.Mode().IsRegular():
			if os.Remove(m) == nil {
				removed++
			}
		}
	}
	return removed
}

// writer reads the process id at the start of a temporary name's suffix
// ("1234-9f3a..."; older btruns wrote digits only, which read the same way
// and name no running process).
func writer(suffix string) (int, bool) {
	end := 0
	for end < len(suffix) && suffix[end] >= '0' && suffix[end] <= '9' {
		end++
	}
	if end == 0 || (end < len(suffix) && suffix[end] != '-') {
		return 0, false
	}
	pid, err := strconv.ParseInt(suffix[:end], 10, 64)
	if err != nil || pid <= 0 {
		return int(^uint(0) >> 1), true // too big to be a process id: stale
	}
	return int(pid), true
}

// escapeGlob quotes the glob characters of a path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
