package liveview

import (
	"unicode/utf8"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// stimulusView is a stimulus the agent holds: the signal, what it carried
// (null when it carried none), when it arrived, its age, and, for a signal
// declared with expires, the seconds left.
//
// Data is cut as ctx's Lua tables are (luabind.Inspect's shapes): an agent
// may hold hundreds of stimuli of up to 64 KiB each, and a view sent whole
// at every step of a followed agent would take megabytes a step (and the
// game's time to write them). All the stimuli of a view show at most
// inspectBudget values together, a string at most luabind.InspectMaxString
// bytes and all strings together at most stimulusTextBudget; what is cut
// says so ("more": N entries left out; {"string", "length"}).
type stimulusView struct {
	Signal string   `json:"signal"`
	Data   any      `json:"data"`
	At     float64  `json:"at"`
	Age    float64  `json:"age"`
	Left   *float64 `json:"left,omitempty"`
}

// stimulusTextBudget bounds the bytes of strings the stimuli of one view
// show together.
const stimulusTextBudget = 64 << 10

// stimulusViews lists the stimuli the agent holds, by signal name.
func stimulusViews(a *runtime.Agent) []stimulusView {
	t := a.Tree().Tree
	out := []stimulusView{}
	in := dataInspector{left: inspectBudget, text: stimulusTextBudget}
	for _, s := range a.Stimuli(nil) {
		v := stimulusView{Signal: s.Signal, Data: in.value(&s.Data), At: roundTime(s.At), Age: roundTime(max(0, a.Time()-s.At))}
		if i, ok := t.SignalIndex(s.Signal); ok && t.Signals[i].Expires > 0 {
			left := roundTime(s.At + t.Signals[i].Expires - a.Time())
			v.Left = &left
		}
		out = append(out, v)
	}
	return out
}

// dataInspector converts signal data to luabind.Inspect's shapes within a
// budget of values (a table, and each key and value in it, count one
// each) and of string bytes.
type dataInspector struct{ left, text int }

func (in *dataInspector) value(v *runtime.Value) any {
	in.left--
	switch v.Kind {
	case runtime.BoolValue:
		return v.Bool
	case runtime.NumberValue:
		return numberView(v.Num)
	case runtime.StringValue:
		return in.str(v.Str)
	case runtime.TableValue:
		entries := [][2]any{}
		for i := range v.Table {
			if in.left <= 0 {
				return map[string]any{"table": entries, "more": len(v.Table) - i}
			}
			f := &v.Table[i]
			entries = append(entries, [2]any{in.value(&f.Key), in.value(&f.Val)})
		}
		return map[string]any{"table": entries}
	}
	return nil
}

// str is s, or its start ({"string", "length"}) when it is longer than
// luabind.InspectMaxString or than the string bytes left.
func (in *dataInspector) str(s string) any {
	n := min(len(s), luabind.InspectMaxString, max(in.text, 0))
	in.text -= n
	if n == len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return map[string]any{"string": s[:n], "length": len(s)}
}
