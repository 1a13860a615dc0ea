package luabind

import "github.com/yuin/gopher-lua/ast"

// The passes over a parsed chunk before it is compiled (concat.go,
// bigtables.go, compilecost.go) walk gopher-lua's syntax tree the same way;
// these two functions are that walk, one level at a time. Each gives a
// pointer to every part, so that a pass can read it or put a rewritten
// expression in its place.

// eachChild calls f with a pointer to each expression directly inside e,
// in the order the compiler evaluates them. When e is a function, its body
// is not inside it (it compiles as a function of its own). A missing part
// (a call's receiver, a positional field's key) is a pointer to nil.
func eachChild(e ast.Expr, f func(*ast.Expr)) {
	switch x := e.(type) {
	case *ast.AttrGetExpr:
		f(&x.Object)
		f(&x.Key)
	case *ast.TableExpr:
		for _, field := range x.Fields {
			f(&field.Key)
			f(&field.Value)
		}
	case *ast.FuncCallExpr:
		f(&x.Func)
		f(&x.Receiver)
		for i := range x.Args {
			f(&x.Args[i])
		}
	case *ast.LogicalOpExpr:
		f(&x.Lhs)
		f(&x.Rhs)
	case *ast.RelationalOpExpr:
		f(&x.Lhs)
		f(&x.Rhs)
	case *ast.StringConcatOpExpr:
		f(&x.Lhs)
		f(&x.Rhs)
	case *ast.ArithmeticOpExpr:
		f(&x.Lhs)
		f(&x.Rhs)
	case *ast.UnaryMinusOpExpr:
		f(&x.Expr)
	case *ast.UnaryNotOpExpr:
		f(&x.Expr)
	case *ast.UnaryLenOpExpr:
		f(&x.Expr)
	}
}

// eachPart calls expr with a pointer to each expression of the statement
// s and block with each list of statements in it (a function definition's
// body too), in the order they are written.
func eachPart(s ast.Stmt, expr func(*ast.Expr), block func([]ast.Stmt)) {
	exprs := func(list []ast.Expr) {
		for i := range list {
			expr(&list[i])
		}
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		exprs(s.Lhs)
		exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		exprs(s.Exprs)
	case *ast.FuncCallStmt:
		expr(&s.Expr)
	case *ast.DoBlockStmt:
		block(s.Stmts)
	case *ast.WhileStmt:
		expr(&s.Condition)
		block(s.Stmts)
	case *ast.RepeatStmt:
		block(s.Stmts)
		expr(&s.Condition)
	case *ast.IfStmt:
		expr(&s.Condition)
		block(s.Then)
		block(s.Else)
	case *ast.NumberForStmt:
		expr(&s.Init)
		expr(&s.Limit)
		expr(&s.Step)
		block(s.Stmts)
	case *ast.GenericForStmt:
		exprs(s.Exprs)
		block(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			expr(&s.Name.Func)
			expr(&s.Name.Receiver)
		}
		block(s.Func.Stmts)
	case *ast.ReturnStmt:
		exprs(s.Exprs)
	}
}
