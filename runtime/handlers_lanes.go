package runtime

// The lanes' part of signal handlers (handlers.go): an action running in a
// lane of a parallel gets its handlers called as the agent's cursor does,
// in the lane's own context (its rule, its ctx.state, its rule word). This
// file only reads where the lanes stand (Agent.Lanes) and switches to a
// lane's context and back, between steps, as the step loop does.

// dispatchLanes calls the handlers of signal name of the actions running
// at the cursors of the agent's running lanes, in the order Agent.Lanes
// lists them (document order, a lane's own lanes after it).
func (a *Agent) dispatchLanes(s *stimState, name string, data Value, calls *int) error {
	if a.ext.lanes == nil || !a.lanesRun() {
		return nil
	}
	s.lanes = a.Lanes(s.lanes[:0])
	defer a.toMain()
	for _, l := range s.lanes {
		c := int32(l.Slot)
		if l.Status == Running { // the custom rules of the lane's path (custom_step.go)
			if err := a.dispatchCustom(l.Cursor, a.bound.lanes.slots[c].par, name, data, calls); err != nil {
				return err
			}
		}
		if l.Status != Running || a.bound.rules[l.Cursor].kind != KindAction || a.ctxFlags(c)&flagActionRunning == 0 {
			continue
		}
		if a.bound.handlers[l.Cursor].h == nil {
			continue
		}
		a.switchTo(c)
		err := a.callHandler(name, data, calls)
		a.toMain()
		if err != nil {
			return err
		}
	}
	return nil
}
