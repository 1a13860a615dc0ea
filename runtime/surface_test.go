package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRuntime_exportedNamesAreAConsciousChoice: package runtime's exported
// names (functions, types, methods, constants, variables and fields of
// exported structs) are those of testdata/surface.golden. An embedder
// learns this package from go doc; a new export, or one that goes, changes
// the golden file in the same commit (go test ./runtime -run exportedNames
// -update), where a reviewer sees it. Engine-side names that btrun's own
// packages need belong in sub-packages (runtime/savecodec) when they can.
func TestRuntime_exportedNamesAreAConsciousChoice(t *testing.T) {
	got := strings.Join(exportedNames(t, "."), "\n") + "\n"
	path := filepath.Join("testdata", "surface.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	have := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	listed := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	for _, n := range have {
		if !slices.Contains(listed, n) {
			t.Errorf("new export %s: if an embedder needs it, add it to %s with -update; if only btrun's packages do, keep it out of runtime", n, path)
		}
	}
	for _, n := range listed {
		if !slices.Contains(have, n) {
			t.Errorf("export %s is gone: remove it from %s with -update (and say so in the release notes)", n, path)
		}
	}
}

// exportedNames lists the exported names of the package in dir (test files
// aside), one "kind name" a line, sorted.
func exportedNames(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					out = append(out, "func "+d.Name.Name)
				} else if recv := recvName(d.Recv.List[0].Type); ast.IsExported(recv) {
					out = append(out, "method "+recv+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						out = append(out, "type "+s.Name.Name)
						out = append(out, members(s.Name.Name, s.Type)...)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								out = append(out, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// members are a struct's exported fields and an interface's methods.
func members(typ string, e ast.Expr) []string {
	var list *ast.FieldList
	kind := "field "
	switch e := e.(type) {
	case *ast.StructType:
		list = e.Fields
	case *ast.InterfaceType:
		list, kind = e.Methods, "method "
	default:
		return nil
	}
	var out []string
	for _, f := range list.List {
		for _, n := range f.Names {
			if n.IsExported() {
				out = append(out, kind+typ+"."+n.Name)
			}
		}
		if len(f.Names) == 0 {
			if n := recvName(f.Type); ast.IsExported(n) {
				out = append(out, "embeds "+typ+"."+n)
			}
		}
	}
	return out
}
