// Command treegen writes a generated behavior tree (package treegen) to
// standard output, for measuring `btrun tree` and `btrun validate` on big
// trees:
//
//	go run ./runtime/internal/treegen/cmd/treegen -rules 100000 > /tmp/gen100k.xml
//	/usr/bin/time -v btrun tree /tmp/gen100k.xml > /dev/null
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

func main() {
	rules := flag.Int("rules", 100000, "rules in the tree (at least 1)")
	flag.Parse()
	if *rules < 1 {
		fmt.Fprintln(os.Stderr, "treegen: -rules must be at least 1")
		os.Exit(2)
	}
	if _, err := os.Stdout.Write(treegen.Tree(*rules)); err != nil {
		fmt.Fprintln(os.Stderr, "treegen:", err)
		os.Exit(1)
	}
}
