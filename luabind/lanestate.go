package luabind

import (
	"fmt"

	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// Saving the ctx.state of a parallel's lanes. Each running lane of an
// agent has a ctx.state of its own; the agent's saved host state holds
// them under "lanes": a table whose key k is the lane's position (from 1)
// in runtime.Agent.Lanes, which lists the lanes in the order the runtime
// saves and restores them, and whose value is that lane's ctx.state. Lanes
// whose rule has no ctx.state are left out.

// saveLanes adds the lanes' ctx.state to a host value.
func (e *Engine) saveLanes(a *runtime.Agent, c *converter, host *runtime.Value) error {
	e.laneBuf = a.Lanes(e.laneBuf[:0])
	var lanes runtime.Value
	for k, l := range e.laneBuf {
		t, _ := a.LaneRuleValue(l.Slot).(*lua.LTable)
		if t == nil || l.Status != runtime.Running {
			continue
		}
		path := fmt.Sprintf("lanes[%d]", k+1)
		v, err := c.value(t, path, 0)
		if err != nil {
			return err
		}
		lanes.Kind = runtime.TableValue
		lanes.Table = append(lanes.Table, runtime.Field{Key: runtime.Value{Kind: runtime.NumberValue, Num: float64(k + 1)}, Val: v})
	}
	if lanes.Kind == runtime.TableValue {
		host.Table = append(host.Table, runtime.Field{Key: str("lanes"), Val: lanes})
	}
	return nil
}

// checkLanes checks the shape of a saved "lanes" entry.
func checkLanes(v runtime.Value) error {
	for _, f := range v.Table {
		if f.Key.Kind != runtime.NumberValue || f.Key.Num < 1 || f.Key.Num != float64(int(f.Key.Num)) || f.Key.Num > 1<<30 {
			return fmt.Errorf("unexpected entry %v in the saved lanes", describe(f.Key))
		}
		if f.Val.Kind != runtime.TableValue {
			return fmt.Errorf("the saved state of lane %v is not a table", describe(f.Key))
		}
	}
	return nil
}

// restoreLanes gives the lanes the runtime restored their ctx.state back.
// Call it after the runtime's restore, which put the lanes back.
func (e *Engine) restoreLanes(st *AgentData, v runtime.Value) error {
	a := st.agent
	e.laneBuf = a.Lanes(e.laneBuf[:0])
	for _, f := range v.Table {
		k := int(f.Key.Num) - 1
		if k < 0 || k >= len(e.laneBuf) || e.laneBuf[k].Status != runtime.Running {
			return fmt.Errorf("%w: agent %s: the saved state of lane %d has no running lane to go to", runtime.ErrCorrupt, a.ID(), k+1)
		}
		slot := e.laneBuf[k].Slot
		t := e.L.CreateTable(0, len(f.Val.Table))
		e.refill(t, f.Val)
		a.SetLaneRuleValue(slot, t)
		rs := st.reusedState(slot)
		rs.t, rs.reuses = t, 0
		st.usesState = true
	}
	return nil
}
