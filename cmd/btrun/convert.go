package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
)

// runConvert is `btrun convert FILE [-o OUT]`: a Lumberyard MBT, CryEngine
// BHS or Drag[en]gine state machine document written as a tree file of btrun's own format, on standard
// output or in OUT. The actions the tree expects to be registered are the
// document's last comment, and are listed on standard error.
func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the tree file to `OUT` instead of standard output")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun convert [-o OUT] FILE.xml")
		fmt.Fprintln(fs.Output(), "Writes a Lumberyard MBT (<BehaviorTree>) or CryEngine BHS (<SelectionTree>) document as a tree file")
		fmt.Fprintln(fs.Output(), "of btrun's format: comments kept, each rule's origin as a comment, and the actions it expects.")
		fs.PrintDefaults()
	}
	// FILE may come before -o: move the flags first.
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-o" || a == "--o":
			flags = append(flags, a)
			if i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-") && a != "-" && a != "--":
			flags = append(flags, a)
		default:
			rest = append(rest, a)
		}
	}
	if code, done := parseFlags(fs, append(flags, rest...), stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 1, "FILE.xml"); !ok {
		return code
	}
	file := fs.Arg(0)
	data, err := readfile.Read(file, readfile.TreeLimit, "tree file")
	if err != nil {
		fmt.Fprintf(stderr, "btrun convert: cannot read %s: %s\n", file, readfile.Reason(err))
		return exitUsage
	}
	conv, err := runtime.Convert(file, data, runtime.LoadOptions{})
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	if *out == "" {
		if _, err := stdout.Write(conv.Text); err != nil {
			fmt.Fprintln(stderr, "btrun convert:", err)
			return exitRuntime
		}
	} else if err := os.WriteFile(*out, conv.Text, 0o644); err != nil {
		fmt.Fprintln(stderr, "btrun convert:", err)
		return exitRuntime
	}
	if len(conv.Actions) > 0 {
		fmt.Fprintf(stderr, "btrun convert: the tree expects %d actions to be registered (by a script or a plugin): %s\n",
			len(conv.Actions), strings.Join(conv.Actions, ", "))
	}
	return exitOK
}
