package sdk

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// Tester runs a plugin's actions and conditions in-process, through the same
// dispatch code the gRPC server uses, against TestAgents that keep fields,
// state bytes and effects the way the runtime would. Use it in a plugin's
// own tests:
//
//	tt, _ := sdk.NewTester(Plugin())
//	ag := sdk.NewTestAgent("a1", map[string]any{"x": 1.0, "y": 1.0})
//	st, err := tt.Run(ag, "nav.moveTo", map[string]string{"nav.target": "5,5"}, 0.1)
//
// A Tester is safe for concurrent use; a TestAgent is not.
type Tester struct {
	d *dispatcher
}

// NewTester validates the plugin declaration as Serve would.
func NewTester(p *Plugin) (*Tester, error) {
	d, err := newDispatcher(p)
	if err != nil {
		return nil, err
	}
	return &Tester{d: d}, nil
}

// Description is what the plugin declares, as the host sees it.
func (t *Tester) Description() *Description { return t.d.desc }

// TestAgent is a stand-in for a runtime agent: the fields a host would read
// and write, the current rule's state bytes and first-run flag, and a record
// of every effect and jump the plugin asked for.
type TestAgent struct {
	ID       string
	Time     float64
	Fields   map[string]any // float64, string or bool
	State    []byte         // the current rule's state bytes
	FirstRun bool           // the cursor has just arrived at the rule
	Effects  []Effect       // every effect received, in order
	Jumps    []string       // every jump asked for, in order
	// Stimuli are the signals the agent holds, by name, as the runtime
	// keeps them: an action's calls carry those it declares
	// (Action.Stimuli). Effects do not change them.
	Stimuli map[string]Stimulus
}

// NewTestAgent returns an agent whose cursor has just arrived at a rule.
func NewTestAgent(id string, fields map[string]any) *TestAgent {
	if fields == nil {
		fields = map[string]any{}
	}
	return &TestAgent{ID: id, Fields: fields, FirstRun: true}
}

// Arrive models the cursor arriving at a rule: state bytes emptied,
// FirstRun set. Run calls it after an action finished.
func (a *TestAgent) Arrive() {
	a.State = nil
	a.FirstRun = true
}

// Run advances the agent's time by dt and runs an action at a rule with the
// given parameters, applying the reply as the host does: fields, state
// bytes, effects, jump. After Success or Failure the agent arrives afresh
// (as when the runtime moves on or re-enters the rule).
func (t *Tester) Run(a *TestAgent, action string, params map[string]string, dt float64) (Status, error) {
	a.Time += dt
	r, err := t.call(a, KindAction, action, params, dt)
	if err != nil {
		return 0, err
	}
	a.FirstRun = false
	if r.Status != Running {
		a.Arrive()
	}
	return r.Status, nil
}

// Test evaluates a condition for the agent.
func (t *Tester) Test(a *TestAgent, condition string, params map[string]string) (bool, error) {
	r, err := t.call(a, KindCondition, condition, params, 0)
	if err != nil {
		return false, err
	}
	return r.OK, nil
}

// Score calls a scorer for the agent, with the scored child's parameters.
func (t *Tester) Score(a *TestAgent, scorer string, params map[string]string) (float64, error) {
	r, err := t.call(a, KindScorer, scorer, params, 0)
	if err != nil {
		return 0, err
	}
	return r.Score, nil
}

// Cancel calls an action's cancel hook, as when the runtime leaves a rule
// whose action last returned Running, then the agent arrives afresh.
func (t *Tester) Cancel(a *TestAgent, action string, params map[string]string) error {
	_, err := t.call(a, KindCancel, action, params, 0)
	a.Arrive()
	return err
}

func (t *Tester) call(a *TestAgent, kind CallKind, name string, params map[string]string, dt float64) (*Reply, error) {
	var reads, writes, stimuli []string
	switch kind {
	case KindCondition:
		c, ok := t.d.conditions[name]
		if !ok {
			return nil, fmt.Errorf("%w: no condition %q", ErrUnknownName, name)
		}
		reads = c.Reads
	case KindScorer:
		c, ok := t.d.scorers[name]
		if !ok {
			return nil, fmt.Errorf("%w: no scorer %q", ErrUnknownName, name)
		}
		reads = c.Reads
	default:
		ac, ok := t.d.actions[name]
		if !ok {
			return nil, fmt.Errorf("%w: no action %q", ErrUnknownName, name)
		}
		reads, writes, stimuli = ac.Reads, ac.Writes, ac.Stimuli
	}
	site := Site{Name: name, Rule: "test." + name}
	for k, v := range params {
		site.Params = append(site.Params, Param{Name: k, Value: v})
	}
	sort.Slice(site.Params, func(i, j int) bool { return site.Params[i].Name < site.Params[j].Name })
	req := Request{Kind: kind, Agent: a.ID, FirstRun: a.FirstRun, Time: a.Time, Dt: dt, State: a.State}
	for _, f := range reads {
		v, err := toValue(a.Fields[f])
		if _, ok := a.Fields[f]; !ok || err != nil {
			v = Value{}
		}
		req.Fields = append(req.Fields, v)
	}
	for _, name := range stimuli {
		if st, ok := a.Stimuli[name]; ok && kind == KindAction {
			st.Signal = name
			req.Stimuli = append(req.Stimuli, st)
		}
	}
	r, err := t.d.Call(context.Background(), &site, &req)
	if err != nil {
		return nil, err
	}
	if r.Err != "" {
		return nil, errors.New(r.Err)
	}
	for i, w := range r.Writes {
		if i >= len(writes) {
			break
		}
		switch w.Kind {
		case ValueUnset:
		case ValueNil:
			delete(a.Fields, writes[i])
		default:
			a.Fields[writes[i]], _ = w.Any()
		}
	}
	if r.StateSet {
		a.State = append([]byte(nil), r.State...)
	}
	a.Effects = append(a.Effects, r.Effects...)
	if r.Jump != "" {
		a.Jumps = append(a.Jumps, r.Jump)
	}
	return r, nil
}
