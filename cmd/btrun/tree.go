package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/btrun/btrun/runtime"
)

// runTree is `btrun tree FILE.xml`: load the tree and print it for people.
// A file with several top-level rules is a subtree file: it is printed as a
// <subtree> would include it.
func runTree(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun tree FILE.xml")
		fmt.Fprintln(fs.Output(), "Prints the tree with resolved ids, labels, conditions, parameters and declarations.")
		fmt.Fprintln(fs.Output(), "A subtree file (several top-level rules) is printed as a <subtree> would include it.")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 1, "FILE.xml"); !ok {
		return code
	}
	file := fs.Arg(0)
	decls := shippedRules().RuleDecls() // rules.go
	tree, err := runtime.LoadFile(file, runtime.LoadOptions{Rules: decls})
	if err != nil && onlySeveralRoots(err) {
		tree, err = runtime.LoadFile(file, runtime.LoadOptions{Subtree: true, Rules: decls})
		if err == nil {
			fmt.Fprintf(stdout, "%s holds %d top-level rules: a subtree file, shown as a <subtree> includes it\n",
				tree.File, len(tree.Children(runtime.Root)))
		}
	}
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	if err := tree.Format(stdout); err != nil {
		fmt.Fprintln(stderr, "btrun:", err)
		return exitRuntime
	}
	return exitOK
}

// onlySeveralRoots reports whether every problem of a load is a second
// top-level rule: the file is a subtree file.
func onlySeveralRoots(err error) bool {
	var list runtime.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return false
	}
	for _, e := range list {
		if !errors.Is(e, runtime.ErrSeveralRoots) {
			return false
		}
	}
	return true
}
