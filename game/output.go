package game

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/btrun/btrun/runtime"
)

// printer writes the run for people: one line per change of what an agent
// is doing, signals, failures and errors, then a summary. With quiet, only
// the summary.
type printer struct {
	w     io.Writer
	quiet bool
	buf   []byte
	// log, when set (Options.Logger), gets every line instead of w, as a
	// record with the line's time and agent (slog.go); the summary still
	// goes to w.
	log *slog.Logger

	// A progress line for terminals: redrawn in place, erased before any
	// other line.
	progress  bool
	shown     bool
	repeats   map[string]*repeat // the last error of each source, to fold repeats (output_fold.go)
	started   time.Time
	lastDrawn time.Time
	clock     func() time.Time // time.Now; tests set their own
}

// progressAfter and progressEvery keep short runs quiet and long ones calm.
const (
	progressAfter = time.Second
	progressEvery = 250 * time.Millisecond
)

// tick redraws the progress line after step done of total.
func (p *printer) tick(done, total int) {
	if !p.progress {
		return
	}
	now := time.Now()
	if p.clock != nil {
		now = p.clock()
	}
	if p.started.IsZero() {
		p.started = now
	}
	if now.Sub(p.started) < progressAfter || now.Sub(p.lastDrawn) < progressEvery {
		return
	}
	p.lastDrawn = now
	fmt.Fprintf(p.w, "\r\033[K  step %d/%d (%d%%)", done, total, done*100/max(total, 1))
	p.shown = true
}

// clearProgress erases the progress line if it is shown.
func (p *printer) clearProgress() {
	if p.shown {
		io.WriteString(p.w, "\r\033[K")
		p.shown = false
	}
}

func (p *printer) line(t float64, agent, text string) {
	p.lineAt(slog.LevelInfo, t, agent, text)
}

// lineAt is line, with the level a Logger gets it at.
func (p *printer) lineAt(level slog.Level, t float64, agent, text string) {
	if p.quiet {
		return
	}
	p.alwaysAt(level, t, agent, text)
}

// always writes a line that -quiet keeps too: what a hot reload did.
func (p *printer) always(t float64, agent, text string) {
	p.alwaysAt(slog.LevelInfo, t, agent, text)
}

func (p *printer) alwaysAt(level slog.Level, t float64, agent, text string) {
	if p.log != nil {
		p.log.LogAttrs(context.Background(), level, text, logTime(t), slog.String("agent", agent))
		return
	}
	p.clearProgress()
	b := append(p.buf[:0], "t="...)
	b = appendFixed2(b, t)
	b = append(b, ' ')
	b = append(b, agent...)
	b = append(b, ' ')
	b = append(b, text...)
	b = append(b, '\n')
	p.buf = b
	p.w.Write(b)
}

// logged writes an agent's log line (bt.log, ctx:log): a Logger gets the
// message as it is, with the rule's label.
func (p *printer) logged(t float64, agent, label, msg string) {
	if p.log != nil {
		p.log.LogAttrs(context.Background(), slog.LevelInfo, msg, logTime(t), slog.String("agent", agent), slog.String("rule", label))
		return
	}
	p.line(t, agent, "log "+label+": "+msg)
}

// notice writes a line for people that -quiet keeps: the progress of a
// plugin build, which can take a minute.
func (p *printer) notice(msg string) {
	if p.log != nil {
		p.log.Info(msg)
		return
	}
	p.clearProgress()
	fmt.Fprintf(p.w, "btrun: %s\n", msg)
}

// appendFixed2 writes t with two decimals, as "t=1.30".
func appendFixed2(b []byte, t float64) []byte {
	return fmt.Appendf(b, "%.2f", t)
}

// change reports that an agent now runs a different rule.
func (p *printer) change(t float64, agent, from, to string) {
	if p.quiet {
		return
	}
	if from == "" {
		from = "(start)"
	}
	p.lineAt(slog.LevelDebug, t, agent, from+" -> "+to)
}

func (p *printer) signal(t float64, agent, signal string) {
	if p.quiet {
		return
	}
	p.lineAt(slog.LevelDebug, t, agent, "<- signal "+printable(signal))
}

// printable shows a name with its control characters escaped (a carriage
// return as \r, an escape as \x1b), so that a name cannot move the
// terminal's cursor or start an escape sequence.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func (p *printer) failed(t float64, agent, policy string) {
	if p.quiet {
		return
	}
	p.lineAt(slog.LevelWarn, t, agent, "tree failed ("+policy+")")
}

func (p *printer) errored(t float64, agent string, err error, policy string) {
	if p.quiet {
		return
	}
	msg := strings.ReplaceAll(err.Error(), "\n", "\n    ")
	p.repeatable(t, agent, "error ("+policy+"): "+msg)
}

// summary is what a run prints at its end.
type summary struct {
	steps      int
	firstStep  uint64
	dt         float64
	agents     []*gameAgent
	wall       time.Duration
	agentSteps int
	actions    *actionTimes
	gates      []runtime.GateInfo // the gates at the end of the run (gates.go)
}

func (s *summary) write(w io.Writer) {
	rate := 0.0
	if s.wall > 0 {
		rate = float64(s.agentSteps) / s.wall.Seconds()
	}
	if s.steps == 0 {
		fmt.Fprintf(w, "btrun: no steps run (0 steps asked for); %d agents at step %d (t=%.2f s)\n",
			len(s.agents), s.firstStep-1, float64(s.firstStep-1)*s.dt)
		return
	}
	last := s.firstStep + uint64(s.steps) - 1
	fmt.Fprintf(w, "btrun: steps %d..%d (t=%.2f..%.2f s), %d agents, %d agent-steps in %s (%.0f agent-steps/s)\n",
		s.firstStep, last, float64(s.firstStep)*s.dt, float64(last)*s.dt, len(s.agents), s.agentSteps, s.wall.Round(time.Microsecond), rate)
	width := len("agent")
	for _, a := range s.agents {
		width = max(width, len(a.a.ID()))
	}
	fmt.Fprintf(w, "  %-*s  %8s  %8s  %6s  %s\n", width, "agent", "failures", "errors", "state", "rule")
	for _, a := range s.agents {
		state := "active"
		if a.stopped {
			state = "stopped"
		}
		fmt.Fprintf(w, "  %-*s  %8d  %8d  %6s  %s\n", width, a.a.ID(), a.failures, a.errors, state, a.a.CursorLabel())
	}
	writeGates(w, s.gates)
	if s.actions == nil {
		return
	}
	times := s.actions.sorted()
	if len(times) == 0 {
		return
	}
	width = len("action")
	for _, t := range times {
		width = max(width, len(t.name))
	}
	fmt.Fprintf(w, "  %-*s  %9s  %12s  %10s\n", width, "action", "calls", "total", "per call")
	for _, t := range times {
		per := t.total / time.Duration(t.calls)
		fmt.Fprintf(w, "  %-*s  %9d  %12s  %10s\n", width, t.name, t.calls, t.total.Round(time.Microsecond), per)
	}
	if s.actions.plugins {
		fmt.Fprintln(w, "  (a plugin call's time is its share of its round trip: a batch's round trip is shared equally among its calls)")
	}
}

// gameAgent is one agent of the game with what the loop keeps about it.
type gameAgent struct {
	idx      int32 // its place in config order
	tree     int32 // its tree: an index into the config's [[trees]]
	kind     int32 // 1 + the index of its [[agents]] entry when that entry translates leaves (translate.go); 0 otherwise
	a        *runtime.Agent
	stopped  bool
	failures int
	errors   int

	// The step's outcome, kept until every agent's step ended so that trace
	// and output are written in config order whatever order steps end in.
	runs    []runtime.RuleRun
	changes []change // signals and changes of its step, for the trace (trace_changes.go)
	status  runtime.Status
	err     error

	sent     int    // signals sent to other agents in step sentStep (signals.go)
	sentAll  int    // of which to "all"
	sentStep uint64 // the step sent counts for
}
