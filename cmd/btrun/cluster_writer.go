package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// runWriter is where a cluster run writes its trace or its output, able to
// go back to a checkpoint: it counts the bytes written, and Rewind cuts a
// file back to a checkpoint's count (the replay writes them again, the
// same) or, on a stream that cannot be cut, drops as many bytes of the
// replay as were written past it.
type runWriter struct {
	f   *os.File // nil: a stream
	buf *bufio.Writer
	n   uint64 // where the run's writing is: bytes written or replayed
	hi  uint64 // bytes on the stream: a replay drops those before it
	off bool   // a replayed start: nothing it writes is the run's
}

// newFileWriter writes to the file at path: from its start, or (keep)
// after what a run before wrote, which Rewind cuts to its checkpoint.
func newFileWriter(path string, keep bool) (*runWriter, error) {
	flags := os.O_RDWR | os.O_CREATE
	if !keep {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	n := uint64(st.Size())
	return &runWriter{f: f, buf: bufio.NewWriter(f), n: n, hi: n}, nil
}

func newStreamWriter(w io.Writer) *runWriter { return &runWriter{buf: bufio.NewWriter(w)} }

func (w *runWriter) Write(p []byte) (int, error) {
	if w.off {
		return len(p), nil
	}
	all := len(p)
	if w.n < w.hi {
		k := min(uint64(len(p)), w.hi-w.n)
		w.n += k
		p = p[k:]
	}
	n, err := w.buf.Write(p)
	w.n += uint64(n)
	w.hi = max(w.hi, w.n)
	return all - len(p) + n, err
}

// Mark makes what was written durable and returns its count, for a
// checkpoint.
func (w *runWriter) Mark() (uint64, error) {
	if err := w.buf.Flush(); err != nil {
		return 0, err
	}
	if w.f != nil {
		if err := w.f.Sync(); err != nil {
			return 0, err
		}
	}
	return w.n, nil
}

// Rewind goes back to a checkpoint's count: what the replay writes next
// is what was written from there.
func (w *runWriter) Rewind(to uint64) error {
	if err := w.buf.Flush(); err != nil {
		return err
	}
	if to > w.hi {
		return fmt.Errorf("%d bytes were written, fewer than the checkpoint's %d", w.hi, to)
	}
	if w.f == nil {
		w.n = to
		return nil
	}
	if err := w.f.Truncate(int64(to)); err != nil {
		return err
	}
	if _, err := w.f.Seek(int64(to), io.SeekStart); err != nil {
		return err
	}
	w.n, w.hi = to, to
	return nil
}

// resumeAt starts a resumed run's writer at a checkpoint's count: a file
// is cut back to it; a stream starts there (what the dead conductor wrote
// to it is gone with it).
func (w *runWriter) resumeAt(to uint64) error {
	if w.f == nil {
		w.n, w.hi = to, to
		return nil
	}
	return w.Rewind(to)
}

// drop forgets what is not written yet, and writes nothing more.
func (w *runWriter) drop() {
	w.buf.Reset(io.Discard)
	w.off = true
}

// Close flushes and closes a file.
func (w *runWriter) Close() error {
	err := w.buf.Flush()
	if w.f != nil {
		if cerr := w.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
