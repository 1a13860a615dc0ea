package luabind

import (
	"fmt"
	"strconv"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// Saving the ctx.state of a parallel's lanes. Each running lane of an
// agent has a ctx.state of its own; the agent's saved host state holds
// them under "lanes": a table whose key k is the lane's position (from 1)
// in runtime.Agent.Lanes, which lists the lanes in the order the runtime
// saves and restores them, and whose value is that lane's ctx.state. Lanes
// whose rule has no ctx.state, or an empty one, are left out, and so is the
// entry when no lane has one.

// encodeLanes writes the "lanes" entry of an agent's host table, if any
// running lane has a ctx.state: written reports whether it did, ok whether
// every value could be saved.
func (e *Engine) encodeLanes(w *saveWriter, a *runtime.Agent) (written, ok bool) {
	lanes := a.Lanes((*w.lanes)[:0]) // w's scratch: a save on several goroutines has one each
	*w.lanes = lanes
	var m savecodec.TableMark
	n := 0
	for k, l := range lanes {
		t, _ := a.LaneRuleValue(l.Slot).(*lua.LTable)
		if blank(t) || l.Status != runtime.Running {
			continue // an empty ctx.state is not saved (EncodeHost)
		}
		if n == 0 {
			w.enc.ValueString("lanes")
			m = w.enc.BeginTable()
		}
		n++
		w.enc.ValueNumber(float64(k + 1))
		if !w.table(t, 1) {
			return true, false
		}
	}
	if n > 0 {
		w.enc.EndTable(m, n)
	}
	return n > 0, true
}

// laneRoots appends the running lanes' ctx.state tables to an agent's
// saved tables, with their paths (lanes[k]), for error messages.
func (e *Engine) laneRoots(st *AgentData, roots []hostRoot) []hostRoot {
	a := st.agent
	if a == nil {
		return roots
	}
	for k, l := range a.Lanes(nil) {
		if t, _ := a.LaneRuleValue(l.Slot).(*lua.LTable); !blank(t) && l.Status == runtime.Running {
			roots = append(roots, hostRoot{"lanes[" + strconv.Itoa(k+1) + "]", t})
		}
	}
	return roots
}

// checkLanes reads the m entries of a saved "lanes" table: each a lane's
// position (an integer from 1) and a table.
func checkLanes(d *savecodec.Decoder, m int) error {
	for range m {
		k, _ := runtime.DecodeValueHead(d)
		if _, ok := lanePosition(k); !ok {
			return fmt.Errorf("unexpected entry %v in the saved lanes", describe(k))
		}
		at := *d
		if v, _ := runtime.DecodeValueHead(d); v.Kind != runtime.TableValue {
			return fmt.Errorf("the saved state of lane %v is not a table", describe(k))
		}
		*d = at
		d.SkipValue() // the table, its nesting bounded
	}
	return d.Err()
}

// lanePosition reads a saved lane position: an integer from 1.
func lanePosition(k runtime.Value) (int, bool) {
	if k.Kind != runtime.NumberValue || !(k.Num >= 1 && k.Num <= 1<<30) || k.Num != float64(int(k.Num)) {
		return 0, false
	}
	return int(k.Num), true
}

// restoreLanes gives the lanes the runtime restored their ctx.state back:
// the m entries d holds next. The runtime's restore, which put the lanes
// back, comes first.
func (e *Engine) restoreLanes(st *AgentData, d *savecodec.Decoder, m int) error {
	a := st.agent
	e.laneBuf = a.Lanes(e.laneBuf[:0])
	for range m {
		k, _ := runtime.DecodeValueHead(d)
		pos, ok := lanePosition(k)
		v, n := runtime.DecodeValueHead(d)
		if !ok || v.Kind != runtime.TableValue || pos > len(e.laneBuf) || e.laneBuf[pos-1].Status != runtime.Running {
			return fmt.Errorf("%w: agent %s: the saved state of lane %v has no running lane to go to", runtime.ErrCorrupt, a.ID(), describe(k))
		}
		slot := e.laneBuf[pos-1].Slot
		a.SetLaneRuleValue(slot, e.restoreState(st.reusedState(slot), d, n))
		st.usesState = true
	}
	return d.Err()
}
