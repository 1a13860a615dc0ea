package luabind

import (
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Sentinel errors. Every error of the package wraps one of these, so callers
// can test with errors.Is.
var (
	// ErrSyntax marks a script (or inline Lua in a tree) that does not parse.
	ErrSyntax = errors.New("luabind: syntax error")
	// ErrScript marks a Lua runtime error: one raised by a script while it
	// was loaded, by an action or condition, or by a world hook.
	ErrScript = errors.New("luabind: script error")
	// ErrTimeout marks a call into Lua stopped after running longer than
	// Options.CallTimeout (or, for the world's init and tick, their budget:
	// World.SetTimeouts). It is also an ErrScript.
	ErrTimeout = errors.New("luabind: call timed out")
	// ErrMemory marks a call stopped because the Lua state holds more than
	// its memory budget (Options.MemoryLimit). It is also an ErrScript.
	ErrMemory = errors.New("luabind: memory budget exceeded")
	// ErrResult marks an action or condition that returned a value of the
	// wrong kind (an action returns bt.SUCCESS, bt.FAILURE or bt.RUNNING; a
	// condition true or false).
	ErrResult = errors.New("luabind: bad result")
	// ErrDuplicate marks an action or condition name registered twice.
	ErrDuplicate = errors.New("luabind: duplicate name")
	// ErrModule marks a require that cannot be satisfied: no such module in
	// the script folders, or a module that requires itself.
	ErrModule = errors.New("luabind: module not found")
	// ErrNotLoaded marks a module used after it failed to load (a syntax
	// error, an error while its top level ran): Load reported that problem,
	// and what depends on the module is not reported again.
	ErrNotLoaded = errors.New("luabind: module not loaded")
	// ErrAgent marks an agent the engine cannot serve: its UserData holds
	// something else, or it was never attached.
	ErrAgent = errors.New("luabind: agent not attached")
	// ErrClosed marks a use of an engine after Close.
	ErrClosed = errors.New("luabind: engine closed")
)

// ScriptError is an error in a script with its position: File is the
// script's display path (relative to Options.Root), Line its line (0 when
// unknown), Col the column for syntax errors (0 otherwise). Error() reads
// "FILE:LINE: message", the way compilers and Lua itself print positions.
type ScriptError struct {
	File      string
	Line      int
	Col       int
	Msg       string // without the position
	Traceback string // Lua's stack traceback, when there is one
	Err       error  // ErrSyntax, ErrScript, ErrTimeout, ErrMemory, ErrResult, ...
}

func (e *ScriptError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
			if e.Col > 0 {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(e.Col))
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *ScriptError) Unwrap() error { return e.Err }

// Is lets a timeout or a memory stop also match ErrScript.
func (e *ScriptError) Is(target error) bool {
	return target == ErrScript && (e.Err == ErrTimeout || e.Err == ErrMemory)
}

// Pos is the error's position as "FILE:LINE" (or "FILE", or "").
func (e *ScriptError) Pos() string {
	if e.File == "" || e.Line == 0 {
		return e.File
	}
	return e.File + ":" + strconv.Itoa(e.Line)
}

// scriptError turns an error from a protected call into a *ScriptError.
// Lua messages start with "CHUNK:LINE: " when Lua knows where they were
// raised; fallback names the function that was called (an error raised
// with level 0, or a non-string error value).
func scriptError(err error, sentinel error, fallbackFile string, fallbackLine int) *ScriptError {
	se := &ScriptError{Err: sentinel}
	var msg string
	if ae, ok := err.(*lua.ApiError); ok {
		msg = lvString(ae.Object)
		se.Traceback = ae.StackTrace
	} else {
		msg = err.Error()
	}
	if file, line, rest, ok := splitPosition(msg); ok {
		se.File, se.Line, se.Msg = file, line, rest
	} else {
		se.File, se.Line, se.Msg = fallbackFile, fallbackLine, msg
	}
	return se
}

// lvString renders an error value: strings as they are, other values as Lua's
// tostring would, tables as "(error object is a table value)".
func lvString(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return v.String()
	case *lua.LNilType:
		return "nil (error called with no message)"
	}
	return "(error object is a " + v.Type().String() + " value)"
}

// splitPosition splits "FILE:LINE: rest" (gopher-lua writes "FILE:LINE: "
// for errors raised in Lua and "FILE:LINE:  " with two spaces for errors
// raised from Go functions on a Lua line).
func splitPosition(msg string) (file string, line int, rest string, ok bool) {
	// The file name may itself contain ':' (an inline chunk is named after
	// its tree position), so look for the first ":DIGITS:" followed by a space.
	for i := 0; i < len(msg); i++ {
		if msg[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if j == i+1 || j >= len(msg) || msg[j] != ':' || j+1 >= len(msg) || msg[j+1] != ' ' {
			continue
		}
		n, err := strconv.Atoi(msg[i+1 : j])
		if err != nil {
			return "", 0, "", false
		}
		return msg[:i], n, strings.TrimLeft(msg[j+1:], " "), true
	}
	return "", 0, "", false
}
