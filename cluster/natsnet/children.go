package natsnet

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// Children are the shard processes a conductor started on its own machine
// (`btrun run -shards N`): they die with it, however it dies (Linux's
// parent-death signal, as the plugin host's processes), and Stop ends the
// ones still running. Exited reports a child that ended early, so that a
// run does not wait for a shard that is gone.
type Children struct {
	mu     sync.Mutex
	cmds   []*exec.Cmd
	done   []chan struct{}
	errs   []error
	exited chan int
}

// StartChildren starts n processes of path with args(k) as arguments (k =
// 0 .. n-1); their output goes to stderr.
func StartChildren(n int, path string, args func(k int) []string, env []string, stderr io.Writer) (*Children, error) {
	c := &Children{exited: make(chan int, n)}
	for k := range n {
		cmd := exec.Command(path, args(k)...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = stderr, stderr
		cmd.SysProcAttr = childAttr()
		if err := cmd.Start(); err != nil {
			c.Stop()
			return nil, fmt.Errorf("natsnet: starting shard process %d (%s): %w", k, path, err)
		}
		done := make(chan struct{})
		c.mu.Lock()
		c.cmds = append(c.cmds, cmd)
		c.done = append(c.done, done)
		c.errs = append(c.errs, nil)
		c.mu.Unlock()
		go func() {
			err := cmd.Wait()
			c.mu.Lock()
			c.errs[k] = err
			c.mu.Unlock()
			close(done)
			c.exited <- k
		}()
	}
	return c, nil
}

// Pids are the children's process ids, in the order they were started.
func (c *Children) Pids() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := make([]int, len(c.cmds))
	for k, cmd := range c.cmds {
		pids[k] = cmd.Process.Pid
	}
	return pids
}

// Exited delivers the number of each child as it ends.
func (c *Children) Exited() <-chan int { return c.exited }

// Err is how child k ended (nil while it runs or when it exited 0).
func (c *Children) Err(k int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errs[k]
}

// Wait waits up to d for every child to end by itself (after the run's
// Stop message) and reports those that failed.
func (c *Children) Wait(d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	var errs []error
	for k, done := range c.done {
		select {
		case <-done:
		case <-timer.C:
			return fmt.Errorf("natsnet: shard process %d has not ended within %s", k, d)
		}
		if err := c.Err(k); err != nil {
			errs = append(errs, fmt.Errorf("natsnet: shard process %d: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// Stop kills the children still running and waits for them.
func (c *Children) Stop() {
	c.mu.Lock()
	cmds, done := c.cmds, c.done
	c.mu.Unlock()
	for k, cmd := range cmds {
		select {
		case <-done[k]:
		default:
			cmd.Process.Kill()
		}
	}
	for _, d := range done {
		<-d
	}
}
