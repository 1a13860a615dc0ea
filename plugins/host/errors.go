package host

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/btrun/btrun/plugins/sdk"
)

// Sentinel errors. Every error of the package wraps one of them.
var (
	// ErrStart marks a plugin that could not be started: a bad path, a
	// failed build, a program that is not a btrun plugin, a handshake that
	// failed. btrun exits 1 on it (SPEC §7).
	ErrStart = errors.New("host: plugin cannot be started")
	// ErrHandshake marks a start-up failure in the go-plugin handshake
	// itself (it also wraps ErrStart).
	ErrHandshake = errors.New("host: plugin handshake failed")
	// ErrBuild marks a Go plugin package that did not build.
	ErrBuild = errors.New("host: plugin build failed")
	// ErrCrashed marks a call that failed because its plugin process died.
	ErrCrashed = errors.New("host: plugin crashed")
	// ErrTimeout marks a call its plugin did not answer within CallTimeout.
	ErrTimeout = errors.New("host: plugin call timed out")
	// ErrDown marks a call made while its plugin is being restarted.
	ErrDown = errors.New("host: plugin down")
	// ErrCall marks an error the plugin itself returned for a call (its
	// action failed, panicked, or its reply could not be applied).
	ErrCall = errors.New("host: plugin call failed")
	// ErrClosed marks a call on a Set that has been closed.
	ErrClosed = errors.New("host: plugin set closed")
	// ErrUsage marks a misuse of the batching API (Resume before Flush, a
	// Flush that would drop replies).
	ErrUsage = errors.New("host: batching API misuse")
)

// wrapped is an error with a message of its own that wraps several
// sentinels, so errors.Is finds each.
type wrapped struct {
	msg  string
	errs []error
}

func (e *wrapped) Error() string   { return e.msg }
func (e *wrapped) Unwrap() []error { return e.errs }

func newErr(msg string, errs ...error) error { return &wrapped{msg: msg, errs: errs} }

var (
	reVersion  = regexp.MustCompile(`Plugin version: (\d+)`)
	reProtocol = regexp.MustCompile(`unsupported plugin protocol "([^"]*)"`)
	reMessage  = regexp.MustCompile(`(?s)Unrecognized remote plugin message: (.*?)(\n|$)`)
)

// startError turns go-plugin's start-up errors into plain words: which
// plugin, which file, what went wrong and what to do.
func startError(name, exe string, err error, stderr *tail, cmd *exec.Cmd) error {
	msg := err.Error()
	where := fmt.Sprintf("host: plugin %s (%s)", name, exe)
	stderrNote := ""
	if s := stderr.lines(3); s != "" {
		stderrNote = "; its standard error said: " + s
	}
	exitNote := ""
	if cmd != nil && cmd.ProcessState != nil {
		exitNote = " (" + cmd.ProcessState.String() + ")"
	}
	hs := func(text string) error {
		return newErr(where+": "+text, ErrStart, ErrHandshake, err)
	}
	switch {
	case strings.Contains(msg, "incompatible API version"):
		v := "another version"
		if m := reVersion.FindStringSubmatch(msg); m != nil {
			v = "version " + m[1]
		}
		return hs(fmt.Sprintf("speaks btrun plugin protocol %s, but this btrun speaks version %d: rebuild the plugin against this btrun's plugins/sdk", v, sdk.ProtocolVersion))
	case strings.Contains(msg, "incompatible core API version"):
		return hs("was built with an incompatible hashicorp/go-plugin: rebuild it against this btrun's plugins/sdk")
	case strings.Contains(msg, "unsupported plugin protocol"):
		p := "another protocol"
		if m := reProtocol.FindStringSubmatch(msg); m != nil {
			p = m[1]
		}
		return hs(fmt.Sprintf("speaks the %s protocol; btrun plugins speak gRPC only (serve it with sdk.Serve)", p))
	case strings.Contains(msg, "Unrecognized remote plugin message"):
		first := ""
		if m := reMessage.FindStringSubmatch(msg); m != nil {
			first = strings.TrimSpace(m[1])
		}
		if first == "" && strings.Contains(stderrNote, "This binary is a plugin") {
			return hs("is a go-plugin plugin of another application (its magic cookie is not btrun's)" + exitNote)
		}
		if first == "" {
			return hs("is not a btrun plugin: it wrote nothing on standard output and ended without the go-plugin handshake" + exitNote + stderrNote)
		}
		return hs(fmt.Sprintf("wrote %q on standard output where the go-plugin handshake was expected: "+
			"either it is not a btrun plugin, or it printed to standard output before sdk.Serve "+
			"(a plugin must not write to standard output before serving; log with sdk.Logf or to standard error)%s", first, stderrNote))
	case strings.Contains(msg, "exited before we could connect"):
		if strings.Contains(stderrNote, "This binary is a plugin") {
			return hs("is a go-plugin plugin of another application (its magic cookie is not btrun's)" + exitNote)
		}
		return hs("exited before the go-plugin handshake" + exitNote + ": it is not a btrun plugin, or it failed at start" + stderrNote)
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		return hs("did not complete the go-plugin handshake in time: it is not a btrun plugin (nothing on standard output), or it hangs before sdk.Serve" + stderrNote)
	}
	var ee *exec.Error
	if errors.As(err, &ee) || strings.Contains(msg, "exec format error") || strings.Contains(msg, "permission denied") {
		return newErr(where+": cannot run it: "+msg, ErrStart, err)
	}
	return newErr(where+": "+msg+stderrNote, ErrStart, err)
}
