package luabind

import (
	"fmt"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Bounded "..".
//
// gopher-lua joins a ".." chain in one VM instruction, with no hook where
// the result's length could be checked: s = s..s..s..s in a loop reaches
// gigabytes in a few iterations, faster than any check between
// instructions could notice. So the compiler never sees "..": after parsing,
// every chain a .. b .. c is rewritten into a call of the engine's concat
// function, concat(a, b, c), which joins the values exactly as the VM
// would (strings and numbers, __concat metamethods right to left) but
// refuses a result longer than the engine's string limit with an error at
// the script line. Each chunk that uses ".." reads the function once, from
// a global whose name is not an identifier, into a local whose name is not
// one either: scripts can neither name it nor replace it for code already
// loaded. A call costs more than the instruction (about 100 ns against 40),
// which only matters for scripts that build strings in their hot loops.

const (
	concatGlobal = "(btrun concat)" // where chunks find the function
	concatLocal  = "(concat)"       // the local each chunk keeps it in
	// concatGroup is the most values one call joins: a longer chain is
	// joined in groups (concat(concat(a1..a64), a65, ...)), so that a call
	// never needs more registers than gopher-lua gives a function.
	concatGroup = 64
)

// rewriteConcat replaces every ".." of a parsed chunk with a call of the
// concat function and reports whether it found one.
func rewriteConcat(chunk []ast.Stmt) ([]ast.Stmt, bool) {
	r := concatRewriter{}
	r.stmts(chunk)
	if !r.found {
		return chunk, false
	}
	return withLocal(chunk, concatLocal, concatGlobal), true
}

// withLocal is chunk after a first statement that reads the global named
// global into the local named local: how a chunk keeps one of the engine's
// functions (names that are not identifiers, which scripts cannot name).
func withLocal(chunk []ast.Stmt, local, global string) []ast.Stmt {
	prelude := &ast.LocalAssignStmt{Names: []string{local}, Exprs: []ast.Expr{&ast.IdentExpr{Value: global}}}
	prelude.SetLine(1)
	prelude.SetLastLine(1)
	return append([]ast.Stmt{prelude}, chunk...)
}

type concatRewriter struct{ found bool }

func (r *concatRewriter) stmts(list []ast.Stmt) {
	for _, s := range list {
		eachPart(s, r.rewrite, r.stmts)
	}
}

// rewrite puts the rewritten expression in *e's place.
func (r *concatRewriter) rewrite(e *ast.Expr) { *e = r.expr(*e) }

func (r *concatRewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return r.concat(e)
	case *ast.FunctionExpr:
		r.stmts(e.Stmts)
	default:
		eachChild(e, r.rewrite)
	}
	return e
}

// concat turns the chain that starts at e (a .. (b .. (c ...))) into calls.
func (r *concatRewriter) concat(e *ast.StringConcatOpExpr) ast.Expr {
	r.found = true
	var operands []ast.Expr
	var cur ast.Expr = e
	for {
		c, ok := cur.(*ast.StringConcatOpExpr)
		if !ok {
			break
		}
		operands = append(operands, c.Lhs)
		cur = c.Rhs
	}
	operands = append(operands, cur)
	for i, o := range operands {
		o = r.expr(o)
		// An operand gives one value, as in the VM: f() and ... are cut
		// to their first value, as (f()) and (...) would be.
		switch o := o.(type) {
		case *ast.FuncCallExpr:
			o.AdjustRet = true
		case *ast.Comma3Expr:
			o.AdjustRet = true
		}
		operands[i] = o
	}
	call := func(args []ast.Expr) *ast.FuncCallExpr {
		c := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: concatLocal}, Args: args, AdjustRet: true}
		c.Func.SetLine(e.Line())
		c.SetLine(e.Line())
		c.SetLastLine(e.LastLine())
		return c
	}
	n := min(len(operands), concatGroup)
	out := call(append([]ast.Expr(nil), operands[:n]...))
	for rest := operands[n:]; len(rest) > 0; {
		k := min(len(rest), concatGroup-1)
		out = call(append([]ast.Expr{out}, rest[:k]...))
		rest = rest[k:]
	}
	return out
}

// luaConcat is the concat function: it joins its arguments as the VM joins
// a ".." chain, right to left, runs of strings and numbers at once and
// other values through their __concat metamethod, refusing a string longer
// than the engine's limit.
func (e *Engine) luaConcat(L *lua.LState) int {
	e.checkMemory(L)
	n := L.GetTop()
	if n == 0 {
		return 0
	}
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		// The run of strings and numbers ending at i, then rhs.
		parts := append(e.concatParts[:0], lua.LVAsString(rhs))
		total := len(parts[0])
		j := i
		for ; j >= 1; j-- {
			v := L.Get(j)
			if !lua.LVCanConvToString(v) {
				break
			}
			s := lua.LVAsString(v)
			parts = append(parts, s)
			if total += len(s); total > e.limits.maxString || total < 0 {
				e.concatParts = parts[:0]
				L.RaiseError("%s", e.tooLong("..", int64(total)))
			}
		}
		var b strings.Builder
		b.Grow(total)
		for k := len(parts) - 1; k >= 0; k-- {
			b.WriteString(parts[k])
		}
		clear(parts)
		e.concatParts = parts[:0]
		rhs = lua.LString(b.String())
		i = j
	}
	L.Push(rhs)
	return 1
}

// tooLong is the error text for a string function whose result would pass
// the limit.
func (e *Engine) tooLong(what string, n int64) string {
	return fmt.Sprintf("%s would make a string of %d bytes or more; a string may be at most %s (an eighth of the Lua memory budget)",
		what, n, readfile.Size(int64(e.limits.maxString)))
}
