package liveview

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/btrun/btrun/runtime"
)

// Typed variables in the live view: every variable is shown with its type
// and value (a vector as {"x","y","z"}), and can be set between steps
// (POST /api/agents/ID/var {"name", "value"}), which time travel replays
// as it replays signals and jumps.

// varValueJSON is a variable's value as the API writes it.
func varValueJSON(v runtime.VarValue) any {
	switch v.Type {
	case runtime.VarNumber:
		return v.Num
	case runtime.VarString:
		return v.Str
	case runtime.VarVector:
		return map[string]float64{"x": v.Vec.X, "y": v.Vec.Y, "z": v.Vec.Z}
	}
	return v.Bool
}

func (d *Debugger) cmdSetVar(agent, name string, data runtime.Value) (any, error) {
	i, err := d.agentIndex(agent)
	if err != nil {
		return nil, err
	}
	t := d.agents[i].a.Tree().Tree
	vi, ok := t.VarIndex(name)
	if !ok {
		names := []string{}
		for _, v := range t.Vars {
			names = append(names, v.Name)
		}
		sort.Strings(names)
		return nil, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("agent %s: its tree declares no variable %q", agent, name), extra: map[string]any{"vars": names}}
	}
	v, err := runtime.VarValueOf(t.Vars[vi].Type, data)
	if err != nil {
		return nil, errorf(http.StatusUnprocessableEntity, `"value" for %s variable %q: %v`, t.Vars[vi].Type, name, err)
	}
	if d.g.AgentInfos()[i].Stopped {
		return nil, errorf(http.StatusConflict, "agent %s is stopped (on_failure = \"stop\"): its variables are kept as they were", agent)
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	c := command{pos: d.g.Step(), set: true, agent: d.agents[i].a.ID(), name: name, value: v}
	if err := d.tl.room(d, c); err != nil {
		return nil, err
	}
	if err := d.host.SetAgentVar(agent, name, v); err != nil {
		return nil, errorf(http.StatusConflict, "%v", err)
	}
	d.tl.record(c)
	return d.answer(discarded), nil
}

// setText is what a signal line sets its variable to, as the tree view
// lists it.
func setText(set runtime.SignalSet) string {
	switch {
	case set.From != nil:
		return "data." + strings.Join(set.From, ".")
	case set.Typed.Type != runtime.VarBoolean:
		return set.Typed.String()
	}
	return boolText(set.Value)
}
