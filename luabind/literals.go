package luabind

import (
	"reflect"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// What scripts name literally, for `btrun validate`'s checks: a signal a
// script sends, a variable or timestamp it reads or sets, written as a
// string literal at the call (ctx:setVar("Alert", true)), can be checked
// against the trees before the game runs. Names computed at run time
// cannot, and are not reported.

// Literal is a name a script passes as a string literal to a call that
// names a signal, variable, timestamp or gate.
type Literal struct {
	Kind string // "signal" (sent), "stimulus" (a received signal read or forgotten), "variable", "timestamp" or "gate"
	Name string
	Call string // as written: "ctx:setVar", "bt.broadcast", "game.signal"
	File string // the script's display path
	Line int
}

// literalArgs says, per method or function, which argument (from 0, after
// the receiver) names what.
var literalArgs = map[string]struct {
	kind string
	arg  int
}{
	":signal": {"signal", 0}, ":send": {"signal", 1},
	":var": {"variable", 0}, ":setVar": {"variable", 0}, ":get": {"variable", 0}, ":set": {"variable", 0},
	":stamp": {"timestamp", 0}, ":clearStamp": {"timestamp", 0}, ":since": {"timestamp", 0},
	":gateSlot": {"gate", 0},
	":stimulus": {"stimulus", 0}, ":forget": {"stimulus", 0},
	"bt.broadcast": {"signal", 0}, "game.signal": {"signal", 1},
}

// Literals lists the names the loaded scripts pass as string literals to
// ctx:signal, ctx:send, ctx:var, ctx:setVar, ctx:stamp, ctx:clearStamp,
// ctx:since, ctx:gateSlot, ctx:stimulus, ctx:forget (whatever ctx is
// called), bt.broadcast and game.signal, in file and line order. Call it
// after Load.
func (e *Engine) Literals() []Literal {
	var out []Literal
	for _, m := range e.modules.order {
		out = append(out, m.literals...)
	}
	return out
}

// literalCall finds, in a source, what could be a call Literals reports:
// a source without one (a script of data) is not walked.
var literalCall = regexp.MustCompile(`:\s*(signal|send|var|setVar|get|set|stamp|clearStamp|since|gateSlot)\b|\b(bt|game)\s*\.\s*(broadcast|signal)\b`)

// literalsOf is what Literals reports of one parsed source (file is its
// display path), in line order; it is read when the source is compiled.
func literalsOf(file, src string, chunk []ast.Stmt) []Literal {
	if !literalCall.MatchString(src) {
		return nil
	}
	var out []Literal
	walkAST(reflect.ValueOf(chunk), func(c *ast.FuncCallExpr) {
		call, key := "", ""
		if c.Receiver != nil {
			key = ":" + c.Method
			call = exprName(c.Receiver) + key
		} else if g, ok := c.Func.(*ast.AttrGetExpr); ok {
			if k, ok := g.Key.(*ast.StringExpr); ok {
				call = exprName(g.Object) + "." + k.Value
				key = call
			}
		}
		spec, ok := literalArgs[key]
		if !ok || spec.arg >= len(c.Args) {
			return
		}
		if s, ok := c.Args[spec.arg].(*ast.StringExpr); ok {
			out = append(out, Literal{Kind: spec.kind, Name: s.Value, Call: call, File: file, Line: c.Line()})
		}
	})
	return out
}

func exprName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.IdentExpr:
		return x.Value
	case *ast.AttrGetExpr:
		if k, ok := x.Key.(*ast.StringExpr); ok {
			return exprName(x.Object) + "." + k.Value
		}
	}
	return "?"
}

// walkAST calls visit for every function call in an AST.
func walkAST(v reflect.Value, visit func(*ast.FuncCallExpr)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkAST(v.Elem(), visit)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if c, ok := v.Interface().(*ast.FuncCallExpr); ok {
			visit(c)
		}
		walkAST(v.Elem(), visit)
	case reflect.Slice:
		for i := range v.Len() {
			walkAST(v.Index(i), visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkAST(v.Field(i), visit)
			}
		}
	}
}

// StringConstants returns every string constant of the loaded scripts'
// functions: a rule parameter whose name is none of them cannot be read by
// a script with a literal name (params:number("chase.speed", 3)).
func (e *Engine) StringConstants() map[string]bool {
	out := map[string]bool{}
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for _, c := range p.Constants {
			if s, ok := c.(lua.LString); ok {
				out[string(s)] = true
			}
		}
		for _, q := range p.FunctionPrototypes {
			walk(q)
		}
	}
	for _, m := range e.modules.order {
		walk(m.proto)
	}
	for _, p := range e.inline {
		walk(p)
	}
	return out
}

// IsEmptyCode reports whether a chunk of Lua holds no statement (only
// blanks and comments).
func IsEmptyCode(code string) bool {
	chunk, err := parse.Parse(strings.NewReader(code), "code")
	return err == nil && len(chunk) == 0
}
