package game

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/btrun/btrun/runtime"
)

// TraceWriter writes the JSON Lines trace of SPEC §7, keys in the specified
// order. It formats by hand into one reused buffer: the trace is written for
// every agent every step, and encoding/json would allocate per line.
type TraceWriter struct {
	w     *bufio.Writer
	out   *countingWriter // under w: what reached the file, for Offset
	buf   []byte
	lanes []runtime.Lane // scratch: the agent's lanes
	// Explain writes each step's reasons (key "why", trace_why.go).
	Explain bool
}

// NewTraceWriter writes to w; call Flush at the end.
func NewTraceWriter(w io.Writer) *TraceWriter {
	out := &countingWriter{w: w}
	return &TraceWriter{w: bufio.NewWriterSize(out, 64<<10), out: out}
}

// Offset is the number of bytes written so far, buffered ones included:
// where the next line starts.
func (t *TraceWriter) Offset() int64 { return t.out.n + int64(t.w.Buffered()) }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Step writes one agent's step line. runs holds every rule run in the step;
// only the leaf rules are written. A step that was interrupted (the agent's
// LastInterrupt, valid until its next step) adds
// "interrupt":["LABEL","abort"|"timeout"|"preempt"] after "agent". An agent
// whose cursor is a parallel with running lanes adds "lanes" after
// "cursor": the cursors of the running lanes in document order, a lane
// whose cursor is a parallel with running lanes shown as the array of those.
// Takes of gates granted and releases in the step add
// "gates":[["NAME","take"|"release"],...] after "runs".
func (t *TraceWriter) Step(step uint64, time float64, a *runtime.Agent, runs []runtime.RuleRun, st runtime.Status, err error) error {
	rules := a.Tree().Tree.Rules
	b := t.head(step, time, a.ID())
	if in, ok := a.LastInterrupt(); ok {
		b = append(b, `,"interrupt":[`...)
		b = appendString(b, rules[in.Rule].Label)
		b = append(b, ',')
		b = appendString(b, in.Kind.String())
		b = append(b, ']')
	}
	b = append(b, `,"runs":[`...)
	n := 0
	for _, r := range runs {
		if k := rules[r.Rule].Kind; k.IsList() || k == runtime.KindSlot { // a slot runs its tree: not a leaf
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, '[')
		b = appendString(b, rules[r.Rule].Label)
		b = append(b, ',')
		b = appendString(b, r.Status.String())
		b = append(b, ']')
	}
	b = append(b, ']')
	if ev := a.GateEvents(); len(ev) > 0 {
		gates := a.Tree().Tree.Gates
		b = append(b, `,"gates":[`...)
		for i, e := range ev {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendString(b, gates[e.Gate].Name)
			if e.Take {
				b = append(b, `,"take"]`...)
			} else {
				b = append(b, `,"release"]`...)
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"result":`...)
	b = appendString(b, st.String())
	b = append(b, `,"cursor":`...)
	b = appendString(b, a.CursorLabel())
	if t.lanes = a.Lanes(t.lanes[:0]); len(t.lanes) > 0 {
		b = append(b, `,"lanes":`...)
		b, _ = appendLanes(b, rules, t.lanes, 0)
	}
	if err != nil {
		b = append(b, `,"error":`...)
		b = appendString(b, err.Error())
	}
	if t.Explain {
		b = appendWhys(b, rules, a.Whys())
	}
	b = append(b, "}\n"...)
	t.buf = b
	_, werr := t.w.Write(b)
	return werr
}

// appendLanes writes the running lanes of one parallel, lanes[i:] starting
// with its first, as a JSON array (runtime.Agent.Lanes lists each lane's
// own lanes right after it), and returns where the next parallel's lanes
// start.
func appendLanes(b []byte, rules []runtime.Rule, lanes []runtime.Lane, i int) ([]byte, int) {
	parent := lanes[i].Parent
	b = append(b, '[')
	n := 0
	for i < len(lanes) && lanes[i].Parent == parent {
		l := lanes[i]
		i++
		if l.Status != runtime.Running {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		if i < len(lanes) && lanes[i].Parent == l.Slot {
			b, i = appendLanes(b, rules, lanes, i)
		} else {
			b = appendString(b, rules[l.Cursor].Label)
		}
	}
	return append(b, ']'), i
}

// Signal writes the line of a signal the agent received; from is who sent
// it: an agent's id (the agent itself included), "schedule", "world",
// "debugger" or "game" (GoSender). A signal that carried data adds "data"
// (AppendData).
func (t *TraceWriter) Signal(step uint64, time float64, agent, signal, from string, data runtime.Value) error {
	b := t.head(step, time, agent)
	b = append(b, `,"signal":`...)
	b = appendString(b, signal)
	b = append(b, `,"from":`...)
	b = appendString(b, from)
	if data.Kind != runtime.NilValue {
		b = append(b, `,"data":`...)
		b = AppendData(b, data)
	}
	return t.end(b)
}

// HandlerError writes the line of a signal handler's error: the handler of
// the action at rule (a label) failed while the signal on the line before
// was delivered, and the agent was reset.
func (t *TraceWriter) HandlerError(step uint64, time float64, agent, rule string, err error) error {
	b := t.head(step, time, agent)
	b = append(b, `,"handler":`...)
	b = appendString(b, rule)
	b = append(b, `,"error":`...)
	b = appendString(b, err.Error())
	return t.end(b)
}

// Var writes the line of a variable that changed.
func (t *TraceWriter) Var(step uint64, time float64, agent, name string, value bool) error {
	b := t.head(step, time, agent)
	b = append(b, `,"var":`...)
	b = appendString(b, name)
	b = append(b, `,"value":`...)
	b = strconv.AppendBool(b, value)
	return t.end(b)
}

// VarValue writes the line of a number, string or vector variable that
// changed: its new value, a vector as an object {"x","y","z"}.
func (t *TraceWriter) VarValue(step uint64, time float64, agent, name string, v runtime.VarValue) error {
	b := t.head(step, time, agent)
	b = append(b, `,"var":`...)
	b = appendString(b, name)
	b = append(b, `,"value":`...)
	b = AppendData(b, v.Data())
	return t.end(b)
}

// Stamp writes the line of a timestamp that was set (to the line's time)
// or cleared.
func (t *TraceWriter) Stamp(step uint64, time float64, agent, name string, set bool) error {
	b := t.head(step, time, agent)
	b = append(b, `,"stamp":`...)
	b = appendString(b, name)
	b = append(b, `,"set":`...)
	b = strconv.AppendBool(b, set)
	return t.end(b)
}

// Reload writes the line of an agent that a hot reload restarted at the
// root: the rule it sat on (its label in the old version) is gone.
func (t *TraceWriter) Reload(step uint64, time float64, agent, rule string) error {
	b := t.head(step, time, agent)
	b = append(b, `,"reload":"restart","rule":`...)
	b = appendString(b, rule)
	return t.end(b)
}

func (t *TraceWriter) end(b []byte) error {
	b = append(b, "}\n"...)
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

// Flush writes out what is buffered.
func (t *TraceWriter) Flush() error { return t.w.Flush() }

func (t *TraceWriter) head(step uint64, time float64, agent string) []byte {
	b := append(t.buf[:0], `{"step":`...)
	b = strconv.AppendUint(b, step, 10)
	b = append(b, `,"time":`...)
	b = AppendTime(b, time)
	b = append(b, `,"agent":`...)
	return appendString(b, agent)
}

// AppendTime formats a game time for people and traces: s × dt computed in
// floating point shows noise such as 0.30000000000000004, so times are
// rounded to nanoseconds before the shortest exact formatting.
func AppendTime(b []byte, t float64) []byte {
	return strconv.AppendFloat(b, math.Round(t*1e9)/1e9, 'f', -1, 64)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// AppendData appends signal data as JSON: null, true, 4, "text"; a table
// whose keys are 1, 2, ... n as an array, any other as an object (integer
// keys written as their decimal text), in the Value's order (the canonical
// one for data from scripts and configs: integers, then strings). JSON has
// no infinities and no NaN: such a number is written {"number":"inf"}
// ("-inf", "nan"), as the live view shows Lua numbers.
func AppendData(b []byte, v runtime.Value) []byte {
	switch v.Kind {
	case runtime.BoolValue:
		return strconv.AppendBool(b, v.Bool)
	case runtime.NumberValue:
		switch {
		case math.IsNaN(v.Num):
			return append(b, `{"number":"nan"}`...)
		case math.IsInf(v.Num, 1):
			return append(b, `{"number":"inf"}`...)
		case math.IsInf(v.Num, -1):
			return append(b, `{"number":"-inf"}`...)
		}
		return strconv.AppendFloat(b, v.Num, 'g', -1, 64)
	case runtime.StringValue:
		return appendString(b, v.Str)
	case runtime.TableValue:
		if isSequence(v.Table) {
			b = append(b, '[')
			for i, f := range v.Table {
				if i > 0 {
					b = append(b, ',')
				}
				b = AppendData(b, f.Val)
			}
			return append(b, ']')
		}
		b = append(b, '{')
		for i, f := range v.Table {
			if i > 0 {
				b = append(b, ',')
			}
			if f.Key.Kind == runtime.StringValue {
				b = appendString(b, f.Key.Str)
			} else {
				b = append(b, '"')
				b = strconv.AppendFloat(b, f.Key.Num, 'f', -1, 64)
				b = append(b, '"')
			}
			b = append(b, ':')
			b = AppendData(b, f.Val)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// isSequence reports whether a table's keys are 1, 2, ... n in order (n >=
// 1): an array in JSON.
func isSequence(t []runtime.Field) bool {
	for i, f := range t {
		if f.Key.Kind != runtime.NumberValue || f.Key.Num != float64(i+1) {
			return false
		}
	}
	return len(t) > 0
}
