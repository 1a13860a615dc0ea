package luabind

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestSandbox_forbiddenGlobalsAreAbsent(t *testing.T) {
	f := newFixture(t, nil)
	for _, name := range []string{
		"io", "os", "package", "debug", "coroutine", "channel",
		"dofile", "loadfile", "load", "loadstring", "collectgarbage", "module", "_printregs",
	} {
		f.do(`assert(` + name + ` == nil, "` + name + ` is reachable")`)
		f.do(`assert(rawget(_G, "` + name + `") == nil)`)
	}
	// gopher-lua's string.dump only raises an error; one that dumped a
	// function's bytecode must not reach scripts.
	f.do(`assert(string.dump == nil or not pcall(string.dump, function() end), "string.dump dumps")`)
}

func TestSandbox_osTimeAndClockAreUnavailable(t *testing.T) {
	f := newFixture(t, nil)
	err := f.e.DoString("t.lua", `return os.time()`)
	if err == nil || !strings.Contains(err.Error(), "t.lua:1: attempt to index a non-table object(nil) with key 'time'") {
		t.Errorf("os.time(): %v", err)
	}
}

func TestSandbox_allowedLibrariesWork(t *testing.T) {
	f := newFixture(t, nil)
	f.do(`
		assert(string.format("%d-%s", 3, "x") == "3-x")
		assert(("abc"):upper() == "ABC")
		local t = {3, 1, 2}; table.sort(t); assert(table.concat(t, ",") == "1,2,3")
		assert(math.floor(2.5) == 2 and math.max(1, 4) == 4)
		assert(type(pairs) == "function" and type(pcall) == "function" and type(setmetatable) == "function")
		assert(bt == require("bt"))
	`)
}

func TestSandbox_printWritesToOutput(t *testing.T) {
	f := newFixture(t, nil)
	f.do(`print("hello", 1, true, nil)`)
	if got := f.out.String(); got != "hello\t1\ttrue\tnil\n" {
		t.Errorf("print wrote %q", got)
	}
}

// TestSandbox_fastMathMatchesGopherLua compares the engine's allocation-free
// math functions with gopher-lua's own on a spread of arguments.
func TestSandbox_fastMathMatchesGopherLua(t *testing.T) {
	f := newFixture(t, nil)
	plain := lua.NewState()
	defer plain.Close()
	const probe = `
		local out = {}
		local xs = {-2.5, -1, -0.3, 0, 0.25, 0.5, 1, 3, 10.75, 1e6}
		for _, name in ipairs({"abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "deg", "exp", "floor",
		                        "log", "log10", "rad", "sin", "sinh", "sqrt", "tan", "tanh"}) do
			for _, x in ipairs(xs) do out[#out + 1] = name .. "(" .. x .. ")=" .. tostring(math[name](x)) end
		end
		for _, name in ipairs({"atan2", "fmod", "pow"}) do
			for _, x in ipairs(xs) do out[#out + 1] = name .. "=" .. tostring(math[name](x, 0.7)) end
		end
		out[#out + 1] = tostring(math.max(3, 7, -1)) .. tostring(math.min(3, 7, -1)) .. tostring(math.max("8", 2))
		out[#out + 1] = tostring(select(2, pcall(math.max)))
		return table.concat(out, " ")`
	if err := plain.DoString(probe); err != nil {
		t.Fatal(err)
	}
	want := plain.Get(-1).String()
	f.do("_got = (function() " + probe + " end)()")
	if got := f.e.L.GetGlobal("_got").String(); got != strings.ReplaceAll(want, "<string>", "test") {
		t.Errorf("engine math differs from gopher-lua's:\n got  %s\n want %s", got, want)
	}
}

// TestMath_hugeIsInfinityAsInLua51: math.huge is HUGE_VAL, greater than
// every number, as in Lua 5.1 (gopher-lua's own is the largest finite one).
func TestMath_hugeIsInfinityAsInLua51(t *testing.T) {
	f := newFixture(t, map[string]string{})
	f.do(`assert(math.huge == 1/0 and -math.huge == -1/0)
assert(math.huge > 1.7976931348623157e308 and math.huge - 1 == math.huge)
assert(math.min(5, math.huge) == 5 and math.max(-math.huge, -5) == -5)`)
}
