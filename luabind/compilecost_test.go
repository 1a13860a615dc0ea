package luabind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestCompileCost_refusesAFunctionNamingTooManyConstants: code that names
// tens of thousands of different constants in one function (not a table
// constructor, which is split) is refused before compiling, at the line
// where the count passed the budget, saying what to split; the same names
// spread over functions compile.
func TestCompileCost_refusesAFunctionNamingTooManyConstants(t *testing.T) {
	var b strings.Builder
	b.WriteString("local t = {}\nlocal function fill()\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "  t.k%d = \"v%d\"\n", i, i)
	}
	b.WriteString("end\nreturn t\n")
	src := b.String()
	_, err := compile("gen.lua", src)
	var se *ScriptError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
		t.Fatalf("got %v, want a syntax error", err)
	}
	if se.Line < 3000 || se.Line > 20002 || !strings.Contains(se.Msg, "the function starting at line 2 names ") ||
		!strings.Contains(se.Msg, "split the function into smaller ones, or write the data as a table constructor") {
		t.Errorf("got %v", err)
	}
	// The same names and strings in functions of 500 assignments each.
	b.Reset()
	b.WriteString("local t = {}\n")
	for i := range 20000 {
		if i%500 == 0 {
			b.WriteString("do local function part()\n")
		}
		fmt.Fprintf(&b, "  t.k%d = \"v%d\"\n", i, i)
		if i%500 == 499 {
			b.WriteString("end part() end\n")
		}
	}
	b.WriteString("return t\n")
	if _, err := compile("parts.lua", b.String()); err != nil {
		t.Errorf("split into functions: %v", err)
	}
}

// TestCompileCost_countsWhatTheCompilerSearches: locals, upvalues and
// parameters are not constants; globals, fields, methods, strings and
// numbers are, once per function.
func TestCompileCost_countsWhatTheCompilerSearches(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int64
	}{
		{`local a, b = 1, 2 return a + b`, 0 + 1},                   // 1, 2: 0 then 1 comparison
		{`local a = 1 return a, a, a`, 0},                           // the local is no constant
		{`x = 1`, 0 + 1 + 1},                                        // x found (0), 1 (1), x set (1)
		{`return "s", "s", "s"`, 0 + 1 + 1},                         // found at index 0 each time
		{`local function f(p) return p.k, p:m() end`, 0 + 1},        // k, m
		{`for i = 1, 2 do end`, 0 + 1 + 1},                          // 1, 2, the step 1 (found)
		{`local t = {} function t.f() return up end`, 0 + 0},        // f; in f: up
		{`local s repeat local l = 1 until l`, 0},                   // until sees the body's locals
		{`local x = x`, 0},                                          // the global x, then the local
		{`return function() return 0/0, 0/0 end`, 0 + 1 + 1 + 1},    // no folding: 0 four times
		{`local a = 1 do local a = "s" end return a, b`, 0 + 1 + 2}, // 1, s, b
	} {
		chunk, err := parseChunk("t.lua", c.src)
		if err != nil {
			t.Fatal(err)
		}
		cc := &costCounter{name: "t.lua", budget: 1 << 40, locals: map[string]int32{}}
		cc.function(1, nil, func() { cc.block(chunk) })
		if cc.total != c.want {
			t.Errorf("%s: %d comparisons counted, want %d", c.src, cc.total, c.want)
		}
	}
}
