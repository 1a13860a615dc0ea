package host

import (
	"fmt"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Signal data and stimuli between the runtime and the wire: a plugin's
// effects send data (the runtime checks it as it checks a script's), and
// an action's calls carry the agent's stimuli of the signals it declares
// (sdk.Action.Stimuli).

// dataToSDK converts data for the wire.
func dataToSDK(v runtime.Value) sdk.Data {
	d := sdk.Data{Kind: sdk.DataKind(v.Kind), Bool: v.Bool, Num: v.Num, Str: v.Str}
	if len(v.Table) > 0 {
		d.Table = make([]sdk.DataEntry, len(v.Table))
		for i, f := range v.Table {
			d.Table[i] = sdk.DataEntry{Key: dataToSDK(f.Key), Value: dataToSDK(f.Val)}
		}
	}
	return d
}

// dataFromSDK converts data a plugin sent; Agent.Send checks the rest (its
// keys, its depth, its size).
func dataFromSDK(d sdk.Data) (runtime.Value, error) {
	if d.Kind > sdk.DataTable {
		return runtime.Value{}, fmt.Errorf("data of unknown kind %d", d.Kind)
	}
	v := runtime.Value{Kind: runtime.ValueKind(d.Kind), Bool: d.Bool, Num: d.Num, Str: d.Str}
	if len(d.Table) > 0 {
		v.Table = make([]runtime.Field, len(d.Table))
		for i, e := range d.Table {
			k, err := dataFromSDK(e.Key)
			if err != nil {
				return runtime.Value{}, err
			}
			x, err := dataFromSDK(e.Value)
			if err != nil {
				return runtime.Value{}, err
			}
			v.Table[i] = runtime.Field{Key: k, Val: x}
		}
	}
	return v, nil
}

// readStimuli appends the agent's stimuli of the site's declared signals
// that it holds to out, in declaration order.
func (s *site) readStimuli(a *runtime.Agent, out []sdk.Stimulus) []sdk.Stimulus {
	for _, name := range s.stimuli {
		if data, age, ok := a.Stimulus(name); ok {
			out = append(out, sdk.Stimulus{Signal: name, Data: dataToSDK(data), Age: age})
		}
	}
	return out
}
