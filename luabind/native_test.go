package luabind

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// The Lumberyard MBT and CryEngine BHS documents of the seeds (and small
// ones per node kind) load and run with their leaves registered as Lua
// actions, and btrun convert's document of each runs the same way.

const nativeDir = "../runtime/testdata/native"

// nativeGame runs the agents of one native document (or its conversion)
// with gates, recording a trace line per agent and step: the status, the
// cursor's rule index (the same in a document and its conversion, whose
// labels differ), and what the leaves printed and the agent logged.
type nativeGame struct {
	t      *testing.T
	f      *fixture
	agents []*runtime.Agent
	rounds runtime.Rounds
	trace  []string
}

// leafScript registers each action of statuses, whose value is a Lua
// expression giving its status (it sees ctx and params); each call prints
// the agent, the action and its parameters to, name or duration.
func leafScript(statuses map[string]string, extra string) string {
	var b strings.Builder
	b.WriteString("local bt = require('bt')\n")
	names := make([]string, 0, len(statuses))
	for n := range statuses {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "bt.action(%q, function(ctx, params)\n  print(ctx.id .. ' %s ' .. (params['to'] or params['name'] or ''))\n  return %s\nend)\n", n, n, statuses[n])
	}
	b.WriteString(extra)
	return b.String()
}

// newNativeGame loads the document (text, or the file name's content when
// text is "") as the file name in nativeDir; converted loads btrun
// convert's output instead.
func newNativeGame(t *testing.T, name, text string, converted bool, script string, ids ...string) *nativeGame {
	t.Helper()
	f := newFixture(t, map[string]string{"leaves.lua": script})
	path := filepath.Join(nativeDir, name)
	data := []byte(text)
	if text == "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	opts := runtime.LoadOptions{Root: nativeDir}
	if converted {
		conv, err := runtime.Convert(path, data, opts)
		if err != nil {
			t.Fatalf("convert %s: %v", name, err)
		}
		data = conv.Text
	}
	tree, err := runtime.LoadBytes(path, data, opts)
	if err != nil {
		t.Fatalf("load %s: %v\n%s", name, err, data)
	}
	b, err := runtime.Bind(tree, f.reg, runtime.BindOptions{})
	if err != nil {
		t.Fatalf("bind %s: %v", name, err)
	}
	f.tree = b
	f.env.Gates = runtime.NewGates()
	if err := f.env.Gates.Add(b); err != nil {
		t.Fatal(err)
	}
	g := &nativeGame{t: t, f: f, rounds: runtime.Rounds{Resolvers: []runtime.Resolver{f.env.Gates}}}
	if len(ids) == 0 {
		ids = []string{"a"}
	}
	for _, id := range ids {
		g.agents = append(g.agents, f.agent(id))
	}
	return g
}

// step sends the signals to every agent, then steps them all at time
// s × 0.5 s, and returns the step's trace lines.
func (g *nativeGame) step(s int, signals ...string) []string {
	g.t.Helper()
	for _, a := range g.agents {
		for _, sig := range signals {
			if err := a.Signal(sig); err != nil {
				g.t.Fatal(err)
			}
		}
	}
	outs, err := g.rounds.StepAt(g.agents, float64(s)*0.5)
	if err != nil {
		g.t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(g.f.out.String()), "\n") {
		if l != "" {
			lines = append(lines, fmt.Sprintf("%d call %s", s, l))
		}
	}
	g.f.out.Reset()
	for _, l := range g.f.log.lines {
		_, msg, _ := strings.Cut(l, ": ") // the label differs after a conversion
		lines = append(lines, fmt.Sprintf("%d log %s", s, msg))
	}
	g.f.log.lines = nil
	for i, a := range g.agents {
		o := outs[i]
		if o.Err != nil {
			g.t.Fatalf("step %d agent %s: %v", s, a.ID(), o.Err)
		}
		lines = append(lines, fmt.Sprintf("%d %s %v at %d", s, a.ID(), o.Status, a.Cursor()))
	}
	g.trace = append(g.trace, lines...)
	return lines
}

// run steps n times with signals[s] sent before step s.
func (g *nativeGame) run(n int, signals map[int][]string) []string {
	for s := 1; s <= n; s++ {
		g.step(s, signals[s]...)
	}
	return g.trace
}

// seedLeaves are every action the seed documents call: each runs for one
// step and succeeds at its second, except EatApple, which fails.
func seedLeaves() map[string]string {
	m := map[string]string{}
	twoSteps := "(function() ctx.state.n = (ctx.state.n or 0) + 1; return ctx.state.n >= 2 and bt.SUCCESS or bt.RUNNING end)()"
	for _, n := range []string{"ChasePlayer", "TauntPlayer", "Communicate", "Animate", "Move", "EatApple",
		"MoveCautiouslyTowardsTarget", "MoveConfidentallyTowardsTarget", "QueryTPS",
		"GruntIdle", "GruntInvestigate", "GruntAttack", "AlienIdle", "AlienInvestigate", "AlienAttack",
		"setLight", "click", "fade", "warn", "lookAround", "yawn", "shout", "draw"} { // the last, Drag[en]gine state machines
		m[n] = twoSteps
	}
	m["EatApple"] = "bt.FAILURE"
	return m
}

// seedGlobals are the Lua functions the seed's Lua nodes call.
const seedGlobals = `
function DoSomething() print("DoSomething") end
function StartParticleEffect() print("StartParticleEffect") end
function StopParticleEffect() print("StopParticleEffect") end
function IsAppleGreen() return true end
bt.condition("light.dimmable", function(ctx) return true end)
bt.condition("light.hot", function(ctx) return ctx.id == "m2" end)
bt.condition("awake", function(ctx) return ctx.id ~= "m3" end)
bt.condition("deaf", function(ctx) return false end)
bt.condition("alone", function(ctx) return ctx.id == "m1" end)
`

// seedSignals is the schedule every seed document runs with.
var seedSignals = map[int][]string{
	2: {"OnHearSound"}, 3: {"OnEnemyDamage"}, 5: {"OnEnemySeen"}, 6: {"GroupMemberDied"},
	9: {"OnNoTarget", "OnLostSightOfTarget"}, 14: {"OnEnemySeen"},
	// the Drag[en]gine state machines' events
	4: {"switch", "noise"}, 7: {"dim", "calm"}, 8: {"noise"}, 11: {"dim"}, 12: {"dim", "switch"}, 15: {"switch"},
}

func TestNative_seedDocumentsRunAndConvertedRunsTheSame(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(nativeDir, "*.xml"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, file := range files {
		name := filepath.Base(file)
		if name == "Common.xml" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			script := leafScript(seedLeaves(), seedGlobals)
			native := newNativeGame(t, name, "", false, script, "m1", "m2", "m3").run(24, seedSignals)
			conv := newNativeGame(t, name, "", true, script, "m1", "m2", "m3").run(24, seedSignals)
			if !slices.ContainsFunc(native, func(l string) bool { return strings.Contains(l, " call ") }) {
				t.Fatalf("no leaf was called:\n%s", strings.Join(native, "\n"))
			}
			if d := firstDiff(native, conv); d != "" {
				t.Fatalf("the converted document runs differently: %s", d)
			}
			if os.Getenv("SHOW") != "" {
				t.Logf("%s", strings.Join(native, "\n"))
			}
			ran++
		})
	}
	if ran < 10 {
		t.Fatalf("ran %d seed documents", ran)
	}
}

// firstDiff describes the first line where two traces differ; "" when
// they are the same.
func firstDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: native %q, converted %q", i+1, x, y)
		}
	}
	return ""
}

// A native document's agents save and restore at any step (their rules have
// ids, made from the node path), and go on as the uninterrupted run does.
func TestNative_seedDocumentsSaveAndRestoreAtEveryStep(t *testing.T) {
	for _, name := range []string{"mbt_limit.xml", "mbt_lua.xml", "mbt_timestamps.xml", "bhs_grunt_blocks.xml", "desm_lamp.xml", "desm_guard.xml"} {
		t.Run(name, func(t *testing.T) {
			script := leafScript(seedLeaves(), seedGlobals)
			const steps = 16
			whole := newNativeGame(t, name, "", false, script, "m1", "m2", "m3").run(steps, seedSignals)
			for at := 1; at < steps; at++ {
				g := newNativeGame(t, name, "", false, script, "m1", "m2", "m3")
				g.run(at, seedSignals)
				data, err := runtime.SaveAgents(g.agents, g.f.e)
				if err != nil {
					t.Fatalf("save at step %d: %v", at, err)
				}
				h := newNativeGame(t, name, "", false, script, "m1", "m2", "m3")
				if _, err := runtime.RestoreAgents(data, h.agents, h.f.e); err != nil {
					t.Fatalf("restore at step %d: %v", at, err)
				}
				for s := at + 1; s <= steps; s++ {
					h.step(s, seedSignals[s]...)
				}
				rest := slices.DeleteFunc(slices.Clone(whole), func(l string) bool {
					var n int
					fmt.Sscan(l, &n)
					return n <= at
				})
				if d := firstDiff(rest, h.trace); d != "" {
					t.Fatalf("restored at step %d: %s", at, d)
				}
			}
		})
	}
}
