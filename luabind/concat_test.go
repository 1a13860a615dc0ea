package luabind

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestConcat_joinsAsTheVMDoes: ".." rewritten into a call keeps Lua's
// meaning: strings and numbers, right-to-left __concat metamethods, one
// value from each call or vararg, long chains, nested functions.
func TestConcat_joinsAsTheVMDoes(t *testing.T) {
	f := newFixture(t, nil)
	f.do(`
		local function two() return "x", "y" end
		assert("a" .. "b" .. "c" == "abc")
		assert(1 .. 2 == "12")
		assert("n=" .. 1.5 .. "/" .. -3 == "n=1.5/-3")
		assert("a" .. two() == "ax")
		assert(two() .. "b" == "xb")
		local function va(...) return "<" .. ... .. ">" end
		assert(va("p", "q") == "<p>")
		local mt = {__concat = function(a, b)
			local l = type(a) == "table" and "T" or a
			local r = type(b) == "table" and "T" or b
			return l .. "+" .. r
		end}
		local t = setmetatable({}, mt)
		assert(t .. "s" == "T+s")
		assert("s" .. t == "s+T")
		assert("a" .. "b" .. t == "ab+T")
		assert(t .. "a" .. "b" == "T+ab")
		local parts = {}
		local long = "x"` + strings.Repeat(` .. "x"`, 499) + `
		assert(#long == 500, #long)
		local s = ""
		for i = 1, 10 do s = s .. i end
		assert(s == "12345678910")
		local up = "u"
		local function inner() return up .. "v" end
		assert(inner() == "uv")
		assert(("%d"):format(3) .. "!" == "3!")
	`)
	err := f.e.DoString("bad.lua", "local x = nil\nlocal s = 'a' .. x\n")
	if err == nil || !strings.Contains(err.Error(), "bad.lua:2:") || !strings.Contains(err.Error(), "cannot perform concat operation between string and nil") {
		t.Errorf("concat with nil: %v", err)
	}
}

// TestConcat_refusesStringsBeyondTheLimit: s = s .. s in a loop stops with
// an error at its line once the result would pass the string limit (an
// eighth of the memory budget), instead of doubling into gigabytes.
func TestConcat_refusesStringsBeyondTheLimit(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.MemoryLimit = 8 << 20 })
	within(t, 2*time.Minute, func() {
		err := f.e.DoString("grow.lua", "local s = 'x'\nwhile true do\n  s = s .. s .. s .. s\nend\n")
		if !errors.Is(err, ErrScript) || !strings.HasPrefix(err.Error(), "grow.lua:3: .. would make a string of") ||
			!strings.Contains(err.Error(), "a string may be at most 1 MB") {
			t.Errorf("got %v", err)
		}
	})
	f.do(`local s = string.rep("x", 1000) .. "y"; assert(#s == 1001)`)
}
