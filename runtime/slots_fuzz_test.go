package runtime

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

// Slots in the stepping fuzzer: the random tree is grafted, under two
// names, into the slot of a host tree with the same declarations. Where
// the slot sits and what it carries is drawn (slottedHost): in a lane of a
// parallel or not, with attempts, enter and exit hooks, a timeout, under a
// watched choice child and an abort. Grafts come from an action before
// and after the slot (so a slot takes another tree in the middle of a
// step too), from the other lane, from the slot's own hooks, and from a
// running action's handler of Poke, which the driver sends between steps.
// Jumps go to the host's rules and to the grafted tree's (s.ID). Every way
// of running the game must agree (step_fuzz_test.go), and so must the
// game saved and restored into a fresh bind after every step, and carried
// over to a fresh bind (a hot reload) at a step (checkSlotWays, which
// FuzzStep runs on its trees too).

const (
	fuzzPick      = "fuzz.pick"
	fuzzGraftHook = "fuzz.graft" // an enter and exit hook that grafts
	fuzzHold      = "fuzz.hold"  // an action that runs, with a handler of Poke that grafts
)

// pick grafts "r" or "r2" into slot s, or ungrafts it, or does nothing.
func (s *fuzzScript) pick(a *Agent, p Params) (Status, error) {
	err := s.graft(a, "pick")
	return Success, err
}

// graft grafts "r" or "r2" into slot s, or ungrafts it, or does nothing,
// as the agent's stream draws, for what (logged).
func (s *fuzzScript) graft(a *Agent, what string) error {
	l := s.of(a)
	v := l.draw()
	slot := "s"
	if _, two := a.Template().Tree.RuleIndex("t"); two && v>>8%3 == 0 { // the second slot, in hosts that have it
		slot = "t"
	}
	var err error
	switch v % 4 {
	case 0:
		err = a.Graft(slot, "r")
	case 1:
		err = a.Graft(slot, "r2")
	case 2:
		err = a.Ungraft(slot)
	}
	fmt.Fprintf(&l.log, "%s@%s %s %d %v; ", what, a.Label(), slot, v%4, err)
	return err
}

// registerSlots registers the names of the slotted hosts.
func (s *fuzzScript) registerSlots(reg *Registry) {
	reg.RegisterAction(fuzzPick, ActionFunc(s.pick))
	reg.RegisterHook(fuzzGraftHook, HookFunc(func(a *Agent, p Params, how string) error {
		return s.graft(a, "hook:"+how)
	}))
	reg.RegisterAction(fuzzHold, &fuzzHolder{s})
}

// fuzzHolder is fuzz.hold: it runs or succeeds as the stream draws, and
// its handler of Poke grafts, then finishes it or lets it run.
type fuzzHolder struct{ s *fuzzScript }

func (h *fuzzHolder) Run(a *Agent, p Params) (Status, error) {
	l := h.s.of(a)
	v := l.draw()
	fmt.Fprintf(&l.log, "hold@%s %d; ", a.Label(), v%3)
	if v%3 == 0 {
		return Success, nil
	}
	return Running, nil
}

func (h *fuzzHolder) HandledSignals() []string { return []string{"Poke"} }

func (h *fuzzHolder) HandleSignal(a *Agent, p Params, signal string, data Value) (Status, error) {
	if err := h.s.graft(a, "poked"); err != nil {
		return 0, err
	}
	if h.s.of(a).draw()%2 == 0 {
		return Success, nil
	}
	return Running, nil
}

// checkSlotWays runs a slotted game, with Poke signals between steps, in
// the ways only slots need beyond checkFuzzTree's, and compares each with
// the plain run: saved and restored into fresh agents of a fresh bind
// after every step, and carried to a fresh bind of the same trees (a hot
// reload, which lays the trees' blocks out anew) at a step.
func checkSlotWays(tb testing.TB, rt treegen.RandomTree, seed uint64, trees TreeSource) {
	ref := slotWay{}
	want := runSlotGame(tb, rt, seed, trees, ref)
	for _, w := range []slotWay{{restoreEvery: true}, {reloadAt: 1 + int(seed%uint64(rt.Steps))}, {restoreEvery: true, reloadAt: 1 + int(seed>>8%uint64(rt.Steps))}} {
		tb.Logf("checking the slotted game's way %+v against the plain run", w) // shown when it fails
		compareFuzzGames(tb, rt, fuzzMode{observed: true}, fuzzMode{observed: true}, want, runSlotGame(tb, rt, seed, trees, w))
	}
}

// slotWay is a way of running a slotted game (checkSlotWays).
type slotWay struct {
	restoreEvery bool
	reloadAt     int
}

// runSlotGame is runFuzzGameWith, observed, with Poke signals between
// steps and way's saves and reloads.
func runSlotGame(tb testing.TB, rt treegen.RandomTree, seed uint64, trees TreeSource, way slotWay) []fuzzRecord {
	m := fuzzMode{observed: true}
	script := &fuzzScript{ids: rt.IDs, agents: make([]fuzzAgentScript, rt.Agents), trees: trees}
	for i := range script.agents {
		script.agents[i].rng = NewRand(seed + uint64(i)*0x1000)
	}
	w := newFuzzWorld(tb, rt, m, script)
	events := rand.New(rand.NewPCG(seed, 99))
	pokes := rand.New(rand.NewPCG(seed, 77))
	var out []fuzzRecord
	for step := 1; step <= rt.Steps; step++ {
		for i, a := range w.agents {
			jumpOrReset(a, &script.agents[i].log, rt.IDs, events.IntN(64), events)
			if pokes.IntN(3) == 0 {
				script.agents[i].log.WriteString("[poke] ")
				if err := a.Signal("Poke"); err != nil {
					fmt.Fprintf(&script.agents[i].log, "[poke: %v] ", err)
				}
			}
		}
		outs, err := w.rounds.StepAt(w.agents, float64(step)*0.25)
		if err != nil {
			tb.Fatalf("step %d: rounds: %v", step, err)
		}
		rec := fuzzRecord{outcomes: make([]string, len(w.agents))}
		for i, o := range outs {
			l := &script.agents[i]
			rec.outcomes[i] = fmt.Sprintf("%s %v | %s| cursor %s", o.Status, o.Err, l.log.String(), w.agents[i].CursorLabel())
			l.log.Reset()
			checkLaneCounts(tb, w.agents[i])
		}
		rec.runs = append([]string(nil), w.obs.steps...)
		save, err := SaveAgents(w.agents, nil)
		if err != nil {
			tb.Fatalf("step %d: save: %v", step, err)
		}
		rec.save = save
		out = append(out, rec)
		if !way.restoreEvery && step != way.reloadAt {
			continue
		}
		b, err := Bind(w.tree.Tree, script.registry(), BindOptions{Trees: trees})
		if err != nil {
			tb.Fatal(err)
		}
		old := w.agents
		w.tree = b
		w.start(tb, rt, m)
		if step == way.reloadAt {
			maps := make([]*RuleMap, len(old))
			for i, a := range w.agents {
				if err := a.FollowSlots(old[i]); err != nil {
					tb.Fatalf("step %d: reload: %v", step, err)
				}
				maps[i] = MapRules(old[i].Tree().Tree, a.Tree().Tree)
				if g, lost := maps[i].Unplaced(old[i], a); lost {
					tb.Fatalf("step %d: a reload of the same trees loses agent a%d's place: %s", step, i, g)
				}
			}
			p, err := PlanCarry(old, w.agents, nil, nil, maps)
			if err != nil {
				tb.Fatalf("step %d: reload: %v", step, err)
			}
			if err := p.Apply(); err != nil {
				tb.Fatalf("step %d: reload: %v", step, err)
			}
			continue
		}
		if _, err := RestoreAgents(save, w.agents, nil); err != nil {
			tb.Fatalf("step %d: restore: %v", step, err)
		}
	}
	return out
}

// slotted makes rt the tree grafted into a host's slot; shape (drawn
// from the game's seed) says where the slot sits and what it carries
// (slottedHost).
func slotted(tb testing.TB, rt treegen.RandomTree, shape uint64) (treegen.RandomTree, TreeSource) {
	tb.Helper()
	tree, err := LoadBytes("r.xml", rt.XML, fuzzLoadOptions)
	if err != nil {
		tb.Fatalf("a random tree does not load: %v\n%s", err, rt.XML)
	}
	root := bytes.Index(rt.XML, []byte("</variables>\n")) + len("</variables>\n") // the declarations, then the root rule
	if g := bytes.Index(rt.XML, []byte("</gates>\n")); g >= 0 {
		root = g + len("</gates>\n")
	}
	host, ids := slottedHost(shape)
	out := rt
	out.XML = append(append(slices.Clip(rt.XML[:root]), "<signals><signal name=\"Poke\"/></signals>\n"...), host...)
	out.IDs = ids
	for _, id := range rt.IDs {
		out.IDs = append(out.IDs, "s."+id)
		if slices.Contains(ids, "t") {
			out.IDs = append(out.IDs, "t."+id)
		}
	}
	return out, func(name string) (*Tree, bool) { return tree, name == "r" || name == "r2" }
}

// slottedHost is the root rule of a host whose slot "s" sits where shape
// says, and its ids. Bit 0: the slot is in a lane of a parallel, beside a
// lane that grafts (fuzz.pick) and holds (fuzz.hold, whose handler of
// Poke grafts); else it is in the looping sequence. Bits 1-2: attempts on
// the slot (none, 2, 3). Bit 3: enter and exit hooks on the slot that
// graft (fuzz.graft). Bits 4-5: a timeout on the slot (1 s, when both
// clear). Bit 6: a watched choice child before the slot's branch (abort
// lower on a condition): preemptions leave the slot. Bit 7: abort self on
// the slot's sequence. Bit 9: a second slot "t" after the first, so that
// the trees' blocks are laid out in the order the agents first took them.
func slottedHost(shape uint64) (string, []string) {
	ids := []string{"h", "w", "p", "s", "q", "y", "hd"}
	attrs := ""
	switch (shape >> 1) % 4 {
	case 1:
		attrs += ` attempts="2"`
	case 2:
		attrs += ` attempts="3"`
	}
	if shape>>3&1 != 0 {
		attrs += ` enter="` + fuzzGraftHook + `" exit="` + fuzzGraftHook + `"`
	}
	if shape>>4&3 == 0 {
		attrs += ` timeout="1"`
	}
	slot := fmt.Sprintf(`<slot id="s" default="r" doNotFail="true"%s/><action name="%s" id="q"/>`, attrs, fuzzPick)
	if shape>>9&1 != 0 {
		slot += `<slot id="t" doNotFail="true"/>`
		ids = append(ids, "t")
	}
	body := slot + fmt.Sprintf(`<action name="%s" id="hd"/>`, fuzzHold)
	if shape&1 != 0 {
		body = fmt.Sprintf(`<parallel id="par" success="%d"><sequence id="l1">%s</sequence><sequence id="l2"><action name="%s" id="p2"/><action name="%s" id="hd"/></sequence></parallel>`,
			1+shape>>8%2, slot, fuzzPick, fuzzHold)
		ids = append(ids, "par", "l1", "l2", "p2")
	}
	watch := ""
	if shape>>6&1 != 0 {
		watch = fmt.Sprintf(`<sequence id="al" abort="lower"><condition>%s</condition><action name="%s" id="alx"/></sequence>`, treegen.RandCond, treegen.RandFunc)
		ids = append(ids, "al", "alx")
	}
	self := ""
	if shape>>7&1 != 0 {
		self = fmt.Sprintf(` abort="self"><condition>%s</condition`, treegen.RandCond)
	}
	return fmt.Sprintf(`<choice id="h" loop="true">%s<sequence id="w"%s><action name="%s" id="p"/>%s<yield id="y"/></sequence></choice>
</behaviorTree>
`, watch, self, fuzzPick, body), ids
}

// TestSlot_randomTreesAgree is FuzzStep's check with the random trees
// grafted into a slot.
func TestSlot_randomTreesAgree(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(2026, 26))
	for k := range n {
		data := make([]byte, 32+r.IntN(320))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		t.Run(fmt.Sprint(k), func(t *testing.T) { checkSlotted(t, data) })
	}
}

func checkSlotted(tb testing.TB, data []byte) {
	seed := fuzzSeed(data)
	rt, trees := slotted(tb, treegen.Random(data), seed>>3)
	checkFuzzTree(tb, rt, seed, trees)
	checkSlotWays(tb, rt, seed, trees)
}

// FuzzSlots is FuzzStep with the random trees grafted into a slot.
//
//	go test ./runtime -run '^$' -fuzz FuzzSlots
func FuzzSlots(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		data := make([]byte, 64+r.IntN(256))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSlotted(t, data) })
}
