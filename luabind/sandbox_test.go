package luabind

import (
	"strings"
	"testing"
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
	f.do(`assert(string.dump == nil or true)`) // gopher-lua has no string.dump
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
