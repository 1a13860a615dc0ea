package host

import (
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWatchPace_idleWatchdogStillTimesTheNextCall: a plugin whose calls
// all ended slows its watchdog to the idle pace (exits only); the next call
// puts it back to the fast pace, so a call that hangs then still fails
// after the call timeout, and the plugin is restarted.
func TestWatchPace_idleWatchdogStillTimesTheNextCall(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hung")
	xml := `<behaviorTree><action id="root" name="slow.hang"/></behaviorTree>`
	specs := []Spec{helperSpec("slow", "plugin", markerEnv+"="+marker, prefixEnv+"=slow.")}
	w := newWorld(t, xml, specs, Options{RestartMin: 20 * time.Millisecond,
		callTimeouts: map[string]time.Duration{"slow": 300 * time.Millisecond}}, 1, nil)
	p := w.set.plugins[0]
	p.mu.Lock()
	inst := p.inst
	p.mu.Unlock()
	deadline := time.Now().Add(time.Minute) // a hang guard: the watchdog slows after two ticks
	for !inst.pace.slow.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the watchdog of a plugin with no call in flight never slowed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		out := w.step()
		want := `host: plugin slow did not answer within 300ms (the call timeout)`
		if out[0].Err == nil || !strings.Contains(out[0].Err.Error(), want) || !errors.Is(out[0].Err, ErrTimeout) {
			t.Errorf("a1: %v %v\nwant %s", out[0].Status, out[0].Err, want)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("a hanging call after an idle spell was never timed out")
	}
}

// TestWatchPace_slowAndBusyMeet: the watchdog's slowing down and a call's
// start, side by side: a call in flight keeps it fast; a call that finds it
// slow sends the one token that wakes it.
func TestWatchPace_slowAndBusyMeet(t *testing.T) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	var start atomic.Int64
	p := &watchPace{wake: make(chan struct{}, 1)}

	start.Store(1) // a call began before the watchdog slowed
	p.idle(&start, tick)
	if p.slow.Load() || len(p.wake) != 0 {
		t.Errorf("with a call in flight: slow %v, %d tokens", p.slow.Load(), len(p.wake))
	}

	start.Store(0)
	p.idle(&start, tick)
	if !p.slow.Load() {
		t.Fatal("with no call in flight the watchdog did not slow")
	}
	start.Store(2)
	p.busy()
	p.busy() // a second call finds it awake already: no second token
	if p.slow.Load() || len(p.wake) != 1 {
		t.Errorf("after a call's start: slow %v, %d tokens, want 1", p.slow.Load(), len(p.wake))
	}
}
