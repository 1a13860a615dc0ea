package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/btrun/btrun/plugins/sdk"
)

// Version is btrun's version.
const Version = "0.1.0"

// runVersion is `btrun version`: the version, the source revision when the
// binary was built from a git checkout, the Go toolchain and the plugin
// protocol (plugins built against another protocol version do not start).
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if isHelp(args[0]) {
			fmt.Fprintln(stdout, "usage: btrun version")
			return exitOK
		}
		fmt.Fprintf(stderr, "btrun version: unexpected argument %q\nusage: btrun version\n", args[0])
		return exitUsage
	}
	fmt.Fprintf(stdout, "btrun %s%s, %s %s/%s, plugin protocol %d (SDK %s)\n",
		Version, revision(), runtime.Version(), runtime.GOOS, runtime.GOARCH, sdk.ProtocolVersion, sdk.Version)
	return exitOK
}

// revision is " (commit abc123def456)" from the build's VCS stamp, with
// "+dirty" for uncommitted changes; "" when the binary has none (go run,
// -buildvcs=false).
func revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return " (commit " + rev + ")"
}
