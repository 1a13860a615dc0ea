package game

import (
	"sort"
	"time"

	"github.com/btrun/btrun/plugins/host"
	"github.com/btrun/btrun/runtime"
)

// actionTimes counts calls and time per action name, for the run summary.
type actionTimes struct {
	byName  map[string]*actionTime
	plugins bool // plugin calls were added (addPlugins): the summary says how they are timed
}

type actionTime struct {
	name  string
	calls int
	total time.Duration
}

func newActionTimes() *actionTimes { return &actionTimes{byName: map[string]*actionTime{}} }

// wrap wraps every action of reg to count its calls and time. After a
// reload, the new registry's actions count on where the old ones stopped.
func (at *actionTimes) wrap(reg *runtime.Registry) {
	reg.WrapActions(func(d runtime.ActionDef) runtime.ActionDef { return wrapAction(d, at) })
}

func wrapAction(d runtime.ActionDef, at *actionTimes) runtime.ActionDef {
	t := at.byName[d.Name]
	if t == nil {
		t = &actionTime{name: d.Name}
		at.byName[d.Name] = t
	}
	w := d
	if d.Action != nil {
		w.Action = &timedAction{inner: d.Action, t: t}
	} else {
		bind := d.Bind
		w.Bind = func(s *runtime.Site) (runtime.Action, error) {
			a, err := bind(s)
			if err != nil {
				return nil, err
			}
			return &timedAction{inner: a, t: t}, nil
		}
	}
	return w
}

type timedAction struct {
	inner runtime.Action
	t     *actionTime
}

func (x *timedAction) Run(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
	start := time.Now()
	st, err := x.inner.Run(a, p)
	x.t.total += time.Since(start)
	x.t.calls++
	return st, err
}

func (x *timedAction) Start(a *runtime.Agent, p runtime.Params) error {
	if s, ok := x.inner.(runtime.Starter); ok {
		start := time.Now()
		err := s.Start(a, p)
		x.t.total += time.Since(start)
		return err
	}
	return nil
}

func (x *timedAction) Cancel(a *runtime.Agent, p runtime.Params) error {
	if c, ok := x.inner.(runtime.Canceler); ok {
		return c.Cancel(a, p)
	}
	return nil
}

// HandledSignals and HandleSignal pass an action's signal handlers
// through (runtime.SignalHandler); a handler's time counts as the action's.
func (x *timedAction) HandledSignals() []string {
	if h, ok := x.inner.(runtime.SignalHandler); ok {
		return h.HandledSignals()
	}
	return nil
}

func (x *timedAction) HandleSignal(a *runtime.Agent, p runtime.Params, signal string, data runtime.Value) (runtime.Status, error) {
	h, ok := x.inner.(runtime.SignalHandler)
	if !ok {
		return 0, nil
	}
	start := time.Now()
	st, err := h.HandleSignal(a, p, signal, data)
	x.t.total += time.Since(start)
	return st, err
}

// addPlugins adds what plugin calls cost between two host.CallTimes
// snapshots. A plugin action's own Run only queues its call (about a
// microsecond); its time is its share of the round trip it travelled in,
// which the host measures (a batch's round trip shared equally among its
// calls), cancel calls included. Plugin conditions get rows of their own.
func (at *actionTimes) addPlugins(before, after []host.CallTime) {
	old := map[string]host.CallTime{}
	for _, c := range before {
		old[c.Kind+" "+c.Name] = c
	}
	for _, c := range after {
		o := old[c.Kind+" "+c.Name]
		calls, total := c.Calls-o.Calls, c.Total-o.Total+c.CancelTime-o.CancelTime
		if calls == 0 && total == 0 {
			continue
		}
		at.plugins = true
		name := c.Name
		if c.Kind == "condition" {
			name += " (condition)"
		}
		t := at.byName[name]
		if t == nil {
			t = &actionTime{name: name}
			at.byName[name] = t
		}
		if c.Kind == "condition" {
			t.calls += int(calls)
		}
		t.total += total
	}
}

// absorb adds other's counts to at's and zeroes them (a worker's, for the
// summary).
func (at *actionTimes) absorb(other *actionTimes) {
	for name, t := range other.byName {
		mine := at.byName[name]
		if mine == nil {
			mine = &actionTime{name: name}
			at.byName[name] = mine
		}
		mine.calls += t.calls
		mine.total += t.total
		t.calls, t.total = 0, 0
	}
}

// sorted lists the actions that were called, most time first.
func (at *actionTimes) sorted() []*actionTime {
	var out []*actionTime
	for _, t := range at.byName {
		if t.calls > 0 {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].total != out[j].total {
			return out[i].total > out[j].total
		}
		return out[i].name < out[j].name
	})
	return out
}
