package luabind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodeCache_compilesEachSourceOnce: engines given one cache share the
// compiled chunk of each script (gopher-lua shares it read-only); a load
// after a script changed compiles that one only; Sweep forgets what the
// last loads did not ask for.
func TestCodeCache_compilesEachSourceOnce(t *testing.T) {
	cache := NewCodeCache()
	dir := t.TempDir()
	writeScripts(t, dir, map[string]string{
		"a.lua": `bt.action("a", function() return bt.SUCCESS end) return {n = 1}`,
		"b.lua": `local a = require("a") bt.condition("b", function() return a.n == 1 end)`,
	})
	load := func() *Engine {
		t.Helper()
		e, err := New(Options{Paths: []string{dir}, Root: dir, Code: cache})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.Close)
		if err := e.Load(); err != nil {
			t.Fatal(err)
		}
		return e
	}
	one, two := load(), load()
	if got := cache.Compiled(); got != 2 {
		t.Errorf("two engines compiled %d sources, want 2", got)
	}
	for _, name := range []string{"a", "b"} {
		if one.modules.byName[name].proto != two.modules.byName[name].proto {
			t.Errorf("module %s: the engines do not share its compiled chunk", name)
		}
	}
	cache.Sweep()
	if err := os.WriteFile(filepath.Join(dir, "b.lua"), []byte(`local a = require("a") return a`), 0o644); err != nil {
		t.Fatal(err)
	}
	three := load()
	if got := cache.Compiled(); got != 3 {
		t.Errorf("after b.lua changed, %d compiled in all, want 3", got)
	}
	if three.modules.byName["a"].proto != one.modules.byName["a"].proto {
		t.Error("a.lua did not change, but was compiled again")
	}
	cache.Sweep()
	if n := len(cache.byID); n != 2 {
		t.Errorf("the cache holds %d sources after the sweep, want the 2 of the last load", n)
	}
}

// TestLoad_compilingPastTheMemoryBudgetIsRefused: a script whose parse and
// compile would take more than the state's memory budget is an error
// before it is parsed, and so is a script that would take the compiled
// code of all scripts past it.
func TestLoad_compilingPastTheMemoryBudgetIsRefused(t *testing.T) {
	data := "return {" + strings.Repeat(`{x = 1, y = 2}, `, 60000) + "}" // 600,003 tokens
	f := newFixtureNoLoad(t, map[string]string{"data.lua": data}, func(o *Options) { o.MemoryLimit = 32 << 20 })
	err := f.e.Load()
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(),
		"data.lua:1: compiling the script would take about 54.9 MB (600003 tokens), over the Lua memory budget of 32 MB (run.lua_memory); split it into smaller scripts, or raise the budget") {
		t.Errorf("got %v", err)
	}
	g := newFixture(t, map[string]string{"data.lua": data}, func(o *Options) { o.MemoryLimit, o.CallTimeout = 128<<20, -1 })
	g.do(`assert(#require("data") == 60000)`)

	parts := map[string]string{}
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		var b strings.Builder
		b.WriteString("return {")
		for i := range 30000 {
			fmt.Fprintf(&b, "\"%s-abcdefghijklmnopqrstuvwxyz-%d\", ", name, i)
		}
		parts[name+".lua"] = b.String() + "}"
	}
	h := newFixtureNoLoad(t, parts, func(o *Options) { o.MemoryLimit = 8 << 20 })
	err = h.e.Load()
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "the compiled code of the scripts would take about") ||
		!strings.Contains(err.Error(), "over the Lua memory budget of 8 MB (run.lua_memory)") {
		t.Errorf("got %v", err)
	}
}

// BenchmarkCompile_tableOfDistinctStrings compiles a script returning a
// table of n different strings: the time per string stays flat as n grows
// (gopher-lua alone takes time growing with n²: 43 s for 80,000).
func BenchmarkCompile_tableOfDistinctStrings(b *testing.B) {
	for _, n := range []int{20000, 40000, 80000, 300000} {
		var src strings.Builder
		src.WriteString("return {\n")
		for i := range n {
			fmt.Fprintf(&src, "\"s%d\",\n", i)
		}
		src.WriteString("}\n")
		s := src.String()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if _, err := compileChunk("data.lua", s, DefaultMemoryLimit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
