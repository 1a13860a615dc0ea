package luabind

import (
	"encoding/binary"
	"fmt"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Signal data between Lua and the runtime (runtime/data.go). A Lua value a
// script sends (ctx:send, ctx:signal, bt.broadcast) becomes a
// runtime.Value at once: nil, a boolean, a number, a string, or a table of
// those with string or integer keys, at most runtime.MaxDataDepth tables
// deep and runtime.MaxDataSize bytes once encoded. Anything else (a
// function, a userdata, a table inside itself, a float key, too deep, too
// big) raises an error at the sending line that names the part, such as
// data.target.onHit. A table's entries are put in the canonical order
// (integer keys ascending, then string keys), so the same data sent twice is
// the same Value, whatever order the table was filled in.
//
// A receiver reads a Lua value made afresh from the Value (dataValue): its
// own copy, which it may change without touching the sender's table or
// another receiver's, and which never crosses from one Lua state to another
// (with several workers, an agent's Lua state is its worker's).

// DataOf converts a Lua value to signal data, as ctx:send does: the error
// names the part that cannot be sent by its path from "data" (for a host's
// own sending functions, such as btrun's game.signal).
func DataOf(v lua.LValue) (runtime.Value, error) { return toData(v) }

// toData converts a value a script sends as a signal's data. The error
// message names the offending part by its path from "data".
func toData(v lua.LValue) (runtime.Value, error) {
	c := dataConv{open: map[*lua.LTable]bool{}}
	out := c.value(v, 0, "data")
	if c.err != nil {
		return runtime.Value{}, c.err
	}
	if c.size > runtime.MaxDataSize {
		return runtime.Value{}, fmt.Errorf("data takes more than %d bytes (%d KiB) once encoded; signal data is a message, not a store: send what the receivers need", runtime.MaxDataSize, runtime.MaxDataSize>>10)
	}
	return out, nil
}

type dataConv struct {
	open map[*lua.LTable]bool // the tables on the path being converted
	size int                  // bytes so far (runtime.DataSize)
	err  error
}

func (c *dataConv) fail(path, format string, args ...any) runtime.Value {
	if c.err == nil {
		c.err = fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	return runtime.Value{}
}

const dataKinds = "data is nil, a boolean, a number, a string, or a table of those with string or integer keys"

func (c *dataConv) value(v lua.LValue, depth int, path string) runtime.Value {
	if c.err != nil || c.size > runtime.MaxDataSize {
		return runtime.Value{} // too big already: the walk stops here
	}
	var out runtime.Value
	switch v := v.(type) {
	case *lua.LNilType:
	case lua.LBool:
		out = runtime.Value{Kind: runtime.BoolValue, Bool: bool(v)}
	case lua.LNumber:
		out = runtime.Value{Kind: runtime.NumberValue, Num: float64(v)}
	case lua.LString:
		out = runtime.Value{Kind: runtime.StringValue, Str: string(v)}
	case *lua.LTable:
		return c.table(v, depth, path)
	default:
		return c.fail(path, "a %s cannot be sent; %s", v.Type(), dataKinds)
	}
	c.size += runtime.DataSize(out)
	return out
}

func (c *dataConv) table(t *lua.LTable, depth int, path string) runtime.Value {
	if c.open[t] {
		return c.fail(path, "the table is inside itself (a cycle); %s", dataKinds)
	}
	if depth >= runtime.MaxDataDepth {
		return c.fail(path, "tables nested more than %d deep; signal data nests at most %d tables", runtime.MaxDataDepth, runtime.MaxDataDepth)
	}
	c.open[t] = true
	defer delete(c.open, t)
	out := runtime.Value{Kind: runtime.TableValue}
	it := iterate(t)
	for k, v := it.next(); k != lua.LNil && c.err == nil; k, v = it.next() {
		var key runtime.Value
		switch k := k.(type) {
		case lua.LString:
			key = runtime.Value{Kind: runtime.StringValue, Str: string(k)}
		case lua.LNumber:
			key = runtime.Value{Kind: runtime.NumberValue, Num: float64(k)}
		default:
			return c.fail(path, "a %s key cannot be sent; keys are strings or integers", k.Type())
		}
		if msg := runtime.DataKeyError(key); msg != "" {
			return c.fail(path, "%s", msg)
		}
		c.size += runtime.DataSize(key)
		val := c.value(v, depth+1, runtime.DataPath(path, key))
		out.Table = append(out.Table, runtime.Field{Key: key, Val: val})
	}
	if c.err != nil {
		return runtime.Value{}
	}
	var count [binary.MaxVarintLen64]byte
	c.size += 1 + binary.PutUvarint(count[:], uint64(len(out.Table))) // the tag and the entry count
	runtime.SortData(out)
	return out
}

// dataValue makes a Lua value of signal data: a new table for a table,
// whose entries are set in the Value's order.
func (e *Engine) dataValue(v runtime.Value) lua.LValue {
	switch v.Kind {
	case runtime.BoolValue:
		return lua.LBool(v.Bool)
	case runtime.NumberValue:
		return e.nums.box(v.Num)
	case runtime.StringValue:
		return lua.LString(v.Str)
	case runtime.TableValue:
		arr := 0
		for _, f := range v.Table {
			if f.Key.Kind == runtime.NumberValue && f.Key.Num == float64(arr+1) {
				arr++
			}
		}
		t := e.L.CreateTable(arr, len(v.Table)-arr)
		for _, f := range v.Table {
			t.RawSet(e.dataValue(f.Key), e.dataValue(f.Val))
		}
		return t
	}
	return lua.LNil
}

// dataArg reads an optional data argument of a Go function called from Lua
// (argument n), raising a Lua error at the caller's line when it cannot be
// sent. what is the call, for the message ("ctx:send(\"x\", \"Hurt\", data)").
func dataArg(L *lua.LState, n int, what string) runtime.Value {
	if L.GetTop() < n {
		return runtime.Value{}
	}
	v, err := toData(L.Get(n))
	if err != nil {
		L.RaiseError("%s: %s", what, err.Error())
	}
	return v
}
