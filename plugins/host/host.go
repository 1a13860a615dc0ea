package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Spec names one plugin to start: the config's [[plugins]] entry.
type Spec struct {
	Name string // the plugin's name in the config: origins read "plugin NAME"
	Path string // an executable, or a folder holding a Go main package
	Dir  string // folder that a relative Path is relative to (the config's)
	Args []string
	Env  []string // extra KEY=VALUE environment entries for the process
}

// Options tune a Set. Zero values take the defaults.
type Options struct {
	// CallTimeout bounds one round trip to a plugin: a single call or a
	// whole batch. A plugin that does not answer in time is killed and
	// restarted, and the calls fail. Default 2s.
	CallTimeout time.Duration
	// StartTimeout bounds a plugin's start: the handshake and Describe.
	// Default 10s.
	StartTimeout time.Duration
	// RestartMin and RestartMax bound the backoff between restarts of a
	// plugin that crashed: the delay doubles with each failure in a row.
	// Defaults 100ms and 5s.
	RestartMin, RestartMax time.Duration
	// RestartMinSteps > 0 counts the backoff in steps of the game loop
	// instead: the game calls Set.Advance at the start of every step, and
	// a plugin that failed during step s is restarted at the start of step
	// s + RestartMinSteps, then twice as many steps after each failure in a
	// row, up to RestartMaxSteps (default 64). Restarts then happen at the
	// same step in every run, however fast the steps go, so a run with a
	// crashing plugin keeps a reproducible trace; the restart itself holds
	// up the step that starts it. Zero: the backoff is time.
	RestartMinSteps, RestartMaxSteps int
	// Logger receives the host's and the plugins' log lines; level is
	// "debug", "info", "warn" or "error". Nil: warnings and errors go to
	// standard error. With RestartMinSteps set, it is called only on the
	// goroutine that calls Start, Advance, Flush (or StepAll) and Close:
	// what plugins log in between, which go-plugin's goroutines read from
	// their pipes, is held until the next of those. Otherwise it may be
	// called from any goroutine, several at once.
	Logger func(level, msg string)
	// Progress receives the progress of plugin builds, which can take a
	// minute the first time: when one starts, every 10 s while it runs, and
	// when it is done. Nil: the messages go to Logger at info level.
	Progress func(msg string)
	// CacheDir is where Go plugin packages are built. Default
	// os.UserCacheDir()/btrun/plugins.
	CacheDir string
	// Unbatched sends every queued call as its own round trip (in queue
	// order) instead of one batch per plugin. The rounds are the same, so
	// the trace is the same; it exists to show that, and to measure.
	Unbatched bool

	// socketDir is where the plugins make their sockets (socketDir in
	// sockets.go); "" for the system's temporary folder.
	socketDir string

	// callTimeouts overrides CallTimeout for the plugins it names (tests:
	// a plugin that hangs times out while the others have all the time a
	// loaded machine needs).
	callTimeouts map[string]time.Duration
}

func (o *Options) defaults() {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 2 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.RestartMin <= 0 {
		o.RestartMin = 100 * time.Millisecond
	}
	if o.RestartMax < o.RestartMin {
		o.RestartMax = max(5*time.Second, o.RestartMin)
	}
	if o.RestartMinSteps > 0 && o.RestartMaxSteps < o.RestartMinSteps {
		o.RestartMaxSteps = max(64, o.RestartMinSteps)
	}
	if o.Logger == nil {
		o.Logger = func(level, msg string) {
			if level == "warn" || level == "error" {
				fmt.Fprintf(os.Stderr, "btrun: %s: %s\n", level, msg)
			}
		}
	}
	if o.Progress == nil {
		logger := o.Logger
		o.Progress = func(msg string) { logger("info", msg) }
	}
}

// Set is the running plugins of one run. Its methods other than Close and
// Plugins belong to the goroutine that steps the agents (see the package
// documentation).
type Set struct {
	opts    Options
	log     logFunc
	plugins []*plugin

	// The waiting agents, by position: calls queued since the last Flush,
	// and those it sent, in the order they were queued. StepAll resumes
	// agents in that order, so Resume finds each at sent[next].
	queued, sent []ticket
	next         int    // sent[:next] are resumed
	unresumed    int    // replies delivered by the last Flush not yet resumed
	flushes      uint64 // Flush calls so far (sites count their rounds with it)

	// Concurrent steps (SetConcurrent): agents stepped on several
	// goroutines queue calls and are resumed at the same time, so queueing
	// and the bookkeeping of resuming take mu, and Resume finds an agent's
	// ticket through sentAt (the workers interleave in sent).
	concurrent bool
	mu         sync.Mutex
	sentAt     map[*runtime.Agent]int32
	order      orderScratch // inConfigOrder's (order.go)

	// StepAllInto's rounds, kept so that their lists of waiting agents are
	// made once (a fresh Rounds per step grew them anew: about 40 bytes
	// per agent each step, half of the host's garbage in a batched round).
	rounds runtime.Rounds

	roundTrips, calls atomic.Int64
	times             map[string]*callTimes // by "action NAME" and "condition NAME" (timing.go)
	step              atomic.Uint64         // the game loop's step, from Advance
	notesMu           sync.Mutex
	notes             [][2]string // step mode: log lines held until a fixed point (log.go)
	notesDropped      int         // lines beyond maxHeldNotes since the last fixed point

	restarts  sync.WaitGroup
	retired   sync.WaitGroup // old processes an Update is stopping (update.go)
	closeOnce sync.Once
}

// ticket says where an agent's pending call is.
type ticket struct {
	a       *runtime.Agent
	p       *plugin
	i       int32 // index in the plugin's round
	resumed bool
}

// Info describes a running plugin.
type Info struct {
	Name        string
	Executable  string
	Pid         int // 0 while it is down
	Description sdk.Description
}

// Start starts every plugin (building Go packages first), completes the
// handshakes and learns what each provides. It fails if any plugin cannot
// be started, stopping the others; the error names each plugin and says
// what went wrong. ctx bounds the builds; the plugins live until Close.
func Start(ctx context.Context, specs []Spec, opts Options) (*Set, error) {
	opts.defaults()
	s := &Set{opts: opts, log: opts.Logger}
	if opts.RestartMinSteps > 0 {
		s.log = s.hold // Options.Logger on the stepping goroutine only (log.go)
	}
	var err error
	seen := map[string]bool{}
	for i := range specs {
		switch n := specs[i].Name; {
		case n == "":
			return nil, newErr(fmt.Sprintf("host: plugin %d (%s) has no name", i+1, specs[i].Path), ErrStart)
		case seen[n]:
			return nil, newErr(fmt.Sprintf("host: plugin %s is listed twice", n), ErrStart)
		}
		seen[specs[i].Name] = true
		s.plugins = append(s.plugins, &plugin{set: s, spec: specs[i]})
	}
	if s.opts.socketDir, err = socketDir(); err != nil {
		return nil, newErr(fmt.Sprintf("host: %v", err), ErrStart, err)
	}
	errs := make([]error, len(s.plugins))
	var wg sync.WaitGroup
	for i, p := range s.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.start(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		s.Close()
		return nil, err
	}
	for _, p := range s.plugins {
		s.log("info", p.startedLine())
	}
	s.flushNotes() // what the plugins said while starting
	return s, nil
}

// Plugins describes the plugins, in Spec order.
func (s *Set) Plugins() []Info {
	out := make([]Info, len(s.plugins))
	for i, p := range s.plugins {
		p.mu.Lock() // an Update's Commit replaces exe and desc
		out[i] = Info{Name: p.spec.Name, Executable: p.exe, Description: *p.desc}
		if p.inst != nil {
			out[i].Pid = p.inst.pid
		}
		p.mu.Unlock()
	}
	return out
}

// Close stops every plugin: each is asked to shut down and killed if it
// has not within 2 s. Calls made afterwards fail with ErrClosed. Close
// returns once every plugin process has exited.
func (s *Set) Close() error {
	s.closeOnce.Do(func() {
		var wg sync.WaitGroup
		for _, p := range s.plugins {
			p.mu.Lock()
			p.closed = true
			inst := p.inst
			p.inst = nil
			if p.timer != nil && p.timer.Stop() {
				s.restarts.Done() // the restart that will not run
			}
			p.mu.Unlock()
			if inst != nil {
				wg.Add(1)
				go func() {
					defer wg.Done()
					inst.stop()
				}()
			}
		}
		wg.Wait()
		s.restarts.Wait()
		s.retired.Wait()
		s.flushNotes()
		if s.opts.socketDir != "" {
			os.RemoveAll(s.opts.socketDir)
		}
	})
	return nil
}
