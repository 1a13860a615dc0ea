package game

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/btrun/btrun/runtime"
)

// A scheduled signal's data ([[signals]] data = {...}): any TOML value but
// a date or time. A table (an inline table such as { who = "grunt-2", x =
// 4 }) keeps its keys, sorted; an array becomes a table with the keys 1, 2,
// ...; numbers, strings and booleans stay what they are. The result must
// be data a signal can carry (runtime.CheckData: at most 16 tables deep,
// 64 KiB once encoded), else the config is refused at the key's line.

var dataType = reflect.TypeOf(runtime.Value{})

// storeData converts a decoded TOML value into the signal data field f; it
// returns "" or what is wrong.
func storeData(f reflect.Value, v any) string {
	d, err := tomlData(v, 0, "data")
	if err == nil {
		err = runtime.CheckData(d)
	}
	if err != nil {
		return strings.TrimPrefix(err.Error(), "runtime: ") + "; data is a number, a string, a boolean, an array or a table of those"
	}
	f.Set(reflect.ValueOf(d))
	return ""
}

func tomlData(v any, depth int, path string) (runtime.Value, error) {
	if depth > runtime.MaxDataDepth {
		return runtime.Value{}, fmt.Errorf("%s: tables nested more than %d deep", path, runtime.MaxDataDepth)
	}
	switch x := v.(type) {
	case string:
		return runtime.Value{Kind: runtime.StringValue, Str: x}, nil
	case int64:
		if x > 1<<53 || x < -(1<<53) {
			return runtime.Value{}, fmt.Errorf("%s: %d is beyond 2^53, where numbers stop being exact", path, x)
		}
		return runtime.Value{Kind: runtime.NumberValue, Num: float64(x)}, nil
	case float64:
		return runtime.Value{Kind: runtime.NumberValue, Num: x}, nil
	case bool:
		return runtime.Value{Kind: runtime.BoolValue, Bool: x}, nil
	case map[string]any:
		out := runtime.Value{Kind: runtime.TableValue, Table: make([]runtime.Field, 0, len(x))}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			key := runtime.Value{Kind: runtime.StringValue, Str: k}
			val, err := tomlData(x[k], depth+1, runtime.DataPath(path, key))
			if err != nil {
				return runtime.Value{}, err
			}
			out.Table = append(out.Table, runtime.Field{Key: key, Val: val})
		}
		return out, nil
	case []map[string]any:
		list := make([]any, len(x))
		for i, m := range x {
			list[i] = m
		}
		return tomlData(list, depth, path)
	case []any:
		out := runtime.Value{Kind: runtime.TableValue, Table: make([]runtime.Field, 0, len(x))}
		for i, e := range x {
			key := runtime.Value{Kind: runtime.NumberValue, Num: float64(i + 1)}
			val, err := tomlData(e, depth+1, runtime.DataPath(path, key))
			if err != nil {
				return runtime.Value{}, err
			}
			out.Table = append(out.Table, runtime.Field{Key: key, Val: val})
		}
		return out, nil
	}
	return runtime.Value{}, fmt.Errorf("%s: %s cannot be sent", path, valueType(v))
}
