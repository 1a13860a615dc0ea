package game

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// Hot reload: the config's tree files, scripts and plugins loaded again
// while the game runs, between two steps (`btrun run -watch` does it when
// their files change; Reload is the same from Go).
//
// A reload loads everything into a new loadout (loadout.go): the trees
// bound against a registry filled by a fresh Lua state running the new
// scripts, and by the plugins, the changed ones rebuilt and started beside
// the running processes. Anything that does not load or bind is reported
// and the game goes on as it was. What loads is applied as a save and a
// restore would, in memory (runtime.PlanCarry): every agent is carried over
// to a new agent of the new version of its tree and of the new Lua state,
// with its variables, timestamps, generator, timeout clocks, cooldowns,
// gate holds, ctx.memory and ctx.agent, and its place (with ctx.state or a plugin's
// state bytes) when the rule it sits on is still there. An agent whose rule
// is gone is reset first, by the old version (its running action's cancel
// hook is the old script's or plugin's; the gates it held are released),
// and restarts at the root. The game's gates (holders, last releases,
// counts) go over to the new loadout's by name. The
// world script runs as for a continued save: init(game) and spawn(ctx) on
// the new Lua state (quietly: nothing they print, send or log shows), then
// load(t) with what the old one's save() returned.

// ErrReload marks a reload that was not applied: the game goes on as it
// was.
var ErrReload = errors.New("game: reload not applied")

// ReloadOptions say what a reload is for.
type ReloadOptions struct {
	// Changed names the files that changed, relative to the config's
	// folder, for the report; empty for a reload asked for without one.
	Changed []string
	// Plugins names the plugins to build again: those whose build changed
	// restart with it (a Go package whose sources did not change keeps its
	// process; an executable is started again).
	Plugins []string
	// Files, when set, replaces Options.Files: the reload reads the trees
	// and scripts from it (a game whose sources are in memory gives their
	// new version this way), and so do later reloads. On a reload that is
	// not applied, the game keeps its files.
	Files fs.FS
	// Override, when set, gives the text of tree files (named relative to
	// the config's folder) for this reload only, instead of what is on
	// disk: the live view's time travel reloads the trees as they were
	// before an edit this way, to show the steps that ran them. Such a
	// reload prints nothing (the debugger says what it shows).
	Override map[string][]byte
}

// ReloadReport says what a reload did.
type ReloadReport struct {
	Step      uint64 // the reload came after this step
	Changed   []string
	Kept      int       // agents that kept their place
	Restarted []Restart // agents that restarted (at the root, or at a state machine's initial state), in config order
	Plugins   []string  // plugins now running a new build
	// Warnings are what the carry let through (a variable no longer
	// declared, the cooldown of a rule that is gone), and errors of cancel
	// hooks and of the world's load that did not stop the reload.
	Warnings []string
}

// Restart is an agent that a reload restarted: at the root, or, when the
// rule it sat on was inside a state machine the new version still has
// (a state removed), at that machine's initial state.
type Restart struct {
	Agent string
	Rule  runtime.GoneRule // the rule it sat on, which the new version does not have
	At    string           // the label of the state machine it restarts in; "" for the root
}

func (r Restart) String() string { return r.Agent + ": " + r.Rule.String() }

// Reload loads the config's trees and scripts again, builds the named
// plugins again, and carries every agent over (see the top of this file).
// It prints one line saying what changed and how many agents kept their
// place (and, if it fails, every problem), and writes a trace line for
// every agent it restarted. It must be called between steps (not from a
// hook during one), after Start. An error (ErrReload) means nothing
// changed; Agents returns new agents after a reload that applied.
func (g *Game) Reload(opts ReloadOptions) (*ReloadReport, error) {
	rep, err := g.reload(opts)
	g.rewatch() // whoever asked (the watcher, the live view's editor, a Go program), a new subtree file is watched from now on
	t := g.Time(g.step)
	if opts.Override != nil { // time travel's own: silent
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrReload, err)
		}
		if g.debug != nil {
			g.debug.Reloaded()
		}
		return rep, nil
	}
	if err != nil {
		g.out.always(t, "reload:", reloadFailure(opts.Changed, err))
		return nil, fmt.Errorf("%w: %w", ErrReload, err)
	}
	g.out.always(t, "reload:", rep.summary())
	for _, w := range rep.Warnings {
		g.out.always(t, "reload:", "warning: "+w)
	}
	if g.debug != nil {
		g.debug.Reloaded() // the agents, trees and rules it holds are the old version's
	}
	return rep, nil
}

func (g *Game) reload(opts ReloadOptions) (rep *ReloadReport, err error) {
	if err := g.notStepping("reload"); err != nil {
		return nil, err
	}
	if opts.Files != nil {
		kept := g.opts.Files
		g.opts.Files = opts.Files
		defer func() {
			if err != nil {
				g.opts.Files = kept
			}
		}()
	}
	if opts.Override != nil {
		g.override = make(map[string][]byte, len(opts.Override))
		for f, data := range opts.Override {
			if abs, err := filepath.Abs(g.cfg.Abs(f)); err == nil {
				g.override[abs] = data
			}
		}
		defer func() { g.override = nil }()
	}
	rep = &ReloadReport{Step: g.step, Changed: opts.Changed}
	next, err := g.load(true, opts.Plugins)
	if err != nil {
		return nil, err
	}
	// The schedule's data is checked against the new trees as at open
	// (signals_typed.go).
	if err := g.checkScheduleOn(func(ga *gameAgent) *runtime.Tree { return next.agents[ga.idx].Tree().Tree }); err != nil {
		next.close()
		return nil, err
	}
	old := g.current()
	for i, ga := range g.agents { // grafted trees: the new agents hold the new versions of the same trees
		if err := next.agents[i].FollowSlots(ga.a); err != nil {
			next.close()
			return nil, err
		}
	}
	maps := g.ruleMaps(old, next)
	var lost []int
	for i, ga := range g.agents {
		if gone, ok := maps[i].Unplaced(ga.a, next.agents[i]); ok {
			lost = append(lost, i)
			r := Restart{Agent: ga.a.ID(), Rule: gone}
			if m, ok := maps[i].MachineRestart(ga.a); ok {
				r.At = ga.a.Tree().Tree.Rules[m].Label
			}
			rep.Restarted = append(rep.Restarted, r)
			continue
		}
		// Started rules edited out above a kept place exit now, on the
		// old version's hooks, so that what they change is carried (their
		// exit has run even if the reload fails below: once per start).
		maps[i].ExitGone(ga.a)
	}
	rep.Kept = len(g.agents) - len(lost)
	if err := g.respawn(old, next); err != nil {
		next.close()
		return nil, err
	}
	// Everything that can fail is tried before anything changes: the carry
	// of the agents that keep their place, the save of the others' tables
	// and of the world.
	plan, world, err := g.planCarry(old, next, maps, lost)
	if err != nil {
		next.close()
		return nil, err
	}
	if len(lost) > 0 {
		// The agents that lose their place are reset by the old version:
		// the old cancel hook ends the running action, their active rules
		// are left (cooldowns start). Then the carry is planned again, with
		// what that changed.
		s, t := g.step, g.Time(g.step)
		for k, i := range lost {
			ga := g.agents[i]
			// An agent whose state a state machine lost starts that machine
			// again at its initial state (a jump to the machine, which is
			// active: it is entered again); any other starts at the root.
			restart := ga.a.Reset
			if at := rep.Restarted[k].At; at != "" {
				m, _ := maps[i].MachineRestart(ga.a)
				restart = func() error { return ga.a.JumpTo(m) }
			}
			if err := restart(); err != nil {
				rep.Warnings = append(rep.Warnings, err.Error())
			}
			if err := g.writeChanges(ga, s, t); err != nil {
				rep.Warnings = append(rep.Warnings, err.Error())
			}
		}
		if plan, world, err = g.planCarry(old, next, maps, nil); err != nil {
			next.close()
			return nil, fmt.Errorf("%w (agents %s were restarted at the root already)", err, restartedIDs(rep.Restarted))
		}
	}
	rng := g.randomState()
	shared := g.carriedShared(old, rep) // shared_save.go
	oldLua := g.lua
	g.use(next)
	if err := plan.Apply(); err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	}
	if g.lua != nil {
		g.lua.engine.SetRandomState(rng)
		if g.lua.game != nil { // the world has started (respawn)
			g.updateGameTable(g.step, g.Time(g.step))
			g.restoreShared(shared) // shared_save.go: init's game.shared is the old state's again
			if err := g.lua.world.LoadValue(world); err != nil {
				rep.Warnings = append(rep.Warnings, err.Error())
			}
			g.publishShared(g.Time(g.step))
		}
	}
	g.measureLua() // the new states, their agents carried
	if next.update != nil {
		next.update.Commit()
		rep.Plugins = next.update.Restarted()
	}
	if oldLua != nil {
		g.lua.errors = oldLua.errors
		oldLua.engine.Close()
		old.closeExtra()
	}
	rep.Warnings = append(append(plan.Warnings(), newOnes(next.warnings, old.warnings)...), rep.Warnings...)
	if err := g.traceRestarts(rep.Restarted); err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	}
	return rep, nil
}

// ruleMaps maps each agent's tree in old onto its new version in next, by
// agent (agents of one tree share the map).
func (g *Game) ruleMaps(old, next *loadout) []*runtime.RuleMap {
	byTree := map[[2]*runtime.Tree]*runtime.RuleMap{}
	var out []*runtime.RuleMap
	for i, ga := range g.agents {
		// An agent runs its tree with the trees grafted into its slots:
		// the map is between those (runtime: slots).
		key := [2]*runtime.Tree{ga.a.Tree().Tree, next.agents[i].Tree().Tree}
		m := byTree[key]
		if m == nil {
			m = runtime.MapRules(key[0], key[1])
			byTree[key] = m
		}
		out = append(out, m)
	}
	return out
}

// respawn runs the world script on next's Lua state as a continued save
// does (init, then spawn for every agent), quietly: the game table, the
// world module's own tables and the new agents' tables are then as at the
// start of a run, for the carry to fill.
func (g *Game) respawn(old, next *loadout) error {
	if old.lua == nil || old.lua.game == nil || next.lua == nil || next.lua.world == nil {
		return nil // no world, or it has not started
	}
	g.use(next)
	g.silent = true
	err := g.startWorld()
	g.silent = false
	for _, ga := range g.agents {
		ga.changes = ga.changes[:0] // what spawn's signals did is replaced by the carry
	}
	g.use(old)
	return err
}

// planCarry plans the carry of every agent from old to next, but for those
// in skip (which lose their place), whose tables are only checked to save;
// and saves the world. It uses the old Lua state's save session, so that a
// table reachable from two agents (or an agent and the world) is an error,
// as in a save.
func (g *Game) planCarry(old, next *loadout, maps []*runtime.RuleMap, skip []int) (*runtime.CarryPlan, runtime.Value, error) {
	var fromHost, toHost runtime.HostState
	if old.lua != nil {
		fromHost, toHost = old.host(), next.host()
		old.beginSave()
		defer old.endSave()
	}
	from, to := old.agents, next.agents
	var errs []error
	if len(skip) > 0 {
		from, to = nil, nil
		enc := savecodec.NewEncoder()
		for i := range old.agents {
			if len(skip) > 0 && skip[0] == i {
				skip = skip[1:]
				if fromHost != nil {
					errs = append(errs, fromHost.EncodeHost(enc, old.agents[i]))
				}
				continue
			}
			from, to = append(from, old.agents[i]), append(to, next.agents[i])
		}
	}
	plan, err := runtime.PlanCarry(from, to, fromHost, toHost, uniqueMaps(maps))
	errs = append(errs, err)
	var world runtime.Value
	if old.lua != nil && old.lua.world != nil && old.lua.game != nil {
		enc := savecodec.NewEncoder()
		if err := old.lua.world.EncodeSave(enc); err != nil {
			errs = append(errs, err)
		} else {
			world = runtime.DecodeValue(savecodec.NewDecoder(enc.Bytes(), enc.Strings()))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, world, err
	}
	return plan, world, nil
}

func uniqueMaps(maps []*runtime.RuleMap) []*runtime.RuleMap {
	var out []*runtime.RuleMap
	for _, m := range maps {
		if len(out) == 0 || out[len(out)-1] != m {
			out = append(out, m)
		}
	}
	return out
}

// traceRestarts writes a trace line for every agent the reload restarted.
func (g *Game) traceRestarts(rs []Restart) error {
	if g.trace == nil {
		return nil
	}
	for _, r := range rs {
		if err := g.trace.Reload(g.step, g.Time(g.step), r.Agent, r.Rule.Label); err != nil {
			return fmt.Errorf("game: writing the trace: %w", err)
		}
	}
	return nil
}

func restartedIDs(rs []Restart) string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.Agent
	}
	return strings.Join(ids, ", ")
}

// Summary is the reload's line, as btrun prints it: what changed, who kept
// their place, who restarted and why, which plugins restarted.
func (r *ReloadReport) Summary() string { return r.summary() }

// summary is the reload's line: what changed, who kept their place, which
// plugins restarted.
func (r *ReloadReport) summary() string {
	var b strings.Builder
	if len(r.Changed) > 0 {
		b.WriteString(strings.Join(r.Changed, ", ") + ": ")
	}
	if r.Kept == 1 {
		b.WriteString("1 agent kept its place")
	} else {
		fmt.Fprintf(&b, "%d agents kept their place", r.Kept)
	}
	if n := len(r.Restarted); n > 0 {
		fmt.Fprintf(&b, ", %d restarted (%s)", n, restartGroups(r.Restarted))
	}
	for _, p := range r.Plugins {
		fmt.Fprintf(&b, "; plugin %s restarted with its new build", p)
	}
	return b.String()
}

// restartGroups says which agents restarted and why, agents of one rule
// together ("grunt-1, grunt-2: rule grunt.attack.aim is gone"), at most
// listShown ids a rule (the trace names every one).
func restartGroups(rs []Restart) string {
	type key struct {
		rule runtime.GoneRule
		at   string
	}
	type group struct {
		rule runtime.GoneRule
		at   string
		ids  []string
	}
	var groups []*group
	byRule := map[key]*group{}
	for _, r := range rs {
		g := byRule[key{r.Rule, r.At}]
		if g == nil {
			g = &group{rule: r.Rule, at: r.At}
			byRule[key{r.Rule, r.At}] = g
			groups = append(groups, g)
		}
		g.ids = append(g.ids, r.Agent)
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		ids := strings.Join(g.ids[:min(len(g.ids), listShown)], ", ")
		if more := len(g.ids) - listShown; more > 0 {
			ids += fmt.Sprintf(" and %d more", more)
		}
		parts[i] = ids + ": " + g.rule.String()
		if g.at != "" {
			parts[i] += "; state machine " + g.at + " starts again at its initial state"
		}
	}
	return strings.Join(parts, "; ")
}

// listShown is how many agent ids a reload line names for one rule.
const listShown = 8

// reloadFailure is what a reload that was not applied prints: every
// problem, one a line, as `btrun validate` does.
func reloadFailure(changed []string, err error) string {
	var b strings.Builder
	if len(changed) > 0 {
		b.WriteString(strings.Join(changed, ", ") + ": ")
	}
	b.WriteString("not applied; the game goes on unchanged:")
	problems := 0
	for _, l := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			problems++
		}
		b.WriteString("\n    " + l)
	}
	if problems > 1 {
		fmt.Fprintf(&b, "\n    %d problems", problems)
	}
	return b.String()
}

// newOnes lists the texts of now that were not in before.
func newOnes(now, before []string) []string {
	var out []string
	for _, w := range now {
		if !slices.Contains(before, w) {
			out = append(out, w)
		}
	}
	return out
}

// countOf is "1 file", "3 files".
func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ReloadAll reloads every tree, script and plugin of the config (a plugin
// whose build did not change keeps its process), as the live view's reload
// button asks: it returns the reload's line, or why nothing was applied.
// On a cluster's conductor it is Conductor.ReloadAll: the whole cluster's.
func (g *Game) ReloadAll() (string, error) {
	if g.Conducting() {
		return g.cl.debug.reloadAll() // cluster_livereload.go
	}
	names := make([]string, len(g.cfg.Plugins))
	for i, p := range g.cfg.Plugins {
		names[i] = p.Name
	}
	rep, err := g.Reload(ReloadOptions{Plugins: names})
	if err != nil {
		return "", err
	}
	return rep.summary(), nil
}
