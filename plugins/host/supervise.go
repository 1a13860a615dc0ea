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

	mu       sync.Mutex
	inst     *instance // nil while down or closed
	downWhy  string    // why it is down
	retryAt  time.Time
	failures int // failures in a row, for the backoff
	closed   bool
	timer    *time.Timer

	// Owned by the stepping goroutine (see batch.go).
	queue, inflight round
}

// stableAfter is how long an instance must live for its crash to count as
// the first of a new series (the backoff starts again from RestartMin).
const stableAfter = 10 * time.Second

func (p *plugin) start(ctx context.Context) error {
	exe, err := resolve(ctx, &p.spec, p.set.opts.CacheDir, p.set.log)
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
	p.set.log("info", fmt.Sprintf("plugin %s: started %s (pid %d): %d actions, %d conditions",
		p.spec.Name, exe, inst.pid, len(desc.Actions), len(desc.Conditions)))
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
	inst.watch(p.set.opts.CallTimeout)
	p.down(inst, "its process exited ("+inst.exitStatus()+")")
}

// current returns the running instance, or the error a call fails with.
func (p *plugin) current() (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return nil, newErr(fmt.Sprintf("host: plugin %s: the run is over (plugins closed)", p.spec.Name), ErrClosed)
	case p.inst == nil:
		wait := time.Until(p.retryAt).Round(time.Millisecond)
		when := "now"
		if wait > 0 {
			when = "in " + wait.String()
		}
		return nil, newErr(fmt.Sprintf("host: plugin %s is not running (%s); restarting it %s", p.spec.Name, p.downWhy, when), ErrDown)
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
	timeout := p.set.opts.CallTimeout
	inst.callStart.Store(time.Now().UnixNano())
	err = f(inst.ctx, inst.svc)
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
	if time.Since(inst.started) > stableAfter {
		p.failures = 0
	}
	p.failures++
	delay := p.schedule(why)
	p.mu.Unlock()
	p.set.log("warn", fmt.Sprintf("plugin %s: %s; restarting it in %v", p.spec.Name, why, delay))
	go inst.kill()
}

// schedule arranges a restart after the backoff; p.mu is held.
func (p *plugin) schedule(why string) time.Duration {
	o := &p.set.opts
	delay := o.RestartMin
	for i := 1; i < p.failures && delay < o.RestartMax; i++ {
		delay *= 2
	}
	delay = min(delay, o.RestartMax)
	p.downWhy = why
	p.retryAt = time.Now().Add(delay)
	p.set.restarts.Add(1)
	p.timer = time.AfterFunc(delay, p.restart)
	return delay
}

func (p *plugin) restart() {
	defer p.set.restarts.Done()
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
	if err != nil {
		p.failures++
		delay := p.schedule("restart failed: " + err.Error())
		p.mu.Unlock()
		p.set.log("error", fmt.Sprintf("plugin %s: restart failed: %v; trying again in %v", p.spec.Name, err, delay))
		return
	}
	p.inst = inst
	p.downWhy = ""
	p.mu.Unlock()
	p.set.log("info", fmt.Sprintf("plugin %s: restarted (pid %d)", p.spec.Name, inst.pid))
	go p.watch(inst)
}
