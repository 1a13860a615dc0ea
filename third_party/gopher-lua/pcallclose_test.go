package lua

// btrun patch "pcallclose": its test.

import (
	"errors"
	"testing"
)

// An error caught by pcall or xpcall closes the upvalues of the frames it
// unwinds and no others, as C Lua 5.1 does (every want below is what
// lua5.1 and luajit print). Upstream closed every open upvalue of the
// state: the enclosing functions' locals then lived on in two places, the
// register the function kept using and the closed copy its closures
// kept using (the first three cases). With xpcall it closed none, so a
// closure that escaped the failed call read whatever later calls put in
// the registers it pointed at (the fourth).
func TestPCallClose_onlyTheUnwoundFrames(t *testing.T) {
	cases := []struct {
		name, code string
		want       LValue
	}{
		{"a counter kept across pcalls in a loop (yuin/gopher-lua#448)", `
local n = 0
local function f()
  for i = 1, 3 do
    pcall(function() if i == 2 then error() end end)
    n = n + 1
  end
end
f()
return n`, LNumber(3)},
		{"a closure sharing a local with its creator", `
local x = 0
local inc = function() x = x + 1 end
pcall(error, "e")
inc(); x = x + 10; inc()
return x`, LNumber(12)},
		{"a Go function's error under pcall", `
local n = 0
local function bump() n = n + 1 end
local function f()
  for i = 1, 3 do
    pcall(string.rep)
    bump()
  end
end
f()
return n`, LNumber(3)},
		{"a closure escaping the frame xpcall unwound", `
local keep
xpcall(function() local v = "mine"; keep = function() return v end; error("x") end,
  function(e) return e end)
local function clobber(a, b, c, d, e, f, g) return a end
clobber("other", "other", "other", "other", "other", "other", "other")
return keep()`, LString("mine")},
		{"a closure escaping the frame pcall unwound", `
local keep
pcall(function() local v = "mine"; keep = function() return v end; error("x") end)
local function clobber(a, b, c, d, e, f, g) return a end
clobber("other", "other", "other", "other", "other", "other", "other")
return keep()`, LString("mine")},
		{"an error handler that raises", `
local n, keep = 0, nil
local function f()
  for i = 1, 3 do
    xpcall(function() local v = i; keep = function() return v end; error("x") end,
      function(e) error("again") end)
    n = n + 1
  end
end
f()
local function clobber(a, b, c, d, e, f, g) return a end
clobber(9, 9, 9, 9, 9, 9, 9)
return n * 10 + keep()`, LNumber(33)},
	}
	for _, c := range cases {
		L := NewState()
		if err := L.DoString(c.code); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if got := L.Get(-1); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		L.Close()
	}
}

// A Go host's PCall keeps the upvalues of the Lua frames below it open: a
// script whose Go function calls back into Lua under PCall, which fails,
// goes on sharing its locals with its closures.
func TestPCallClose_goHostsPCall(t *testing.T) {
	L := NewState()
	defer L.Close()
	L.SetGlobal("protect", L.NewFunction(func(L *LState) int {
		L.Push(L.CheckFunction(1))
		err := L.PCall(0, 0, nil)
		var aerr *ApiError
		L.Push(LBool(errors.As(err, &aerr)))
		return 1
	}))
	err := L.DoString(`
local n = 0
local function bump() n = n + 1 end
for i = 1, 3 do
  assert(protect(function() error("no") end))
  bump()
end
result = n`)
	if err != nil {
		t.Fatal(err)
	}
	if got := L.GetGlobal("result"); got != LNumber(3) {
		t.Errorf("n = %v, want 3", got)
	}
}

// A coroutine an error ends closes its upvalues (raiseError no longer
// does): a closure that escaped it keeps its value, and not the dead
// thread's registers.
func TestPCallClose_aDeadCoroutinesUpvaluesClose(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString(`
local co = coroutine.create(function()
  local v = "co"
  keep = function() return v end
  error("x")
end)
ok = coroutine.resume(co)`)
	if err != nil {
		t.Fatal(err)
	}
	if L.GetGlobal("ok") != LFalse {
		t.Fatal("the coroutine did not fail")
	}
	keep := L.GetGlobal("keep").(*LFunction)
	if uv := keep.Upvalues[0]; !uv.IsClosed() || uv.Value() != LString("co") {
		t.Errorf("the escaped upvalue: closed %v, value %v", uv.IsClosed(), uv.Value())
	}
}
