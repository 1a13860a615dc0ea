package runtime

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// signalDataPrefix begins the parameters of bt.signal.send that make its
// data.
const signalDataPrefix = "signal.data."

// paramData builds a data Value from the parameters whose names begin with
// prefix: each is one entry of a table, the rest of its name the key, dots
// nesting tables and a key of digits an integer key. A value that reads as
// a finite number is a number, true and false are booleans, anything else
// is a string. No such parameter: no data. The Value is checked as every
// signal's data is, and sorted as a script's table is, so the same
// parameters always make the same data. It is built once, at bind time.
func paramData(p Params, prefix string) (Value, error) {
	var root Value
	for _, q := range p {
		key, ok := strings.CutPrefix(q.Name, prefix)
		if !ok {
			continue
		}
		if root.Kind == NilValue {
			root = Value{Kind: TableValue}
		}
		if err := setDataPath(&root, strings.Split(key, "."), paramScalar(q.Value)); err != nil {
			return Value{}, fmt.Errorf("parameter %q: %w", q.Name, err)
		}
	}
	if root.Kind == NilValue {
		return root, nil
	}
	if err := CheckData(root); err != nil {
		return Value{}, fmt.Errorf("parameters %s...: %w", prefix, err)
	}
	SortData(root)
	return root, nil
}

// setDataPath stores v at path in the table t, making the tables on the way.
func setDataPath(t *Value, path []string, v Value) error {
	for i, seg := range path {
		if seg == "" {
			return fmt.Errorf("a key is empty (two dots, or a dot at the end)")
		}
		k := String(seg)
		if n, err := strconv.ParseUint(seg, 10, 53); err == nil && (seg == "0" || seg[0] != '0') {
			k = Number(float64(n))
		}
		j := -1
		for f := range t.Table {
			if sameKey(t.Table[f].Key, k) {
				j = f
				break
			}
		}
		last := i == len(path)-1
		switch {
		case j < 0 && last:
			t.Table = append(t.Table, Field{Key: k, Val: v})
			return nil
		case j < 0:
			t.Table = append(t.Table, Field{Key: k, Val: Value{Kind: TableValue}})
			j = len(t.Table) - 1
		case last || t.Table[j].Val.Kind != TableValue:
			return fmt.Errorf("key %s is given both a value and entries of its own", strings.Join(path[:i+1], "."))
		}
		t = &t.Table[j].Val
	}
	return nil
}

// paramScalar reads a parameter's text as a data value.
func paramScalar(s string) Value {
	switch s {
	case "true":
		return Bool(true)
	case "false":
		return Bool(false)
	}
	if t := strings.TrimSpace(s); t != "" {
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return Number(f)
		}
	}
	return String(s)
}
