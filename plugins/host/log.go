package host

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// logFunc is Options.Logger: level is "debug", "info", "warn" or "error".
type logFunc func(level, msg string)

// hcLogger routes go-plugin's hclog output to Options.Logger instead of
// go-plugin's default (every trace message on standard error). go-plugin's
// own messages become "debug" (the host reports faults itself, in plain
// words); lines a plugin logs keep their level, prefixed "plugin NAME: ".
type hcLogger struct {
	out    logFunc
	plugin string // the plugin's name, for messages
	exe    string // base name of the executable: go-plugin names the plugin's logger after it
	output bool   // this logger carries the plugin's own output
	args   []any
}

func newHCLogger(out logFunc, plugin, exe string) *hcLogger {
	return &hcLogger{out: out, plugin: plugin, exe: exe}
}

func (l *hcLogger) Log(level hclog.Level, msg string, args ...any) {
	if level <= hclog.Trace && !l.output {
		return
	}
	lv := "debug"
	if l.output {
		switch level {
		case hclog.Info:
			lv = "info"
		case hclog.Warn:
			lv = "warn"
		case hclog.Error:
			lv = "error"
		}
	}
	var b strings.Builder
	b.WriteString("plugin ")
	b.WriteString(l.plugin)
	b.WriteString(": ")
	b.WriteString(msg)
	all := append(append([]any(nil), l.args...), args...)
	for i := 0; i+1 < len(all); i += 2 {
		if k, _ := all[i].(string); k == "timestamp" {
			continue
		}
		fmt.Fprintf(&b, " %v=%v", all[i], all[i+1])
	}
	l.out(lv, b.String())
}

func (l *hcLogger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }
func (l *hcLogger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }
func (l *hcLogger) Info(msg string, args ...any)  { l.Log(hclog.Info, msg, args...) }
func (l *hcLogger) Warn(msg string, args ...any)  { l.Log(hclog.Warn, msg, args...) }
func (l *hcLogger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }
func (l *hcLogger) IsTrace() bool                 { return false }
func (l *hcLogger) IsDebug() bool                 { return true }
func (l *hcLogger) IsInfo() bool                  { return true }
func (l *hcLogger) IsWarn() bool                  { return true }
func (l *hcLogger) IsError() bool                 { return true }
func (l *hcLogger) ImpliedArgs() []any            { return l.args }
func (l *hcLogger) Name() string                  { return l.plugin }
func (l *hcLogger) SetLevel(hclog.Level)          {}
func (l *hcLogger) GetLevel() hclog.Level         { return hclog.Debug }

func (l *hcLogger) With(args ...any) hclog.Logger {
	c := *l
	c.args = append(append([]any(nil), l.args...), args...)
	return &c
}

func (l *hcLogger) Named(name string) hclog.Logger {
	c := *l
	if name == l.exe {
		c.output = true
	}
	return &c
}

func (l *hcLogger) ResetNamed(name string) hclog.Logger { return l.Named(name) }

func (l *hcLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

func (l *hcLogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return &lineWriter{emit: func(s string) { l.Debug(s) }}
}

// lineWriter calls emit once per complete line written to it.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	emit func(line string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimRight(string(w.buf[:i]), "\r"); line != "" {
			w.emit(line)
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 { // a very long line without newline: flush it
		w.emit(string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

// tail keeps the last bytes written to it: a plugin's raw standard error,
// quoted in start-up errors.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lines returns the last n non-empty lines.
func (t *tail) lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, l := range strings.Split(string(t.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}

// maxHeldNotes bounds the lines held between two fixed points: a plugin
// that writes without end while the game waits (paused in the live view)
// costs a count, not memory.
const maxHeldNotes = 1000

// hold is Set.log in step mode: it keeps the line for flushNotes, which the
// stepping goroutine calls at its fixed points (Start, Advance, the end of
// a Flush, Close). A game's logger then writes its output and reads its
// step without a lock, and a line about a failure lands at the same place
// among the game's lines in every run, whichever goroutine saw it first.
func (s *Set) hold(level, msg string) {
	s.notesMu.Lock()
	if len(s.notes) < maxHeldNotes {
		s.notes = append(s.notes, [2]string{level, msg})
	} else {
		s.notesDropped++
	}
	s.notesMu.Unlock()
}

// flushNotes logs the lines hold kept, on the calling goroutine.
func (s *Set) flushNotes() {
	s.notesMu.Lock()
	notes, dropped := s.notes, s.notesDropped
	s.notes, s.notesDropped = nil, 0
	s.notesMu.Unlock()
	for _, n := range notes {
		s.opts.Logger(n[0], n[1])
	}
	if dropped > 0 {
		s.opts.Logger("warn", fmt.Sprintf("host: %d more log lines of plugins were dropped (more than %d between two steps)", dropped, maxHeldNotes))
	}
}
