package liveview

import (
	"bytes"
	"encoding/json"

	"github.com/btrun/btrun/runtime"
)

// dataFromJSON reads a signal's data as the live view's "send a signal"
// form gives it: JSON null or absent (no data), a boolean, a number, a
// string, an array (integer keys from 1, as a Lua list) or an object
// (string keys). It is converted as the config's [[signals]] data is
// (runtime.DataFromDecoded), checked as every signal's data is (depth, size)
// and sorted, so the same JSON always sends the same data.
func dataFromJSON(raw *json.RawMessage) (runtime.Value, error) {
	if raw == nil {
		return runtime.Value{}, nil
	}
	var x any
	if err := json.NewDecoder(bytes.NewReader(*raw)).Decode(&x); err != nil {
		return runtime.Value{}, err
	}
	v, err := runtime.DataFromDecoded(x)
	if err != nil {
		return runtime.Value{}, err
	}
	if err := runtime.CheckData(v); err != nil {
		return runtime.Value{}, err
	}
	runtime.SortData(v)
	return v, nil
}
