package liveview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/btrun/btrun/runtime"
)

// dataFromJSON reads a signal's data as the live view's "send a signal"
// form gives it: JSON null or absent (no data), a boolean, a number, a
// string, an array (integer keys from 1, as a Lua list) or an object
// (string keys). It is checked as every signal's data is (depth, size) and
// sorted as a script's table is, so the same JSON always sends the same
// data.
func dataFromJSON(raw *json.RawMessage) (runtime.Value, error) {
	if raw == nil {
		return runtime.Value{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(*raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return runtime.Value{}, err
	}
	v, err := jsonValue(x)
	if err != nil {
		return runtime.Value{}, err
	}
	if err := runtime.CheckData(v); err != nil {
		return runtime.Value{}, err
	}
	runtime.SortData(v)
	return v, nil
}

func jsonValue(x any) (runtime.Value, error) {
	switch x := x.(type) {
	case nil:
		return runtime.Value{}, nil
	case bool:
		return runtime.Value{Kind: runtime.BoolValue, Bool: x}, nil
	case string:
		return runtime.Value{Kind: runtime.StringValue, Str: x}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return runtime.Value{}, fmt.Errorf("number %s is out of range", x)
		}
		return runtime.Value{Kind: runtime.NumberValue, Num: f}, nil
	case []any:
		t := runtime.Value{Kind: runtime.TableValue, Table: make([]runtime.Field, 0, len(x))}
		for i, e := range x {
			v, err := jsonValue(e)
			if err != nil {
				return runtime.Value{}, err
			}
			if v.Kind == runtime.NilValue {
				continue // a Lua list has no nil entries
			}
			t.Table = append(t.Table, runtime.Field{Key: runtime.Value{Kind: runtime.NumberValue, Num: float64(i + 1)}, Val: v})
		}
		return t, nil
	case map[string]any:
		t := runtime.Value{Kind: runtime.TableValue, Table: make([]runtime.Field, 0, len(x))}
		for k, e := range x {
			v, err := jsonValue(e)
			if err != nil {
				return runtime.Value{}, err
			}
			if v.Kind == runtime.NilValue {
				continue // a table has no nil entries
			}
			t.Table = append(t.Table, runtime.Field{Key: runtime.Value{Kind: runtime.StringValue, Str: k}, Val: v})
		}
		return t, nil
	}
	return runtime.Value{}, fmt.Errorf("unexpected JSON value %T", x)
}
