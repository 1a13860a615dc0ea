package luabind

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
	lua "github.com/yuin/gopher-lua"
)

// Saving Lua state (SPEC §6). An agent's host state is a table Value
// {agent = ctx.agent, memory = ctx.memory, state = ctx.state, lanes = ...}
// (lanes: each running lane's ctx.state, lanestate.go); the world's
// is whatever its save() returns. Saves hold nil, booleans, numbers,
// strings and tables of those; anything else, and a table reachable twice
// (which would come back as two tables), is an error naming the agent and
// the path, such as memory.target.onHit.
//
// Tables are written in gopher-lua's iteration order (array part, then keys
// in insertion order) and restored in that order, so that pairs() walks a
// restored table as it walked the saved one.
//
// Lua values go straight into the save's encoding (savecodec.Encoder's Value
// pieces) and come straight back from it, with no Value tree in between.
// Paths are not built while saving: when a value cannot be saved, the
// owner's tables are walked again, this time with paths, to name it (see
// explain).

// ErrSave marks Lua state that cannot be saved or restored.
var ErrSave = errors.New("luabind: cannot save")

// maxSaveDepth bounds nesting, as the save reader does.
const maxSaveDepth = 100

// saveTables is what the engine knows of the save under way: which owner
// (an agent, the world, a value given to ToValue) each table met so far
// belongs to. Within BeginSave and EndSave it spans every owner, so that a
// table reachable from two agents is an error too; otherwise each owner
// starts afresh.
type saveTables struct {
	many   bool // between BeginSave and EndSave
	owners []saveOwner
	seen   map[*lua.LTable]int32 // table -> index in owners
	parts  []*savePart           // kept for the next save on several goroutines (savestate_parts.go)
}

// saveOwner is what a save's tables belong to, with what it takes to walk
// them again for an error message.
type saveOwner struct {
	agent *runtime.Agent // an agent's roots are its ctx tables
	name  string         // otherwise: the owner's name ("world main.lua")
	root  lua.LValue     // and its one root value
	path  string         // and the root's path ("save()")
}

// BeginSave starts a save of many agents: until EndSave, a table reachable
// from two agents (or from an agent and the world) is an error too.
func (e *Engine) BeginSave() {
	e.save.reset()
	e.save.many = true
}

// EndSave ends what BeginSave started.
func (e *Engine) EndSave() {
	e.save.reset()
	e.save.many = false
}

func (s *saveTables) reset() {
	clear(s.owners) // let go of the agents and values
	s.owners = s.owners[:0]
	if s.seen == nil {
		s.seen = map[*lua.LTable]int32{}
	}
	clear(s.seen)
}

// begin starts the tables of a new owner and returns a writer for them.
func (s *saveTables) begin(e *Engine, enc *savecodec.Encoder, o saveOwner) saveWriter {
	if !s.many {
		s.reset()
	}
	s.owners = append(s.owners, o)
	return saveWriter{e: e, enc: enc, seen: s.seen, lanes: &e.laneBuf, owner: int32(len(s.owners) - 1)}
}

// EncodeHost implements runtime.HostState: the agent's tables, written as
// the table {agent = ..., memory = ..., state = ...}.
func (e *Engine) EncodeHost(enc *savecodec.Encoder, a *runtime.Agent) error {
	st, err := e.agentData(a)
	if err != nil {
		return err
	}
	w := e.save.begin(e, enc, saveOwner{agent: a})
	if ok, err := w.agent(st, a); err != nil {
		return err
	} else if !ok {
		return e.save.explain(e, w.owner)
	}
	return nil
}

// agent writes the agent's host table; ok is false when a value cannot be
// saved (explain says which), err an error of the game's own data.
func (w *saveWriter) agent(st *AgentData, a *runtime.Agent) (ok bool, err error) {
	enc := w.enc
	state := st.State()
	if blank(state) {
		// An empty ctx.state is not saved: it is what a restored agent's
		// first use of ctx.state gives too, and whether the agent's table
		// was handed out already (it is, at each call, once the agent's
		// scripts used ctx.state, which a restore does not tell) must not
		// change the save.
		state = nil
	}
	n := 2
	if state != nil {
		n = 3
	}
	m := enc.BeginTable()
	if st.game != nil { // the game's own data (gamedata.go): its bytes, not a table
		enc.ValueString("data")
		if err := runtime.EncodeData(enc, a, st.game); err != nil {
			return false, err
		}
	} else if !w.entry("agent", st.data) {
		return false, nil
	}
	if !w.entry("memory", st.memory) || state != nil && !w.entry("state", state) {
		return false, nil
	}
	if lanes, ok := w.e.encodeLanes(w, a); !ok {
		return false, nil
	} else if lanes {
		n++
	}
	enc.EndTable(m, n)
	return true, nil
}

// blank reports whether t is nil or holds nothing, not even the place of a
// removed key.
func blank(t *lua.LTable) bool {
	if t == nil {
		return true
	}
	it := iterateAll(t)
	k, _ := it.next()
	return k == lua.LNil
}

// hostRoot is one of an agent's saved tables and its path.
type hostRoot struct {
	name string
	t    *lua.LTable
}

// hostRoots are an agent's saved tables, by path, in the order they are
// saved (for error messages).
func (e *Engine) hostRoots(st *AgentData) []hostRoot {
	agent := st.data
	if st.game != nil {
		agent = nil // saved by the game (MarshalBinary), never a path of an error
	}
	state := st.State()
	if blank(state) {
		state = nil // not saved (EncodeHost)
	}
	return e.laneRoots(st, []hostRoot{{"agent", agent}, {"memory", st.memory}, {"state", state}})
}

// EncodeSave calls the world's save() and writes what it returns as one
// Value.
func (w *World) EncodeSave(enc *savecodec.Encoder) error {
	v, err := w.Save()
	if err != nil {
		return err
	}
	return w.e.encodeValue(enc, v, "world "+w.module, "save()")
}

// ToValue converts a Lua value for a save; what names the owner in errors.
func (e *Engine) ToValue(v lua.LValue, what string) (runtime.Value, error) {
	enc := savecodec.NewEncoder()
	if err := e.encodeValue(enc, v, what, ""); err != nil {
		return runtime.Value{}, err
	}
	return runtime.DecodeValue(savecodec.NewDecoder(enc.Bytes(), enc.Strings())), nil
}

func (e *Engine) encodeValue(enc *savecodec.Encoder, v lua.LValue, owner, path string) error {
	w := e.save.begin(e, enc, saveOwner{name: owner, root: v, path: path})
	if !w.value(v, 0) {
		return e.save.explain(e, w.owner)
	}
	return nil
}

// saveWriter writes one owner's Lua values into a save. It reports only
// whether a value could be saved; explain says why not.
type saveWriter struct {
	e     *Engine
	enc   *savecodec.Encoder
	seen  map[*lua.LTable]int32 // the tables met, and their owners (saveTables.seen, or a part's)
	lanes *[]runtime.Lane       // scratch of encodeLanes
	owner int32
}

// entry writes the key name and the table t.
func (w *saveWriter) entry(name string, t *lua.LTable) bool {
	w.enc.ValueString(name)
	return w.table(t, 0)
}

func (w *saveWriter) value(v lua.LValue, depth int) bool {
	switch v := v.(type) {
	case *lua.LNilType:
		w.enc.ValueNil()
	case lua.LBool:
		w.enc.ValueBool(bool(v))
	case lua.LNumber:
		w.enc.ValueNumber(float64(v))
	case lua.LString:
		w.enc.ValueString(string(v))
	case *lua.LTable:
		return w.table(v, depth)
	default:
		return false
	}
	return true
}

func (w *saveWriter) table(t *lua.LTable, depth int) bool {
	seen := w.seen
	if _, ok := seen[t]; ok || depth >= maxSaveDepth {
		return false
	}
	seen[t] = w.owner
	m := w.enc.BeginTable()
	n := 0
	// removed keys too (nil values): where a key set again goes in pairs()
	it := iterateAll(t)
	for k, v := it.next(); k != lua.LNil; k, v = it.next() {
		switch k.(type) {
		case lua.LString, lua.LNumber, lua.LBool:
		default:
			if v == lua.LNil {
				continue // a removed key a save cannot name
			}
			return false
		}
		w.value(k, depth+1)
		if !w.value(v, depth+1) {
			return false
		}
		n++
	}
	w.enc.EndTable(m, n)
	return true
}

// explain walks the tables of an owner whose save failed again, in the
// same order, now with paths, and returns the error for the first value
// that cannot be saved: the owner, the path (memory.target.onHit) and why.
func (s *saveTables) explain(e *Engine, owner int32) error {
	x := &pathWalker{s: s, e: e, owner: owner, at: map[*lua.LTable]string{}}
	o := &s.owners[owner]
	if o.agent == nil {
		if err := x.value(o.root, o.path, 0); err != nil {
			return err
		}
	} else if st, err := e.agentData(o.agent); err == nil {
		for _, r := range e.hostRoots(st) {
			if r.t == nil {
				continue
			}
			if err := x.value(r.t, r.name, 0); err != nil {
				return err
			}
		}
	}
	return x.fail("", "the value cannot be saved") // not reached: both walks see the same tables
}

// pathWalker is the second walk of explain: the checks of saveWriter, in
// the same order, with the path of every value.
type pathWalker struct {
	s     *saveTables
	e     *Engine
	owner int32
	at    map[*lua.LTable]string // the owner's tables met in this walk, and where
}

func (x *pathWalker) fail(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: %s", ErrSave, x.s.ownerName(x.owner), path, fmt.Sprintf(format, args...))
}

func (x *pathWalker) value(v lua.LValue, path string, depth int) error {
	switch v := v.(type) {
	case *lua.LNilType, lua.LBool, lua.LNumber, lua.LString:
		return nil
	case *lua.LTable:
		if depth >= maxSaveDepth {
			return x.fail(path, "tables nested deeper than %d", maxSaveDepth)
		}
		if other, ok := x.at[v]; ok {
			return x.fail(path, "the table is also at %s; a table reachable twice would come back as two tables", other)
		}
		if o, ok := x.s.seen[v]; ok && o != x.owner {
			return x.fail(path, "the table is also reachable from %s %s; a table shared between agents or the world would come back as separate tables",
				x.s.ownerName(o), x.s.pathOf(x.e, o, v))
		}
		x.at[v] = path
		for k, val := v.Next(lua.LNil); k != lua.LNil; k, val = v.Next(k) {
			switch k.(type) {
			case lua.LString, lua.LNumber, lua.LBool:
			default:
				return x.fail(join(path, k), "a %s used as a key; keys must be strings, numbers or booleans", k.Type())
			}
			if err := x.value(val, join(path, k), depth+1); err != nil {
				return err
			}
		}
		return nil
	default:
		return x.fail(path, "a %s cannot be saved; saves hold nil, booleans, numbers, strings and tables of those", v.Type())
	}
}

func (s *saveTables) ownerName(o int32) string {
	if a := s.owners[o].agent; a != nil {
		return "agent " + a.ID()
	}
	return s.owners[o].name
}

// pathOf is the path at which owner o's save first met table t: the first
// place a walk in the same order finds it.
func (s *saveTables) pathOf(e *Engine, o int32, t *lua.LTable) string {
	met := map[*lua.LTable]bool{}
	var find func(v lua.LValue, path string, depth int) (string, bool)
	find = func(v lua.LValue, path string, depth int) (string, bool) {
		tv, ok := v.(*lua.LTable)
		if !ok || met[tv] || depth >= maxSaveDepth {
			return "", false
		}
		if tv == t {
			return path, true
		}
		met[tv] = true
		for k, val := tv.Next(lua.LNil); k != lua.LNil; k, val = tv.Next(k) {
			if p, ok := find(val, join(path, k), depth+1); ok {
				return p, true
			}
		}
		return "", false
	}
	owner := &s.owners[o]
	if owner.agent == nil {
		p, _ := find(owner.root, owner.path, 0)
		return p
	}
	if st, err := e.agentData(owner.agent); err == nil {
		for _, r := range e.hostRoots(st) {
			if r.t == nil {
				continue
			}
			if p, ok := find(r.t, r.name, 0); ok {
				return p
			}
		}
	}
	return ""
}

// join appends a key to a path: memory.target, path[3], path["a b"].
func join(path string, k lua.LValue) string {
	switch k := k.(type) {
	case lua.LString:
		s := string(k)
		if isName(s) {
			if path == "" {
				return s
			}
			return path + "." + s
		}
		return path + "[" + strconv.Quote(s) + "]"
	case lua.LNumber:
		return path + "[" + strconv.FormatFloat(float64(k), 'g', -1, 64) + "]"
	}
	return path + "[" + k.String() + "]"
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// CheckHost implements runtime.HostState: it checks a saved host Value has
// the shape EncodeHost writes, changing nothing.
func (e *Engine) CheckHost(a *runtime.Agent, d *savecodec.Decoder) error {
	if _, err := e.agentData(a); err != nil {
		return err
	}
	data, err := checkHost(d)
	if err != nil {
		return fmt.Errorf("%w: agent %s: %w", runtime.ErrCorrupt, a.ID(), err)
	}
	switch st, _ := e.agentData(a); {
	case data && st.game == nil:
		return fmt.Errorf("%w: agent %s: the save holds the game's own data for it (AgentData), and its ctx.agent is a Lua table", runtime.ErrCorrupt, a.ID())
	case !data && st.game != nil:
		return fmt.Errorf("%w: agent %s: the save holds a Lua table as its ctx.agent, and the game gives it data of its own (AgentData)", runtime.ErrCorrupt, a.ID())
	}
	return nil
}

// checkHost reads a host Value: a table of the tables agent (or data, the
// game's own data) and memory, and maybe state and lanes. It reports
// whether the agent's data is the game's.
func checkHost(d *savecodec.Decoder) (data bool, err error) {
	v, n := runtime.DecodeValueHead(d)
	if v.Kind != runtime.TableValue {
		return false, fmt.Errorf("the saved Lua state is not a table")
	}
	var agent, memory bool
	for range n {
		name, m, err := hostEntry(d)
		if err != nil {
			return false, err
		}
		switch name {
		case "lanes":
			if err := checkLanes(d, m); err != nil {
				return false, err
			}
			continue
		case "data":
			if _, err := dataBytes(d, m); err != nil {
				return false, err
			}
			data = true
			continue
		}
		for range 2 * m {
			d.SkipValue()
		}
		agent = agent || name == "agent"
		memory = memory || name == "memory"
	}
	switch {
	case agent == data:
		return false, fmt.Errorf("the saved Lua state has %s", map[bool]string{true: "both an agent table and the game's data", false: "no agent table"}[agent])
	case !memory:
		return false, fmt.Errorf("the saved Lua state has no memory table")
	}
	return data, d.Err()
}

// dataBytes reads the entries of a saved data table, {go = BYTES}.
func dataBytes(d *savecodec.Decoder, m int) ([]byte, error) {
	if m != 1 {
		return nil, fmt.Errorf("the saved game data is not one entry")
	}
	if k, ok := d.StringNext(); !ok || k != "go" {
		return nil, fmt.Errorf("the saved game data has no entry go")
	}
	b, ok := d.StringNext()
	if !ok {
		return nil, fmt.Errorf("the saved game data is not a string of bytes")
	}
	return []byte(b), nil
}

// hostEntry reads an entry of a host Value up to the start of its table:
// the name (agent, memory, state or lanes) and the table's entry count.
func hostEntry(d *savecodec.Decoder) (string, int, error) {
	name, ok := d.StringNext()
	if !ok || (name != "agent" && name != "memory" && name != "state" && name != "lanes" && name != "data") {
		if !ok {
			k, _ := runtime.DecodeValueHead(d)
			return "", 0, fmt.Errorf("unexpected entry %v in the saved Lua state", describe(k))
		}
		return "", 0, fmt.Errorf("unexpected entry %v in the saved Lua state", strconv.Quote(name))
	}
	m, ok := d.TableNext()
	if !ok {
		return "", 0, fmt.Errorf("the saved %s is not a table", name)
	}
	return name, m, nil
}

func describe(v runtime.Value) string {
	switch v.Kind {
	case runtime.StringValue:
		return strconv.Quote(v.Str)
	case runtime.NumberValue:
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	}
	return "of kind " + strconv.Itoa(int(v.Kind))
}

// RestoreHost implements runtime.HostState. ctx.agent and ctx.memory are
// refilled in place (the world keeps references to ctx.agent tables);
// ctx.state is as a new table: the agent's own, emptied of its past, when
// it has one (which spares the allocations of a new table).
func (e *Engine) RestoreHost(a *runtime.Agent, d *savecodec.Decoder) error {
	st, err := e.agentData(a)
	if err != nil {
		return err
	}
	corrupt := func(err error) error { return fmt.Errorf("%w: agent %s: %w", runtime.ErrCorrupt, a.ID(), err) }
	v, n := runtime.DecodeValueHead(d)
	if v.Kind != runtime.TableValue {
		return corrupt(fmt.Errorf("the saved Lua state is not a table"))
	}
	for range n {
		name, m, err := hostEntry(d)
		if err != nil {
			return corrupt(err)
		}
		switch name {
		case "agent":
			e.refill(st.data, d, m)
		case "data": // CheckHost made sure the agent has the game's data
			b, err := dataBytes(d, m)
			if err != nil {
				return corrupt(err)
			}
			if err := st.game.UnmarshalBinary(b); err != nil {
				return fmt.Errorf("luabind: agent %s: restoring its game data: %w", a.ID(), err)
			}
		case "memory":
			e.refill(st.memory, d, m)
		case "state":
			// The agent's state table, or a new one, either way as a table
			// just made would be: when it holds the saved keys alone, in
			// their order, with no metatable, its values are set in place;
			// else it is made new again in place when it can be, or a new
			// table is made.
			a.SetRuleValue(e.restoreState(&st.state, d, m))
			st.usesState = true
		case "lanes":
			if err := e.restoreLanes(st, d, m); err != nil {
				return err
			}
		}
	}
	return d.Err()
}

// restoreState gives a context's reused ctx.state table (or a new one) the
// m entries d holds next, as a table just made would be: when it holds the
// saved keys alone, in their order, with no metatable, its values are set
// in place; else it is made new again in place when it can be, or a new
// table is made.
func (e *Engine) restoreState(rs *reusedState, d *savecodec.Decoder, m int) *lua.LTable {
	t := rs.t
	if t == nil || !e.setInPlace(t, d, m, true) {
		if t == nil || !resetTable(t) {
			t = e.L.CreateTable(0, m)
		}
		e.fill(t, d, m)
	}
	rs.t, rs.reuses = t, 0
	return t
}

// refill empties t and gives it the m entries d holds next, keeping t's
// identity and metatable: its key list is the saved one afterwards (removed
// keys included), so that pairs() walks it, now and as keys come and go,
// as it walked the saved table.
func (e *Engine) refill(t *lua.LTable, d *savecodec.Decoder, m int) {
	if !e.setInPlace(t, d, m, false) {
		clearTable(t)
		e.fill(t, d, m)
	}
}

// setInPlace gives t the m entries d holds next by setting (or removing)
// their values in place, when that ends as emptying and filling t would:
// t's key list holds m string keys and nothing else does (and, asNew, t
// has no metatable: it then is as a new table filled), and the saved keys
// (removed ones included) are t's key list, in its order. That is the
// common case: ctx.agent keeps its fields, and a game that loads the save
// it wrote finds its tables as they were. At the first entry that does not
// fit, it puts d back and reports false; t may then have lost entries, and
// is emptied and filled.
func (e *Engine) setInPlace(t *lua.LTable, d *savecodec.Decoder, m int, asNew bool) bool {
	lay := layoutOf(t)
	if lay == nil || !onlyStringKeys(lay, m) || asNew && lay.Metatable != lua.LNil {
		return false
	}
	start := *d
	for i := range m {
		k, ok := d.StringNext()
		if lk, isStr := lay.keys[i].(lua.LString); !ok || !isStr || string(lk) != k {
			*d = start
			return false
		}
		// lua.LNil: a removed key, in its place. A number or string equal
		// to the value the table holds keeps it, boxed already: a load of
		// the game's own recent save (a rewind, a checkpoint) finds most
		// values as they are, and allocates nothing for them.
		if lay.strdict == nil && i < len(lay.skeys) && lay.skeys[i] == k { // the key list's order (smallstr)
			if v, changed := e.readValueOver(lay.svals[i], d); changed {
				lay.svals[i], lay.metaIdx = v, nil // as setListed
			}
		} else if v, changed := e.readValueOver(lay.str(k), d); changed {
			lay.setListed(k, v)
		}
	}
	return true
}

// readValueOver is readValue for a value that replaces old: it reports
// false, and reads the value without making it, when that is a number or a
// string equal to old (the same bits: 0 and -0 differ).
func (e *Engine) readValueOver(old lua.LValue, d *savecodec.Decoder) (lua.LValue, bool) {
	if f, ok := d.NumberNext(); ok {
		if o, num := old.(lua.LNumber); num && math.Float64bits(float64(o)) == math.Float64bits(f) {
			return old, false
		}
		return e.nums.box(f), true
	}
	if s, ok := d.StringNext(); ok {
		if o, str := old.(lua.LString); str && string(o) == s {
			return old, false
		}
		return e.strs.box(s), true
	}
	return e.readValue(d), true
}

// onlyStringKeys reports whether the table's key list holds m string keys
// and the table no other entries: then writing m saved entries in place is
// emptying and filling it, if their keys are the key list in order.
func onlyStringKeys(lay *tableLayout, m int) bool {
	if m != len(lay.keys) || m < lay.strLen() || len(lay.dict) != 0 {
		return false
	}
	for _, v := range lay.array {
		if v != lua.LNil {
			return false
		}
	}
	return true
}

// fill sets the m entries d holds next in t.
func (e *Engine) fill(t *lua.LTable, d *savecodec.Decoder, m int) {
	for i := range m {
		k, n := runtime.DecodeValueHead(d)
		if k.Kind != runtime.NumberValue {
			reserveKeys(t, m-i) // the key list is made once, at its size
		}
		switch k.Kind {
		case runtime.StringValue:
			if v := e.readValue(d); v != lua.LNil {
				setString(t, k.Str, v, &e.strs)
			} else { // a removed key (iterateAll): set and removed, it takes its place in the key list
				if t.RawGetString(k.Str) == lua.LNil {
					setString(t, k.Str, lua.LTrue, &e.strs)
				}
				t.RawSetString(k.Str, lua.LNil)
			}
		case runtime.NumberValue:
			if math.IsNaN(k.Num) {
				d.SkipValue() // Lua cannot index by NaN
				continue
			}
			e.setKey(t, e.nums.box(k.Num), e.readValue(d))
		case runtime.BoolValue:
			e.setKey(t, lua.LBool(k.Bool), e.readValue(d))
		case runtime.TableValue: // never saved, but readable
			kt := e.L.CreateTable(0, n)
			e.fill(kt, d, n)
			t.RawSet(kt, e.readValue(d))
		default: // nil
			d.SkipValue()
		}
	}
}

// setKey sets t[k] = v; a nil v is a removed key (iterateAll): it is set
// and removed, which gives it its place in t's key list.
func (e *Engine) setKey(t *lua.LTable, k, v lua.LValue) {
	if v == lua.LNil && t.RawGet(k) == lua.LNil {
		t.RawSet(k, lua.LTrue)
	}
	t.RawSet(k, v)
}

// readValue reads one Value as a Lua value.
func (e *Engine) readValue(d *savecodec.Decoder) lua.LValue {
	if f, ok := d.NumberNext(); ok { // the most common values first
		return e.nums.box(f)
	}
	if s, ok := d.StringNext(); ok {
		return e.strs.box(s)
	}
	v, n := runtime.DecodeValueHead(d)
	switch v.Kind {
	case runtime.BoolValue:
		return lua.LBool(v.Bool)
	case runtime.NumberValue:
		return e.nums.box(v.Num)
	case runtime.StringValue:
		return e.strs.box(v.Str)
	case runtime.TableValue:
		t := e.L.CreateTable(0, n)
		e.fill(t, d, n)
		return t
	}
	return lua.LNil
}

// LoadValue gives the world's load(t) a saved value. Without a load hook
// the saved value is ignored.
func (w *World) LoadValue(v runtime.Value) error {
	return w.Load(w.e.luaValue(v))
}

// FromValue makes a Lua value of a saved Value.
func (e *Engine) FromValue(v runtime.Value) lua.LValue { return e.luaValue(v) }

// luaValue makes a Lua value of a saved Value, by way of its encoding: one
// way from saved data to Lua for agents (streamed) and the world (a Value,
// once per load).
func (e *Engine) luaValue(v runtime.Value) lua.LValue {
	enc := savecodec.NewEncoder()
	runtime.EncodeValue(enc, v)
	return e.readValue(savecodec.NewDecoder(enc.Bytes(), enc.Strings()))
}

var _ runtime.HostState = (*Engine)(nil)
