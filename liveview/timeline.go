package liveview

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// Time travel (see doc.go). A position is the moment between two steps:
// position s is after step s (and before step s+1). What happens at a
// position: the game arrives there (step s has run), the debugger may apply
// commands there (signals, jumps: the journal), and the game leaves it (step
// s+1 runs). A snapshot at s is taken on arrival, before any command; the
// trace's size is noted on leaving, after them. So showing position s means:
// restore the nearest snapshot k ≤ s, apply the journal of k, run step k+1,
// apply the journal of k+1, ..., up to the journal of s.
//
// Memory: snapshots every `every` steps; when they (with the trace sizes
// and the journal) take more than the budget, the older half of them is
// thinned (every second one dropped, so replays there get longer), as long
// as no gap grows beyond maxGapFactor intervals; after that the oldest snapshot goes,
// and the steps before the next one can no longer be shown. The newest
// snapshot is always kept.

// maxGapFactor bounds the replay of one time-travel jump by thinning: at
// most this many snapshot intervals.
const maxGapFactor = 64

// maxJournalAt bounds the commands journaled at one position (signals and
// jumps sent while the game is paused): at that many, a snapshot is taken
// there, which holds their effect, and they leave the journal. The journal
// as a whole takes at most half the budget; past that (when snapshots
// cannot be taken), commands are refused.
const maxJournalAt = 1000

type timeline struct {
	every  int
	budget int64

	snaps   []snapshot // by step
	bytes   int64      // what snaps, offsets and journal take
	journal []command  // by position
	jbytes  int64      // what journal takes (part of bytes)
	first   uint64     // where the timeline starts
	reload  bool       // it starts at a reload (reset), not at the run's start
	head    uint64     // the furthest position of this timeline
	offBase uint64     // offsets[i] is the trace's size when position offBase+i was left
	offsets []int64
	err     string // why the last snapshot could not be taken
	origin  string // with reload: what started it, when not a reload ("the save X opened")
	edits   []edit // the editor's saves the history reaches across (timeline_edits.go)
	loaded  int    // how many of them the game runs now (len(edits): the files' own text)
}

type snapshot struct {
	step uint64
	game []byte
	recs []recState
	size int64
}

// command is a change the debugger applied to the game at a position.
type command struct {
	pos   uint64
	jump  bool // else a signal, or a variable set
	set   bool // a variable set to value (vars.go)
	agent string
	name  string        // the signal, the rule id jumped to, or the variable
	data  runtime.Value // a signal's data (never changed once recorded)
	value runtime.VarValue
}

func (c command) size() int64 {
	n := 48 + int64(len(c.agent)+len(c.name)+len(c.value.Str))
	if c.data.Kind != runtime.NilValue {
		n += int64(runtime.DataSize(c.data))
	}
	return n
}

// start begins the timeline at the run's first position.
func (t *timeline) start(d *Debugger, step uint64) {
	t.first, t.head = step, step
	t.offBase = step
	t.snapshot(d, step)
}

// arrived notes that the game arrived at a position by running a step.
func (t *timeline) arrived(d *Debugger, step uint64) {
	t.head = max(t.head, step)
	if step%uint64(t.every) == 0 {
		t.snapshot(d, step)
	}
}

// left notes the trace's size as the game leaves a position.
func (t *timeline) left(d *Debugger, step uint64) {
	if step < t.offBase {
		return
	}
	i := int(step - t.offBase)
	off := d.host.TraceOffset()
	switch {
	case i < len(t.offsets): // left again after a branch
		t.bytes -= 8 * int64(len(t.offsets)-i-1)
		t.offsets = append(t.offsets[:i], off)
	case i == len(t.offsets):
		t.offsets = append(t.offsets, off)
		t.bytes += 8
	}
}

// snapshot saves the game at position step (replacing a snapshot there).
func (t *timeline) snapshot(d *Debugger, step uint64) error {
	if d.g.Conducting() { // the copies of a cluster's agents cannot be put back on its shards
		t.err = inCluster
		return nil
	}
	data, err := d.g.SaveState()
	if err != nil {
		t.err = fmt.Sprintf("step %d: %v", step, err)
		return err
	}
	s := snapshot{step: step, game: data, recs: make([]recState, len(d.agents))}
	s.size = int64(len(data))
	for i, r := range d.agents {
		s.recs[i] = r.recState.clone()
		s.size += s.recs[i].size()
	}
	for len(t.snaps) > 0 && t.snaps[len(t.snaps)-1].step >= step {
		t.bytes -= t.snaps[len(t.snaps)-1].size
		t.snaps = t.snaps[:len(t.snaps)-1]
	}
	t.snaps = append(t.snaps, s)
	t.bytes += s.size
	t.trim()
	return nil
}

// trim keeps the timeline within its budget (see the comment at the top).
func (t *timeline) trim() {
	maxGap := uint64(maxGapFactor * t.every)
	for t.bytes > t.budget && len(t.snaps) > 1 {
		n := len(t.snaps)
		half := n / 2
		kept := make([]snapshot, 0, n)
		kept = append(kept, t.snaps[0])
		dropped := false
		for i := 1; i < n; i++ {
			if i < half && i%2 == 1 && t.snaps[i+1].step-t.snaps[i-1].step <= maxGap {
				t.bytes -= t.snaps[i].size
				dropped = true
				continue
			}
			kept = append(kept, t.snaps[i])
		}
		if !dropped {
			t.bytes -= kept[0].size
			kept = kept[1:]
			t.forgetBefore(kept[0].step)
		}
		t.snaps = kept
	}
}

// forgetBefore drops what only positions before step needed.
func (t *timeline) forgetBefore(step uint64) {
	if step > t.offBase {
		k := min(int(step-t.offBase), len(t.offsets))
		t.offsets = append(t.offsets[:0], t.offsets[k:]...)
		t.bytes -= 8 * int64(k)
		t.offBase = step
	}
	j := 0
	for j < len(t.journal) && t.journal[j].pos < step {
		j++
	}
	t.cutJournal(0, j)
}

// cutJournal removes the journal's entries i to j.
func (t *timeline) cutJournal(i, j int) {
	for _, c := range t.journal[i:j] {
		t.bytes -= c.size()
		t.jbytes -= c.size()
	}
	n := copy(t.journal[i:], t.journal[j:])
	clear(t.journal[i+n:])
	t.journal = t.journal[:i+n]
}

// oldest is the earliest position that can be shown.
func (t *timeline) oldest() (uint64, bool) {
	if len(t.snaps) == 0 {
		return 0, false
	}
	return t.snaps[0].step, true
}

// room makes room in the journal for a command about to be applied at the
// current position (the head: commands branch first), or says why there
// is none (see maxJournalAt).
func (t *timeline) room(d *Debugger, c command) error {
	pos := d.g.Step()
	at := 0
	for i := len(t.journal) - 1; i >= 0 && t.journal[i].pos == pos && at < maxJournalAt; i-- {
		at++
	}
	if at >= maxJournalAt && t.snapshot(d, pos) == nil {
		i := len(t.journal)
		for i > 0 && t.journal[i-1].pos == pos {
			i--
		}
		t.cutJournal(i, len(t.journal)) // the snapshot holds them
	}
	if t.jbytes+c.size() > t.budget/2 {
		return &apiError{code: http.StatusConflict, msg: fmt.Sprintf(
			"the live view keeps no more signals and jumps (%d kB of commands since the last snapshot that could be taken: %s); step or resume the game first",
			t.jbytes>>10, t.err)}
	}
	return nil
}

// record adds a command applied at position c.pos to the journal.
func (t *timeline) record(c command) {
	t.journal = append(t.journal, c)
	t.bytes += c.size()
	t.jbytes += c.size()
	t.trim()
}

// travel shows position to: the game is put in the state it had there.
func (t *timeline) travel(d *Debugger, to uint64) error {
	cur := d.g.Step()
	if to == cur {
		return nil
	}
	oldest, ok := t.oldest()
	switch {
	case to > t.head:
		return &apiError{code: http.StatusUnprocessableEntity, msg: fmt.Sprintf("step %d has not run yet: the latest step is %d", to, t.head),
			extra: map[string]any{"head": t.head}}
	case !ok:
		return &apiError{code: http.StatusConflict, msg: "time travel is not available: no snapshot could be taken (" + t.err + ")"}
	case to < t.first && t.reload && t.origin != "":
		return &apiError{code: http.StatusUnprocessableEntity,
			msg:   fmt.Sprintf("step %d is before %s at step %d: time travel starts there; the earliest step the live view can show is %d", to, t.origin, t.first, oldest),
			extra: map[string]any{"oldest": oldest}}
	case to < t.first && t.reload:
		return &apiError{code: http.StatusUnprocessableEntity,
			msg: fmt.Sprintf("step %d is before the reload at step %d: time travel starts again at each reload (the earlier steps ran the old trees and scripts); the earliest step the live view can show is %d",
				to, t.first, oldest),
			extra: map[string]any{"oldest": oldest}}
	case to < oldest:
		return &apiError{code: http.StatusUnprocessableEntity,
			msg:   fmt.Sprintf("step %d is no longer kept: the earliest step the live view can show is %d (snapshots are thinned to stay within %d MB)", to, oldest, t.budget>>20),
			extra: map[string]any{"oldest": oldest}}
	}
	k := 0
	for k+1 < len(t.snaps) && t.snaps[k+1].step <= to {
		k++
	}
	from := t.snaps[k].step
	d.replaying = true
	defer func() { d.replaying = false }()
	v := t.version(to)
	sameVersion := v == t.loaded
	if err := t.loadVersion(d, v); err != nil {
		return err
	}
	if cur < to && cur >= from && sameVersion { // replaying on from here is shorter
		from = cur
	} else {
		if err := d.host.Rewind(t.snaps[k].game); err != nil {
			return fmt.Errorf("restoring the snapshot of step %d: %w", from, err)
		}
		for i, r := range d.agents {
			if i < len(t.snaps[k].recs) {
				r.recState = t.snaps[k].recs[i].clone()
			}
		}
		if err := t.applyJournal(d, from); err != nil {
			return err
		}
	}
	for p := from; p < to; p++ {
		if err := d.host.ReplayStep(); err != nil {
			return fmt.Errorf("replaying step %d: %w", p+1, err)
		}
		if err := t.applyJournal(d, p+1); err != nil {
			return err
		}
	}
	for _, r := range d.agents { // a restored agent runs the composite of then
		d.follow(r)
	}
	d.seen = to
	return nil
}

// applyJournal applies the commands of position pos again, quietly.
func (t *timeline) applyJournal(d *Debugger, pos uint64) error {
	var errs []error
	for _, c := range t.journal {
		if c.pos != pos {
			continue
		}
		err := d.host.Quietly(func() error {
			if c.jump {
				return d.jumpAgent(c.agent, c.name)
			}
			if c.set {
				return d.host.SetAgentVar(c.agent, c.name, c.value)
			}
			return d.host.SendSignal(c.agent, c.name, c.data)
		})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// branch makes the shown position the latest one: the steps after it are
// discarded (snapshots, journal, events, the trace's lines). It is called
// before anything changes the game at an earlier position.
func (t *timeline) branch(d *Debugger) (discarded [2]uint64, err error) {
	s := d.g.Step()
	if s >= t.head {
		return discarded, nil
	}
	if err := t.refuseOld(s); err != nil {
		return discarded, err
	}
	discarded = [2]uint64{s + 1, t.head}
	for len(t.edits) > 0 && t.edits[len(t.edits)-1].at > s { // edits after s go with the steps
		for _, data := range t.edits[len(t.edits)-1].old {
			t.bytes -= int64(len(data))
		}
		t.edits = t.edits[:len(t.edits)-1]
	}
	t.loaded = len(t.edits)
	for len(t.snaps) > 0 && t.snaps[len(t.snaps)-1].step > s {
		t.bytes -= t.snaps[len(t.snaps)-1].size
		t.snaps = t.snaps[:len(t.snaps)-1]
	}
	j := len(t.journal)
	for j > 0 && t.journal[j-1].pos > s {
		j--
	}
	t.cutJournal(j, len(t.journal))
	for _, r := range d.agents {
		r.events.discardAfter(s)
	}
	d.world.discardAfter(s)
	if s >= t.offBase && int(s-t.offBase) < len(t.offsets) {
		off := t.offsets[s-t.offBase]
		if cerr := d.host.CutTrace(off); cerr != nil && !errors.Is(cerr, game.ErrTraceNotCut) {
			err = cerr
		}
		n := int(s - t.offBase)
		t.bytes -= 8 * int64(len(t.offsets)-n)
		t.offsets = t.offsets[:n]
	}
	t.head = s
	for _, h := range d.reason.hits {
		if h.step > s { // the stop was in a discarded step
			d.reason = reason{kind: "pause"}
			break
		}
	}
	msg := fmt.Sprintf("live view: going on from step %d; steps %d..%d are discarded", s, discarded[0], discarded[1])
	if d.host.TraceKind() == "stdout" {
		msg += " (the trace on standard output keeps their lines)"
	}
	d.host.Notice(msg)
	return discarded, err
}

// reset starts the timeline afresh at the current position (after a
// reload: older snapshots hold trees that are gone).
func (t *timeline) reset(d *Debugger) {
	*t = timeline{every: t.every, budget: t.budget, reload: true}
	t.start(d, d.g.Step())
}
