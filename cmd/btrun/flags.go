package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses a subcommand's flags. Asking for help (-h, -help,
// --help) prints the usage on standard output and ends the command with exit
// 0, as `btrun -h` does; a bad flag prints the usage on standard error and
// ends it with exit 2.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(stdout)
			break
		}
	}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return exitOK, true
	}
	return exitUsage, true
}

// wantArgs checks the number of arguments left after the flags: n exactly.
// An extra argument is named (with a hint when it looks like a misplaced
// flag or config), a missing one says what was expected.
func wantArgs(fs *flag.FlagSet, stderr io.Writer, n int, what string) (int, bool) {
	switch {
	case fs.NArg() == n:
		return 0, true
	case fs.NArg() < n:
		fmt.Fprintf(stderr, "btrun %s: missing %s\n", fs.Name(), what)
	default:
		extra := fs.Arg(n)
		hint := ""
		switch {
		case strings.HasSuffix(extra, ".toml") && fs.Lookup("config") != nil:
			hint = fmt.Sprintf(" (a config is given with -config %s)", extra)
		case fs.NArg() > n+1 && strings.HasPrefix(fs.Arg(n+1), "-"):
			hint = " (flags must come before other arguments)"
		}
		fmt.Fprintf(stderr, "btrun %s: unexpected argument %q%s\n", fs.Name(), extra, hint)
	}
	fs.Usage()
	return exitUsage, false
}
