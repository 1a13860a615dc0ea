// Command btrun runs, validates, prints and benchmarks behavior trees.
// See docs/cli.md.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes (SPEC §7).
const (
	exitOK      = 0 // done
	exitRuntime = 1 // the run could not go on
	exitUsage   = 2 // bad usage, config, tree or script
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// command is one subcommand: it parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run a game config (the default command)", runRun},
		{"shard", "join a run's cluster as a shard: `btrun shard -cluster nats://... -name RUN`", runShard},
		{"bench", "measure a config with many agents", runBench},
		{"tree", "print a tree file with resolved ids, labels and declarations", runTree},
		{"validate", "load and bind trees, print every problem, change nothing", runValidate},
		{"view", "open the live view on a trace or a save, to travel through it", runView},
		{"convert", "write a Lumberyard MBT or CryEngine BHS document as a tree file of btrun's format", runConvert},
		{"plugin", "plugin tools: `btrun plugin new NAME [DIR]` writes a new Go plugin module", runPlugin},
		{"version", "print btrun's version", runVersion},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && !isHelp(args[0]) && args[0] != "-version" && args[0] != "--version") {
		return runRun(args, stdout, stderr) // `btrun` alone is `btrun run -config config.toml`
	}
	if isHelp(args[0]) {
		usage(stdout)
		return exitOK
	}
	if args[0] == "-version" || args[0] == "--version" {
		return runVersion(args[1:], stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "btrun: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: btrun <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'btrun <command> -h' for a command's flags.")
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}
