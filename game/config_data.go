package game

import (
	"reflect"
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
	d, err := runtime.DataFromDecoded(v)
	if err == nil {
		err = runtime.CheckData(d)
	}
	if err != nil {
		return strings.TrimPrefix(err.Error(), "runtime: ") + "; data is a number, a string, a boolean, an array or a table of those"
	}
	f.Set(reflect.ValueOf(d))
	return ""
}
