package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Signal data. A signal may carry one Value from its sender to its
// receivers: nil (no data), a boolean, a number, a string, or a table of
// those with string or integer keys. It is bounded so that a script cannot
// make every receiver hold (and every trace line, save and plugin call
// carry) more than a message's worth: tables nest at most MaxDataDepth
// deep, and the whole value takes at most MaxDataSize bytes once encoded
// (DataSize). A value outside those bounds is refused at the sender, with
// the path of the offending part; it is never cut or dropped.
//
// Data is immutable once sent: the runtime keeps the Value it is given
// (one copy for every receiver of a broadcast), and hosts make their own
// values from it (luabind builds a new Lua table at each read), so no
// receiver sees another's changes and no Lua table crosses Lua states.

// MaxDataDepth is how deep tables may nest in signal data: a table of
// scalars is 1 deep.
const MaxDataDepth = 16

// MaxDataSize bounds the encoded size of signal data (DataSize), in bytes.
const MaxDataSize = 64 << 10

// maxDataKey bounds an integer key: integers up to 2^53 are exact in a
// float64, the number type of Lua and of Value.
const maxDataKey = 1 << 53

// ErrData marks signal data that cannot be sent: a kind a message cannot
// hold, a bad key, nesting too deep, too big.
var ErrData = errors.New("runtime: signal data cannot be sent")

// CheckData reports whether v can be sent as a signal's data, with an
// error (wrapping ErrData) that names the offending part by its path, such
// as data.pos.x. It reads v without changing or copying it, and allocates
// nothing unless it fails.
func CheckData(v Value) error {
	switch v.Kind {
	case NilValue, BoolValue, NumberValue:
		return nil // the common cases, at once
	}
	c := dataChecker{}
	c.value(v, 0)
	if c.err == nil && c.size > MaxDataSize {
		c.err = fmt.Errorf("%w: %d bytes once encoded; signal data may take at most %d (%d KiB)", ErrData, c.size, MaxDataSize, MaxDataSize>>10)
	}
	return c.err
}

type dataChecker struct {
	size int
	err  error
	keys [MaxDataDepth + 1]Value // the keys down to the value being checked
}

// fail records the first error, at the path of the first depth keys.
func (c *dataChecker) fail(depth int, format string, args ...any) {
	if c.err != nil {
		return
	}
	path := "data"
	for _, k := range c.keys[:depth] {
		path = DataPath(path, k)
	}
	c.err = fmt.Errorf("%w: %s: %s", ErrData, path, fmt.Sprintf(format, args...))
}

func (c *dataChecker) value(v Value, depth int) {
	if c.err != nil || c.size > MaxDataSize { // too big: it is, whatever follows
		return
	}
	c.size += dataScalarSize(v)
	switch v.Kind {
	case NilValue, BoolValue, NumberValue, StringValue:
		return
	case TableValue:
	default:
		c.fail(depth, "value of unknown kind %d", v.Kind)
		return
	}
	if depth >= MaxDataDepth {
		c.fail(depth, "tables nested more than %d deep", MaxDataDepth)
		return
	}
	var seen map[dataKey]bool // keys of a big table (a small one is searched)
	if len(v.Table) > 16 {
		seen = make(map[dataKey]bool, len(v.Table))
	}
	for i, f := range v.Table {
		if err := DataKeyError(f.Key); err != "" {
			c.fail(depth, "%s", err)
			return
		}
		if repeated(v.Table[:i], f.Key, seen) {
			c.fail(depth, "key %s appears twice", KeyText(f.Key))
			return
		}
		c.keys[depth] = f.Key
		if f.Val.Kind == NilValue {
			c.fail(depth+1, "a table entry cannot hold nil")
			return
		}
		c.size += dataScalarSize(f.Key)
		c.value(f.Val, depth+1)
	}
}

// DataKeyError says why k cannot be a key of signal data ("" when it can):
// keys are strings or integers (|k| <= 2^53).
func DataKeyError(k Value) string {
	switch k.Kind {
	case StringValue:
		return ""
	case NumberValue:
		if k.Num == math.Trunc(k.Num) && math.Abs(k.Num) <= maxDataKey {
			return ""
		}
		return fmt.Sprintf("key %s is not an integer; keys are strings or integers", KeyText(k))
	}
	return fmt.Sprintf("a %s key; keys are strings or integers", kindName(k.Kind))
}

// repeated reports whether key k is among the keys before it: in seen (which
// it adds k to) when there is one, else in before.
func repeated(before []Field, k Value, seen map[dataKey]bool) bool {
	if seen != nil {
		dk := dataKey{k.Kind, k.Num, k.Str}
		if seen[dk] {
			return true
		}
		seen[dk] = true
		return false
	}
	for _, g := range before {
		if sameKey(g.Key, k) {
			return true
		}
	}
	return false
}

// dataKey is a key of data (a number or a string) as a map key.
type dataKey struct {
	kind ValueKind
	num  float64
	str  string
}

func sameKey(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == StringValue {
		return a.Str == b.Str
	}
	return a.Num == b.Num
}

// DataPath is path extended by key k: path.name for a key that reads as a
// name, path[k] otherwise.
func DataPath(path string, k Value) string {
	if k.Kind == StringValue && isIdent(k.Str) {
		return path + "." + k.Str
	}
	return path + "[" + KeyText(k) + "]"
}

// KeyText writes a key as a script would: a number plainly, a string
// quoted.
func KeyText(k Value) string {
	switch k.Kind {
	case StringValue:
		return strconv.Quote(k.Str)
	case NumberValue:
		return strconv.FormatFloat(k.Num, 'g', -1, 64)
	}
	return kindName(k.Kind)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func kindName(k ValueKind) string {
	switch k {
	case NilValue:
		return "nil"
	case BoolValue:
		return "boolean"
	case NumberValue:
		return "number"
	case StringValue:
		return "string"
	case TableValue:
		return "table"
	}
	return "value of kind " + strconv.Itoa(int(k))
}

// DataSize is the number of bytes v takes once encoded as a save and the
// plugin wire write it, strings inline: a tag byte per value, a number as a
// varint (integers) or 8 bytes, a string's length and bytes, a table's
// entry count. MaxDataSize bounds it.
func DataSize(v Value) int {
	n := dataScalarSize(v)
	for _, f := range v.Table {
		n += DataSize(f.Key) + DataSize(f.Val)
	}
	return n
}

// dataScalarSize is DataSize of v without its entries.
func dataScalarSize(v Value) int {
	switch v.Kind {
	case NumberValue:
		if i := int64(v.Num); float64(i) == v.Num && math.Abs(v.Num) < 1<<53 && !(v.Num == 0 && math.Signbit(v.Num)) {
			var b [binary.MaxVarintLen64]byte
			return 1 + binary.PutVarint(b[:], i)
		}
		return 9
	case StringValue:
		return 1 + uvarintLen(uint64(len(v.Str))) + len(v.Str)
	case TableValue:
		return 1 + uvarintLen(uint64(len(v.Table)))
	}
	return 1
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// SortData puts the entries of every table of v in the canonical order:
// integer keys ascending, then string keys in byte order. Hosts that build
// data from an unordered source (a Go map, a TOML table) sort it so that
// the same data is always the same Value (and the same trace line and save).
func SortData(v Value) {
	if v.Kind != TableValue {
		return
	}
	slices.SortStableFunc(v.Table, func(a, b Field) int { return compareKeys(a.Key, b.Key) })
	for _, f := range v.Table {
		SortData(f.Val)
	}
}

func compareKeys(a, b Value) int {
	switch {
	case a.Kind == NumberValue && b.Kind == NumberValue:
		switch {
		case a.Num < b.Num:
			return -1
		case a.Num > b.Num:
			return 1
		}
		return 0
	case a.Kind == NumberValue:
		return -1
	case b.Kind == NumberValue:
		return 1
	}
	return strings.Compare(a.Str, b.Str)
}

// DataText writes data briefly for people (a log line, an error): JSON-like,
// cut after max bytes.
func DataText(v Value, max int) string {
	var b strings.Builder
	writeDataText(&b, v, max)
	if b.Len() > max {
		return b.String()[:max] + "..."
	}
	return b.String()
}

func writeDataText(b *strings.Builder, v Value, max int) {
	if b.Len() > max {
		return
	}
	switch v.Kind {
	case NilValue:
		b.WriteString("nil")
	case BoolValue:
		b.WriteString(strconv.FormatBool(v.Bool))
	case NumberValue:
		b.WriteString(strconv.FormatFloat(v.Num, 'g', -1, 64))
	case StringValue:
		b.WriteString(strconv.Quote(v.Str))
	case TableValue:
		b.WriteByte('{')
		for i, f := range v.Table {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.Key.Kind == StringValue && isIdent(f.Key.Str) {
				b.WriteString(f.Key.Str)
			} else {
				b.WriteString("[" + KeyText(f.Key) + "]")
			}
			b.WriteString(" = ")
			writeDataText(b, f.Val, max)
		}
		b.WriteByte('}')
	}
}
