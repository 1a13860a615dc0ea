package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/btrun/btrun/plugins/sdk"
)

// instance is one running plugin process.
type instance struct {
	client    *goplugin.Client
	svc       sdk.Service
	cmd       *exec.Cmd
	lifeline  *os.File // write end; the plugin exits when it closes
	started   time.Time
	startStep uint64 // Set.Advance's step when it started (step mode)
	pid       int
	done      chan struct{} // closed once the process has exited
	killOnce  sync.Once

	// Calls use ctx, cancelled when a call overruns the call timeout (the
	// instance is then killed anyway). One context for all calls: no timer
	// and no deadline to send with each call, which keeps a plugin call
	// as cheap as a bare gRPC round trip. At most one call is in flight per
	// plugin (Flush sends one batch per plugin; cancel calls come from the
	// stepping goroutine), so one start time is enough.
	ctx       context.Context
	cancel    context.CancelFunc
	callStart atomic.Int64 // UnixNano when the call in flight began; 0 when none
	timedOut  atomic.Bool
	pace      watchPace // the watchdog's tick: fast while a call is in flight (watch_pace.go)
}

// startInstance starts the executable, completes the handshake and asks
// what the plugin provides.
func startInstance(spec *Spec, exe string, opts *Options, log logFunc) (*instance, *sdk.Description, error) {
	name := spec.Name
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, newErr(fmt.Sprintf("host: plugin %s: lifeline pipe: %v", name, err), ErrStart, err)
	}
	defer r.Close() // the child has its own copy once started

	cmd := exec.Command(exe, spec.Args...)
	cmd.SysProcAttr = pluginAttr() // dies with btrun (procattr_linux.go)
	cmd.ExtraFiles = []*os.File{r} // fd 3 in the plugin
	cmd.Env = append(append(hostEnv(), spec.Env...), sdk.LifelineEnv+"=3")
	if opts.socketDir != "" {
		// go-plugin's client sets this only for processes it starts itself.
		cmd.Env = append(cmd.Env, goplugin.EnvUnixSocketDir+"="+opts.socketDir)
	}
	stderr := &tail{max: 4096}
	emit := func(stream string) *lineWriter {
		return &lineWriter{emit: func(line string) { log("info", "plugin "+name+" "+stream+": "+line) }}
	}
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.PluginSets(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           newHCLogger(log, name, filepath.Base(exe)),
		StartTimeout:     opts.StartTimeout,
		Stderr:           stderr,
		SyncStdout:       emit("stdout"),
		SyncStderr:       emit("stderr"),
		GRPCDialOptions:  sdk.DialOptions(),
	})
	inst := &instance{client: client, cmd: cmd, lifeline: w, done: make(chan struct{}), pace: watchPace{wake: make(chan struct{}, 1)}}
	inst.ctx, inst.cancel = context.WithCancel(context.Background())
	fail := func(err error) (*instance, *sdk.Description, error) {
		inst.kill()
		return nil, nil, err
	}
	rpc, err := client.Client()
	if err != nil {
		// Kill waits for go-plugin's goroutines, the one that reaped the
		// process included: then the exit status can be read.
		inst.kill()
		return nil, nil, startError(name, exe, err, stderr, cmd)
	}
	inst.started = time.Now()
	if cmd.Process != nil {
		inst.pid = cmd.Process.Pid
	}
	raw, err := rpc.Dispense(sdk.PluginKey)
	if err != nil {
		return fail(startError(name, exe, err, stderr, nil))
	}
	svc, ok := raw.(sdk.Service)
	if !ok {
		return fail(newErr(fmt.Sprintf("host: plugin %s: dispensed %T, not an sdk.Service", name, raw), ErrStart))
	}
	inst.svc = svc
	ctx, cancel := context.WithTimeout(context.Background(), opts.StartTimeout)
	defer cancel()
	desc, err := svc.Describe(ctx)
	if err != nil {
		return fail(newErr(fmt.Sprintf("host: plugin %s (%s) does not serve the btrun plugin service: Describe failed: %v%s",
			name, exe, err, noteIf(stderr.lines(3))), ErrStart, ErrHandshake, err))
	}
	return inst, desc, nil
}

func noteIf(s string) string {
	if s == "" {
		return ""
	}
	return "; its standard error said: " + s
}

// hostEnv is the host's environment without a lifeline of its own (btrun
// might itself run under another btrun's test).
func hostEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, sdk.LifelineEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// watchTick is how often an instance is checked for exit and overrun calls
// while a call is in flight; idleWatchTick, for its exit only, while none is
// (watch_pace.go).
const (
	watchTick     = 10 * time.Millisecond
	idleWatchTick = 100 * time.Millisecond
)

// watch returns, closing done, when the process has exited (go-plugin
// reaps the process; Exited turns true after it did). Meanwhile it cancels
// a call that has overrun timeout.
func (in *instance) watch(timeout time.Duration) {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	var last int64 = -1 // callStart at the last tick
	for {
		var now time.Time
		select {
		case now = <-t.C:
		case <-in.pace.wake: // a call began while the watchdog was idle
			t.Reset(watchTick)
			continue
		}
		if in.client.Exited() {
			in.cancel()
			close(in.done)
			return
		}
		start := in.callStart.Load()
		if start != 0 && now.UnixNano()-start > int64(timeout) {
			in.timedOut.Store(true)
			in.cancel()
		}
		if start == 0 && last == 0 && !in.pace.slow.Load() {
			in.pace.idle(&in.callStart, t)
		}
		last = start
	}
}

// exitStatus describes how the process ended ("exit status 2", "signal:
// killed"), or "" while it runs. Only valid after done is closed.
func (in *instance) exitStatus() string {
	select {
	case <-in.done:
		if in.cmd.ProcessState != nil {
			return in.cmd.ProcessState.String()
		}
	default:
	}
	return ""
}

// kill ends the process at once (a crashed or hung plugin): the lifeline
// closes, SIGKILL follows, and go-plugin cleans up.
func (in *instance) kill() {
	in.killOnce.Do(func() {
		in.cancel()
		in.lifeline.Close()
		if in.cmd.Process != nil {
			_ = in.cmd.Process.Kill()
		}
		in.client.Kill()
	})
}

// stop ends the process gracefully (go-plugin asks it to shut down and
// kills it after 2 s), then closes the lifeline.
func (in *instance) stop() {
	in.killOnce.Do(func() {
		in.client.Kill()
		in.cancel()
		in.lifeline.Close()
	})
}
