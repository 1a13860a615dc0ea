package luabind

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
	lua "github.com/yuin/gopher-lua"
)

// module is one script file: its module name (its path inside its folder,
// without .lua, with dots for slashes), display path and compiled chunk.
type module struct {
	name     string
	file     string // display path
	path     string // path on disk
	proto    *lua.FunctionProto
	literals []Literal // the names its source passes as literals (literals.go)
	state    modState
	value    lua.LValue
}

type modState uint8

const (
	modNew modState = iota
	modLoading
	modLoaded
	modFailed
	modBroken // did not compile: its syntax error is reported by Load
)

// moduleIndex finds modules by name and keeps them in path order.
type moduleIndex struct {
	byName map[string]*module
	order  []*module // the modules that compiled, in path order

	// unloaded holds the names of actions and conditions ("action NAME",
	// "condition NAME") that scripts which failed to load register in their
	// source, with the script's file: binding does not report them as
	// unknown names, which would only repeat the script's own error.
	unloaded map[string]string
	// depErr is the message of the last require that failed because the
	// module it asked for did not load: a script that fails with it failed
	// because of a problem reported on its own.
	depErr string
}

// Load compiles every script in Options.Paths, then runs each one in path
// order as if required by its module name (a module another script already
// required does not run twice). Syntax errors in any file stop the run
// before any script runs; all of them, and all errors raised while running
// scripts, are returned together as a runtime.ErrorList of *ScriptError.
// Load may be called once.
func (e *Engine) Load() error {
	if e.closed {
		return ErrClosed
	}
	if e.modules.byName != nil {
		return errors.New("luabind: Load called twice")
	}
	e.modules.byName = map[string]*module{}
	e.modules.unloaded = map[string]string{}
	var errs runtime.ErrorList
	add := func(se *ScriptError) { errs = append(errs, &runtime.Error{Msg: se.Error(), Err: se}) }
	var code int64 // what the compiled scripts keep, within the memory budget
	for _, dir := range e.opts.Paths {
		files, err := e.scriptFiles(dir) // files.go: on disk, or in Options.FS
		if err != nil {
			add(&ScriptError{File: e.display(dir), Msg: err.Error(), Err: ErrModule})
			continue
		}
		for _, p := range files {
			name := moduleName(dir, p)
			m := &module{name: name, file: e.display(p), path: p}
			if old, ok := e.modules.byName[name]; ok {
				add(&ScriptError{File: m.file, Msg: fmt.Sprintf("module %q is also %s; module names must be unique across the script folders", name, old.file), Err: ErrDuplicate})
				continue
			}
			src, err := e.readScript(p)
			if err != nil {
				add(&ScriptError{File: m.file, Msg: "cannot read the script: " + readfile.Reason(err), Err: ErrModule})
				continue
			}
			c, err := e.compileSource(m.file, src)
			if err == nil && code+c.size > e.limits.memory {
				err = &ScriptError{File: m.file, Line: 1, Msg: fmt.Sprintf("the compiled code of the scripts would take about %s with this one, over the Lua memory budget of %s (run.lua_memory); "+
					"keep less code and data in scripts, or raise the budget", megabytes(code+c.size), readfile.Size(e.limits.memory)), Err: ErrMemory}
			}
			if err != nil {
				var se *ScriptError
				errors.As(err, &se)
				add(se)
				m.state = modBroken
				e.modules.byName[name] = m // require and LoadWorld say why it is missing
				e.modules.noteUnloaded(m.file, src)
				continue
			}
			code += c.size
			m.proto, m.literals = c.proto, c.literals
			e.modules.byName[name] = m
			e.modules.order = append(e.modules.order, m)
		}
	}
	// Run every module that compiled, even when others did not: their
	// actions then bind, and one load reports the syntax errors together
	// with every other problem (a script that requires a broken module
	// fails on its own, with its position).
	e.loading = true
	defer func() { e.loading = false }()
	for _, m := range e.modules.order {
		if m.state != modNew {
			continue
		}
		e.modules.depErr = ""
		if _, err := e.require(m.name); err != nil {
			if src, rerr := e.readScript(m.path); rerr == nil {
				e.modules.noteUnloaded(m.file, src)
			}
			if d := e.modules.depErr; d != "" && strings.Contains(err.Error(), d) {
				continue // it required a module that did not load: that module's error says why
			}
			var se *ScriptError
			if errors.As(err, &se) {
				add(se)
			} else {
				add(&ScriptError{File: m.file, Msg: err.Error(), Err: ErrScript})
			}
		}
	}
	return errs.Err()
}

// display is a path as errors and chunk names show it.
func (e *Engine) display(p string) string {
	if e.opts.Root != "" {
		if abs, err := filepath.Abs(p); err == nil {
			if root, err := filepath.Abs(e.opts.Root); err == nil {
				if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
					p = rel
				}
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// require runs a module's chunk once and returns its value, protected and
// bounded: Load's entry point.
func (e *Engine) require(name string) (lua.LValue, error) {
	fn := e.L.NewFunction(e.luaRequire)
	return e.call(fn, 1, lua.LString(name))
}

// luaRequire is require(name): "bt", or a module of the script folders. A
// module's value is what its chunk returns (true when it returns nothing),
// as in Lua 5.1.
func (e *Engine) luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	if name == "bt" {
		L.Push(e.bt)
		return 1
	}
	m, ok := e.modules.byName[name]
	if !ok {
		L.RaiseError("module %q not found: require looks only in the script folders (%s), for a file NAME.lua or NAME/SUB.lua for NAME.SUB",
			name, strings.Join(e.displayPaths(), ", "))
	}
	switch m.state {
	case modLoaded:
		L.Push(m.value)
		return 1
	case modLoading:
		L.RaiseError("module %q requires itself (directly or through other modules)", name)
	case modFailed:
		e.modules.depErr = fmt.Sprintf("module %q failed to load (its error is reported on its own)", name)
		L.RaiseError("%s", e.modules.depErr)
	case modBroken:
		e.modules.depErr = fmt.Sprintf("module %q has a syntax error (reported at %s)", name, m.file)
		L.RaiseError("%s", e.modules.depErr)
	}
	m.state = modLoading
	L.Push(L.NewFunctionFromProto(m.proto))
	L.Push(lua.LString(name))
	if err := L.PCall(1, 1, nil); err != nil {
		m.state = modFailed
		if ae, ok := err.(*lua.ApiError); ok {
			L.Error(ae.Object, 0) // keep the original message and position
		}
		L.RaiseError("%v", err)
	}
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	m.value, m.state = v, modLoaded
	L.Push(v)
	return 1
}

// registration finds bt.action("NAME" and bt.condition("NAME" in a
// script's source, which need not compile.
var registration = regexp.MustCompile(`\bbt\s*\.\s*(action|condition)\s*\(\s*["']([^"'\n]+)["']`)

// noteUnloaded records the names a script that failed to load registers.
func (x *moduleIndex) noteUnloaded(file string, src []byte) {
	for _, m := range registration.FindAllSubmatch(src, -1) {
		x.unloaded[string(m[1])+" "+string(m[2])] = file
	}
}

// Unloaded reports whether an action or condition name (kind "action" or
// "condition") is registered by a script that failed to load, and which:
// a tree naming it is not wrong, the script is, and Load reported it.
func (e *Engine) Unloaded(kind, name string) (file string, ok bool) {
	file, ok = e.modules.unloaded[kind+" "+name]
	return file, ok
}

func (e *Engine) displayPaths() []string {
	out := make([]string, len(e.opts.Paths))
	for i, p := range e.opts.Paths {
		out[i] = e.display(p)
	}
	return out
}
