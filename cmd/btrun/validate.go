package main

import (
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

// printProblems prints every error of a list or a join on its own line,
// then how many there were.
func printProblems(w io.Writer, err error) {
	var lines []string
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case runtime.ErrorList:
			for _, x := range e {
				lines = append(lines, x.Error())
			}
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		default:
			lines = append(lines, err.Error())
		}
	}
	walk(err)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if len(lines) > 1 {
		fmt.Fprintf(w, "%d problems\n", len(lines))
	}
}
