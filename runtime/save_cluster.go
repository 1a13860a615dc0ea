package runtime

import (
	"errors"

	"github.com/btrun/btrun/runtime/savecodec"
)

// A save file written by several processes (a cluster: package game): each
// shard writes its range of the agents as a part of the file's body
// (EncodeAgentsPart, into a savecodec part the conductor joins), and the
// conductor, which holds none of the agents, writes the gates' state with
// their holders named from its directory (Gates.SnapshotNamed,
// EncodeGateSnapshots). Loading, it reads the agents one at a time
// (DecodeSnapshotHead, then the host's Value) without making them.

// EncodeAgentsPart writes agents as EncodeAgents does, without the count
// before them and the gate sets after: the bytes of their run of a save's
// agents, for an encoder that joins them (savecodec.Encoder.Join).
func EncodeAgentsPart(e *savecodec.Encoder, agents []*Agent, host HostState) error {
	errs := encodeAgentRun(e, agents, host, nil)
	for _, a := range agents {
		if x := a.ext; x != nil && x.gates != nil && len(x.gates.releases) > 0 && x.gates.link.g.solo != a {
			errs = append(errs, &Error{Agent: a.id, Err: ErrBusy, Msg: "cannot save: the agent released a gate in a round that has not ended (Gates.EndRound)"})
		}
	}
	return errors.Join(errs...)
}

// SnapshotNamed is the gates' state as a save holds it, every holder named
// by its agent's id: name(place) for a holder this process does not hold.
func (g *Gates) SnapshotNamed(name func(place int32) string) []GateSnapshot {
	out := g.snapshot()
	for i := range out {
		for j, h := range g.gates[i].holders {
			if h.a == nil {
				out[i].Holders[j].Agent = name(h.place)
			}
		}
	}
	return out
}

// EncodeGateSnapshots writes gate sets as a save holds them after its
// agents.
func EncodeGateSnapshots(e *savecodec.Encoder, sets [][]GateSnapshot) {
	e.Uvarint(uint64(len(sets)))
	for _, s := range sets {
		encodeGateSet(e, s)
	}
}

// DecodeGateSnapshots reads what EncodeGateSnapshots wrote, in a save of
// format version 4 or later (before, there are none).
func DecodeGateSnapshots(d *savecodec.Decoder) [][]GateSnapshot {
	if savedVersion(d) < 4 {
		return nil
	}
	return decodeGateSets(d)
}

// DecodeSnapshotHead reads a snapshot as a save's agents hold it, but for
// the host's Value that follows it (Host is left empty).
func DecodeSnapshotHead(d *savecodec.Decoder) Snapshot {
	var s Snapshot
	decodeSnapshotHead(d, &s, nil)
	return s
}
