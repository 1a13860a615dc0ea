package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// runValidate is `btrun validate`: load and bind everything a config names
// (trees, scripts, plugins) and print every problem, changing nothing; or,
// with -tree, check one tree file on its own.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "config.toml", "the game config")
	treeFile := fs.String("tree", "", "check this tree file on its own instead of a config")
	list := fs.Bool("v", false, "also list every registered action, condition and scorer with its origin and parameters")
	strict := fs.Bool("strict", false, "treat warnings as errors (exit 2)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: btrun validate [-config F] [-v] [-strict] | btrun validate -tree FILE.xml")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if code, ok := wantArgs(fs, stderr, 0, ""); !ok {
		return code
	}
	if *treeFile != "" {
		return validateTree(*treeFile, *strict, stdout, stderr)
	}
	cfg, err := game.LoadConfig(*config)
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: stdout, Stderr: stderr})
	if err != nil {
		printProblems(stderr, err)
		if errors.Is(err, game.ErrPluginStart) {
			return exitRuntime
		}
		return exitUsage
	}
	defer g.Close()
	warnings := g.Warnings()
	for _, l := range g.Lints() {
		warnings = append(warnings, l.String())
	}
	for _, w := range warnings {
		fmt.Fprintln(stdout, "warning:", w)
	}
	for _, tc := range cfg.Trees {
		t := g.Trees()[tc.Name].Tree
		fmt.Fprintf(stdout, "tree %-10s %s: %d rules, %d files, %d variables, %d signals, %d timestamps%s\n",
			tc.Name, t.File, len(t.Rules), len(t.Files), len(t.Vars), len(t.Signals), len(t.Stamps), gatesCount(t))
	}
	reg := g.Registry()
	fmt.Fprintf(stdout, "%d actions and %d conditions registered; %d agents\n", len(reg.Actions()), len(reg.Conditions()), len(g.Agents()))
	if *list {
		for _, d := range reg.Actions() {
			fmt.Fprintf(stdout, "  action    %-22s %s\n", d.Name, d.Origin)
			listParams(stdout, d.Params)
		}
		for _, d := range reg.Conditions() {
			fmt.Fprintf(stdout, "  condition %-22s %s\n", d.Name, d.Origin)
			listParams(stdout, d.Params)
		}
		for _, f := range runtime.DeclaredConditions {
			fmt.Fprintf(stdout, "  condition %-22s declared by the tree\n", f.Name)
			listParams(stdout, f.Params)
		}
		for _, d := range reg.Scorers() {
			fmt.Fprintf(stdout, "  scorer    %-22s %s\n", d.Name, d.Origin)
		}
		for _, d := range reg.Hooks() {
			fmt.Fprintf(stdout, "  hook      %-22s %s\n", d.Name, d.Origin)
			listParams(stdout, d.Params)
		}
		for _, d := range reg.Rules() { // composites and decorators registered from Go
			fmt.Fprintf(stdout, "  rule      %-22s %s\n", "<"+d.Tag+">", d.Origin)
			listParams(stdout, d.Params)
		}
	}
	if n := len(warnings); n > 0 {
		if *strict {
			fmt.Fprintf(stderr, "%s: %s, errors with -strict\n", *config, countOf(n, "warning"))
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s: ok, with %s\n", *config, countOf(n, "warning"))
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: ok\n", *config)
	return exitOK
}

// listParams lists declared parameters under an action or condition.
func listParams(w io.Writer, ps []runtime.ParamSpec) {
	for _, p := range ps {
		what := p.Type
		switch {
		case p.Required:
			what += ", required"
		case p.Default != "":
			what += ", default " + p.Default
		}
		if what != "" {
			what = " (" + strings.TrimPrefix(what, ", ") + ")"
		}
		doc := ""
		if p.Doc != "" {
			doc = ": " + p.Doc
		}
		fmt.Fprintf(w, "              %s%s%s\n", p.Name, what, doc)
	}
}

// validateTree loads one tree and binds it against the built-ins; names
// that scripts or plugins would provide are listed, not counted as errors,
// since a lone tree has none. The lints that need no scripts run too
// (warnings, errors with -strict); names they do not know are not checked.
func validateTree(file string, strict bool, stdout, stderr io.Writer) int {
	reg := shippedRules() // rules.go
	tree, err := runtime.LoadFile(file, runtime.LoadOptions{Rules: reg.RuleDecls()})
	if err != nil {
		printProblems(stderr, err)
		return exitUsage
	}
	bound, err := runtime.Bind(tree, reg, runtime.BindOptions{Lenient: true})
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
	lints := game.TreeLints(tree, reg)
	for _, l := range lints {
		fmt.Fprintln(stdout, "warning:", l)
	}
	if n := len(lints); n > 0 && strict {
		fmt.Fprintf(stderr, "%s: %s, errors with -strict\n", tree.File, countOf(n, "warning"))
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: ok (%d rules, %d variables, %d signals, %d timestamps%s)\n",
		tree.File, len(tree.Rules), len(tree.Vars), len(tree.Signals), len(tree.Stamps), gatesCount(tree))
	return exitOK
}

// gatesCount is ", N gates" for a tree that declares gates, else "".
func gatesCount(t *runtime.Tree) string {
	if len(t.Gates) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d gates", len(t.Gates))
}

// printProblems prints an error for people: an ErrorList or a join of
// errors has one problem a line; a count follows when there are several
// (problems a config did not list, game.MoreProblems, count too).
func printProblems(w io.Writer, err error) {
	text := strings.TrimRight(err.Error(), "\n")
	fmt.Fprintln(w, text)
	problems := 0
	for _, l := range strings.Split(text, "\n") {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			problems++
		}
	}
	var more *game.MoreProblems
	if errors.As(err, &more) {
		problems += more.N - 1 // its own line counted one
	}
	if problems > 1 {
		fmt.Fprintf(w, "%d problems\n", problems)
	}
}

// countOf is "1 warning", "3 warnings".
func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
