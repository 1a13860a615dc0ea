package luabind

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The string functions that match patterns or build strings, replaced:
//
//   - string.find, match, gmatch and gsub use the bounded matcher of
//     pattern.go, so the call timeout and the memory budget reach inside a
//     match;
//   - string.rep, string.format, string.gsub and table.concat refuse a
//     result longer than the string limit (an eighth of the memory budget)
//     with an error at the script line, before allocating it; ".." does the
//     same (concat.go). Every other string function makes strings no longer
//     than its arguments, so no single string passes the limit.
//
// string.format keeps gopher-lua's formatting, after a check that the
// format is Lua 5.1's: flags "-+ #0", a width and a precision of at most two
// digits, a conversion among c d i o u x X e E f g G q s. That rules out the
// Go-only forms gopher-lua would otherwise pass on to fmt (%v, %*d, %[2]d),
// and with widths below 100 the result's length is known before it is made.

// luaSpecials are the characters that make a pattern more than plain text.
const luaSpecials = "^$*+?.([%-"

func (e *Engine) openStringLimits() {
	L := e.L
	str := L.GetGlobal("string").(*lua.LTable)
	origFormat := str.RawGetString("format").(*lua.LFunction).GFunction
	for name, fn := range map[string]lua.LGFunction{
		"find":   e.patternFunc(func(L *lua.LState) int { return e.findAux(L, true) }),
		"match":  e.patternFunc(func(L *lua.LState) int { return e.findAux(L, false) }),
		"gmatch": e.patternFunc(e.strGmatch),
		"gfind":  e.patternFunc(e.strGmatch),
		"gsub":   e.patternFunc(e.strGsub),
		"rep":    e.strRep,
		"format": func(L *lua.LState) int { e.checkMemory(L); e.checkFormat(L); return origFormat(L) },
	} {
		str.RawSetString(name, L.NewFunction(fn))
	}
	tab := L.GetGlobal("table").(*lua.LTable)
	tab.RawSetString("concat", L.NewFunction(e.tabConcat))
}

// checkMemory does a measurement the memory budget asked for (a walk must
// run on the state's goroutine, and string functions are where a call that
// builds data spends its time) and raises the memory error when the state is
// over its budget. One atomic load when none is due.
func (e *Engine) checkMemory(L *lua.LState) {
	if e.guard.mem.pending.Load() {
		if err := e.guard.interrupted(); err != nil {
			L.RaiseError("%s", err.Error())
		}
	}
}

// patternFunc turns the matcher's errors (bad patterns, stopped matches)
// into Lua errors at the calling line.
func (e *Engine) patternFunc(fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		defer func() {
			if r := recover(); r != nil {
				if pe, ok := r.(patternError); ok {
					L.RaiseError("%s", pe.msg)
				}
				panic(r)
			}
		}()
		return fn(L)
	}
}

func (e *Engine) newMatch(src, pat string) *matchState {
	return &matchState{src: src, pat: pat, budget: matchCheckEvery, stopped: e.guard.interrupted}
}

// posRelative turns a Lua string position (negative from the end) into a
// 0-based offset clamped to [0, n].
func posRelative(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	return max(pos, 0)
}

func (e *Engine) findAux(L *lua.LState, find bool) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	init := posRelative(L.OptInt(3, 1), len(s)) - 1
	init = min(max(init, 0), len(s))
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(p, luaSpecials)) {
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	anchor := strings.HasPrefix(p, "^")
	if anchor {
		p = p[1:]
	}
	ms := e.newMatch(s, p)
	for s1 := init; ; s1++ {
		ms.reset()
		if end := ms.match(s1, 0); end >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(end))
				return e.pushCaptures(L, ms, s1, end, false) + 2
			}
			return e.pushCaptures(L, ms, s1, end, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

// pushCaptures pushes a match's captures (or the whole match, with
// wholeMatch and no captures) and returns their number.
func (e *Engine) pushCaptures(L *lua.LState, ms *matchState, s, end int, wholeMatch bool) int {
	n := ms.captureCount(wholeMatch)
	for i := range n {
		str, pos, isPos := ms.captureValue(i, s, end)
		if isPos {
			L.Push(lua.LNumber(pos))
		} else {
			L.Push(lua.LString(str))
		}
	}
	return n
}

func (e *Engine) strGmatch(L *lua.LState) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	pos := 0
	L.Push(L.NewFunction(e.patternFunc(func(L *lua.LState) int {
		ms := e.newMatch(s, p)
		for src := pos; src <= len(s); src++ {
			ms.reset()
			if end := ms.match(src, 0); end >= 0 {
				pos = end
				if end == src {
					pos++ // an empty match: go on one position further
				}
				return e.pushCaptures(L, ms, src, end, true)
			}
		}
		pos = len(s) + 1
		return 0
	})))
	return 1
}

func (e *Engine) strGsub(L *lua.LState) int {
	e.checkMemory(L)
	src := L.CheckString(1)
	p := L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxN := L.OptInt(4, len(src)+1)
	anchor := strings.HasPrefix(p, "^")
	if anchor {
		p = p[1:]
	}
	ms := e.newMatch(src, p)
	var b strings.Builder
	add := func(s string) {
		if b.Len()+len(s) > e.limits.maxString {
			L.RaiseError("%s", e.tooLong("string.gsub", int64(b.Len())+int64(len(s))))
		}
		b.WriteString(s)
	}
	n, si := 0, 0
	for n < maxN {
		ms.reset()
		end := ms.match(si, 0)
		if end >= 0 {
			n++
			e.gsubValue(L, ms, repl, si, end, add)
		}
		if end > si {
			si = end
		} else if si < len(src) {
			add(src[si : si+1])
			si++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	add(src[si:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// gsubValue adds the replacement of one match (Lua 5.1's add_value).
func (e *Engine) gsubValue(L *lua.LState, ms *matchState, repl lua.LValue, s, end int, add func(string)) {
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		news := lua.LVAsString(r)
		for i := 0; i < len(news); i++ {
			c := news[i]
			if c != lEsc {
				add(news[i : i+1])
				continue
			}
			i++
			switch {
			case i >= len(news):
			case news[i] == '0':
				add(ms.src[s:end])
			case news[i] >= '1' && news[i] <= '9':
				str, pos, isPos := ms.captureValue(int(news[i]-'1'), s, end)
				if isPos {
					str = lua.LNumber(pos).String()
				}
				add(str)
			default:
				add(news[i : i+1])
			}
		}
		return
	case *lua.LFunction:
		L.Push(r)
		n := e.pushCaptures(L, ms, s, end, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		str, pos, isPos := ms.captureValue(0, s, end)
		var key lua.LValue = lua.LString(str)
		if isPos {
			key = lua.LNumber(pos)
		}
		v = L.GetTable(r, key)
	}
	switch v.(type) {
	case *lua.LNilType:
		add(ms.src[s:end])
	case lua.LBool:
		if v == lua.LFalse {
			add(ms.src[s:end])
		} else {
			L.RaiseError("invalid replacement value (a boolean)")
		}
	case lua.LString, lua.LNumber:
		add(lua.LVAsString(v))
	default:
		L.RaiseError("invalid replacement value (a %s)", v.Type().String())
	}
}

func (e *Engine) strRep(L *lua.LState) int {
	e.checkMemory(L)
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if n > e.limits.maxString/len(s) {
		size := int64(math.MaxInt64)
		if int64(n) <= math.MaxInt64/int64(len(s)) {
			size = int64(len(s)) * int64(n)
		}
		L.RaiseError("%s", e.tooLong("string.rep", size))
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

func (e *Engine) tabConcat(L *lua.LState) int {
	e.checkMemory(L)
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := L.OptInt(3, 1)
	last := L.OptInt(4, t.Len())
	var b strings.Builder
	for ; i <= last; i++ {
		v := t.RawGetInt(i)
		if !lua.LVCanConvToString(v) {
			L.RaiseError("invalid value (at index %d) in table for 'concat'", i)
		}
		s := lua.LVAsString(v)
		if i < last {
			s += sep
		}
		if b.Len()+len(s) > e.limits.maxString {
			L.RaiseError("%s", e.tooLong("table.concat", int64(b.Len())+int64(len(s))))
		}
		b.WriteString(s)
		if i == math.MaxInt {
			break
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// checkFormat checks string.format's format string (argument 1) against
// Lua 5.1's syntax and the result's length against the string limit,
// raising an error when either fails.
func (e *Engine) checkFormat(L *lua.LState) {
	f := L.CheckString(1)
	total := int64(len(f))
	arg := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		start := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		width, prec := 0, 0
		digits := func(n *int) {
			k := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				*n = *n*10 + int(f[i]-'0')
				i++
				if k++; k > 2 {
					L.RaiseError("invalid format (width or precision too long)")
				}
			}
		}
		digits(&width)
		if i < len(f) && f[i] == '.' {
			i++
			digits(&prec)
		}
		if i >= len(f) {
			L.RaiseError("invalid option '%%' to 'format' (the format ends inside a directive)")
		}
		arg++
		v := L.Get(arg)
		var n int64
		switch c := f[i]; c {
		case 'c', 'd', 'i', 'o', 'u', 'x', 'X':
			n = 25
		case 'e', 'E', 'g', 'G':
			n = int64(prec) + 30
		case 'f', 'F':
			n = int64(prec) + 3 + intDigits(v)
		case 's':
			n = int64(len(L.ToStringMeta(v).String()))
		case 'q':
			n = 4*int64(len(lua.LVAsString(v))) + 2
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", c)
		}
		total += max(n, int64(width)) + 32 // + what Go writes for a missing argument
	}
	if total > int64(e.limits.maxString) {
		L.RaiseError("%s", e.tooLong("string.format", total))
	}
}

// intDigits bounds the digits of a number's integer part (for %f).
func intDigits(v lua.LValue) int64 {
	x, ok := v.(lua.LNumber)
	if !ok || x == 0 || math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return 4
	}
	return int64(max(1, math.Floor(math.Log10(math.Abs(float64(x))))+1)) + 1
}
