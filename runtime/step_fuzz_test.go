package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

// The fuzz target and the seeded long run that hold the stepping loops to
// each other. A random tree (treegen.Random: every rule kind, condition
// modes, doNotFail, loop, abort, timeout, cooldown, log parameters, choice
// orders, parallels, gates, small run-away limits) is stepped by a few
// agents sharing its gates, in rounds, with actions, conditions and
// scorers whose results, jumps, variable changes and errors are drawn from
// each agent's own stream, in call order, and some of them answered later
// (a plugin's calls); between steps the driver jumps agents from outside
// and resets them now and then. A tree that declares signals has its
// calls, cancels and signal handlers (the action RandHandled's) send them
// to the agent itself, to another agent and to all (fuzz_signals_test.go).
// The same game is run in several ways:
//
//   - observed (an Observer sees every step) and quiet;
//   - as bound (the fast path where a quiet step begins on a rule it
//     runs, the loop's shortcuts for rules without hooks), without the
//     fast path, and on the loop alone with every hook set (trackAll);
//   - saved and restored into fresh agents at a step;
//   - for a tree without gates, with the later calls answered at once.
//
// Every way must make the same calls in the same order, with the same
// results, end each step with the same outcome (a run-away error's list of
// runs included) and leave the same state (the save of every agent and of
// the gates, after every step); the observed ways must record the same
// runs. A difference is a bug in one of the loops.

// fuzzWorld is one way of running a random game.
type fuzzWorld struct {
	tree   *BoundTree
	env    *Env
	gates  *Gates
	agents []*Agent
	rounds Rounds
	script *fuzzScript
	obs    *fuzzRuns
}

// fuzzMode is a way of running a game.
type fuzzMode struct {
	observed  bool
	noFast    bool // no fast path (noFastPath)
	generic   bool // the loop alone, every hook set (trackAll)
	sync      bool // the later calls answered at once
	restoreAt int  // after this step, save every agent and restore into fresh ones; 0: never
}

func (m fuzzMode) String() string {
	return fmt.Sprintf("observed=%v noFast=%v generic=%v sync=%v restoreAt=%d", m.observed, m.noFast, m.generic, m.sync, m.restoreAt)
}

// fuzzScript is the behaviour of the names a random tree calls: each call
// draws from its agent's stream, and logs what it did.
type fuzzScript struct {
	sync   bool
	ids    []string
	agents []fuzzAgentScript
	trees  TreeSource // the trees a slotted game's slot runs (slots_fuzz_test.go); nil: none
	// signals: the signals the tree declares (S0, ...); outbox the
	// signals sent to other agents, delivered after the step (fuzzRouter).
	signals int
	outbox  []fuzzSent
}

type fuzzAgentScript struct {
	rng Rand
	log strings.Builder
	// pending is the name of the call the agent waits for: its answer
	// is drawn when the round ends.
	pending string
	// sentStep, sent and sentAll count the signals the agent sent others
	// in its step sentStep (fuzzRouter's limits).
	sentStep uint64
	sent     int
	sentAll  int
}

func (s *fuzzScript) of(a *Agent) *fuzzAgentScript { return &s.agents[a.UserData().(int)] }

// draw is the next number of the agent's stream.
func (s *fuzzAgentScript) draw() uint64 { return s.rng.Uint64() }

// sideEffects applies what draw v asks beside a call's result: a jump
// (1 in 12), a variable flipped (1 in 8).
func (s *fuzzScript) sideEffects(a *Agent, v uint64, l *fuzzAgentScript) {
	if (v>>8)%12 == 0 {
		id := s.ids[(v>>16)%uint64(len(s.ids))]
		fmt.Fprintf(&l.log, " jump %s", id)
		if err := a.Jump(id); err != nil {
			if s.trees == nil {
				panic(err)
			}
			fmt.Fprintf(&l.log, " (%v)", err) // an id of a tree the slot does not hold now
		}
	}
	if (v>>24)%8 == 0 {
		slot := int32((v >> 32) % treegen.RandVars)
		fmt.Fprintf(&l.log, " flip V%d", slot)
		a.SetVarAt(slot, !a.VarAt(slot))
	}
	if s.signals > 0 {
		s.send(a, v>>40, l)
	}
}

// actionAnswer is what draw v makes an action return.
func actionAnswer(v uint64) (Status, error) {
	switch r := v % 40; {
	case r < 14:
		return Success, nil
	case r < 26:
		return Failure, nil
	case r < 38:
		return Running, nil
	case r < 39:
		return 0, errors.New("action broke")
	default:
		return Paused, nil // not a status an action may return: an error of the step
	}
}

func (s *fuzzScript) act(a *Agent, name string, remote bool) (Status, error) {
	l := s.of(a)
	lane := a.Lane()
	if s.trees != nil && lane >= 0 {
		// A lane's number is its place in the tree the agent runs, which
		// with slots depends on the order in which the slot took its
		// trees during a step: the lane is what the label says.
		lane = 0
	}
	fmt.Fprintf(&l.log, "%s@%s first=%v lane=%d", name, a.Label(), a.FirstRun(), lane)
	if remote && !s.sync {
		l.pending = name
		return 0, ErrPending
	}
	v := l.draw()
	st, err := actionAnswer(v)
	s.sideEffects(a, v, l)
	fmt.Fprintf(&l.log, " -> %v %v; ", st, err)
	return st, err
}

// condAnswer is what draw v makes a condition return.
func condAnswer(v uint64) (bool, error) {
	if v%32 == 0 {
		return false, errors.New("condition broke")
	}
	return v%3 != 0, nil
}

func (s *fuzzScript) cond(a *Agent, name string, remote bool) (bool, error) {
	l := s.of(a)
	fmt.Fprintf(&l.log, "%s@%s", name, a.Label())
	if remote && !s.sync {
		l.pending = name
		return false, ErrPending
	}
	v := l.draw()
	ok, err := condAnswer(v)
	s.sideEffects(a, v, l)
	fmt.Fprintf(&l.log, " -> %v %v; ", ok, err)
	return ok, err
}

// scoreAnswer is what draw v makes a scorer return.
func scoreAnswer(v uint64) (float64, error) {
	if v%32 == 0 {
		return math.NaN(), nil // an error of the step
	}
	return []float64{-1, 0, 0.5, 1, 2, 3}[v%6], nil
}

func (s *fuzzScript) score(a *Agent, name string, remote bool) (float64, error) {
	l := s.of(a)
	fmt.Fprintf(&l.log, "%s@%s", name, a.Label())
	if remote && !s.sync {
		l.pending = name
		return 0, ErrPending
	}
	v := l.draw()
	sc, err := scoreAnswer(v)
	fmt.Fprintf(&l.log, " -> %v; ", sc)
	return sc, err
}

// registry registers the names of treegen.Random's trees.
func (s *fuzzScript) registry() *Registry {
	reg := NewRegistry()
	reg.RegisterAction(treegen.RandAct, &Lifecycle{
		OnStart: func(a *Agent, p Params) error {
			l := s.of(a)
			v := l.draw()
			fmt.Fprintf(&l.log, "start@%s; ", a.Label())
			if v%48 == 0 {
				return errors.New("start broke")
			}
			return nil
		},
		OnRun:    func(a *Agent, p Params) (Status, error) { return s.act(a, treegen.RandAct, false) },
		OnCancel: func(a *Agent, p Params) error { return s.cancel(a) },
	})
	reg.RegisterAction(treegen.RandHandled, fuzzHandled{s: s, Lifecycle: &Lifecycle{
		OnStart: func(a *Agent, p Params) error {
			fmt.Fprintf(&s.of(a).log, "start@%s; ", a.Label())
			return nil
		},
		OnRun:    func(a *Agent, p Params) (Status, error) { return s.act(a, treegen.RandHandled, false) },
		OnCancel: func(a *Agent, p Params) error { return s.cancel(a) },
	}})
	reg.RegisterAction(treegen.RandFunc, ActionFunc(func(a *Agent, p Params) (Status, error) { return s.act(a, treegen.RandFunc, false) }))
	reg.RegisterAction(treegen.RandRemote, ActionFunc(func(a *Agent, p Params) (Status, error) { return s.act(a, treegen.RandRemote, true) }))
	reg.RegisterCondition(treegen.RandCond, ConditionFunc(func(a *Agent, p Params) (bool, error) { return s.cond(a, treegen.RandCond, false) }))
	reg.RegisterCondition(treegen.RandRemoteCond, ConditionFunc(func(a *Agent, p Params) (bool, error) { return s.cond(a, treegen.RandRemoteCond, true) }))
	reg.RegisterScorer(treegen.RandScorer, ScorerFunc(func(a *Agent, p Params) (float64, error) { return s.score(a, treegen.RandScorer, false) }))
	reg.RegisterScorer(treegen.RandRemoteScorer, ScorerFunc(func(a *Agent, p Params) (float64, error) { return s.score(a, treegen.RandRemoteScorer, true) }))
	reg.RegisterHook(treegen.RandHook, HookFunc(func(a *Agent, p Params, how string) error {
		l := s.of(a)
		v := l.draw()
		fmt.Fprintf(&l.log, "hook@%s:%s; ", a.Label(), how)
		if v%24 == 0 {
			return errors.New("hook broke")
		}
		return nil
	}))
	s.registerSlots(reg)  // slots_fuzz_test.go
	s.registerCustom(reg) // custom_fuzz_test.go
	return reg
}

// Log is the Logger: log lines go to the agent's log.
func (s *fuzzScript) Log(a *Agent, label, msg string) {
	fmt.Fprintf(&s.of(a).log, "log %s: %s; ", label, msg)
}

// EndRound is the Resolver of the later calls: nothing to send.
func (s *fuzzScript) EndRound([]*Agent) error { return nil }

// Continue answers the call agent a waits for, drawing the answer then.
func (s *fuzzScript) Continue(a *Agent) (Status, error, bool) {
	l := s.of(a)
	if l.pending == "" {
		return 0, nil, false
	}
	l.pending = ""
	v := l.draw()
	switch fuzzPausedAt(a) {
	case phaseWaitAction:
		st, err := actionAnswer(v)
		s.sideEffects(a, v, l)
		fmt.Fprintf(&l.log, " -> %v %v; ", st, err)
		st2, err2 := a.CompleteAction(st, err)
		return st2, err2, true
	case phaseWaitCond, phaseWaitCheck:
		ok, err := condAnswer(v)
		s.sideEffects(a, v, l)
		fmt.Fprintf(&l.log, " -> %v %v; ", ok, err)
		st, err := a.CompleteCondition(ok, err)
		return st, err, true
	case phaseWaitScore:
		sc, err := scoreAnswer(v)
		fmt.Fprintf(&l.log, " -> %v; ", sc)
		st, err := a.CompleteScore(sc, err)
		return st, err, true
	}
	panic("fuzz: a call is pending but the agent waits for none")
}

// fuzzPausedAt is the call a paused agent waits for.
func fuzzPausedAt(a *Agent) phase { return a.phase }

// fuzzRuns is the Observer: the runs of each agent's last step.
type fuzzRuns struct{ steps []string }

func (o *fuzzRuns) StepDone(a *Agent, runs []RuleRun, st Status, err error) {
	var b strings.Builder
	for _, r := range runs {
		if r.Arrived() {
			b.WriteByte('*')
		}
		fmt.Fprintf(&b, "%s:%s ", a.bound.Tree.Rules[r.Rule].Label, r.Status)
	}
	o.steps[a.UserData().(int)] = b.String()
}

// newFuzzWorld makes the agents of a random game, for mode m.
func newFuzzWorld(tb testing.TB, rt treegen.RandomTree, m fuzzMode, script *fuzzScript) *fuzzWorld {
	tb.Helper()
	tree, err := LoadBytes("fuzz.xml", rt.XML, fuzzLoadOptions)
	if err != nil {
		tb.Fatalf("a random tree does not load: %v\n%s", err, rt.XML)
	}
	b, err := Bind(tree, script.registry(), BindOptions{Trees: script.trees})
	if err != nil {
		tb.Fatalf("a random tree does not bind: %v\n%s", err, rt.XML)
	}
	if m.noFast {
		noFastPath(b)
	}
	if m.generic {
		trackAll(b)
	}
	w := &fuzzWorld{tree: b, script: script}
	w.start(tb, rt, m)
	return w
}

// start makes fresh agents (and gates) for the world's tree.
func (w *fuzzWorld) start(tb testing.TB, rt treegen.RandomTree, m fuzzMode) {
	w.env = &Env{RunawayLimit: rt.Limit, Logger: w.script, Seed: 7}
	if rt.Signals > 0 {
		w.env.Router = fuzzRouter{w.script}
	}
	if m.observed {
		w.obs = &fuzzRuns{steps: make([]string, rt.Agents)}
		w.env.Observer = w.obs
	}
	w.gates = NewGates()
	if err := w.gates.Add(w.tree); err != nil {
		tb.Fatal(err)
	}
	w.env.Gates = w.gates
	w.agents = make([]*Agent, rt.Agents)
	for i := range w.agents {
		w.agents[i] = w.tree.NewAgent(fmt.Sprintf("a%d", i), w.env)
		w.agents[i].SetUserData(i)
	}
	w.rounds = Rounds{Resolvers: []Resolver{w.script, w.gates}}
}

// fuzzAfterStep, when set (while debugging a case), sees the agents after
// each step.
var fuzzAfterStep func(step int, agents []*Agent)

// fuzzRecord is what one step of a game did, agent by agent.
type fuzzRecord struct {
	outcomes []string
	runs     []string // observed only
	save     []byte
}

// runFuzzGame runs a random game in mode m and returns its records, step
// by step. events drives the jumps and resets between steps (the same
// stream in every mode).
func runFuzzGame(tb testing.TB, rt treegen.RandomTree, m fuzzMode, seed uint64) []fuzzRecord {
	return runFuzzGameWith(tb, rt, m, seed, nil)
}

// runFuzzGameWith is runFuzzGame for a game whose slots run trees.
func runFuzzGameWith(tb testing.TB, rt treegen.RandomTree, m fuzzMode, seed uint64, trees TreeSource) []fuzzRecord {
	script := &fuzzScript{sync: m.sync, ids: rt.IDs, agents: make([]fuzzAgentScript, rt.Agents), trees: trees, signals: rt.Signals}
	for i := range script.agents {
		script.agents[i].rng = NewRand(seed + uint64(i)*0x1000)
	}
	w := newFuzzWorld(tb, rt, m, script)
	events := rand.New(rand.NewPCG(seed, 99))
	var out []fuzzRecord
	const dt = 0.25
	for step := 1; step <= rt.Steps; step++ {
		for i, a := range w.agents {
			switch e := events.IntN(64); {
			case jumpOrReset(a, &script.agents[i].log, rt.IDs, e, events):
			case e < 8 && rt.Signals > 0: // from the world, the schedule
				sig := fmt.Sprintf("S%d", events.IntN(rt.Signals))
				fmt.Fprintf(&script.agents[i].log, "[signal %s] ", sig)
				if err := a.SignalDataAt(sig, numv(float64(e)), float64(step)*dt); err != nil {
					fmt.Fprintf(&script.agents[i].log, "[signal: %v] ", err)
				}
			}
		}
		outs, err := w.rounds.StepAt(w.agents, float64(step)*dt)
		if err != nil {
			tb.Fatalf("%v: step %d: rounds: %v", m, step, err)
		}
		if rt.Signals > 0 {
			w.deliver()
		}
		rec := fuzzRecord{outcomes: make([]string, len(w.agents))}
		for i, o := range outs {
			l := &script.agents[i]
			rec.outcomes[i] = fmt.Sprintf("%s %v | %s| cursor %s", o.Status, o.Err, l.log.String(), w.agents[i].CursorLabel())
			l.log.Reset()
			checkLaneCounts(tb, w.agents[i])
			if f := w.agents[i].flags; f&(flagCondAnswered|flagActionAnswered) != 0 {
				// an answer no call used: it would be taken for the next
				// call's, and a save does not hold it
				tb.Fatalf("%v: step %d: agent a%d ended its step with an answer it did not use (flags %08b)", m, step, i, f)
			}
		}
		if w.obs != nil {
			rec.runs = append([]string(nil), w.obs.steps...)
		}
		save, err := SaveAgents(w.agents, nil)
		if err != nil {
			tb.Fatalf("%v: step %d: save: %v", m, step, err)
		}
		rec.save = save
		out = append(out, rec)
		if fuzzAfterStep != nil {
			fuzzAfterStep(step, w.agents)
		}
		if step == m.restoreAt {
			w.start(tb, rt, m)
			if _, err := RestoreAgents(save, w.agents, nil); err != nil {
				tb.Fatalf("%v: step %d: restore: %v", m, step, err)
			}
		}
	}
	return out
}

// compareFuzzGames reports the first step where two modes' records differ.
func compareFuzzGames(tb testing.TB, rt treegen.RandomTree, ref, other fuzzMode, a, b []fuzzRecord) {
	tb.Helper()
	for s := range a {
		ra, rb := a[s], b[s]
		for i := range ra.outcomes {
			if ra.outcomes[i] != rb.outcomes[i] {
				tb.Fatalf("step %d, agent a%d: the calls or outcome differ\n%v:\n  %s\n%v:\n  %s\ntree:\n%s", s+1, i, ref, ra.outcomes[i], other, rb.outcomes[i], rt.XML)
			}
			if ra.runs != nil && rb.runs != nil && ra.runs[i] != rb.runs[i] {
				tb.Fatalf("step %d, agent a%d: the runs differ\n%v:\n  %s\n%v:\n  %s\ntree:\n%s", s+1, i, ref, ra.runs[i], other, rb.runs[i], rt.XML)
			}
		}
		if !bytes.Equal(ra.save, rb.save) {
			tb.Fatalf("step %d: the saves differ\n%v\n%v\noutcomes: %q\ntree:\n%s", s+1, ref, other, ra.outcomes, rt.XML)
		}
	}
}

// checkFuzzGame runs the game of data in every mode and compares each
// with the reference (observed, on the tree's own loops, later calls
// answered later).
func checkFuzzGame(tb testing.TB, data []byte) {
	checkFuzzTree(tb, treegen.Random(data), fuzzSeed(data), nil)
	checkSlotWays(tb, treegen.Random(data), fuzzSeed(data), nil) // saves at every step, a reload (slots_fuzz_test.go)
}

// fuzzSeed is the seed of a game's streams, from its data.
func fuzzSeed(data []byte) uint64 {
	seed := uint64(len(data))
	for _, b := range data {
		seed = seed*131 + uint64(b)
	}
	return seed
}

// checkFuzzTree is checkFuzzGame for tree rt (whose slots run trees).
func checkFuzzTree(tb testing.TB, rt treegen.RandomTree, seed uint64, trees TreeSource) {
	ref := fuzzMode{observed: true}
	want := runFuzzGameWith(tb, rt, ref, seed, trees)
	modes := []fuzzMode{
		{},
		{noFast: true},
		{observed: true, generic: true},
		{generic: true},
		{observed: seed%2 == 0, restoreAt: 1 + int(seed%uint64(rt.Steps))},
	}
	// Calls answered at once make fewer rounds, and a round's end is when
	// gates change (G.full reads the last round's end): with gates, the
	// same game in fewer rounds may rightly differ, even with one agent.
	if rt.Gates == 0 {
		modes = append(modes, fuzzMode{observed: true, sync: true}, fuzzMode{sync: true})
	}
	for _, m := range modes {
		compareFuzzGames(tb, rt, ref, m, want, runFuzzGameWith(tb, rt, m, seed, trees))
	}
}

// FuzzStep holds the loops to each other on random trees (see the top of
// this file).
//
//	go test ./runtime -run '^$' -fuzz FuzzStep
func FuzzStep(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		data := make([]byte, 64+r.IntN(256))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzzGame(t, data)
	})
}

// TestStep_randomTreesAgree is FuzzStep's check on a fixed series of random
// trees, in every run of the tests.
func TestStep_randomTreesAgree(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	r := rand.New(rand.NewPCG(2024, 24))
	for k := range n {
		data := make([]byte, 32+r.IntN(320))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		t.Run(fmt.Sprint(k), func(t *testing.T) { checkFuzzGame(t, data) })
	}
}

// noFastPath makes a bound tree's steps never take the fast path.
func noFastPath(b *BoundTree) {
	for i := range b.hot {
		b.hot[i].bits &^= hotFast
	}
}

// jumpOrReset is the fuzzers' event between steps for draw e (of 64): a
// jump to an id drawn from events (e < 4) or a reset (e == 4), each
// written to the agent's log with its error; false for any other draw.
func jumpOrReset(a *Agent, log *strings.Builder, ids []string, e int, events *rand.Rand) bool {
	switch {
	case e < 4:
		id := ids[events.IntN(len(ids))]
		fmt.Fprintf(log, "[jump %s] ", id)
		if err := a.Jump(id); err != nil {
			fmt.Fprintf(log, "[jump: %v] ", err)
		}
	case e < 5:
		log.WriteString("[reset] ")
		if err := a.Reset(); err != nil {
			fmt.Fprintf(log, "[reset: %v] ", err)
		}
	default:
		return false
	}
	return true
}
