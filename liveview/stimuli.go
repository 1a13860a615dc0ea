package liveview

import (
	"encoding/json"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// stimulusView is a stimulus the agent holds: the signal, what it carried
// (as the trace writes data; null when it carried none), when it arrived,
// its age, and, for a signal declared with expires, the seconds left.
type stimulusView struct {
	Signal string          `json:"signal"`
	Data   json.RawMessage `json:"data"`
	At     float64         `json:"at"`
	Age    float64         `json:"age"`
	Left   *float64        `json:"left,omitempty"`
}

// stimulusViews lists the stimuli the agent holds, by signal name.
func stimulusViews(a *runtime.Agent) []stimulusView {
	t := a.Tree().Tree
	out := []stimulusView{}
	for _, s := range a.Stimuli(nil) {
		v := stimulusView{Signal: s.Signal, Data: game.AppendData(nil, s.Data), At: roundTime(s.At), Age: roundTime(max(0, a.Time()-s.At))}
		if i, ok := t.SignalIndex(s.Signal); ok && t.Signals[i].Expires > 0 {
			left := roundTime(s.At + t.Signals[i].Expires - a.Time())
			v.Left = &left
		}
		out = append(out, v)
	}
	return out
}
