package host

import (
	"sort"
	"sync"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
)

// What plugin calls cost, for a run's summary. The time of a call is its
// share of the round trip it travelled in: a batch's wall time (sending,
// the plugin's work, the reply) is shared equally among the batch's calls;
// a call sent alone, and a cancel call, has its own round trip. So the
// times add up to the wall time the stepping goroutine spent waiting for
// plugins.

// CallTime is what the calls of one plugin action or condition cost.
type CallTime struct {
	Kind       string // "action" or "condition"
	Name       string
	Calls      int64         // action and condition calls
	Total      time.Duration // their share of the round trips
	Cancels    int64         // cancel calls (actions with a cancel hook)
	CancelTime time.Duration
}

// callTimes accumulates one name's CallTime. Rounds of different plugins
// are sent concurrently, but a name belongs to one plugin: the lock only
// orders its writes with CallTimes.
type callTimes struct {
	mu sync.Mutex
	ct CallTime
}

func (c *callTimes) add(kind sdk.CallKind, n int64, d time.Duration) {
	c.mu.Lock()
	if kind == sdk.KindCancel {
		c.ct.Cancels += n
		c.ct.CancelTime += d
	} else {
		c.ct.Calls += n
		c.ct.Total += d
	}
	c.mu.Unlock()
}

// callTimes returns the accumulator of a name, made at bind time (on the
// stepping goroutine, before any call).
func (s *Set) callTimes(kind, name string) *callTimes {
	if s.times == nil {
		s.times = map[string]*callTimes{}
	}
	c := s.times[kind+" "+name]
	if c == nil {
		c = &callTimes{ct: CallTime{Kind: kind, Name: name}}
		s.times[kind+" "+name] = c
	}
	return c
}

// account shares a batch's round trip equally among its calls.
func (r *round) account(d time.Duration) {
	n := len(r.batch.Calls)
	if n == 0 {
		return
	}
	share := d / time.Duration(n)
	// Calls of one site come in runs; add each run at once.
	for i := 0; i < n; {
		c := &r.batch.Calls[i]
		j := i + 1
		for j < n && r.batch.Calls[j].Site == c.Site && r.batch.Calls[j].Kind == c.Kind {
			j++
		}
		r.sites[c.Site].times.add(c.Kind, int64(j-i), share*time.Duration(j-i))
		i = j
	}
}

// CallTimes lists what the calls of each plugin action and condition bound
// in a tree cost since Start, by name. Safe to call between steps.
func (s *Set) CallTimes() []CallTime {
	out := make([]CallTime, 0, len(s.times))
	for _, c := range s.times {
		c.mu.Lock()
		out = append(out, c.ct)
		c.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}
