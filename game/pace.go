package game

import "time"

// pacer is `btrun run -realtime` (or [run] realtime = true): steps run no
// faster than one every dt seconds of wall time, so that a run lasts as
// long as its game time and a designer can watch it, and edit its files
// while it runs (-watch). A step that takes longer than dt (a reload that
// rebuilds a plugin, say) is not made up for by running the next ones
// faster: the game runs late, never in bursts.
type pacer struct {
	period time.Duration
	last   time.Time // when the last step started
}

// wait returns when the next step may start, or at once when stop closes
// (a stop asked for while the game waits is not held up by the pace).
func (p *pacer) wait(stop <-chan struct{}) {
	if !p.last.IsZero() {
		if d := time.Until(p.last.Add(p.period)); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-stop:
				t.Stop()
			}
		}
	}
	p.last = time.Now()
}

// betweenSteps is what Run does before each step besides stepping: with
// -realtime, the trace so far is written out (a paced run is watched while
// it runs) and the pace kept; with -watch, the files that changed are
// reloaded. A game with neither pays two nil checks a step.
func (g *Game) betweenSteps() {
	if g.pacer != nil {
		g.flushTrace() // an error shows again at the end of Run
		g.pacer.wait(g.opts.Stop)
	}
	if g.watcher != nil {
		g.reloadChanged()
	}
}
