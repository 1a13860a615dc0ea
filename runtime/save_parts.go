package runtime

import (
	"sync"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Saving many agents on several goroutines. The agents are cut into runs
// of neighbours, one per goroutine; the first is written into the encoder
// itself, each other into a part of it (savecodec.Encoder.Parts), and the
// parts are joined in order after the first:
// the bytes are those EncodeAgents writes on one goroutine, whatever the
// number of goroutines. Taking a snapshot only reads the agent, so agents
// can be read at once; the host's state is written by a HostPart per
// goroutine when the host offers them (SplitHost), else the save is made
// on one goroutine. Any error, and anything the parts wrote twice that one
// encoder would have refused (HostPart.Overlaps), makes the save again on
// one goroutine, which gives the error its usual text.

// SplitHost is a HostState that can write the state of agents on several
// goroutines at once.
type SplitHost interface {
	HostState
	// HostParts returns n writers of host state, one per goroutine, each
	// given agents no other is given, in order; or nil when the host's
	// state of these agents must be written on one goroutine.
	HostParts(agents []*Agent, n int) []HostPart
}

// HostPart writes the host state of a run of agents on one goroutine.
type HostPart interface {
	// EncodeHost is HostState.EncodeHost. An error need not say more
	// than that the agent could not be written: the save is then made
	// again on one goroutine.
	EncodeHost(e *savecodec.Encoder, a *Agent) error
	// Overlaps is called on the part's goroutine once every part has
	// written its agents. It reports whether this part wrote something
	// that an earlier part (or the save before the agents) wrote too, and
	// that one writer would have refused (luabind: a Lua table reachable
	// from two agents).
	Overlaps() bool
}

// EncodeAgentsOn is EncodeAgents on up to n goroutines: the same bytes, in
// about 1/n of the time when agents are many. n ≤ 1, or a host that is no
// SplitHost or declines, saves on the calling goroutine. Between the
// agents' steps only: the agents and their host state are read from
// several goroutines at once.
func EncodeAgentsOn(e *savecodec.Encoder, agents []*Agent, host HostState, n int) error {
	n = min(n, len(agents))
	if n <= 1 {
		return EncodeAgents(e, agents, host)
	}
	var hosts []HostPart
	if host != nil {
		split, ok := host.(SplitHost)
		if ok {
			hosts = split.HostParts(agents, n)
		}
		if len(hosts) != n {
			return EncodeAgents(e, agents, host)
		}
	}
	// The first run is written in place, into e itself; the others into
	// parts, joined after it.
	mark := e.Mark()
	e.Uvarint(uint64(len(agents)))
	parts := e.Parts(n - 1)
	ok := make([]bool, n)
	var written, done sync.WaitGroup
	written.Add(n)
	done.Add(n - 1)
	run := func(k int) {
		lo, hi := k*len(agents)/n, (k+1)*len(agents)/n
		var h HostPart
		if hosts != nil {
			h = hosts[k]
		}
		into := e
		if k > 0 {
			into = parts[k-1]
		}
		good := encodePart(into, agents[lo:hi], h)
		written.Done()
		written.Wait()
		ok[k] = good && (h == nil || !h.Overlaps())
	}
	for k := 1; k < n; k++ {
		go func() {
			defer done.Done()
			run(k)
		}()
	}
	run(0)
	done.Wait()
	for k := range n {
		if !ok[k] {
			e.Rewind(mark)
			return EncodeAgents(e, agents, host) // for the error's text
		}
	}
	if err := e.Join(parts); err != nil {
		return err // a part of 4 GiB: no save is that large
	}
	return encodeGateSets(e, agents)
}

// encodePart writes agents as EncodeAgents does, into part e, and reports
// whether every one was written.
func encodePart(e *savecodec.Encoder, agents []*Agent, host HostPart) bool {
	s := Snapshot{borrowed: true}
	for _, a := range agents {
		if err := a.snapshotInto(&s); err != nil {
			return false
		}
		encodeSnapshotHead(e, &s)
		if host == nil {
			e.ValueNil()
		} else if err := host.EncodeHost(e, a); err != nil {
			return false
		}
	}
	return true
}
