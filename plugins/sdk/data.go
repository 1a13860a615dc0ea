package sdk

import (
	"fmt"
	"math"
	"reflect"
	"sort"
)

// Signal data as a plugin sees it: what a signal carries (Call.SendData
// sends it; Call.Stimulus reads what the agent received). It is nil, a
// boolean, a number, a string, or a table of those whose keys are strings
// or integers, at most 16 tables deep and 64 KiB once encoded (the host
// refuses more, failing the call with the action's rule named).

// DataKind is the kind of a Data.
type DataKind uint8

const (
	DataNil DataKind = iota
	DataBool
	DataNumber
	DataString
	DataTable
)

// Data is a signal's data.
type Data struct {
	Kind  DataKind
	Bool  bool
	Num   float64
	Str   string
	Table []DataEntry // in order: integer keys ascending, then string keys, for data from scripts and configs
}

// DataEntry is one entry of a table Data.
type DataEntry struct {
	Key, Value Data
}

// Stimulus is the agent's stimulus of a signal: the data of the last such
// signal it received (Kind DataNil when it carried none) and its age in
// seconds.
type Stimulus struct {
	Signal string
	Data   Data
	Age    float64
}

// maxDataDepth bounds the tables DataOf follows (the host allows 16).
const maxDataDepth = 16

// DataOf converts a Go value to Data: nil, a bool, any integer or float
// type, a string, a slice or array (a table with the keys 1, 2, ...), a map
// with string or integer keys (its keys sorted: integers, then strings), or
// a Data. Anything else, or tables nested more than 16 deep, is an error.
func DataOf(v any) (Data, error) { return dataOf(reflect.ValueOf(v), 0) }

func dataOf(v reflect.Value, depth int) (Data, error) {
	if !v.IsValid() {
		return Data{}, nil
	}
	if d, ok := v.Interface().(Data); ok {
		return d, nil
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return Data{}, nil
		}
		return dataOf(v.Elem(), depth)
	case reflect.Bool:
		return Data{Kind: DataBool, Bool: v.Bool()}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Data{Kind: DataNumber, Num: float64(v.Int())}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Data{Kind: DataNumber, Num: float64(v.Uint())}, nil
	case reflect.Float32, reflect.Float64:
		return Data{Kind: DataNumber, Num: v.Float()}, nil
	case reflect.String:
		return Data{Kind: DataString, Str: v.String()}, nil
	case reflect.Slice, reflect.Array, reflect.Map:
	default:
		return Data{}, fmt.Errorf("sdk: signal data holds nil, booleans, numbers, strings and tables of those, not %s", v.Type())
	}
	if depth >= maxDataDepth {
		return Data{}, fmt.Errorf("sdk: signal data nests tables more than %d deep", maxDataDepth)
	}
	out := Data{Kind: DataTable}
	if v.Kind() != reflect.Map {
		for i := range v.Len() {
			e, err := dataOf(v.Index(i), depth+1)
			if err != nil {
				return Data{}, err
			}
			out.Table = append(out.Table, DataEntry{Key: Data{Kind: DataNumber, Num: float64(i + 1)}, Value: e})
		}
		return out, nil
	}
	iter := v.MapRange()
	for iter.Next() {
		k, err := dataOf(iter.Key(), depth+1)
		if err != nil {
			return Data{}, err
		}
		if k.Kind != DataString && (k.Kind != DataNumber || k.Num != math.Trunc(k.Num)) {
			return Data{}, fmt.Errorf("sdk: signal data's keys are strings or integers, not %v", iter.Key().Interface())
		}
		e, err := dataOf(iter.Value(), depth+1)
		if err != nil {
			return Data{}, err
		}
		out.Table = append(out.Table, DataEntry{Key: k, Value: e})
	}
	sort.Slice(out.Table, func(i, j int) bool {
		a, b := out.Table[i].Key, out.Table[j].Key
		if a.Kind != b.Kind {
			return a.Kind == DataNumber
		}
		if a.Kind == DataNumber {
			return a.Num < b.Num
		}
		return a.Str < b.Str
	})
	return out, nil
}

// Any converts the data to plain Go values: nil, bool, float64, string; a
// table whose keys are 1, 2, ... n becomes a []any, any other a
// map[string]any (integer keys written as decimal text).
func (d Data) Any() any {
	switch d.Kind {
	case DataBool:
		return d.Bool
	case DataNumber:
		return d.Num
	case DataString:
		return d.Str
	case DataTable:
		seq := true
		for i, e := range d.Table {
			if e.Key.Kind != DataNumber || e.Key.Num != float64(i+1) {
				seq = false
				break
			}
		}
		if seq && len(d.Table) > 0 {
			out := make([]any, len(d.Table))
			for i, e := range d.Table {
				out[i] = e.Value.Any()
			}
			return out
		}
		out := make(map[string]any, len(d.Table))
		for _, e := range d.Table {
			k := e.Key.Str
			if e.Key.Kind == DataNumber {
				k = fmt.Sprint(e.Key.Num)
			}
			out[k] = e.Value.Any()
		}
		return out
	}
	return nil
}

// Field returns the value at string key k of a table (false when d is not
// a table or has no such key).
func (d Data) Field(k string) (Data, bool) {
	for _, e := range d.Table {
		if e.Key.Kind == DataString && e.Key.Str == k {
			return e.Value, true
		}
	}
	return Data{}, false
}

// Index returns the value at integer key i of a table (1 is the first of
// a list).
func (d Data) Index(i int) (Data, bool) {
	for _, e := range d.Table {
		if e.Key.Kind == DataNumber && e.Key.Num == float64(i) {
			return e.Value, true
		}
	}
	return Data{}, false
}
