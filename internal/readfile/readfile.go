// Package readfile reads the files btrun takes as input (trees, configs,
// scripts, saves, plugin sources) the one way that no file can make hang or
// exhaust memory: only regular files are read, never a device (/dev/zero,
// /dev/urandom), a named pipe or a socket, and never more than a stated
// limit. Every reader of input files in the project goes through Read.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
)

// Sentinel errors: Read's errors wrap one of these (or the error of the
// operating system, such as fs.ErrNotExist).
var (
	// ErrNotRegular marks a path that names something other than a regular
	// file: a folder, a device, a named pipe, a socket.
	ErrNotRegular = errors.New("readfile: not a regular file")
	// ErrTooLarge marks a file larger than the limit its kind has.
	ErrTooLarge = errors.New("readfile: file too large")
)

// Limits of the kinds of files btrun reads. They are far above what a real
// game needs and far below what would hurt the machine.
const (
	TreeLimit   = 32 << 20 // a tree file (subtree files each have their own)
	ScriptLimit = 16 << 20 // a Lua script
	ConfigLimit = 64 << 20 // a game config
	SaveLimit   = 1 << 30  // a save file: thousands of agents with their tables
	SourceLimit = 64 << 20 // a Go source file or go.mod/go.sum of a plugin
)

// Read reads the regular file at path, refusing anything else and anything
// larger than limit bytes. what names the kind of file in the error ("tree
// file", "script"). The file is opened without blocking (a named pipe would
// otherwise block the open until a writer comes) and checked on the open
// descriptor, so a file swapped for a pipe after a check cannot slip through.
func Read(path string, limit int64, what string) ([]byte, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readChecked(f, path, limit, what)
}

// readChecked reads an open file after checking it is a regular file of at
// most limit bytes.
func readChecked(f fs.File, path string, limit int64, what string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(path, fi, what); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, what, limit)
	}
	// The size can change while reading (a file being written): read at most
	// one byte past the limit to notice.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, what, limit)
	}
	return data, nil
}

// CheckRegular returns an ErrNotRegular error when fi is not a regular file.
func CheckRegular(path string, fi fs.FileInfo, what string) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &Error{Path: path, Msg: fmt.Sprintf("%s, not a regular file; a %s must be a regular file", Kind(fi.Mode()), what), Err: ErrNotRegular}
}

func tooLarge(path, what string, limit int64) error {
	return &Error{Path: path, Msg: fmt.Sprintf("larger than %s, the limit for a %s", Size(limit), what), Err: ErrTooLarge}
}

// Error is a file that Read refused. Msg says why without the path ("a
// named pipe, not a regular file; ..."), for callers that name the file
// their own way; Error() reads "PATH: MSG".
type Error struct {
	Path string
	Msg  string
	Err  error // ErrNotRegular or ErrTooLarge
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Reason is what to show after a file's name: Msg for an *Error, the
// operating system's text otherwise.
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
func (e *Error) Unwrap() error { return e.Err }

// Kind names what a file mode is, for messages: "a folder", "a character
// device", "a named pipe", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// Size formats a byte count for people: "32 MB", "1 GB", "1536 bytes".
// KB, MB and GB are powers of 1024.
func Size(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.unit
		}
	}
	if n >= 1<<20 {
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ReadFS is Read for a file of a file system given as an fs.FS (an
// embed.FS, in-memory sources): the same checks, on the FS's name (a
// slash-separated path inside it).
func ReadFS(fsys fs.FS, name string, limit int64, what string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readChecked(f, name, limit, what)
}
