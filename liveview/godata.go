package liveview

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// The game's own Go data (runtime.AgentData, ctx.agent of a Go game) and a
// typed Go action's rule state, shown as the view shows Lua tables (the
// format of luabind.Inspect): {"table": [[K, V], ...]}, cut to a budget of
// values, strings cut at luabind.InspectMaxString bytes, cycles marked. The
// Go data is read by reflection, its exported fields by their Go names:
// the view is for people, asked for between steps, never on a step's path.

// goDataView is the agent's Go data for the view, with at most budget
// values; "go" names its type. d is the AgentData, or the struct a
// runtime.DataType made agent data of.
func goDataView(d any, budget int) any {
	in := goInspector{left: budget, open: map[uintptr]bool{}}
	v := in.value(reflect.ValueOf(d), 0)
	if m, ok := v.(map[string]any); ok {
		m["go"] = fmt.Sprintf("%T", d)
		return m
	}
	return map[string]any{"table": [][2]any{{"value", v}}, "go": fmt.Sprintf("%T", d)}
}

type goInspector struct {
	left int
	open map[uintptr]bool // pointers on the path being walked (cycles)
}

func (in *goInspector) value(v reflect.Value, depth int) any {
	in.left--
	if !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if v.Kind() == reflect.Pointer {
			p := v.Pointer()
			if in.open[p] {
				return map[string]any{"cycle": true}
			}
			in.open[p] = true
			defer delete(in.open, p)
		}
		in.left++ // the pointer is not a value of its own
		return in.value(v.Elem(), depth)
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return numberView(v.Float())
	case reflect.String:
		return stringView(v.String())
	case reflect.Struct:
		t := v.Type()
		return in.entries(depth, t.NumField(), func(i int) (any, reflect.Value, bool) {
			f := t.Field(i)
			return f.Name, v.Field(i), f.IsExported()
		})
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		return in.entries(depth, v.Len(), func(i int) (any, reflect.Value, bool) { return float64(i + 1), v.Index(i), true })
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		return in.entries(depth, len(keys), func(i int) (any, reflect.Value, bool) {
			return in.value(keys[i], depth+1), v.MapIndex(keys[i]), true
		})
	}
	return map[string]any{"lua": "Go " + v.Kind().String()}
}

// entries is a table of n entries (each from at(i): key, value, shown),
// cut when the budget or the depth runs out.
func (in *goInspector) entries(depth, n int, at func(i int) (any, reflect.Value, bool)) any {
	rows := [][2]any{}
	if depth >= inspectGoDepth {
		return map[string]any{"table": rows, "more": n}
	}
	for i := range n {
		k, v, shown := at(i)
		if !shown {
			continue
		}
		if in.left <= 0 {
			return map[string]any{"table": rows, "more": n - i}
		}
		in.left--
		rows = append(rows, [2]any{k, in.value(v, depth+1)})
	}
	return map[string]any{"table": rows}
}

// inspectGoDepth bounds nesting, as Lua tables are bounded.
const inspectGoDepth = 32

// valueView is a runtime Value (a typed state) in the same format.
func valueView(v runtime.Value) any {
	switch v.Kind {
	case runtime.BoolValue:
		return v.Bool
	case runtime.NumberValue:
		return numberView(v.Num)
	case runtime.StringValue:
		return stringView(v.Str)
	case runtime.TableValue:
		rows := make([][2]any, 0, len(v.Table))
		for _, f := range v.Table {
			rows = append(rows, [2]any{valueView(f.Key), valueView(f.Val)})
		}
		return map[string]any{"table": rows}
	}
	return nil
}

// numberView is a number as JSON can hold it.
func numberView(f float64) any {
	switch {
	case math.IsNaN(f):
		return map[string]any{"number": "nan"}
	case math.IsInf(f, 1):
		return map[string]any{"number": "inf"}
	case math.IsInf(f, -1):
		return map[string]any{"number": "-inf"}
	}
	return f
}

// stringView is a string, cut as Lua strings are.
func stringView(s string) any {
	if len(s) <= luabind.InspectMaxString {
		return s
	}
	cut := luabind.InspectMaxString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return map[string]any{"string": s[:cut], "length": len(s)}
}
