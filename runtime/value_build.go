package runtime

import (
	"fmt"
	"math"
)

// Building and reading data without Value literals: signal data sent from
// Go, a typed handler reading what a signal carried, a table field of
// agent data.
//
//	data := runtime.Table("x", 5, "who", "grunt", "pos", runtime.List(1, 2))
//	...
//	x := data.Get("x").Num()            // 5
//	y := data.Get("pos").Index(2).Num() // 2
//	who, ok := data.Get("who").Text()   // "grunt", true
//
// A missing key or a value of another kind reads as the zero value (ok is
// false where asked), so a handler reads what it expects in one line.

// Table is a table Value of key and value pairs, in the order given: each
// key a string or an integer, each value a number (any integer or float
// type), a string, a boolean, a Value (another Table or List) or nil, which
// leaves the entry out. It is for Go code's literal data: a key or value
// of another type, or an odd count, is a programmer's mistake and panics.
// A value sent as signal data is still checked as every signal's data is
// (CheckData: a repeated key, depth, size).
func Table(kv ...any) Value {
	if len(kv)%2 != 0 {
		panic(fmt.Sprintf("runtime.Table: %d arguments; keys and values come in pairs", len(kv)))
	}
	out := Value{Kind: TableValue, Table: make([]Field, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		k, ok := ScalarValue(kv[i])
		if !ok || (k.Kind != StringValue && (k.Kind != NumberValue || k.Num != math.Trunc(k.Num))) {
			panic(fmt.Sprintf("runtime.Table: key %d is a %T; keys are strings or integers", i/2+1, kv[i]))
		}
		v := buildValue("Table", kv[i+1])
		if v.Kind != NilValue {
			out.Table = append(out.Table, Field{k, v})
		}
	}
	return out
}

// List is a table Value with the keys 1, 2, ... for the values given
// (which Table takes; a nil leaves a hole).
func List(xs ...any) Value {
	out := Value{Kind: TableValue, Table: make([]Field, 0, len(xs))}
	for i, x := range xs {
		if v := buildValue("List", x); v.Kind != NilValue {
			out.Table = append(out.Table, Field{Number(float64(i + 1)), v})
		}
	}
	return out
}

func buildValue(fn string, x any) Value {
	if v, ok := x.(Value); ok {
		return v
	}
	if v, ok := ScalarValue(x); ok {
		return v
	}
	panic(fmt.Sprintf("runtime.%s: a value of type %T; data holds numbers, strings, booleans and tables", fn, x))
}

// Entry is what Value.Get and Value.Index find: a value, or nothing. Its
// readers give the zero value for nothing or a value of another kind.
type Entry struct {
	v  Value
	ok bool
}

// Get is the entry of table v under the string key; nothing when v is not
// a table or has no such key.
func (v Value) Get(key string) Entry {
	if v.Kind == TableValue {
		for _, f := range v.Table {
			if f.Key.Kind == StringValue && f.Key.Str == key {
				return Entry{f.Val, true}
			}
		}
	}
	return Entry{}
}

// Index is the entry of table v under the integer key i (a list's i-th
// value, from 1).
func (v Value) Index(i int) Entry {
	if v.Kind == TableValue {
		for _, f := range v.Table {
			if f.Key.Kind == NumberValue && f.Key.Num == float64(i) {
				return Entry{f.Val, true}
			}
		}
	}
	return Entry{}
}

// Len is the number of entries of table v (0 for any other value).
func (v Value) Len() int { return len(v.Table) }

// Get is the entry's Value.Get, for nested tables.
func (e Entry) Get(key string) Entry { return e.v.Get(key) }

// Index is the entry's Value.Index, for nested tables.
func (e Entry) Index(i int) Entry { return e.v.Index(i) }

// Found reports whether there is an entry.
func (e Entry) Found() bool { return e.ok }

// Value is the entry's Value (NilValue for nothing).
func (e Entry) Value() Value { return e.v }

// Num is the entry's number, or 0.
func (e Entry) Num() float64 { x, _ := e.Number(); return x }

// Number is the entry's number and true, or 0 and false.
func (e Entry) Number() (float64, bool) { return e.v.Num, e.v.Kind == NumberValue }

// Int is the entry's number as an int (truncated), or 0.
func (e Entry) Int() int { return int(e.Num()) }

// Str is the entry's string, or "".
func (e Entry) Str() string { s, _ := e.Text(); return s }

// Text is the entry's string and true, or "" and false.
func (e Entry) Text() (string, bool) { return e.v.Str, e.v.Kind == StringValue }

// Bool is the entry's boolean, or false.
func (e Entry) Bool() bool { return e.v.Kind == BoolValue && e.v.Bool }

// Len is the number of entries of the entry's table (0 for other values).
func (e Entry) Len() int { return e.v.Len() }
