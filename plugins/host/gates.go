package host

import (
	"strings"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Gates as a plugin sees them. Gates are the tree's: a plugin neither
// takes nor releases one (a rule with a gate attribute does), but a call
// can carry the state of the agent's gates, as of the last round's end,
// through reserved names in the fields it reads (sdk.Action.Reads):
//
//	bt.gate.NAME.slot     number: the agent's place among the holders of gate
//	                      NAME, in the order they took it (1, 2, ...); absent
//	                      when the agent does not hold it (ctx:gateSlot in Lua)
//	bt.gate.NAME.open     boolean: the condition NAME.open
//	bt.gate.NAME.holders  number: how many agents hold it
//
// The gate must be declared by the tree of the rule being bound (a bind
// error otherwise); the names are resolved once, at bind time. A plugin
// cannot write them.

// gatePrefix starts the reserved field names.
const gatePrefix = "bt.gate."

// gateRead is a reserved field of a site's reads: its place in the
// call's fields, the tree's gate, and what of it.
type gateRead struct {
	pos  int
	gate int32
	what string // "slot", "open" or "holders"
}

// bindGateReads finds the reserved gate fields among a site's reads and
// writes.
func bindGateReads(st *runtime.Site, kind string, reads, writes []string) ([]gateRead, error) {
	for _, w := range writes {
		if strings.HasPrefix(w, gatePrefix) {
			return nil, st.Errorf("%s %q declares it writes field %q: a plugin cannot change gates (a rule with gate=\"NAME\" takes and releases them)", kind, st.Name, w)
		}
	}
	var out []gateRead
	for i, r := range reads {
		rest, ok := strings.CutPrefix(r, gatePrefix)
		if !ok {
			continue
		}
		dot := strings.LastIndexByte(rest, '.')
		what := rest[dot+1:]
		if dot <= 0 || (what != "slot" && what != "open" && what != "holders") {
			return nil, st.Errorf("%s %q reads field %q: fields starting with %q are reserved for gates: %sNAME.slot, .open or .holders", kind, st.Name, r, gatePrefix, gatePrefix)
		}
		g, ok := st.Tree.GateIndex(rest[:dot])
		if !ok {
			return nil, st.Errorf("%s %q reads field %q, and tree %s declares no gate %q", kind, st.Name, r, st.Tree.File, rest[:dot])
		}
		out = append(out, gateRead{pos: i, gate: g, what: what})
	}
	return out, nil
}

// fillGateReads puts the gates' state into a call's fields (one per read,
// as readFields wrote them).
func fillGateReads(a *runtime.Agent, reads []gateRead, fields []sdk.Value) {
	for _, r := range reads {
		v := sdk.Value{}
		switch r.what {
		case "slot":
			if n := a.GateSlotAt(r.gate); n > 0 {
				v = sdk.Value{Kind: sdk.ValueNumber, Num: float64(n)}
			}
		case "open":
			v = sdk.Value{Kind: sdk.ValueBool, Bool: a.GateOpenAt(r.gate)}
		case "holders":
			v = sdk.Value{Kind: sdk.ValueNumber, Num: float64(a.GateHoldersAt(r.gate))}
		}
		fields[r.pos] = v
	}
}
