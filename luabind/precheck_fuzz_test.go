package luabind

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzPrecheck: for any source, the pre-check and then gopher-lua's parser
// and compiler (with the rewrites of big constructors and "..", and the
// count of the compiler's searches) end quickly, without a panic or a
// stack overflow (a fatal error the fuzzer reports as a crash), and every
// error is a syntax error with a position.
func FuzzPrecheck(f *testing.F) {
	files, _ := filepath.Glob("../scripts/ai/*.lua")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range []string{
		"local t = " + strings.Repeat("{", 300) + strings.Repeat("}", 300),
		"return " + strings.Repeat("not ", 300) + "true",
		"return " + strings.Repeat("- ", 300) + "1",
		strings.Repeat("do ", 300) + strings.Repeat("end ", 300),
		strings.Repeat("if x then ", 300) + strings.Repeat("end ", 300),
		"local s = 'a'" + strings.Repeat(" .. 'a'", 1200),
		"local x = a" + strings.Repeat(".b", 1200),
		"if a then " + strings.Repeat("elseif a then ", 1200) + "end",
		"x = [==[ ]] ]=] ]==] .. 'y' -- [[ comment\n--[[ long\ncomment ]] return x",
		"local s = \"a\\\"b\\\nc\" return s .. 'q'",
		"return function() return function() end end",
		"repeat local x = 1 until x == " + strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100),
		"for i = 1, 10 do while true do break end end",
		"f{a = 1}'s' \"t\" [[u]] (1)(2)[3]:m()",
		"local a, b = 0x1e+1, 1e-3 .. 2",
		// Big constructors (bigtables.go): split, or refused.
		"return {" + strings.Repeat(`"s", 1, x, {k = 2}, `, 300) + "f(), ...}",
		"local t = {" + strings.Repeat("1, ", 50) + "k = f(), " + strings.Repeat("'v', ", 300) + "[g()] = 1}",
		"return function(...) return {" + strings.Repeat("a.b, ", 60) + "..., k = 1} end",
		"return {" + strings.Repeat("k = 'v', ", 300) + strings.Repeat("{}, ", 5000) + "}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan error, 1)
		go func() {
			_, err := compile("f.lua", src)
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute): // a hang guard; the cost is the benchmarks' to measure
			t.Fatalf("compiling %d bytes is stuck (over a minute)", len(src))
		}
		if err == nil {
			return
		}
		var se *ScriptError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || se.File != "f.lua" {
			t.Fatalf("error %T %v is not a syntax error of f.lua", err, err)
		}
	})
}
