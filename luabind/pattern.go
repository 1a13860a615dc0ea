package luabind

// Lua patterns, bounded.
//
// gopher-lua's matcher (its pm package) is a recursive VM that no one can
// stop: string.find(string.rep("a", 1e5), "(.-)*b") backtracks for hours
// inside one Go call, where the call timeout, which is checked between Lua
// instructions, never gets a look in; and it recurses once per character
// of a greedy repetition. This is a port of Lua 5.1's own matcher
// (lstrlib.c: match, max_expand, min_expand, captures, %b, %f), which
// recurses only once per pattern item, with two bounds:
//
//   - every matchCheckEvery steps it asks the engine's guard whether the
//     call was stopped (call timeout, memory budget); if so the match ends
//     with that error, at the script line that called the string function;
//   - recursion deeper than maxMatchDepth is "pattern too complex" (Lua
//     5.2 has the same rule), so a long pattern cannot exhaust the stack.
//
// Semantics are Lua 5.1's, which the scripts are written against; where
// gopher-lua's matcher differed (%f frontiers, "%x" in a gsub replacement
// meaning "x"), Lua 5.1 wins.

const (
	maxCaptures     = 32 // LUA_MAXCAPTURES
	maxMatchDepth   = 200
	matchCheckEvery = 1 << 12

	capUnfinished = -1
	capPosition   = -2
)

const lEsc = '%'

// patternError is a problem with a pattern or a stopped match, raised by
// panic inside the matcher and turned into a Lua error by the caller.
type patternError struct{ msg string }

type capture struct {
	init, len int
}

// matchState is one match of a pattern against a subject.
type matchState struct {
	src     string
	pat     string
	level   int
	capture [maxCaptures]capture
	depth   int
	budget  int          // steps until the next check
	stopped func() error // the guard's check; nil: never stopped
}

func (ms *matchState) fail(msg string) { panic(patternError{msg}) }

// step counts one unit of matching work and checks the guard now and then.
func (ms *matchState) step() {
	if ms.budget--; ms.budget > 0 {
		return
	}
	ms.budget = matchCheckEvery
	if ms.stopped != nil {
		if err := ms.stopped(); err != nil {
			ms.fail(err.Error())
		}
	}
}

func (ms *matchState) reset() {
	ms.level = 0
	ms.depth = 0
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.fail("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.fail("invalid pattern capture")
	return 0
}

// patAt is the pattern byte at p, or 0 past its end (C's terminating NUL).
func (ms *matchState) patAt(p int) byte {
	if p < len(ms.pat) {
		return ms.pat[p]
	}
	return 0
}

// classEnd returns the index just after the single-character class at p.
func (ms *matchState) classEnd(p int) int {
	c := ms.patAt(p)
	p++
	switch c {
	case lEsc:
		if p >= len(ms.pat) {
			ms.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if ms.patAt(p) == '^' {
			p++
		}
		for {
			if p >= len(ms.pat) {
				ms.fail("malformed pattern (missing ']')")
			}
			c := ms.pat[p]
			p++
			if c == lEsc && p < len(ms.pat) {
				p++
			}
			if ms.patAt(p) == ']' {
				break
			}
		}
		return p + 1
	}
	return p
}

func matchClass(c int, cl byte) bool {
	var res bool
	switch lower(cl) {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 0x20 || c == 0x7f
	case 'd':
		res = c >= '0' && c <= '9'
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = isPunct(c)
	case 's':
		res = c == ' ' || (c >= '\t' && c <= '\r')
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isAlpha(c) || (c >= '0' && c <= '9')
	case 'x':
		res = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
	case 'z':
		res = c == 0
	default:
		return int(cl) == c
	}
	if cl >= 'a' && cl <= 'z' {
		return res
	}
	return !res
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isAlpha(c int) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isPunct(c int) bool {
	return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e)
}

// matchBracketClass matches c against the set [ ... ] from p (the '[') to
// ec (the ']').
func (ms *matchState) matchBracketClass(c int, p, ec int) bool {
	sig := true
	if ms.patAt(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		if ms.pat[p] == lEsc {
			p++
			if matchClass(c, ms.patAt(p)) {
				return sig
			}
		} else if ms.patAt(p+1) == '-' && p+2 < ec {
			p += 2
			if int(ms.pat[p-2]) <= c && c <= int(ms.pat[p]) {
				return sig
			}
		} else if int(ms.pat[p]) == c {
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c int, p, ep int) bool {
	switch ms.patAt(p) {
	case '.':
		return true
	case lEsc:
		return matchClass(c, ms.patAt(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return int(ms.pat[p]) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if p+1 >= len(ms.pat) {
		ms.fail("unbalanced pattern")
	}
	if s >= len(ms.src) || ms.src[s] != ms.pat[p] {
		return -1
	}
	b, e := ms.pat[p], ms.pat[p+1]
	cont := 1
	for s++; s < len(ms.src); s++ {
		ms.step()
		switch ms.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(int(ms.src[s+i]), p, ep) {
		ms.step()
		i++
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(int(ms.src[s]), p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	if ms.level >= maxCaptures {
		ms.fail("too many captures")
	}
	ms.capture[ms.level] = capture{init: s, len: what}
	ms.level++
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s, l int) int {
	l = ms.checkCapture(l)
	n := ms.capture[l].len
	init := ms.capture[l].init
	if len(ms.src)-s >= n && ms.src[init:init+n] == ms.src[s:s+n] {
		return s + n
	}
	return -1
}

// match matches the pattern from p against the subject from s and returns
// the end of the match, or -1.
func (ms *matchState) match(s, p int) int {
	if ms.depth++; ms.depth > maxMatchDepth {
		ms.fail("pattern too complex")
	}
	defer func() { ms.depth-- }()
	for {
		ms.step()
		if p >= len(ms.pat) {
			return s // end of pattern
		}
		switch ms.pat[p] {
		case '(':
			if ms.patAt(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case lEsc:
			switch ms.patAt(p + 1) {
			case 'b':
				if s = ms.matchBalance(s, p+2); s < 0 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if ms.patAt(p) != '[' {
					ms.fail("missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p)
				prev := 0
				if s > 0 {
					prev = int(ms.src[s-1])
				}
				cur := 0
				if s < len(ms.src) {
					cur = int(ms.src[s])
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(cur, p, ep-1) {
					return -1
				}
				p = ep
				continue
			default:
				if d := ms.patAt(p + 1); d >= '0' && d <= '9' {
					if s = ms.matchCapture(s, int(d)); s < 0 {
						return -1
					}
					p += 2
					continue
				}
			}
		case '$':
			if p+1 == len(ms.pat) {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		}
		// A single-character class, maybe with a repetition.
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(int(ms.src[s]), p, ep)
		switch ms.patAt(ep) {
		case '?':
			if ep < len(ms.pat) {
				if m {
					if res := ms.match(s+1, ep+1); res >= 0 {
						return res
					}
				}
				p = ep + 1
				continue
			}
		case '*':
			if ep < len(ms.pat) {
				return ms.maxExpand(s, p, ep)
			}
		case '+':
			if ep < len(ms.pat) {
				if !m {
					return -1
				}
				return ms.maxExpand(s+1, p, ep)
			}
		case '-':
			if ep < len(ms.pat) {
				return ms.minExpand(s, p, ep)
			}
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// captureValue is capture i of a match from s to e: a string, or a position
// (1-based) for a position capture. Capture 0 without captures is the whole
// match.
func (ms *matchState) captureValue(i, s, e int) (str string, pos int, isPos bool) {
	if i >= ms.level {
		if i != 0 {
			ms.fail("invalid capture index")
		}
		return ms.src[s:e], 0, false
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		ms.fail("unfinished capture")
	case capPosition:
		return "", c.init + 1, true
	}
	return ms.src[c.init : c.init+c.len], 0, false
}

// captureCount is how many values a match pushes: its captures, or the
// whole match when it has none (wholeMatch false: none).
func (ms *matchState) captureCount(wholeMatch bool) int {
	if ms.level == 0 && wholeMatch {
		return 1
	}
	return ms.level
}
