package luabind

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// dumpLua is a Lua function that writes a value as text: tables with their
// entries in pairs order and their length, so that two tables built
// differently compare as strings.
const dumpLua = `
local function dump(v, out)
  if type(v) ~= "table" then out[#out + 1] = type(v) .. ":" .. tostring(v) return end
  out[#out + 1] = "{#" .. #v .. " "
  for k, x in pairs(v) do
    dump(k, out) out[#out + 1] = "=" dump(x, out) out[#out + 1] = ","
  end
  out[#out + 1] = "}"
end
function dumpOf(v) local out = {} dump(v, out) return table.concat(out) end
`

// plainCompile is gopher-lua's own compile, without btrun's rewrites.
func plainCompile(t *testing.T, name, src string) *lua.FunctionProto {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := lua.Compile(chunk, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runDump runs a chunk that returns a value (given calls(), a function that
// counts its calls, and ... = "a", nil, "c") and returns its dump, with the
// order in which calls() ran.
func runDump(t *testing.T, e *Engine, p *lua.FunctionProto) string {
	t.Helper()
	L := e.L
	if err := L.DoString(`ncalls = 0 function calls(...) ncalls = ncalls + 1 return ncalls, ... end`); err != nil {
		t.Fatal(err)
	}
	L.Push(L.NewFunctionFromProto(p))
	L.Push(lua.LString("a"))
	L.Push(lua.LNil)
	L.Push(lua.LString("c"))
	if err := L.PCall(3, 1, nil); err != nil {
		t.Fatalf("the chunk fails: %v", err)
	}
	v := L.Get(-1)
	L.Pop(1)
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("dumpOf"), NRet: 1, Protect: true}, v); err != nil {
		t.Fatal(err)
	}
	s := L.Get(-1).String()
	L.Pop(1)
	return s
}

// randomConstructor writes a table constructor of n fields of every kind a
// data table has: strings, numbers, booleans, nil by position, named
// fields, small and big nested tables, calls (which count the order of
// evaluation), and at the end, sometimes, a call whose values all go in.
// It also writes ref, an expression that builds the same table one
// assignment at a time, in the same order: what the constructor means.
// (gopher-lua's own compile of a big constructor that mixes named fields
// and values by position is not a reference: past 255 constants it can
// store a key's name in place of a value.)
func randomConstructor(r *rand.Rand, n, depth int, keyed bool) (src, ref string) {
	bigs := 0 // nested big constructors, at most 2
	var b, rb strings.Builder
	b.WriteString("{")
	rb.WriteString("(function() local t = {}\n")
	next := 1
	for i := range n {
		target := fmt.Sprintf("t[%d]", next)
		if keyed && r.IntN(4) == 0 {
			k := fmt.Sprintf("k%d", r.IntN(n))
			fmt.Fprintf(&b, "%s = ", k)
			target = "t." + k
		} else {
			next++
		}
		var v, rv string
		switch k := r.IntN(10); {
		case k < 3:
			v = fmt.Sprintf("%q", fmt.Sprintf("s%d", r.IntN(3*n)))
		case k < 5:
			v = fmt.Sprintf("%d.5", r.IntN(3*n))
		case k == 5:
			v = []string{"nil", "true", "false"}[r.IntN(3)]
		case k == 6 && depth < 2:
			v, rv = randomConstructor(r, r.IntN(8), depth+1, keyed)
		case k == 7 && depth < 1 && bigs < 2 && r.IntN(4) == 0:
			bigs++
			v, rv = randomConstructor(r, 300+r.IntN(300), depth+1, keyed)
		case k == 8:
			v = "(calls())"
		case k == 9 && i < n-1:
			v = "calls(1, 2)" // one value: it is not the last field
		default:
			v = fmt.Sprintf("-%d", i)
		}
		if rv == "" {
			rv = v
		}
		b.WriteString(v)
		if i%100 == 0 { // in functions of 100 assignments: compiling the reference stays quick
			if i > 0 {
				rb.WriteString("end g() end\n")
			}
			rb.WriteString("do local function g()\n")
		}
		fmt.Fprintf(&rb, "%s = %s\n", target, rv)
		if i < n-1 || r.IntN(2) == 0 {
			b.WriteString(", ")
		}
	}
	if n > 0 {
		rb.WriteString("end g() end\n")
	}
	if n > 0 && r.IntN(3) == 0 {
		b.WriteString(", calls(1, nil, 3)") // 4 values
		fmt.Fprintf(&rb, "do local a, b, c, d = calls(1, nil, 3) t[%d], t[%d], t[%d], t[%d] = a, b, c, d end\n", next, next+1, next+2, next+3)
	}
	b.WriteString("}")
	rb.WriteString("return t end)()")
	return b.String(), rb.String()
}

// TestSplitTables_buildTheSameTables: big constructors of random data,
// split into chunks, build the tables their meaning says (entries, pairs
// order, length, the order calls ran), at sizes around every threshold of
// the split.
func TestSplitTables_buildTheSameTables(t *testing.T) {
	e := newFixture(t, map[string]string{}).e
	if err := e.L.DoString(dumpLua); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 49, 50, 51, 100, splitUses - 1, splitUses, splitUses + 1, 2 * splitUses, chunkFields - 1, chunkFields,
		chunkFields + 1, splitFields + 1, 20000} // 20,000: more chunks than one call of fill takes
	split, most := 0, 0
	for _, n := range sizes {
		for _, keyed := range []bool{false, true} {
			src, ref := randomConstructor(r, n, 0, keyed)
			src = "return " + src
			p, err := compile("t.lua", src)
			if err != nil {
				t.Fatalf("n=%d keyed=%v: %v", n, keyed, err)
			}
			if len(p.FunctionPrototypes) > 0 {
				split++
			}
			most = max(most, mostChunks(p))
			got, want := runDump(t, e, p), runDump(t, e, plainCompile(t, "ref.lua", "return "+ref))
			if got != want {
				t.Fatalf("n=%d keyed=%v: the table differs from its meaning:\n%.300s\nwant\n%.300s", n, keyed, firstDiffText(got, want), firstDiffText(want, got))
			}
		}
	}
	if split < 10 {
		t.Errorf("only %d constructors were split", split)
	}
	if most <= fillGroup {
		t.Errorf("no constructor was split into more chunks (%d) than a call of fill takes", most)
	}
}

// mostChunks is the most functions one function of p defines.
func mostChunks(p *lua.FunctionProto) int {
	n := len(p.FunctionPrototypes)
	for _, q := range p.FunctionPrototypes {
		n = max(n, mostChunks(q))
	}
	return n
}

// TestSplitTables_keyAfterAFullBatch: gopher-lua's compiler stores the
// values by position again, from registers used since, when a keyed field
// follows 50, 100, ... of them ({1, ..., 50, k = f()} gave t[1] = f()'s
// value, and a computed key made the VM fail); such a constructor is split
// and builds its table right, and one that cannot be split is a syntax
// error at the keyed field.
func TestSplitTables_keyAfterAFullBatch(t *testing.T) {
	nums := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%d, ", i)
		}
		return b.String()
	}
	f := newFixture(t, map[string]string{})
	f.do(`local function f() return 99 end
local t = {` + nums(50) + `k = f(), ` + nums(3) + `}
assert(t[1] == 1 and t[50] == 50 and t.k == 99 and t[53] == 3 and #t == 53, tostring(t[1]))
local u = {` + nums(100) + `k = {}, j = "x" .. f()}
assert(u[1] == 1 and u[100] == 100 and type(u.k) == "table" and u.j == "x99" and #u == 100, tostring(u[1]))`)
	_, err := compile("k.lua", "local function f(...)\n  return {"+nums(50)+"\n  [f()] = 1}\nend")
	want := "k.lua:3: a field with a key after 50 values by position in a table constructor that uses \"...\" or keys that are not names"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// firstDiffText is s from a little before where it differs from o.
func firstDiffText(s, o string) string {
	i := 0
	for i < len(s) && i < len(o) && s[i] == o[i] {
		i++
	}
	return s[max(0, i-40):]
}

// TestSplitTables_keepTheirPlaceInTheCode: a split constructor as an
// argument, in a return list, as a method's receiver, in a local with
// others, and one that is not split (it uses "...") still works there.
func TestSplitTables_keepTheirPlaceInTheCode(t *testing.T) {
	big := func(from int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 400 {
			fmt.Fprintf(&b, "%q,", fmt.Sprint("v", from+i))
		}
		b.WriteString("}")
		return b.String()
	}
	f := newFixture(t, map[string]string{})
	f.do(`local function n(t) return #t end
local a, b = ` + big(0) + `, ` + big(1000) + `
assert(a[400] == "v399" and b[1] == "v1000")
assert(n(` + big(0) + `) == 400 and select("#", ` + big(0) + `) == 1)
local function two() return ` + big(0) + `, 2 end
local x, y = two()
assert(#x == 400 and y == 2)
local function va(...) return {..., ` + strings.Repeat(`"w",`, 300) + `} end
assert(#va(1, 2) == 301 and va(1, 2)[1] == 1)`)
}

// TestSplitTables_tooManyValuesThatCannotBeSplit: a constructor that uses
// "..." with more values by position than gopher-lua stores right is a
// syntax error at its line (it used to lose the values past 25,550).
func TestSplitTables_tooManyValuesThatCannotBeSplit(t *testing.T) {
	src := "local function f(...)\n  return {...,\n" + strings.Repeat("1,", maxSetList+1) + "}\nend\nreturn f"
	_, err := compile("big.lua", src)
	want := "big.lua:2: this table constructor holds 25552 values by position and uses \"...\""
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	// Without "...", the values all go in.
	f := newFixture(t, map[string]string{"big.lua": "return {" + strings.Repeat("1,", maxSetList+100) + "\"last\"}"})
	f.do(`local t = require("big") assert(#t == 25651 and t[25650] == 1 and t[25651] == "last", #t)`)
}
