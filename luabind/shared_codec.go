package luabind

import (
	"fmt"
	"math"

	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// The one encoding of the world's game.shared: in a save, in a cluster's
// checkpoint and load, and at each step's start from the conductor to the
// shards. It keeps what SetShared (copyShared) keeps, so that bt.shared
// made of the decoded value is bt.shared made of game.shared itself:
//
//   - tables in iteration order (the save writer's order, removed keys
//     written as nil so that a key set again takes its old place in
//     pairs() of the world's restored game.shared);
//   - keys that are strings, numbers (fractional too) or booleans;
//   - nesting up to maxSharedDepth;
//   - a table reached twice (a shared part, a cycle) written once and
//     referred to after by the order it was first written in: it comes
//     back as one table;
//   - no size limit but the memory the value takes already.
//
// The bytes stand alone (strings inline, each written once and referred
// to after), so that they cross the wire and sit in a save as one blob.
// nil is one byte, never empty bytes: a step start's empty shared data is
// lost on the wire (it means "unchanged"); empty bytes read as nil too.

// The tags of the shared encoding.
const (
	shNil      byte = iota
	shFalse         // false
	shTrue          // true
	shNumber        // 8 bytes: the float64's bits
	shString        // a new string: its length, its bytes
	shStrRef        // a string written before: its index among them
	shTable         // a new table: its entry count, then each key and value
	shTableRef      // a table written before: its index among them
	shInt           // a number that is an integer (not -0) below 2^53: a varint
)

// sharedWriter is one encoding of game.shared.
type sharedWriter struct {
	enc    *savecodec.Encoder
	tables map[*lua.LTable]int
	strs   map[string]int
	bad    string // why the value cannot be encoded (set on the walk with paths)
	paths  bool   // the second walk, naming the value
}

// EncodeShared encodes v, the world's game.shared, as the bytes
// DecodeShared reads (one byte for nil). A value SetShared refuses (a
// function, a table key, tables nested too deep) is an error naming its
// path in game.shared.
func (e *Engine) EncodeShared(v lua.LValue) ([]byte, error) {
	if v == lua.LNil {
		return NilShared(), nil
	}
	// A bare encoder: the shared encoding writes no string table.
	w := sharedWriter{enc: &savecodec.Encoder{}, tables: map[*lua.LTable]int{}, strs: map[string]int{}}
	if w.value(v, "", 0) {
		return w.enc.Bytes(), nil
	}
	// Paths are built only to name what failed: walk again with them.
	w = sharedWriter{enc: &savecodec.Encoder{}, tables: map[*lua.LTable]int{}, strs: map[string]int{}, paths: true}
	w.value(v, "shared", 0)
	return nil, fmt.Errorf("%w: %s", ErrScript, w.bad)
}

func (w *sharedWriter) value(v lua.LValue, path string, depth int) bool {
	enc := w.enc
	switch x := v.(type) {
	case *lua.LNilType:
		enc.Byte(shNil)
	case lua.LBool:
		if x {
			enc.Byte(shTrue)
		} else {
			enc.Byte(shFalse)
		}
	case lua.LNumber:
		if f := float64(x); f == math.Trunc(f) && math.Abs(f) < 1<<53 && (f != 0 || !math.Signbit(f)) {
			enc.Byte(shInt)
			enc.Varint(int64(f))
			break
		}
		enc.Byte(shNumber)
		enc.Fixed64(math.Float64bits(float64(x)))
	case lua.LString:
		if i, ok := w.strs[string(x)]; ok {
			enc.Byte(shStrRef)
			enc.Uvarint(uint64(i))
			break
		}
		w.strs[string(x)] = len(w.strs)
		enc.Byte(shString)
		enc.Blob([]byte(x))
	case *lua.LTable:
		return w.table(x, path, depth)
	default:
		if w.paths {
			w.bad = fmt.Sprintf("game.%s is a %s; shared data holds nil, booleans, numbers, strings and tables of those", path, v.Type())
		}
		return false
	}
	return true
}

func (w *sharedWriter) table(t *lua.LTable, path string, depth int) bool {
	enc := w.enc
	if i, ok := w.tables[t]; ok {
		enc.Byte(shTableRef)
		enc.Uvarint(uint64(i))
		return true
	}
	if depth >= maxSharedDepth {
		if w.paths {
			w.bad = fmt.Sprintf("game.%s nests deeper than %d tables", path, maxSharedDepth)
		}
		return false
	}
	w.tables[t] = len(w.tables)
	enc.Byte(shTable)
	// The count goes first: a first pass counts the entries (writing them
	// apart and copying them after would cost more).
	n := 0
	it := iterateAll(t)
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		switch k.(type) {
		case lua.LString, lua.LNumber, lua.LBool:
			n++
		default:
			if v != lua.LNil {
				if w.paths {
					w.bad = fmt.Sprintf("game.%s has a %s key; shared data holds plain values only", path, k.Type())
				}
				return false
			}
		}
	}
	enc.Uvarint(uint64(n))
	it = iterateAll(t)
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		switch k.(type) {
		case lua.LString, lua.LNumber, lua.LBool:
		default:
			continue // a removed key the encoding cannot name
		}
		w.value(k, "", depth+1)
		sub := ""
		if w.paths {
			sub = childName(path, k)
		}
		if !w.value(v, sub, depth+1) {
			return false
		}
	}
	return true
}

// NilShared is the encoding of nil.
func NilShared() []byte { return []byte{shNil} }

// SharedIsNil reports whether b, bytes EncodeShared wrote, is nil.
func SharedIsNil(b []byte) bool {
	return len(b) == 0 || len(b) == 1 && b[0] == shNil
}

// CheckShared reports whether b is bytes EncodeShared could have written,
// without making a Lua value: a load checks before it changes anything.
func CheckShared(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	r := sharedReader{d: savecodec.NewDecoder(b, nil)}
	r.value(0)
	return r.done()
}

// DecodeShared makes the Lua value of bytes EncodeShared wrote (new
// tables, built in the saved order); nil for empty bytes.
func (e *Engine) DecodeShared(b []byte) (lua.LValue, error) {
	if len(b) == 0 {
		return lua.LNil, nil
	}
	r := sharedReader{d: savecodec.NewDecoder(b, nil), e: e}
	v := r.value(0)
	if err := r.done(); err != nil {
		return lua.LNil, err
	}
	return v, nil
}

// RestoreShared makes game.shared of the world's game table what b (EncodeShared's
// bytes) holds. A table game.shared holds already is refilled in place,
// keeping its identity and its metatable, as ctx.agent is (the world may
// keep it in a local and publish it at every tick); the tables it holds
// are new. Anything else is replaced. b is checked first (CheckShared):
// on an error, game.shared is as it was.
func (e *Engine) RestoreShared(game *lua.LTable, b []byte) error {
	if err := CheckShared(b); err != nil {
		return err
	}
	if t, ok := game.RawGetString("shared").(*lua.LTable); ok && len(b) > 0 && b[0] == shTable {
		r := sharedReader{d: savecodec.NewDecoder(b, nil), e: e, root: t}
		r.value(0)
		return r.done()
	}
	v, err := e.DecodeShared(b)
	if err != nil {
		return err
	}
	game.RawSetString("shared", v)
	return nil
}

// sharedReader reads the shared encoding: into Lua values when e is set,
// else only checking it.
type sharedReader struct {
	d      *savecodec.Decoder
	e      *Engine
	root   *lua.LTable // the first table is this one, emptied (RestoreShared)
	tables []*lua.LTable
	ntab   int // tables read (when checking only)
	strs   []string
}

func (r *sharedReader) done() error {
	if err := r.d.Done(); err != nil {
		return fmt.Errorf("game.shared: %w", err)
	}
	return nil
}

func (r *sharedReader) value(depth int) lua.LValue {
	d := r.d
	switch tag := d.Byte(); tag {
	case shNil:
	case shFalse:
		return lua.LFalse
	case shTrue:
		return lua.LTrue
	case shNumber:
		return lua.LNumber(math.Float64frombits(d.Fixed64()))
	case shInt:
		return lua.LNumber(float64(d.Varint()))
	case shString:
		s := string(d.Blob())
		r.strs = append(r.strs, s)
		return lua.LString(s)
	case shStrRef:
		i := d.Uvarint()
		if i >= uint64(len(r.strs)) {
			d.Fail("string %d of %d", i, len(r.strs))
			return lua.LNil
		}
		return lua.LString(r.strs[i])
	case shTable:
		return r.table(depth)
	case shTableRef:
		i := d.Uvarint()
		if i >= uint64(r.ntab) {
			d.Fail("table %d of %d", i, r.ntab)
			return lua.LNil
		}
		if r.e == nil {
			return lua.LNil
		}
		return r.tables[i]
	default:
		d.Fail("unknown tag %d in game.shared", tag)
	}
	return lua.LNil
}

func (r *sharedReader) table(depth int) lua.LValue {
	d := r.d
	if depth >= maxSharedDepth {
		d.Fail("tables nested deeper than %d", maxSharedDepth)
		return lua.LNil
	}
	n := d.Count(2)
	if d.Err() != nil {
		return lua.LNil
	}
	r.ntab++
	var t *lua.LTable
	if r.e != nil {
		if r.root != nil {
			t, r.root = r.root, nil
			clearTable(t)
		} else {
			t = r.e.L.CreateTable(0, 0) // as copyShared makes its tables
		}
		r.tables = append(r.tables, t)
	}
	for range n {
		k := r.value(depth + 1)
		switch x := k.(type) {
		case lua.LString, lua.LBool:
		case lua.LNumber:
			if math.IsNaN(float64(x)) {
				d.Fail("a NaN key in game.shared")
			}
		default:
			if d.Err() == nil {
				d.Fail("a %s key in game.shared", k.Type())
			}
		}
		v := r.value(depth + 1)
		if d.Err() != nil {
			return lua.LNil
		}
		if t != nil {
			// nil: a removed key (iterateAll), set and removed to take
			// its place in t's key list.
			if v == lua.LNil && t.RawGet(k) == lua.LNil {
				t.RawSet(k, lua.LTrue)
			}
			t.RawSet(k, v)
		}
	}
	if t == nil {
		return lua.LNil
	}
	return t
}
