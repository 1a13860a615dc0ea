package liveview

import (
	"fmt"
	"net/http"

	"github.com/btrun/btrun/game"
)

// Time travel across the editor's saves. A save reloads the game with the
// new text of a tree file; the steps before it ran the old text. Rather
// than start time travel afresh (as a reload of scripts and plugins must:
// their old versions are gone), the timeline keeps its history and notes
// the save as an edit: the step it came after and the old text of each file
// it changed. Showing a step before an edit reloads the trees as they were
// then (game.ReloadOptions.Override: in memory, the disk untouched), and
// showing a later one reloads them as they are; such reloads are silent and
// keep the timeline. The steps before an edit are history: the game cannot
// go on from them (the trees on disk are the new ones), and the page marks
// where each edit came.

// edit is one save of the editor kept in the timeline.
type edit struct {
	at  uint64            // the save came after this step: positions from at on run the new text
	old map[string][]byte // each file it changed, as it was before
}

// keepEdit notes a save applied at the current position: the snapshot
// there is taken again (the position now shows the new trees), and the
// history before it stays.
func (t *timeline) keepEdit(d *Debugger, old map[string][]byte) {
	e := edit{at: d.g.Step(), old: old}
	for _, data := range old {
		t.bytes += int64(len(data))
	}
	t.edits = append(t.edits, e)
	t.loaded = len(t.edits)
	if t.snapshot(d, e.at) != nil { // the position would replay the old snapshot with the new trees
		t.reset(d)
	}
}

// version is how many edits position p runs with (those at or before it).
func (t *timeline) version(p uint64) int {
	n := 0
	for n < len(t.edits) && t.edits[n].at <= p {
		n++
	}
	return n
}

// loadVersion reloads the trees as they were at version v (v edits
// applied), quietly, when the game runs another version.
func (t *timeline) loadVersion(d *Debugger, v int) error {
	if v == t.loaded {
		return nil
	}
	override := map[string][]byte{} // non-nil even for the disk's own version: a silent reload
	for e := len(t.edits) - 1; e >= v; e-- {
		for f, data := range t.edits[e].old {
			override[f] = data // an earlier edit's old text wins
		}
	}
	d.travelReload = true
	defer func() { d.travelReload = false }()
	err := d.host.Quietly(func() error {
		_, err := d.g.Reload(game.ReloadOptions{Override: override})
		return err
	})
	if err != nil {
		return fmt.Errorf("loading the trees as they were at that step: %w", err)
	}
	t.loaded = v
	return nil
}

// refuseOld is branch's check: the game cannot go on from a step before an
// edit, which ran trees the files no longer hold.
func (t *timeline) refuseOld(s uint64) error {
	v := t.version(s)
	if v == len(t.edits) {
		return nil
	}
	return &apiError{code: http.StatusConflict, msg: fmt.Sprintf(
		"step %d ran the trees as they were before the save after step %d: it is kept to be looked at, and the game goes on only from step %d or later (Back to live, or ] to there)",
		s, t.edits[v].at, t.edits[v].at), extra: map[string]any{"edit": t.edits[v].at}}
}

// editSteps lists the steps the kept edits came after, for the status.
func (t *timeline) editSteps() []uint64 {
	out := make([]uint64, len(t.edits))
	for i, e := range t.edits {
		out[i] = e.at
	}
	return out
}
