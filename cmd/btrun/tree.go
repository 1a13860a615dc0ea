package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/btrun/btrun/runtime"
)

// runTree is `btrun tree FILE.xml`: load the tree and print it for people.
func runTree(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: btrun tree FILE.xml")
		fmt.Fprintln(stderr, "Prints the tree with resolved ids, labels, conditions, parameters and declarations.")
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	tree, err := runtime.LoadFile(fs.Arg(0), runtime.LoadOptions{})
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
