package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Register adds every action, condition and scorer the plugins declare to
// reg, with origin "plugin NAME". A name already registered (by another plugin, a
// script or a built-in) is an error naming both origins; every such error
// is reported.
func (s *Set) Register(reg *runtime.Registry) error {
	return s.register(reg, func(p *plugin) *sdk.Description { return p.desc })
}

// register is Register with each plugin's declarations from desc (an
// Update's new builds declare their own).
func (s *Set) register(reg *runtime.Registry, desc func(*plugin) *sdk.Description) error {
	var errs []error
	for _, p := range s.plugins {
		origin := runtime.Origin{Kind: "plugin", Where: p.spec.Name}
		d := desc(p)
		for i := range d.Actions {
			info := &d.Actions[i]
			errs = append(errs, reg.AddAction(runtime.ActionDef{Name: info.Name, Origin: origin, Doc: info.Doc, Params: paramSpecs(info.Params),
				Bind: func(st *runtime.Site) (runtime.Action, error) {
					s, err := p.newSite(st, "action", info.Reads, info.Writes)
					if err != nil {
						return nil, err
					}
					s.stimuli = info.Stimuli
					b := &boundAction{site: s}
					if info.HasCancel {
						return &cancelAction{boundAction: b}, nil
					}
					return b, nil
				}}))
		}
		for i := range d.Conditions {
			info := &d.Conditions[i]
			errs = append(errs, reg.AddCondition(runtime.ConditionDef{Name: info.Name, Origin: origin, Doc: info.Doc, Params: paramSpecs(info.Params),
				Bind: func(st *runtime.Site) (runtime.Condition, error) {
					s, err := p.newSite(st, "condition", info.Reads, nil)
					if err != nil {
						return nil, err
					}
					return &boundCondition{site: s}, nil
				}}))
		}
		for i := range d.Scorers {
			info := &d.Scorers[i]
			errs = append(errs, reg.AddScorer(runtime.ScorerDef{Name: info.Name, Origin: origin,
				Bind: func(st *runtime.Site) (runtime.Scorer, error) {
					s, err := p.newSite(st, "scorer", info.Reads, nil)
					if err != nil {
						return nil, err
					}
					return &boundScorer{site: s}, nil
				}}))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("host: registering plugin names: %w", err)
	}
	return nil
}

// paramSpecs converts a plugin's parameter declarations, keeping nil (not
// declared) apart from empty (declares none).
func paramSpecs(ps []sdk.ParamInfo) []runtime.ParamSpec {
	if ps == nil {
		return nil
	}
	out := make([]runtime.ParamSpec, len(ps))
	for i, p := range ps {
		out[i] = runtime.ParamSpec{Name: p.Name, Type: p.Type, Required: p.Required, Default: p.Default, Doc: p.Doc}
	}
	return out
}

// site is a plugin action, condition or scorer bound to one rule (a
// scorer's: the child it scores): what travels in every call from it, built
// once at bind time.
type site struct {
	p      *plugin
	info   sdk.Site
	reads  []string
	writes []string
	gates  []gateRead // reserved fields of reads that carry the agent's gates (gates.go)
	// stimuli are the signals whose stimuli an action's calls carry
	// (sdk.Action.Stimuli, data.go).
	stimuli []string
	// Batch bookkeeping (stepping goroutine): Set.flushes + 1 when the
	// site was last added to its plugin's queue, and its index there.
	epoch uint64
	idx   uint32
	times *callTimes // the time its calls took, round trips included (timing.go)
}

func (p *plugin) newSite(st *runtime.Site, kind string, reads, writes []string) (*site, error) {
	gates, err := bindGateReads(st, kind, reads, writes)
	if err != nil {
		return nil, err
	}
	s := &site{p: p, info: sdk.Site{Name: st.Name, Rule: st.Label()}, reads: reads, writes: writes, gates: gates,
		times: p.set.callTimes(kind, st.Name)}
	for _, prm := range st.Params {
		s.info.Params = append(s.info.Params, sdk.Param{Name: prm.Name, Value: prm.Value})
	}
	return s, nil
}

// readFields appends the values of the site's read fields to out: the
// agent's fields, and the reserved ones its gates (gates.go).
func (s *site) readFields(a *runtime.Agent, out []sdk.Value) []sdk.Value {
	start := len(out)
	out = readFields(a, s.reads, out)
	if len(s.gates) > 0 {
		fillGateReads(a, s.gates, out[start:])
	}
	return out
}

// boundAction is a plugin action at one rule. Run queues the call and
// pauses the agent's step (runtime.ErrPending); Flush sends it and Resume
// completes it. The plugin runs start itself when the call's FirstRun is set.
type boundAction struct{ *site }

func (b *boundAction) Run(a *runtime.Agent, _ runtime.Params) (runtime.Status, error) {
	return 0, b.enqueue(a, sdk.KindAction)
}

// cancelAction is a plugin action with a cancel hook. The runtime calls
// Cancel synchronously, so it is one round trip of its own.
type cancelAction struct{ *boundAction }

func (c *cancelAction) Cancel(a *runtime.Agent, _ runtime.Params) error {
	req := sdk.Request{Kind: sdk.KindCancel, Agent: a.ID(), FirstRun: a.FirstRun(), Time: a.Time(), Dt: a.Dt(),
		State: a.RuleBytes(), Fields: c.readFields(a, nil), Stimuli: c.readStimuli(a, nil)}
	var rep *sdk.Reply
	c.p.set.roundTrips.Add(1)
	c.p.set.calls.Add(1)
	start := time.Now()
	err := c.p.do(func(ctx context.Context, svc sdk.Service) error {
		var err error
		rep, err = svc.Call(ctx, &c.info, &req)
		return err
	})
	c.times.add(sdk.KindCancel, 1, time.Since(start))
	if err != nil {
		return err
	}
	if rep.Err != "" {
		return c.p.callError(rep.Err)
	}
	return c.apply(a, rep, false)
}

// boundCondition is a plugin condition at one rule; as boundAction.
type boundCondition struct{ *site }

func (b *boundCondition) Test(a *runtime.Agent, _ runtime.Params) (bool, error) {
	return false, b.enqueue(a, sdk.KindCondition)
}

// boundScorer is a plugin scorer at one child of a score choice; its calls
// batch like conditions'.
type boundScorer struct{ *site }

func (b *boundScorer) Score(a *runtime.Agent, _ runtime.Params) (float64, error) {
	return 0, b.enqueue(a, sdk.KindScorer)
}

func (p *plugin) callError(msg string) error {
	return newErr(fmt.Sprintf("host: plugin %s: %s", p.spec.Name, msg), ErrCall)
}
