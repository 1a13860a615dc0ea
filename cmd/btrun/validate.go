package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/btrun/btrun/runtime"
)

// runValidate is `btrun validate -tree FILE`: load and bind a tree against
// the built-ins and print every problem. Names that scripts or plugins would
// provide are listed, not counted as errors, since a lone tree has none.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	treeFile := fs.String("tree", "", "a tree file to validate on its own")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: btrun validate -tree FILE.xml")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *treeFile == "" || fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	tree, err := runtime.LoadFile(*treeFile, runtime.LoadOptions{})
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	bound, err := runtime.Bind(tree, runtime.NewRegistry(), runtime.BindOptions{Lenient: true})
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	if len(bound.Unresolved) > 0 {
		fmt.Fprintf(stdout, "%s: names that scripts or plugins must provide:\n", tree.File)
		for _, u := range bound.Unresolved {
			fmt.Fprintf(stdout, "  %s: %s %q\n", u.Pos, u.Kind, u.Name)
		}
	}
	fmt.Fprintf(stdout, "%s: ok (%d rules, %d variables, %d signals, %d timestamps)\n",
		tree.File, len(tree.Rules), len(tree.Vars), len(tree.Signals), len(tree.Stamps))
	return exitOK
}

// printProblems prints each error of a list on its own line.
func printProblems(w io.Writer, err error) {
	var list runtime.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(w, e)
		}
		fmt.Fprintf(w, "%d problem(s)\n", len(list))
		return
	}
	fmt.Fprintln(w, err)
}
