package host

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/status"

	"github.com/btrun/btrun/plugins/sdk"
)

// plugin is one configured plugin and its supervision: the running
// instance, or why it is down and when it will be restarted.
type plugin struct {
	set  *Set
	spec Spec
	exe  string
	desc *sdk.Description

	mu        sync.Mutex
	inst      *instance // nil while down or closed
	downWhy   string    // why it is down
	retryAt   time.Time // time mode: when the timer restarts it
	retryStep uint64    // step mode: the step at whose start Advance restarts it
	due       bool      // step mode: a restart is scheduled
	failures  int       // failures in a row, for the backoff
	closed    bool
	timer     *time.Timer

	// Owned by the stepping goroutine (see batch.go).
	queue, inflight round
	lastCalls       int     // calls in the last round sent (stream.go)
	reorder         reorder // the queue's calls while they are put in config order (order.go)
	relayed, held   bool    // its calls are answered elsewhere; a round waits for Answer (relay.go)
}

// startedLine is the info line of a plugin started. It is the same in
// every run (no pid, no cache path), and Start writes the plugins' lines in
// their order, not in the order they happened to start: a run's output for
// people is reproducible, like its trace.
func (p *plugin) startedLine() string {
	started := "started"
	if p.exe == "" {
		started = "runs elsewhere" // declared only (relay.go)
	}
	return fmt.Sprintf("plugin %s: %s: %s, %s", p.spec.Name, started,
		plural(len(p.desc.Actions), "action"), plural(len(p.desc.Conditions), "condition"))
}

// stableAfter (stableAfterSteps in step mode) is how long an instance must
// live for its crash to count as the first of a new series (the backoff
// starts again from its minimum).
const (
	stableAfter      = 10 * time.Second
	stableAfterSteps = 100
)

func (p *plugin) start(ctx context.Context) error {
	if desc, ok, err := declaredAt(&p.spec); ok { // it runs elsewhere (relay.go)
		if err == nil {
			err = checkDescription(p.spec.Name, desc)
		}
		p.desc, p.relayed = desc, true
		return err
	}
	exe, err := resolve(ctx, &p.spec, p.set.opts.CacheDir, p.set.log, p.set.opts.Progress)
	if err != nil {
		return err
	}
	p.exe = exe
	inst, desc, err := startInstance(&p.spec, exe, &p.set.opts, p.set.log)
	if err != nil {
		return err
	}
	if err := checkDescription(p.spec.Name, desc); err != nil {
		inst.kill()
		return err
	}
	p.desc = desc
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.inst = inst
	}
	p.mu.Unlock()
	if closed {
		inst.stop()
		return nil
	}
	inst.startStep = p.set.step.Load()
	// Start writes the info line (startedLine), in the plugins' order.
	p.set.log("debug", fmt.Sprintf("plugin %s: started %s (pid %d)", p.spec.Name, exe, inst.pid))
	go p.watch(inst)
	return nil
}

func checkDescription(name string, d *sdk.Description) error {
	seen := map[string]bool{}
	for _, a := range d.Actions {
		if a.Name == "" || seen["a"+a.Name] {
			return newErr(fmt.Sprintf("host: plugin %s declares action %q twice or with no name", name, a.Name), ErrStart)
		}
		seen["a"+a.Name] = true
	}
	for _, c := range d.Conditions {
		if c.Name == "" || seen["c"+c.Name] {
			return newErr(fmt.Sprintf("host: plugin %s declares condition %q twice or with no name", name, c.Name), ErrStart)
		}
		seen["c"+c.Name] = true
	}
	for _, c := range d.Scorers {
		if c.Name == "" || seen["s"+c.Name] {
			return newErr(fmt.Sprintf("host: plugin %s declares scorer %q twice or with no name", name, c.Name), ErrStart)
		}
		seen["s"+c.Name] = true
	}
	return nil
}

// sameDeclarations reports whether a restarted plugin declares what the
// first instance did: the trees were bound against that.
func sameDeclarations(a, b *sdk.Description) bool {
	return slices.EqualFunc(a.Actions, b.Actions, func(x, y sdk.ActionInfo) bool {
		return x.Name == y.Name && x.HasCancel == y.HasCancel && slices.Equal(x.Reads, y.Reads) && slices.Equal(x.Writes, y.Writes)
	}) && slices.EqualFunc(a.Conditions, b.Conditions, func(x, y sdk.ConditionInfo) bool {
		return x.Name == y.Name && slices.Equal(x.Reads, y.Reads)
	}) && slices.EqualFunc(a.Scorers, b.Scorers, func(x, y sdk.ScorerInfo) bool {
		return x.Name == y.Name && slices.Equal(x.Reads, y.Reads)
	})
}

// watch waits for the instance's process to exit and, unless the exit was
// asked for, marks the plugin down and schedules a restart.
func (p *plugin) watch(inst *instance) {
	inst.watch(p.callTimeout())
	p.down(inst, "its process exited ("+inst.exitStatus()+")")
}

// callTimeout bounds a round trip to this plugin (Options.CallTimeout).
func (p *plugin) callTimeout() time.Duration {
	if d, ok := p.set.opts.callTimeouts[p.spec.Name]; ok {
		return d
	}
	return p.set.opts.CallTimeout
}

// current returns the running instance, or the error a call fails with.
func (p *plugin) current() (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return nil, newErr(fmt.Sprintf("host: plugin %s: the run is over (plugins closed)", p.spec.Name), ErrClosed)
	case p.inst == nil:
		return nil, newErr(fmt.Sprintf("host: plugin %s is not running (%s); restarting it %s", p.spec.Name, p.downWhy, p.when()), ErrDown)
	}
	return p.inst, nil
}

// do runs one round trip with the call timeout and turns a failure of the
// plugin (crash, hang, broken connection) into a clear error, taking the
// plugin down for a restart.
func (p *plugin) do(f func(ctx context.Context, svc sdk.Service) error) error {
	inst, err := p.current()
	if err != nil {
		return err
	}
	return p.doOn(inst, f)
}

// doOn is do with the instance found: the watchdog times f from its start
// (f may stop and restart the clock, inst.callStart: stream.go).
func (p *plugin) doOn(inst *instance, f func(ctx context.Context, svc sdk.Service) error) error {
	timeout := p.callTimeout()
	inst.callStart.Store(time.Now().UnixNano())
	inst.pace.busy()
	err := f(inst.ctx, inst.svc)
	inst.callStart.Store(0)
	if err == nil {
		return nil
	}
	if inst.timedOut.Load() {
		why := fmt.Sprintf("it did not answer within %v, the call timeout", timeout)
		p.down(inst, why)
		return newErr(fmt.Sprintf("host: plugin %s did not answer within %v (the call timeout); it is killed and restarted", p.spec.Name, timeout), ErrTimeout, err)
	}
	// A broken connection is almost always a dead process: give the
	// watcher a moment to see the exit, to say how it ended.
	select {
	case <-inst.done:
	case <-time.After(500 * time.Millisecond):
	}
	if st := inst.exitStatus(); st != "" {
		p.down(inst, "its process exited ("+st+")")
		return newErr(fmt.Sprintf("host: plugin %s crashed during the call (%s); it is restarted", p.spec.Name, st), ErrCrashed, err)
	}
	p.down(inst, "its connection failed: "+status.Convert(err).Message())
	return newErr(fmt.Sprintf("host: plugin %s failed during the call (%s); it is restarted", p.spec.Name, status.Convert(err).Message()), ErrCrashed, err)
}

// down takes the plugin down if inst is still its instance: the process is
// killed and a restart scheduled after the backoff.
func (p *plugin) down(inst *instance, why string) {
	p.mu.Lock()
	if p.inst != inst || p.closed {
		p.mu.Unlock()
		return
	}
	p.inst = nil
	if p.stable(inst) {
		p.failures = 0
	}
	p.failures++
	when, at := p.schedule(why), ""
	if p.set.opts.RestartMinSteps > 0 {
		at = fmt.Sprintf(" at step %d", p.set.step.Load())
	}
	// Noted before p.mu is let go: a call that failed with the same
	// instance waits for p.mu and then finds the plugin down, so the note
	// must already be held for the round's flush, whichever goroutine
	// (the call's or the process watcher's) took the plugin down.
	p.set.note("warn", fmt.Sprintf("plugin %s: %s%s; restarting it %s", p.spec.Name, why, at, when))
	p.mu.Unlock()
	go inst.kill()
}

// stable reports whether an instance lived long enough for its failure to
// start a new series of restarts.
func (p *plugin) stable(inst *instance) bool {
	if p.set.opts.RestartMinSteps > 0 {
		return p.set.step.Load()-inst.startStep >= stableAfterSteps
	}
	return time.Since(inst.started) > stableAfter
}

// backoff is the delay before the restart that follows failures failures in
// a row: RestartMin, doubling, up to RestartMax.
func (o *Options) backoff(failures int) time.Duration {
	delay := o.RestartMin
	for i := 1; i < failures && delay < o.RestartMax; i++ {
		delay *= 2
	}
	return min(delay, o.RestartMax)
}

// backoffSteps is backoff in steps: RestartMinSteps, doubling, up to
// RestartMaxSteps.
func (o *Options) backoffSteps(failures int) uint64 {
	d := uint64(o.RestartMinSteps)
	for i := 1; i < failures && d < uint64(o.RestartMaxSteps); i++ {
		d *= 2
	}
	return min(d, uint64(o.RestartMaxSteps))
}

// schedule arranges a restart after the backoff: a timer, or in step mode
// a step at whose start Advance restarts the plugin. It says when ("in
// 200ms", "at step 13"). p.mu is held.
func (p *plugin) schedule(why string) string {
	o := &p.set.opts
	p.downWhy = why
	if o.RestartMinSteps > 0 {
		p.retryStep = p.set.step.Load() + o.backoffSteps(p.failures)
		p.due = true
		return p.when()
	}
	delay := o.backoff(p.failures)
	p.retryAt = time.Now().Add(delay)
	p.set.restarts.Add(1)
	p.timer = time.AfterFunc(delay, p.restart)
	return "in " + delay.String()
}

// when says when the plugin, being down, is restarted; p.mu is held.
func (p *plugin) when() string {
	if p.set.opts.RestartMinSteps > 0 {
		return fmt.Sprintf("at step %d", p.retryStep)
	}
	if wait := time.Until(p.retryAt).Round(time.Millisecond); wait > 0 {
		return "in " + wait.String()
	}
	return "now"
}

// restart is the restart timer's function (time mode).
func (p *plugin) restart() {
	defer p.set.restarts.Done()
	p.restartNow()
}

// restartNow starts a new instance of a plugin that is down.
func (p *plugin) restartNow() {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	inst, desc, err := startInstance(&p.spec, p.exe, &p.set.opts, p.set.log)
	if err == nil && !sameDeclarations(p.desc, desc) {
		inst.kill()
		err = fmt.Errorf("host: plugin %s declares other actions or conditions than when the run started; the trees were bound against those", p.spec.Name)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		if inst != nil && err == nil {
			inst.stop()
		}
		return
	}
	if err == nil && p.inst != nil { // an Update's new build took over meanwhile
		p.mu.Unlock()
		inst.stop()
		return
	}
	if err != nil {
		p.failures++
		when := p.schedule("restart failed: " + err.Error())
		p.mu.Unlock()
		p.set.note("error", fmt.Sprintf("plugin %s: restart failed: %v; trying again %s", p.spec.Name, err, when))
		return
	}
	inst.startStep = p.set.step.Load()
	p.inst = inst
	p.downWhy = ""
	p.mu.Unlock()
	p.set.log("debug", fmt.Sprintf("plugin %s: restarted (pid %d)", p.spec.Name, inst.pid))
	if p.set.opts.RestartMinSteps > 0 {
		p.set.note("info", fmt.Sprintf("plugin %s: restarted at step %d", p.spec.Name, inst.startStep))
	} else {
		p.set.note("info", fmt.Sprintf("plugin %s: restarted", p.spec.Name))
	}
	go p.watch(inst)
}

// Advance tells the plugins that the game loop starts step s. In step mode
// (Options.RestartMinSteps > 0) it restarts, before returning, every plugin
// whose restart is due at s: a run whose steps take microseconds recovers
// from a crash within a few steps, at the same step in every run. It belongs
// to the goroutine that steps the agents.
func (s *Set) Advance(step uint64) {
	s.step.Store(step)
	if s.opts.RestartMinSteps <= 0 {
		return
	}
	defer s.flushNotes()
	s.flushNotes()
	for _, p := range s.plugins {
		p.mu.Lock()
		due := p.due && !p.closed && p.inst == nil && p.retryStep <= step
		if due {
			p.due = false
		}
		p.mu.Unlock()
		if due {
			p.restartNow()
		}
	}
}

// note logs a message about a plugin's failure or restart. In step mode it
// is held until the stepping goroutine reaches a fixed point (the end of a
// Flush, Advance), so that it lands at the same place among the game's
// lines in every run, whichever goroutine saw the failure first (s.log holds
// every line in step mode: log.go).
func (s *Set) note(level, msg string) { s.log(level, msg) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
