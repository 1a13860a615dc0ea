package luabind

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// The save encoder before it wrote Lua values straight into the encoding:
// it built a runtime.Value tree, with a path string for every value, and
// the runtime encoded the tree. Kept here, as it was, to hold the streaming
// encoder to the same bytes and the same error messages.

type refConverter struct {
	owner string
	seen  map[*lua.LTable]string
	all   map[*lua.LTable]string // shared by the owners of one save
}

func (c *refConverter) fail(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: %s", ErrSave, c.owner, path, fmt.Sprintf(format, args...))
}

func (c *refConverter) value(v lua.LValue, path string, depth int) (runtime.Value, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return runtime.Value{}, nil
	case lua.LBool:
		return runtime.Value{Kind: runtime.BoolValue, Bool: bool(v)}, nil
	case lua.LNumber:
		return runtime.Value{Kind: runtime.NumberValue, Num: float64(v)}, nil
	case lua.LString:
		return runtime.Value{Kind: runtime.StringValue, Str: string(v)}, nil
	case *lua.LTable:
		if depth >= maxSaveDepth {
			return runtime.Value{}, c.fail(path, "tables nested deeper than %d", maxSaveDepth)
		}
		if other, ok := c.seen[v]; ok {
			return runtime.Value{}, c.fail(path, "the table is also at %s; a table reachable twice would come back as two tables", other)
		}
		if other, ok := c.all[v]; ok {
			return runtime.Value{}, c.fail(path, "the table is also reachable from %s; a table shared between agents or the world would come back as separate tables", other)
		}
		c.seen[v] = path
		if c.all != nil {
			c.all[v] = c.owner + " " + path
		}
		out := runtime.Value{Kind: runtime.TableValue}
		var err error
		for _, e := range refEntries(v) {
			k, val := e[0], e[1]
			if err != nil {
				break
			}
			if val == lua.LNil { // a removed key
				switch k.(type) {
				case lua.LString, lua.LNumber, lua.LBool:
					kv, _ := c.value(k, path, depth+1)
					out.Table = append(out.Table, runtime.Field{Key: kv})
				}
				continue
			}
			var kv, vv runtime.Value
			switch k.(type) {
			case lua.LString, lua.LNumber, lua.LBool:
				kv, _ = c.value(k, path, depth+1)
			default:
				err = c.fail(join(path, k), "a %s used as a key; keys must be strings, numbers or booleans", k.Type())
				continue
			}
			vv, err = c.value(val, join(path, k), depth+1)
			out.Table = append(out.Table, runtime.Field{Key: kv, Val: vv})
		}
		if err != nil {
			return runtime.Value{}, err
		}
		return out, nil
	default:
		return runtime.Value{}, c.fail(path, "a %s cannot be saved; saves hold nil, booleans, numbers, strings and tables of those", v.Type())
	}
}

// refEntries are t's entries in pairs() order, and with them, when the
// mirror of LTable is there, the keys removed from t that its key list
// holds, with nil, in their places: the array part (what Next gives before
// the first key of the list), then the key list, each key with its value.
func refEntries(t *lua.LTable) [][2]lua.LValue {
	var out [][2]lua.LValue
	lay := layoutOf(t)
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if lay != nil {
			if _, listed := lay.k2i[k]; listed {
				break
			}
		}
		out = append(out, [2]lua.LValue{k, v})
	}
	if lay == nil {
		return out
	}
	for _, k := range lay.keys {
		out = append(out, [2]lua.LValue{k, t.RawGet(k)})
	}
	return out
}

// refSaveHost is the old SaveHost.
func refSaveHost(e *Engine, a *runtime.Agent, all map[*lua.LTable]string) (runtime.Value, error) {
	st, err := e.agentData(a)
	if err != nil {
		return runtime.Value{}, err
	}
	c := &refConverter{owner: "agent " + a.ID(), seen: map[*lua.LTable]string{}, all: all}
	host := runtime.Value{Kind: runtime.TableValue}
	for _, r := range e.hostRoots(st) {
		if r.t == nil {
			continue
		}
		v, err := c.value(r.t, r.name, 0)
		if err != nil {
			return runtime.Value{}, err
		}
		host.Table = append(host.Table, runtime.Field{Key: runtime.Value{Kind: runtime.StringValue, Str: r.name}, Val: v})
	}
	return host, nil
}

// refEncodeAgents is the old runtime.EncodeAgents with the old SaveHost,
// within one BeginSave.
func refEncodeAgents(e *Engine, agents []*runtime.Agent) ([]byte, []string, error) {
	enc := savecodec.NewEncoder()
	enc.Uvarint(uint64(len(agents)))
	all := map[*lua.LTable]string{}
	var errs []error
	for _, a := range agents {
		s, err := a.Snapshot()
		if err == nil {
			s.Host, err = refSaveHost(e, a, all)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		runtime.EncodeSnapshot(enc, &s)
	}
	enc.Uvarint(0) // the agents share no gates
	return enc.Bytes(), enc.Strings(), errors.Join(errs...)
}

func newEncodeAgents(e *Engine, agents []*runtime.Agent) ([]byte, []string, error) {
	enc := savecodec.NewEncoder()
	e.BeginSave()
	defer e.EndSave()
	err := runtime.EncodeAgents(enc, agents, e)
	return enc.Bytes(), enc.Strings(), err
}

// tableMaker makes random Lua tables of every shape a save meets.
type tableMaker struct {
	L      *lua.LState
	r      *rand.Rand
	faults bool           // also put unsaveable things in
	pool   []*lua.LTable  // tables made so far, for sharing faults
	fn     *lua.LFunction // a function value
	ud     *lua.LUserData // a userdata value
	strs   []string       // string keys and values
	nums   []float64      // numbers of every kind
	made   map[*lua.LTable]bool
}

func newTableMaker(L *lua.LState, seed uint64, faults bool) *tableMaker {
	return &tableMaker{L: L, r: rand.New(rand.NewPCG(seed, 7)), faults: faults, made: map[*lua.LTable]bool{},
		fn: L.NewFunction(func(*lua.LState) int { return 0 }), ud: L.NewUserData(),
		strs: []string{"x", "y", "heading", "target", "onHit", "a b", "", "1", "ünï", "with\"quote", "_", "A9", "9a", "speed"},
		nums: []float64{0, 1, -1, 2.5, -0.0, math.NaN(), math.Inf(1), math.Inf(-1), 1 << 53, -(1 << 53), 1<<53 + 2, 1 << 60, 1e-300, 127, 128, 255, 256, 1e6, -1e6 - 0.5}}
}

func (m *tableMaker) scalar() lua.LValue {
	switch m.r.IntN(4) {
	case 0:
		return lua.LBool(m.r.IntN(2) == 0)
	case 1:
		return lua.LNumber(m.nums[m.r.IntN(len(m.nums))])
	case 2:
		return lua.LNumber(float64(m.r.IntN(2000) - 1000))
	}
	return lua.LString(m.strs[m.r.IntN(len(m.strs))])
}

func (m *tableMaker) value(depth int) lua.LValue {
	if m.faults && m.r.IntN(60) == 0 {
		switch m.r.IntN(3) {
		case 0:
			return m.fn
		case 1:
			return m.ud
		default:
			if len(m.pool) > 0 {
				return m.pool[m.r.IntN(len(m.pool))] // reachable twice
			}
		}
	}
	if depth < 4 && m.r.IntN(4) == 0 {
		return m.table(depth + 1)
	}
	return m.scalar()
}

func (m *tableMaker) table(depth int) *lua.LTable {
	t := m.L.NewTable()
	m.pool = append(m.pool, t)
	n, big := m.r.IntN(9), m.r.IntN(12) == 0
	if big {
		n = 100 + m.r.IntN(300) // counts of more than one byte, of scalars
	}
	if m.r.IntN(3) == 0 { // an array part, maybe with holes
		for i := 1; i <= 1+m.r.IntN(6); i++ {
			t.RawSetInt(i, m.value(depth))
		}
		if m.r.IntN(2) == 0 {
			t.RawSetInt(1+m.r.IntN(3), lua.LNil)
		}
	}
	for i := range n {
		var k lua.LValue
		switch r := m.r.IntN(6); {
		case big && r < 5: // many distinct keys: some in the array part, most not
			k = lua.LString(fmt.Sprintf("k%d", i))
			if i%4 == 0 {
				k = lua.LNumber(float64(i/4 + 1))
			}
		case r == 0:
			// Numbers of every kind, but none that would make gopher-lua
			// pad its array part with a million nils; no NaN, which Lua
			// cannot index by.
			x := m.nums[m.r.IntN(len(m.nums))]
			if math.IsNaN(x) || x >= 1000 && x < 1<<26 {
				continue
			}
			k = lua.LNumber(x)
		case r == 1:
			k = lua.LBool(m.r.IntN(2) == 0)
		case r == 2:
			k = lua.LString(fmt.Sprintf("k%d", m.r.IntN(1000)))
		default:
			k = lua.LString(m.strs[m.r.IntN(len(m.strs))])
		}
		if m.faults && m.r.IntN(80) == 0 {
			k = m.L.NewTable() // a table as a key
		}
		if big {
			t.RawSet(k, m.scalar())
		} else {
			t.RawSet(k, m.value(depth))
		}
		if m.r.IntN(5) == 0 { // a key that comes and goes: gopher-lua keeps it in its key list
			t.RawSet(k, lua.LNil)
		}
	}
	if m.faults && depth == 1 && m.r.IntN(40) == 0 { // nested past the limit
		deep := t
		for range maxSaveDepth + 1 {
			next := m.L.NewTable()
			deep.RawSetString("down", next)
			deep = next
		}
	}
	return t
}

// fillAgent replaces the agent's ctx.agent, ctx.memory and maybe ctx.state
// contents with random ones.
func (m *tableMaker) fillAgent(e *Engine, a *runtime.Agent) {
	st, _ := e.agentData(a)
	for _, t := range []*lua.LTable{st.data, st.memory} {
		var old []lua.LValue
		for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
			old = append(old, k)
		}
		for _, k := range old {
			t.RawSet(k, lua.LNil) // gopher-lua keeps the keys in its list
		}
		src := m.table(1)
		for k, v := src.Next(lua.LNil); k != lua.LNil; k, v = src.Next(k) {
			t.RawSet(k, v)
		}
		if m.faults && m.r.IntN(30) == 0 {
			t.RawSetString("self", t)
		}
	}
	if m.r.IntN(3) > 0 {
		a.SetRuleValue(m.table(1))
	} else {
		a.SetRuleValue(nil)
	}
}

func streamFixture(t *testing.T, n int) (*fixture, []*runtime.Agent) {
	f := newFixture(t, map[string]string{"x.lua": `require("bt").action("x", function() return "running" end)`})
	f.bind(`<behaviorTree><action id="root" name="x"/></behaviorTree>`)
	agents := make([]*runtime.Agent, n)
	for i := range agents {
		agents[i] = f.agent(fmt.Sprintf("a%d", i+1))
	}
	return f, agents
}

// TestEncodeHost_writesTheBytesOfTheTreeBuildingEncoder: on random tables
// of every shape (arrays with holes, keys that came and went, numbers of
// every kind, counts of more than one byte, nesting), the streaming
// encoder writes exactly the bytes and string table the old one did.
func TestEncodeHost_writesTheBytesOfTheTreeBuildingEncoder(t *testing.T) {
	f, agents := streamFixture(t, 5)
	for seed := range uint64(150) {
		m := newTableMaker(f.e.L, seed, false)
		for _, a := range agents {
			m.fillAgent(f.e, a)
		}
		oldBody, oldStrs, oldErr := refEncodeAgents(f.e, agents)
		newBody, newStrs, newErr := newEncodeAgents(f.e, agents)
		if oldErr != nil || newErr != nil {
			t.Fatalf("seed %d: errors: old %v, new %v", seed, oldErr, newErr)
		}
		if string(oldBody) != string(newBody) || fmt.Sprint(oldStrs) != fmt.Sprint(newStrs) {
			t.Fatalf("seed %d: the bytes differ (%d and %d bytes)", seed, len(oldBody), len(newBody))
		}
	}
}

// TestEncodeHost_errorsAreTheTreeBuildingEncoders: with functions,
// userdata, tables reachable twice (in one agent and across agents), tables
// as keys and nesting too deep put in at random, every agent's error
// message (agent and path) is the one the old encoder gave.
func TestEncodeHost_errorsAreTheTreeBuildingEncoders(t *testing.T) {
	f, agents := streamFixture(t, 6)
	failed := 0
	for seed := range uint64(300) {
		m := newTableMaker(f.e.L, seed, true)
		for _, a := range agents {
			m.fillAgent(f.e, a)
		}
		_, _, oldErr := refEncodeAgents(f.e, agents)
		_, _, newErr := newEncodeAgents(f.e, agents)
		if fmt.Sprint(oldErr) != fmt.Sprint(newErr) {
			t.Fatalf("seed %d:\nold: %v\nnew: %v", seed, oldErr, newErr)
		}
		if oldErr != nil {
			failed++
		}
	}
	if failed < 100 {
		t.Errorf("only %d of 300 saves failed: the faults are too rare to test the messages", failed)
	}
}

// TestToValue_isTheTreeBuildingEncoders: a world's save() value, converted
// alone, is the Value the old encoder built.
func TestToValue_isTheTreeBuildingEncoders(t *testing.T) {
	f, _ := streamFixture(t, 0)
	for seed := range uint64(100) {
		v := newTableMaker(f.e.L, seed, seed%2 == 1).table(1)
		want, wantErr := (&refConverter{owner: "world w", seen: map[*lua.LTable]string{}}).value(v, "", 0)
		got, err := f.e.ToValue(v, "world w")
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("seed %d:\nold: %v\nnew: %v", seed, wantErr, err)
		}
		a, b := savecodec.NewEncoder(), savecodec.NewEncoder()
		runtime.EncodeValue(a, want)
		runtime.EncodeValue(b, got)
		if string(a.Bytes()) != string(b.Bytes()) {
			t.Fatalf("seed %d: the values differ", seed)
		}
	}
}

// The restore before it read Lua values straight from the encoding: the
// host Value decoded whole, ctx.agent and ctx.memory made as new tables
// filled (keeping their identity and metatable; without the mirror of
// LTable, emptied key by key and filled), ctx.state a new table; a removed
// key (nil) set and removed again, which gives it its place.

func refLuaValue(L *lua.LState, v runtime.Value) lua.LValue {
	switch v.Kind {
	case runtime.BoolValue:
		return lua.LBool(v.Bool)
	case runtime.NumberValue:
		return lua.LNumber(v.Num)
	case runtime.StringValue:
		return lua.LString(v.Str)
	case runtime.TableValue:
		t := L.CreateTable(0, len(v.Table))
		refFill(L, t, v)
		return t
	}
	return lua.LNil
}

func refRefill(L *lua.LState, t *lua.LTable, v runtime.Value) {
	if layoutMatches {
		fresh := L.CreateTable(0, len(v.Table))
		refFill(L, fresh, v)
		mt := t.Metatable
		*t = *fresh
		t.Metatable = mt
		return
	}
	var keys []lua.LValue
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		keys = append(keys, k)
	}
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
	refFill(L, t, v)
}

func refFill(L *lua.LState, t *lua.LTable, v runtime.Value) {
	for _, f := range v.Table {
		k := refLuaValue(L, f.Key)
		if k == lua.LNil {
			continue
		}
		if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
			continue
		}
		val := refLuaValue(L, f.Val)
		if val == lua.LNil && t.RawGet(k) == lua.LNil {
			t.RawSet(k, lua.LTrue)
		}
		t.RawSet(k, val)
	}
}

func refRestoreHost(e *Engine, a *runtime.Agent, v runtime.Value) {
	st, _ := e.agentData(a)
	for _, f := range v.Table {
		switch f.Key.Str {
		case "agent":
			refRefill(e.L, st.data, f.Val)
		case "memory":
			refRefill(e.L, st.memory, f.Val)
		case "state":
			t := e.L.CreateTable(0, len(f.Val.Table))
			refFill(e.L, t, f.Val)
			a.SetRuleValue(t)
			st.state.t = t
		}
	}
}

// agentDump is what scripts can see of an agent's tables: their entries in
// pairs() order, and the order keys take when set again afterwards.
func agentDump(e *Engine, a *runtime.Agent) string {
	st, _ := e.agentData(a)
	var b strings.Builder
	for _, r := range e.hostRoots(st) {
		if r.t == nil {
			fmt.Fprintf(&b, "%s: none\n", r.name)
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", r.name, dump(r.t))
		for _, k := range []string{"heading", "new", "x", "k3", "onHit"} {
			r.t.RawSetString(k, lua.LString("later"))
		}
		fmt.Fprintf(&b, "%s then: %s\n", r.name, dump(r.t))
	}
	return b.String()
}

// TestRestoreHost_leavesTablesAsTheTreeBuildingRestoreDid: restoring random
// saves into agents whose tables had other contents (and keys that came and
// went), the tables hold the same entries in the same pairs() order as
// after the old restore, and keys set afterwards take the same places; with
// the mirror of LTable and without.
func TestRestoreHost_leavesTablesAsTheTreeBuildingRestoreDid(t *testing.T) {
	for _, mirror := range []bool{true, false} {
		t.Run(fmt.Sprintf("mirror=%v", mirror), func(t *testing.T) {
			if !mirror {
				saved := layoutMatches
				layoutMatches = false
				defer func() { layoutMatches = saved }()
			}
			src, from := streamFixture(t, 4)
			oldF, olds := streamFixture(t, 4)
			newF, news := streamFixture(t, 4)
			for seed := range uint64(120) {
				m := newTableMaker(src.e.L, seed, false)
				for _, a := range from {
					m.fillAgent(src.e, a)
				}
				data, err := runtime.SaveAgents(from, src.e)
				if err != nil {
					t.Fatal(err)
				}
				// Both sets of agents get the same past: the same tables
				// before, or (one seed in three) the saved ones, as when a
				// game loads the save it just wrote.
				pastOld, pastNew := newTableMaker(oldF.e.L, seed+1000, false), newTableMaker(newF.e.L, seed+1000, false)
				for i := range olds {
					if seed%3 == 0 {
						refRestoreAll(t, oldF.e, olds, data)
						refRestoreAll(t, newF.e, news, data)
						break
					}
					pastOld.fillAgent(oldF.e, olds[i])
					pastNew.fillAgent(newF.e, news[i])
				}
				refRestoreAll(t, oldF.e, olds, data)
				if _, err := runtime.RestoreAgents(data, news, newF.e); err != nil {
					t.Fatal(err)
				}
				compare := func(what string, olds, news []*runtime.Agent) {
					for i := range olds {
						if got, want := agentDump(newF.e, news[i]), agentDump(oldF.e, olds[i]); got != want {
							t.Fatalf("seed %d, %s, agent %d:\n got  %s\n want %s", seed, what, i+1, got, want)
						}
					}
				}
				compare("agents with a past", olds, news)
				// New agents, restored twice: the second time, their tables
				// hold exactly the saved keys (the in-place path).
				var oldFresh, newFresh []*runtime.Agent
				for _, a := range from {
					oldFresh, newFresh = append(oldFresh, oldF.agent(a.ID())), append(newFresh, newF.agent(a.ID()))
				}
				for _, what := range []string{"new agents", "new agents, again"} {
					refRestoreAll(t, oldF.e, oldFresh, data)
					if _, err := runtime.RestoreAgents(data, newFresh, newF.e); err != nil {
						t.Fatal(err)
					}
					for i := range oldFresh { // agentDump sets keys: compare before it
						if got, want := dump(hostTable(newF.e, newFresh[i])), dump(hostTable(oldF.e, oldFresh[i])); got != want {
							t.Fatalf("seed %d, %s, agent %d:\n got  %s\n want %s", seed, what, i+1, got, want)
						}
					}
				}
				compare("new agents, afterwards", oldFresh, newFresh)
			}
		})
	}
}

func hostTable(e *Engine, a *runtime.Agent) *lua.LTable {
	st, _ := e.agentData(a)
	return st.data
}

// refRestoreAll restores agents from SaveAgents data the old way.
func refRestoreAll(t *testing.T, e *Engine, agents []*runtime.Agent, data []byte) {
	t.Helper()
	_, d, err := savecodec.ReadContainer(runtime.AgentsMagic, data)
	if err != nil {
		t.Fatal(err)
	}
	d.Uvarint()
	for _, a := range agents {
		s := runtime.DecodeSnapshot(d)
		if _, err := a.Restore(&s); err != nil {
			t.Fatal(err)
		}
		refRestoreHost(e, a, s.Host)
	}
	d.Uvarint() // the sets of gates the agents share: none
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
}

func hugeIndex(v runtime.Value) bool {
	for _, f := range v.Table {
		if f.Key.Kind == runtime.NumberValue && f.Key.Num > 1e5 || hugeIndex(f.Key) || hugeIndex(f.Val) {
			return true
		}
	}
	return false
}

// fuzzStrings is the string table of FuzzRestoreHost's inputs.
var fuzzStrings = []string{"agent", "memory", "state", "x", "y", "heading", "a b", "", "k3"}

func encodeHostValue(v runtime.Value) []byte {
	enc := savecodec.NewEncoder()
	for _, s := range fuzzStrings {
		enc.String(s) // fix the string table's order
	}
	body := len(enc.Bytes())
	runtime.EncodeValue(enc, v)
	return enc.Bytes()[body:]
}

// FuzzRestoreHost feeds well-formed host Values of any shape (odd keys:
// NaN, nil, tables, duplicates; parts that are not tables) to CheckHost and
// RestoreHost: no panic, and what passes the check restores as the old
// restore did.
func FuzzRestoreHost(f *testing.F) {
	str := func(s string) runtime.Value { return runtime.Value{Kind: runtime.StringValue, Str: s} }
	num := func(x float64) runtime.Value { return runtime.Value{Kind: runtime.NumberValue, Num: x} }
	tbl := func(fs ...runtime.Field) runtime.Value { return runtime.Value{Kind: runtime.TableValue, Table: fs} }
	f.Add(encodeHostValue(tbl(runtime.Field{Key: str("agent"), Val: tbl(runtime.Field{Key: str("x"), Val: num(1.5)})},
		runtime.Field{Key: str("memory"), Val: tbl(runtime.Field{Key: num(math.NaN()), Val: num(1)}, runtime.Field{Key: runtime.Value{}, Val: num(2)},
			runtime.Field{Key: tbl(), Val: str("k3")}, runtime.Field{Key: str("x"), Val: num(1)}, runtime.Field{Key: str("x"), Val: runtime.Value{}})},
		runtime.Field{Key: str("state"), Val: tbl(runtime.Field{Key: num(1), Val: tbl(runtime.Field{Key: num(2), Val: num(3)})})},
		runtime.Field{Key: str("agent"), Val: tbl(runtime.Field{Key: str("y"), Val: num(-0.0)})})))
	f.Add(encodeHostValue(tbl(runtime.Field{Key: str("agent"), Val: num(1)})))
	f.Add([]byte{6, 1, 5, 0, 6, 0})
	ff, fagents := streamFixture(&testing.T{}, 0)
	_ = fagents
	f.Fuzz(func(t *testing.T, data []byte) {
		d := savecodec.NewDecoder(data, fuzzStrings)
		d.SkipValue()
		if d.Done() != nil {
			return // the runtime refuses it before any host sees it
		}
		if hugeIndex(runtime.DecodeValue(savecodec.NewDecoder(data, fuzzStrings))) {
			// gopher-lua pads its array part with nils up to an integer
			// key (up to 2^26), and a restore is faithful to that: a key
			// of 5e7 costs 800 MB, old restore and new alike.
			return
		}
		oldA, newA := ff.tree.NewAgent("old", nil), ff.tree.NewAgent("new", nil)
		if err := ff.e.Attach(oldA); err != nil {
			t.Fatal(err)
		}
		if err := ff.e.Attach(newA); err != nil {
			t.Fatal(err)
		}
		if err := ff.e.CheckHost(newA, savecodec.NewDecoder(data, fuzzStrings)); err != nil {
			return
		}
		if err := ff.e.RestoreHost(newA, savecodec.NewDecoder(data, fuzzStrings)); err != nil {
			t.Fatalf("RestoreHost after CheckHost passed: %v", err)
		}
		refRestoreHost(ff.e, oldA, runtime.DecodeValue(savecodec.NewDecoder(data, fuzzStrings)))
		if got, want := agentDump(ff.e, newA), agentDump(ff.e, oldA); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
