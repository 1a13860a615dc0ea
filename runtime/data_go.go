package runtime

import (
	"fmt"
	"slices"
	"time"
)

// DataFromDecoded converts a decoded document value into signal data: what
// a TOML or JSON decoder gives for `any` (a string, a float64 or int64 number, a
// boolean, map[string]any, []any, []map[string]any; nil). A map keeps its
// keys, sorted, so that the same document always gives the same data; an
// array becomes a table with the keys 1, 2, ...; a nil entry is left out
// (a table has no nil entries), and a nil document is no data. The error
// names the offending part by its path (data.pos.x) and stops at nesting
// deeper than MaxDataDepth before it goes further; the caller says where
// the document is (a config line, a request). The result still has to
// pass CheckData (its size is not checked here). The config's
// [[signals]] data and the live view's signal form use it.
func DataFromDecoded(v any) (Value, error) { return docData(v, 0, "data") }

func docData(v any, depth int, path string) (Value, error) {
	if depth > MaxDataDepth {
		return Value{}, fmt.Errorf("%s: tables nested more than %d deep", path, MaxDataDepth)
	}
	switch x := v.(type) {
	case nil:
		return Value{}, nil
	case string:
		return String(x), nil
	case int64:
		if x > maxDataKey || x < -maxDataKey {
			return Value{}, fmt.Errorf("%s: %d is beyond 2^53, where numbers stop being exact", path, x)
		}
		return Number(float64(x)), nil
	case float64:
		return Number(x), nil
	case bool:
		return Bool(x), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := Value{Kind: TableValue, Table: make([]Field, 0, len(x))}
		for _, k := range keys {
			if err := appendDocEntry(&out, String(k), x[k], depth, path); err != nil {
				return Value{}, err
			}
		}
		return out, nil
	case []map[string]any:
		list := make([]any, len(x))
		for i, m := range x {
			list[i] = m
		}
		return docData(list, depth, path)
	case []any:
		out := Value{Kind: TableValue, Table: make([]Field, 0, len(x))}
		for i, e := range x {
			if err := appendDocEntry(&out, Number(float64(i+1)), e, depth, path); err != nil {
				return Value{}, err
			}
		}
		return out, nil
	case time.Time:
		return Value{}, fmt.Errorf("%s: a date or time cannot be sent", path)
	}
	return Value{}, fmt.Errorf("%s: a value of type %T cannot be sent", path, v)
}

// appendDocEntry converts e and adds it to table t under key k, unless it is
// nil.
func appendDocEntry(t *Value, k Value, e any, depth int, path string) error {
	val, err := docData(e, depth+1, DataPath(path, k))
	if err != nil || val.Kind == NilValue {
		return err
	}
	t.Table = append(t.Table, Field{Key: k, Val: val})
	return nil
}
