package main

import (
	"fmt"
	"io"
)

// runPlugin is `btrun plugin SUBCOMMAND`.
func runPlugin(args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: btrun plugin new NAME [DIR]")
		fmt.Fprintln(w, "  new   write a new Go plugin module (a main package with a test) into DIR (default ./NAME)")
	}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch {
	case isHelp(args[0]):
		usage(stdout)
		return exitOK
	case args[0] == "new":
		return runPluginNew(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "btrun plugin: unknown subcommand %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func runPluginNew(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "btrun plugin new: not yet")
	return exitUsage
}
