package luabind

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Big table constructors.
//
// A script of data (a table of a few hundred thousand strings) meets two
// limits of gopher-lua's compiler. It finds a constant of a function (a
// string or number the function's code names) by searching the list of the
// ones found before, so a function naming n different constants compiles
// in time that grows with n² (80,000 strings: 43 s; 300,000: over a minute,
// then "too many constants"). And a constructor stores at most 25,550
// values by position: the instruction of every later batch of 50 is written
// wrongly and the values go astray.
//
// So, after parsing, a constructor whose own code names more than
// splitUses constants or holds more than splitFields fields is rewritten
// into one that fills the table in chunks, each chunk a function of its own
// naming at most chunkConsts different constants:
//
//	{f1, ..., fn}  ->  (function(t)
//	                      fill(t, 33, 1024, function() return {f33, ..., f1056} end, ...)
//	                      ...
//	                      return t
//	                    end)({f1, ..., f32})
//
// The first chunk stays a constructor; each later chunk is a run of fields
// of one kind: values by position (a function returning a constructor of
// them, whose values 1..n fill stores from the given index on, nils
// included, as the constructor's own instruction stores them), a call or
// "..." as the last field (a function returning its values, all of which
// fill stores), or named fields (a function assigning them to t). The
// fields are evaluated in the order they are written, and the table ends
// up with the same entries, stored the same way: only a table that holds
// no more than its constructor could have been split.
//
// Each function costs gopher-lua's compiler some 16 KB while it compiles
// (compile.go gives the memory back afterwards), so chunks are as big as
// their constants allow. Code that names few constants, as written by
// people, is left as it is.
//
// gopher-lua also stores wrong values when a field with a key follows 50,
// 100, ... values by position ({1, ..., 50, k = f()} makes t[1] f()'s
// value; listsFault): such a constructor is split too, so that no
// constructor the compiler sees has a keyed field there.
//
// A constructor is not split when a field uses the "..." of the function
// around it (a chunk's function cannot see it), or when it holds values by
// position and by keys that are not names (t[k] and the positional values
// would be stored in another order). Such a constructor with more values
// by position than gopher-lua stores, or with a keyed field where
// gopher-lua spoils the values, is a syntax error at its position, and
// compilecost.go counts what it costs to compile.

const (
	// A constructor is split when its own code names more constants than
	// splitUses, or holds more fields than splitFields.
	splitUses   = 256
	splitFields = 4096
	// A chunk holds at most chunkFields fields naming at most chunkConsts
	// different constants (a field naming more is a chunk of its own).
	chunkFields = 1024
	chunkConsts = 256
	// fillGroup is the most chunks one call of fill takes (two arguments
	// each: a call's arguments live in registers, of which a function
	// has 200).
	fillGroup = 64
	// maxSetList is the most values by position gopher-lua's compiler
	// stores right in one constructor: 511 batches of 50
	// (lua.FieldsPerFlush).
	maxSetList = 511 * 50

	fillGlobal = "(btrun fill)" // where chunks find fill (see concat.go for the names)
	fillLocal  = "(fill)"       // the local each chunk keeps it in
	tableParam = "(table)"      // the table a split constructor fills
)

// exprCost is what splitting needs to know of an expression: the
// constants its own code names (names and keys counted as constants,
// locals too: an estimate from above) and whether it uses "...".
type exprCost struct {
	uses   int
	vararg bool
}

func (c exprCost) add(d exprCost) exprCost { return exprCost{c.uses + d.uses, c.vararg || d.vararg} }

// tableSplitter rewrites a parsed chunk's big constructors.
type tableSplitter struct {
	found bool         // a constructor was split: the chunk needs fill
	err   *ScriptError // a constructor that cannot be split and is too big
	name  string       // the chunk's name, for err
}

// splitTables rewrites the big constructors of a parsed chunk (see the top
// of the file). It returns the chunk, with the prelude that reads fill when
// a constructor was split, or a syntax error for a constructor that can
// neither be split nor compiled right.
func splitTables(name string, chunk []ast.Stmt) ([]ast.Stmt, error) {
	sp := &tableSplitter{name: name}
	sp.stmts(chunk)
	if sp.err != nil {
		return nil, sp.err
	}
	if !sp.found {
		return chunk, nil
	}
	return withLocal(chunk, fillLocal, fillGlobal), nil
}

func (sp *tableSplitter) stmts(list []ast.Stmt) {
	for _, s := range list {
		eachPart(s, func(e *ast.Expr) { *e, _ = sp.expr(*e) }, sp.stmts)
	}
}

// expr rewrites the big constructors inside e and returns what e's own
// code costs (a function's body costs its own function, not e's).
func (sp *tableSplitter) expr(e ast.Expr) (ast.Expr, exprCost) {
	var c exprCost
	switch x := e.(type) {
	case nil:
	case *ast.StringExpr, *ast.NumberExpr, *ast.IdentExpr:
		c.uses = 1
	case *ast.Comma3Expr:
		c.vararg = true
	case *ast.TableExpr:
		return sp.table(x)
	case *ast.FunctionExpr:
		sp.stmts(x.Stmts)
	default:
		eachChild(e, func(part *ast.Expr) {
			var d exprCost
			*part, d = sp.expr(*part)
			c = c.add(d)
		})
		if call, ok := e.(*ast.FuncCallExpr); ok && call.Method != "" {
			c.uses++
		}
	}
	return e, c
}

// table rewrites the constructors inside t's fields, then t itself when it
// is big, or when gopher-lua would store it wrong (listsFault).
func (sp *tableSplitter) table(t *ast.TableExpr) (ast.Expr, exprCost) {
	costs := make([]exprCost, len(t.Fields))
	var total exprCost
	positional, otherKeys := 0, false
	var fault *ast.Field // the first field listsFault would spoil
	for i, f := range t.Fields {
		var k, v exprCost
		f.Key, k = sp.expr(f.Key)
		f.Value, v = sp.expr(f.Value)
		costs[i] = k.add(v)
		total = total.add(costs[i])
		switch f.Key.(type) {
		case nil:
			positional++
			continue
		case *ast.StringExpr:
		default:
			otherKeys = true
		}
		if fault == nil && listsFault(positional) {
			fault = f
		}
	}
	if total.uses <= splitUses && len(t.Fields) <= splitFields && fault == nil {
		return t, total
	}
	if total.vararg || positional > 0 && otherKeys {
		switch {
		case sp.err != nil:
		case fault != nil:
			sp.err = &ScriptError{File: sp.name, Line: fault.Key.Line(), Msg: "a field with a key after " + strconv.Itoa(positional-positional%fieldsPerFlush) +
				" values by position in a table constructor that uses \"...\" or keys that are not names: gopher-lua's compiler would store wrong values there (a fault of its own); " +
				"write the fields with keys before the values by position", Err: ErrSyntax}
		case positional > maxSetList:
			sp.err = &ScriptError{File: sp.name, Line: t.Line(), Msg: "this table constructor holds " + strconv.Itoa(positional) +
				" values by position and uses \"...\" or keys that are not names; gopher-lua stores at most " + strconv.Itoa(maxSetList) +
				" that way: build the table in parts (t[#t + 1] = ... in a loop, or constructors of a few thousand values joined)", Err: ErrSyntax}
		}
		return t, total
	}
	return sp.split(t, costs)
}

// listsFault reports whether gopher-lua's compiler spoils the values by
// position of a constructor when a field with a key follows the given
// number of them: after a multiple of 50 (a full batch, stored already),
// it stores the batch again from registers the keyed field has used since
// ({1, ..., 50, k = f()} ends with t[1] = f()'s value).
func listsFault(positional int) bool { return positional > 0 && positional%fieldsPerFlush == 0 }

// fieldsPerFlush is how many values by position gopher-lua's constructor
// stores at a time (lua.FieldsPerFlush, a variable no one changes).
var fieldsPerFlush = lua.FieldsPerFlush

// split rewrites the constructor t (see the top of the file); costs are
// its fields' own.
func (sp *tableSplitter) split(t *ast.TableExpr, costs []exprCost) (ast.Expr, exprCost) {
	sp.found = true
	fields := t.Fields
	// A call gives all its values only as the constructor's last field;
	// elsewhere one, which it must keep at the end of a chunk.
	for _, f := range fields[:len(fields)-1] {
		if call, ok := f.Value.(*ast.FuncCallExpr); ok {
			call.AdjustRet = true
		}
	}
	line, last := t.Line(), t.LastLine()
	at := func(n interface {
		SetLine(int)
		SetLastLine(int)
	}) {
		n.SetLine(line)
		n.SetLastLine(last)
	}
	ident := func(name string) *ast.IdentExpr {
		x := &ast.IdentExpr{Value: name}
		at(x)
		return x
	}
	number := func(n int) *ast.NumberExpr {
		x := &ast.NumberExpr{Value: strconv.Itoa(n)}
		at(x)
		return x
	}
	lastMulti := isMultiValue(fields[len(fields)-1])
	seen := map[any]bool{} // the constants of the chunk being cut
	var own []any
	// chunkEnd is the end of the chunk that starts at field i: a run of
	// fields of one kind (the first chunk mixes them: it stays a
	// constructor), within the limits.
	chunkEnd := func(i int, mixed bool) int {
		clear(seen)
		keyed := fields[i].Key != nil
		j, positional := i, 0
		for ; j < len(fields) && j-i < chunkFields; j++ {
			f := fields[j]
			if !mixed && ((f.Key != nil) != keyed || j == len(fields)-1 && lastMulti && j > i) {
				break
			}
			if f.Key == nil {
				positional++
			} else if mixed && listsFault(positional) {
				break
			}
			own = own[:0]
			ownConstants(f.Key, &own)
			ownConstants(f.Value, &own)
			added := 0
			for _, k := range own {
				if !seen[k] {
					seen[k] = true
					added++
				}
			}
			if j > i && len(seen) > chunkConsts {
				break
			}
			if !mixed && j == len(fields)-1 && lastMulti {
				j++ // the last call or "...": a chunk of its own
				break
			}
		}
		return j
	}
	n := chunkEnd(0, true)
	base := &ast.TableExpr{Fields: fields[:n]}
	at(base)
	var baseCost exprCost
	next := 1 // the index of the next value by position
	for i, f := range base.Fields {
		baseCost = baseCost.add(costs[i])
		if f.Key == nil {
			next++
		}
	}
	var body []ast.Stmt
	var group []ast.Expr // the current call of fill: the table, a start index, (count, chunk) pairs
	flush := func() {
		if len(group) > 2 {
			call := &ast.FuncCallExpr{Func: ident(fillLocal), Args: group}
			at(call)
			st := &ast.FuncCallStmt{Expr: call}
			at(st)
			body = append(body, st)
		}
		group = nil
	}
	for i := n; i < len(fields); {
		j := chunkEnd(i, false)
		fn := &ast.FunctionExpr{ParList: &ast.ParList{Names: []string{}}}
		at(fn)
		count := 0 // values the chunk stores by position; 0: every value it returns
		switch {
		case fields[i].Key != nil:
			for _, f := range fields[i:j] {
				target := &ast.AttrGetExpr{Object: ident(tableParam), Key: f.Key}
				target.SetLine(f.Key.Line())
				target.SetLastLine(f.Key.LastLine())
				set := &ast.AssignStmt{Lhs: []ast.Expr{target}, Rhs: []ast.Expr{f.Value}}
				set.SetLine(f.Key.Line())
				set.SetLastLine(f.Value.LastLine())
				fn.Stmts = append(fn.Stmts, set)
			}
		case j == len(fields) && lastMulti && j-i == 1:
			ret := &ast.ReturnStmt{Exprs: []ast.Expr{fields[i].Value}}
			ret.SetLine(fields[i].Value.Line())
			ret.SetLastLine(fields[i].Value.LastLine())
			fn.Stmts = []ast.Stmt{ret}
		default:
			values := &ast.TableExpr{Fields: fields[i:j]}
			values.SetLine(fields[i].Value.Line())
			values.SetLastLine(fields[j-1].Value.LastLine())
			ret := &ast.ReturnStmt{Exprs: []ast.Expr{values}}
			ret.SetLine(values.Line())
			ret.SetLastLine(values.LastLine())
			fn.Stmts = []ast.Stmt{ret}
			count = j - i
		}
		if group == nil {
			group = []ast.Expr{ident(tableParam), number(next)}
		}
		group = append(group, number(count), fn)
		if fields[i].Key == nil {
			next += j - i
		}
		if len(group) == 2+2*fillGroup {
			flush()
		}
		i = j
	}
	flush()
	ret := &ast.ReturnStmt{Exprs: []ast.Expr{ident(tableParam)}}
	at(ret)
	body = append(body, ret)
	wrapper := &ast.FunctionExpr{ParList: &ast.ParList{Names: []string{tableParam}}, Stmts: body}
	at(wrapper)
	call := &ast.FuncCallExpr{Func: wrapper, Args: []ast.Expr{base}, AdjustRet: true}
	at(call)
	return call, baseCost
}

// isMultiValue reports whether a constructor's field gives all the values
// of a call or "..." (as its last field, by position).
func isMultiValue(f *ast.Field) bool {
	if f.Key != nil {
		return false
	}
	switch v := f.Value.(type) {
	case *ast.FuncCallExpr:
		return !v.AdjustRet
	case *ast.Comma3Expr:
		return !v.AdjustRet
	}
	return false
}

// ownConstants appends to out the constants e's own code names (not the
// functions in it): strings and numbers, and names, which are constants
// when they are globals (an estimate from above).
func ownConstants(e ast.Expr, out *[]any) {
	switch x := e.(type) {
	case nil, *ast.FunctionExpr:
	case *ast.StringExpr:
		*out = append(*out, x.Value)
	case *ast.NumberExpr:
		*out = append(*out, x.Value) // as written: 1 and 1.0 count twice, which errs on the safe side
	case *ast.IdentExpr:
		*out = append(*out, x.Value)
	default:
		eachChild(e, func(part *ast.Expr) { ownConstants(*part, out) })
		if call, ok := e.(*ast.FuncCallExpr); ok && call.Method != "" {
			*out = append(*out, call.Method)
		}
	}
}

// luaFill is fill(t, i, n1, f1, n2, f2, ...): it calls each function in
// turn and stores, by position from index i on, raw (as a constructor
// stores its values), what it gives: with n > 0, the values 1..n of the
// table it returns (nils included); with n = 0, every value it returns (a
// chunk of named fields returns none).
func (e *Engine) luaFill(L *lua.LState) int {
	t := L.CheckTable(1)
	next := L.CheckInt(2)
	top := L.GetTop()
	for i := 3; i+1 <= top; i += 2 {
		n := L.CheckInt(i)
		fn := L.CheckFunction(i + 1)
		base := L.GetTop()
		L.Push(fn)
		if n > 0 {
			L.Call(0, 1)
			values := L.CheckTable(base + 1)
			for k := 1; k <= n; k++ {
				t.RawSetInt(next, values.RawGetInt(k))
				next++
			}
		} else {
			L.Call(0, lua.MultRet)
			for k := base + 1; k <= L.GetTop(); k++ {
				t.RawSetInt(next, L.Get(k))
				next++
			}
		}
		L.SetTop(base)
	}
	return 0
}
