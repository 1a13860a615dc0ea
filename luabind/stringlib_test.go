package luabind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// TestPatterns_matchLikeLua51: the bounded matcher gives Lua 5.1's results.
func TestPatterns_matchLikeLua51(t *testing.T) {
	f := newFixture(t, nil)
	f.do(`
		local function eq(got, want, what)
			if got ~= want then error(what .. ": got " .. tostring(got) .. ", want " .. tostring(want), 2) end
		end
		eq(string.find("hello world", "o w"), 5, "plain find")
		eq(select(2, string.find("hello world", "o w")), 7, "plain find end")
		eq(string.find("hello", "l+"), 3, "find")
		eq(select(2, string.find("hello", "l+")), 4, "find end")
		eq(string.find("hello", "xyz"), nil, "no match")
		eq(string.find("a.b", ".", 1, true), 2, "plain flag")
		eq(string.find("a.b", "%."), 2, "escaped dot")
		eq(string.find("abc", "", 10), 4, "empty pattern past the end")
		eq(string.find("abc", "b", -1), nil, "negative init")
		eq(string.find("abc", "c", -1), 3, "negative init finds")
		eq(string.match("key = value", "(%w+)%s*=%s*(%w+)"), "key", "captures")
		eq(select(2, string.match("key = value", "(%w+)%s*=%s*(%w+)")), "value", "second capture")
		eq(string.match("hello", "()ll()"), 3, "position capture")
		eq(string.match("  trim  ", "^%s*(.-)%s*$"), "trim", "trim")
		eq(string.match("THE (quick) fox", "%((%a+)%)"), "quick", "parens")
		eq(string.match("f(a(b)c)d", "%b()"), "(a(b)c)", "balanced")
		eq(string.match("THE (quick) fox", "%f[%a]%a+", 5), "quick", "frontier")
		eq(string.match("hello", ".-(l+)"), "ll", "lazy")
		eq(string.match("aaa", "a-b"), nil, "lazy fails")
		eq(string.match("abcabc", "(abc)%1"), "abc", "back reference")
		eq(string.match("x=1, y=2", "[%a_][%w_]*"), "x", "sets")
		eq(string.match("]", "[]]"), "]", "bracket in a set")
		eq(string.match("a-b", "[a%-]+"), "a-", "escaped dash in a set")
		eq(string.match("2024", "^%d%d%d%d$"), "2024", "anchors")
		eq(string.match("abc", "^b"), nil, "anchor fails")
		local words = {}
		for w in string.gmatch("one two  three", "%a+") do words[#words + 1] = w end
		eq(table.concat(words, ","), "one,two,three", "gmatch")
		local pairs_ = {}
		for k, v in ("a=1, b=2"):gmatch("(%w+)=(%w+)") do pairs_[#pairs_ + 1] = k .. v end
		eq(table.concat(pairs_, ","), "a1,b2", "gmatch captures")
		local n = 0
		for _ in ("abc"):gmatch("") do n = n + 1 end
		eq(n, 4, "gmatch empty matches")
		eq((string.gsub("hello world", "o", "0")), "hell0 w0rld", "gsub")
		eq(select(2, string.gsub("hello world", "o", "0")), 2, "gsub count")
		eq((string.gsub("hello", "l", "L", 1)), "heLlo", "gsub max")
		eq((string.gsub("abc", "%w", "%0%0")), "aabbcc", "gsub %0")
		eq((string.gsub("hello world", "(%w+)", "<%1>")), "<hello> <world>", "gsub %1")
		eq((string.gsub("abc", "b", "%%")), "a%c", "gsub %%")
		eq((string.gsub("$name is $age", "%$(%w+)", {name = "Ann", age = 30})), "Ann is 30", "gsub table")
		eq((string.gsub("abc", "%w", function(c) return c:upper() end)), "ABC", "gsub function")
		eq((string.gsub("abc", "%w", function(c) if c == "b" then return false end return "x" end)), "xbx", "gsub false keeps")
		eq((string.gsub("abc", "", "-")), "-a-b-c-", "gsub empty pattern")
		eq((string.gsub("hello", "^h", "H")), "Hello", "gsub anchored")
		eq((string.gsub("abc", "b", 7)), "a7c", "gsub number replacement")
		eq(string.rep("ab", 3), "ababab", "rep")
		eq(string.rep("ab", 0), "", "rep 0")
		eq(string.format("%5.2f|%-3d|%s|%q|%x|%%", 3.14159, 7, "s", "a\nb", 255), " 3.14|7  |s|\"a\\nb\"|ff|%", "format")
		eq(table.concat({1, "a", 2.5}, "-"), "1-a-2.5", "concat")
		eq(table.concat({1, 2, 3}, ",", 2, 3), "2,3", "concat range")
		eq(table.concat({}, ","), "", "concat empty")
	`)
	for _, c := range []struct{ src, want string }{
		{`string.find("a", "(")`, "unfinished capture"},
		{`string.find("a", "%")`, "malformed pattern (ends with '%')"},
		{`string.find("a", "[a")`, "malformed pattern (missing ']')"},
		{`string.find("a", "%1")`, "invalid capture index"},
		{`string.match("a", "a)")`, "invalid pattern capture"},
		{`string.find("a", "%f")`, "missing '[' after '%f' in pattern"},
		{`string.find("a", "%b")`, "unbalanced pattern"},
		{`string.gsub("a", "a", true)`, "string/function/table expected"},
		{`string.gsub("a", "a", {a = {}})`, "invalid replacement value (a table)"},
		{`string.format("%100d", 1)`, "invalid format (width or precision too long)"},
		{`string.format("%.100f", 1)`, "invalid format (width or precision too long)"},
		{`string.format("%v", 1)`, "invalid option '%v' to 'format'"},
		{`string.format("%*d", 5, 1)`, "invalid option '%*' to 'format'"},
		{`table.concat({1, {}, 3})`, "invalid value (at index 2) in table for 'concat'"},
		{`string.find(string.rep("a", 300), string.rep("a?", 300))`, "pattern too complex"},
	} {
		err := f.e.DoString("p.lua", "\n"+c.src)
		if err == nil || !strings.HasPrefix(err.Error(), "p.lua:2: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want p.lua:2: ...%s", c.src, err, c.want)
		}
	}
}

// TestPatterns_catastrophicBacktrackingIsStopped: a pattern that would
// backtrack for hours ends with the call timeout's error at its line.
func TestPatterns_catastrophicBacktrackingIsStopped(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.CallTimeout = 100 * time.Millisecond })
	for _, src := range []string{
		`local s = string.rep("a", 1e5)` + "\n" + `return string.find(s, "(.-)*b")`,
		`local s = string.rep("a", 1e5)` + "\n" + `return s:match(".-.-.-.-b")`,
		`local s = string.rep("a", 1e5)` + "\n" + `return (s:gsub("(a*)*b", "x"))`,
		`local s = string.rep("a", 1e5)` + "\n" + `for x in s:gmatch("a-a-a-b") do end`,
	} {
		within(t, 2*time.Minute, func() {
			err := f.e.DoString("bt.lua", src)
			if !errors.Is(err, ErrTimeout) || !strings.HasPrefix(err.Error(), "bt.lua:2: script ran longer than the call timeout (100ms)") {
				t.Errorf("%s:\ngot %v", src, err)
			}
		})
	}
	f.do(`assert(("abc"):find("b") == 2)`)
}

// TestStrings_buildersRefuseResultsBeyondTheLimit: with a 16 MB budget no
// string may pass 2 MB; every function that builds strings says so at the
// script line, before allocating.
func TestStrings_buildersRefuseResultsBeyondTheLimit(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) {
		o.MemoryLimit = 16 << 20
		o.CallTimeout = 2 * time.Minute // a hang guard: gsub over a megabyte is slow under -race on a busy machine
	})
	for _, c := range []struct{ src, want string }{
		{`string.rep("x", 2^40)`, "string.rep would make a string of"},
		{`string.rep("xy", 2^20 + 1)`, "string.rep would make a string of 2097154 bytes or more; a string may be at most 2 MB (an eighth of the Lua memory budget)"},
		{`("x"):rep(2^31)`, "string.rep would make a string of"},
		{`local s = string.rep("x", 2^20) return s .. s .. "!"`, ".. would make a string of"},
		{`local t = {} for i = 1, 3 do t[i] = string.rep("x", 2^20) end return table.concat(t)`, "table.concat would make a string of"},
		{`local s = string.rep("x", 2^20 + 1) return (s:gsub("x", "yy"))`, "string.gsub would make a string of"},
		{`local s = string.rep("x", 2^20) return string.format("%s%s%s", s, s, s)`, "string.format would make a string of"},
		{`return string.format(string.rep("%99d", 30000), 1)`, "string.format would make a string of"},
		{`return string.format("%99.99f", 1e308)`, ""},
	} {
		within(t, 2*time.Minute, func() {
			err := f.e.DoString("s.lua", "\n"+c.src)
			if c.want == "" {
				if err != nil {
					t.Errorf("%s: %v", c.src, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), "s.lua:2: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s:\ngot  %v\nwant s.lua:2: ...%s", c.src, err, c.want)
			}
		})
	}
}

// TestPatterns_agreeWithGopherLua compares the bounded matcher with
// gopher-lua's own on cases where Lua 5.1 and gopher-lua agree, so that
// replacing it changes no script's results there.
func TestPatterns_agreeWithGopherLua(t *testing.T) {
	subjects := []string{"", "a", "hello world", "  x = 10, y=20 ", "aaa", "a.b-c", "(a(b)c)", "THE (quick) fox", "x\ny", "12abc34"}
	patterns := []string{"a", "a*", "a+", "a-", "a?", ".", ".-", "%a+", "%d+", "%s*", "^a", "a$", "^$", "(%a+)", "(a)(b?)",
		"[%a_]+", "[^%s]+", "%w+%s*=%s*%w+", "(%w+)=(%w+)", "%(", "[a-c]+", "l+", "o w", "()", "(h)(.)", "x%.?", "[%d]+$", "%S+"}
	plain := lua.NewState()
	defer plain.Close()
	f := newFixture(t, nil)
	for _, s := range subjects {
		for _, p := range patterns {
			for _, fn := range []string{"find", "match", "gsub"} {
				code := fmt.Sprintf("local r = {string.%s(%q, %q%s)} for i = 1, #r do r[i] = tostring(r[i]) end return table.concat(r, '|')",
					fn, s, p, map[string]string{"gsub": ", '<%0>'"}[fn])
				if err := plain.DoString("result = (function() " + code + " end)()"); err != nil {
					continue // gopher-lua rejects it; Lua 5.1 may not
				}
				want := plain.GetGlobal("result").String()
				f.do("result = (function() " + code + " end)()")
				if got := f.e.L.GetGlobal("result").String(); got != want {
					t.Errorf("string.%s(%q, %q): got %q, gopher-lua %q", fn, s, p, got, want)
				}
			}
		}
	}
}
