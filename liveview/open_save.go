package liveview

import (
	"fmt"
	"net/http"
)

// The page's Open save: GET /api/saves lists the save files beside the
// config, POST /api/load {"file": NAME} loads one into the running game
// between two steps (all or nothing, as btrun run -load). Time travel then
// starts at the save's step. A run that writes a trace refuses: its trace
// would not be one any run writes (btrun view SAVE shows a save instead).

func (d *Debugger) routeSaves(w http.ResponseWriter, r *http.Request, seg []string) bool {
	switch {
	case len(seg) == 1 && seg[0] == "saves":
		if method(w, r, "GET") {
			d.call(w, r, func(*request) (any, error) {
				list, err := d.host.Saves()
				if err != nil {
					return nil, err
				}
				return map[string]any{"saves": append([]string{}, list...)}, nil
			})
		}
	case len(seg) == 1 && seg[0] == "load":
		var body struct {
			File *string `json:"file"`
		}
		if method(w, r, "POST") && decode(w, r, &body) && need(w, body.File != nil && *body.File != "", `"file" (a save's name in the config's folder) is required`) {
			d.call(w, r, func(*request) (any, error) { return d.cmdLoad(*body.File) })
		}
	default:
		return false
	}
	return true
}

func (d *Debugger) cmdLoad(name string) (any, error) {
	if k := d.host.TraceKind(); k != "none" {
		return nil, errorf(http.StatusConflict, "this run writes a trace (%s): a save loaded in its middle would make a trace no run writes; open the save with btrun view %s", k, name)
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	warnings, err := d.host.LoadSave(name)
	if err != nil {
		return nil, &apiError{code: http.StatusUnprocessableEntity, msg: err.Error()}
	}
	for _, r := range d.agents { // what happened before belongs to the run the save replaced
		r.events.discardAfter(0)
	}
	d.world.discardAfter(0)
	s := d.g.Step()
	d.seen = s
	d.pace.reset(s)
	d.tl.reset(d)
	d.tl.origin = fmt.Sprintf("the save %s opened", name)
	d.dirty = true
	return map[string]any{"file": name, "step": s, "warnings": append([]string{}, warnings...), "status": d.answer(discarded)}, nil
}
