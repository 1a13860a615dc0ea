package luabind

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// What compiling a chunk will cost, counted before compiling it.
//
// gopher-lua's compiler looks each constant a function names (a string, a
// number, the name of a global, a field or a method) up in the list of the
// function's constants so far, one comparison per entry: a function that
// names n different constants costs about n²/2 comparisons, some 9 ns each
// here. bigtables.go splits the big table constructors that data is
// written in; what is left is counted here, by walking the chunk as the
// compiler will and keeping each function's constants in a map: a chunk
// whose count passes compareBudget is refused with an error at the place
// where it did, before it is compiled. So every source loads in time
// linear in its size (a few tenths of a second per MB at most), or is told
// what to split.

// compareBudget is the most comparisons compiling a chunk of size bytes
// may cost: 16 a byte, and 16 million for any chunk (about 0.15 s a MB,
// and 0.15 s).
func compareBudget(size int) int64 { return 16*int64(size) + 16<<20 }

// costCounter walks a chunk counting the compiler's comparisons.
type costCounter struct {
	name   string
	total  int64
	budget int64
	err    *ScriptError
	fn     *costFunc
	free   []map[any]int32 // constant maps of functions walked, for the next ones
	// locals counts, per name, the locals of that name in scope in the
	// functions being walked: a name with none is a global (a constant).
	locals map[string]int32
}

// nanConst is the key of a NaN constant (one per use).
type nanConst int32

// costFunc is a function being walked.
type costFunc struct {
	parent *costFunc
	consts map[any]int32 // constant -> index in the function's list
	line   int           // where the function starts
}

// checkCompileCost returns a *ScriptError (ErrSyntax) when compiling the
// chunk (parsed from size bytes) would cost more than its budget.
func checkCompileCost(name string, size int, chunk []ast.Stmt) error {
	c := &costCounter{name: name, budget: compareBudget(size), locals: map[string]int32{}}
	c.function(1, nil, func() { c.block(chunk) })
	if c.err != nil {
		return c.err
	}
	return nil
}

// function walks a function's body with its parameters in scope.
func (c *costCounter) function(line int, params []string, body func()) {
	var m map[any]int32
	if n := len(c.free); n > 0 {
		m, c.free = c.free[n-1], c.free[:n-1]
	} else {
		m = map[any]int32{}
	}
	c.fn = &costFunc{parent: c.fn, consts: m, line: line}
	c.scope(params, body)
	clear(m)
	c.free = append(c.free, m)
	c.fn = c.fn.parent
}

// scope walks body with names declared, and forgets them after.
func (c *costCounter) scope(names []string, body func()) {
	c.declare(names)
	body()
	c.forget(names)
}

func (c *costCounter) declare(names []string) {
	for _, n := range names {
		c.locals[n]++
	}
}

func (c *costCounter) forget(names []string) {
	for _, n := range names {
		if c.locals[n]--; c.locals[n] == 0 {
			delete(c.locals, n)
		}
	}
}

// use counts the compiler's search for constant k (a string or a
// float64) in the current function, at line.
func (c *costCounter) use(k any, line int) {
	if c.err != nil {
		return
	}
	f := c.fn
	if i, ok := f.consts[k]; ok {
		c.total += int64(i) + 1
	} else {
		n := int32(len(f.consts))
		c.total += int64(n)
		if x, isNum := k.(float64); isNum && math.IsNaN(x) {
			k = nanConst(n) // NaN is never found again: each is a constant of its own
		}
		f.consts[k] = n
	}
	if c.total > c.budget {
		c.err = &ScriptError{File: c.name, Line: line, Msg: fmt.Sprintf("the function starting at line %d names %d different strings, numbers and global names by here, "+
			"which gopher-lua's compiler would take too long to compile (its time grows with their square); "+
			"split the function into smaller ones, or write the data as a table constructor", f.line, len(f.consts)), Err: ErrSyntax}
	}
}

func (c *costCounter) block(list []ast.Stmt) {
	var declared []string
	for _, s := range list {
		declared = c.stmt(s, declared)
	}
	c.forget(declared)
}

// stmt walks a statement and returns declared with the locals it declares
// (in scope until the end of its block).
func (c *costCounter) stmt(s ast.Stmt, declared []string) []string {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.IdentExpr); ok {
				if c.locals[id.Value] == 0 {
					c.use(id.Value, id.Line()) // a global assigned: found, then set
					c.use(id.Value, id.Line())
				}
				continue
			}
			c.expr(l)
		}
		c.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok { // local function: in scope in its body
				c.declare(s.Names)
				c.expr(s.Exprs[0])
				return append(declared, s.Names...)
			}
		}
		c.exprs(s.Exprs)
		c.declare(s.Names)
		return append(declared, s.Names...)
	case *ast.FuncCallStmt:
		c.expr(s.Expr)
	case *ast.DoBlockStmt:
		c.block(s.Stmts)
	case *ast.WhileStmt:
		c.expr(s.Condition)
		c.block(s.Stmts)
	case *ast.RepeatStmt:
		var inner []string
		for _, st := range s.Stmts {
			inner = c.stmt(st, inner)
		}
		c.expr(s.Condition) // sees the body's locals
		c.forget(inner)
	case *ast.IfStmt:
		c.expr(s.Condition)
		c.block(s.Then)
		c.block(s.Else)
	case *ast.NumberForStmt:
		c.expr(s.Init)
		c.expr(s.Limit)
		if s.Step == nil {
			c.use(float64(1), s.Line())
		}
		c.expr(s.Step)
		c.scope([]string{s.Name}, func() { c.block(s.Stmts) })
	case *ast.GenericForStmt:
		c.exprs(s.Exprs)
		c.scope(s.Names, func() { c.block(s.Stmts) })
	case *ast.FuncDefStmt:
		params := s.Func.ParList.Names
		if s.Name.Func == nil {
			c.expr(s.Name.Receiver)
			c.use(s.Name.Method, s.Line())
			params = append([]string{"self"}, params...)
		} else if id, ok := s.Name.Func.(*ast.IdentExpr); ok && c.locals[id.Value] == 0 {
			c.use(id.Value, s.Line())
		} else {
			c.expr(s.Name.Func)
		}
		c.function(s.Func.Line(), params, func() { c.block(s.Func.Stmts) })
	case *ast.ReturnStmt:
		c.exprs(s.Exprs)
	}
	return declared
}

func (c *costCounter) exprs(list []ast.Expr) {
	for _, e := range list {
		c.expr(e)
	}
}

func (c *costCounter) expr(e ast.Expr) {
	switch x := e.(type) {
	case nil:
	case *ast.StringExpr:
		c.use(x.Value, x.Line())
	case *ast.NumberExpr:
		c.use(float64(lua.LVAsNumber(lua.LString(x.Value))), x.Line())
	case *ast.IdentExpr:
		if c.locals[x.Value] == 0 {
			c.use(x.Value, x.Line())
		}
	case *ast.FunctionExpr:
		c.function(x.Line(), x.ParList.Names, func() { c.block(x.Stmts) })
	case *ast.FuncCallExpr:
		c.expr(x.Func)
		c.expr(x.Receiver)
		if x.Method != "" {
			c.use(x.Method, x.Line())
		}
		c.exprs(x.Args)
	default:
		eachChild(e, func(part *ast.Expr) { c.expr(*part) })
	}
}
