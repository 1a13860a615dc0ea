package game

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/pprof"
	"time"

	"github.com/btrun/btrun/internal/cputime"
)

// BenchResult is what `btrun bench` measured.
type BenchResult struct {
	Agents int
	Steps  int
	Wall   time.Duration
	// CPU is the CPU time this process used stepping (every thread; its
	// plugins' processes apart), 0 where it cannot be read: unlike Wall,
	// it does not grow while the process waits for a busy machine's cores.
	CPU           time.Duration
	AgentSteps    int
	Allocs        uint64
	BytesPerAgent float64
	Workers       int
	Phases        PhaseReport // what the parts of a step cost (phases.go)
}

// Line is the report's last line, in the form SPEC §7 fixes.
func (r BenchResult) Line() string {
	perSec, ns, allocs := 0.0, 0.0, 0.0
	if r.AgentSteps > 0 {
		perSec = float64(r.AgentSteps) / r.Wall.Seconds()
		ns = float64(r.Wall.Nanoseconds()) / float64(r.AgentSteps)
		allocs = float64(r.Allocs) / float64(r.AgentSteps)
	}
	return fmt.Sprintf("bench: %d agents, %d steps, %.0f agent-steps/s, %.1f ns/agent-step, %.2f allocs/agent-step, %.0f bytes/agent",
		r.Agents, r.Steps, perSec, ns, allocs, r.BytesPerAgent)
}

// ScaleAgents spreads n agents over the config's [[agents]] entries in
// proportion to their counts (largest remainders first, ties in config
// order), keeping at least one per entry when n allows. Scheduled signals to
// agents that no longer exist are dropped.
func (c *Config) ScaleAgents(n int) {
	total := 0
	for _, a := range c.Agents {
		total += a.Count
	}
	if total == 0 || n <= 0 {
		return
	}
	counts := make([]int, len(c.Agents))
	rem := make([]int, len(c.Agents))
	given := 0
	for i, a := range c.Agents {
		counts[i] = n * a.Count / total
		rem[i] = n * a.Count % total
		given += counts[i]
	}
	for given < n {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		counts[best]++
		rem[best] = -1
		given++
	}
	ids := map[string]bool{}
	for i := range c.Agents {
		c.Agents[i].Count = counts[i]
		for _, id := range c.Agents[i].IDs() {
			ids[id] = true
		}
	}
	kept := c.Signals[:0]
	for _, s := range c.Signals {
		to := s.To[:0]
		for _, id := range s.To {
			if id == "all" || ids[id] {
				to = append(to, id)
			}
		}
		if s.To = to; len(to) > 0 {
			kept = append(kept, s)
		}
	}
	c.Signals = kept
}

// Profiles says where Bench writes profiles; nil writers are skipped.
type Profiles struct {
	CPU io.Writer // a CPU profile of the stepping, not the loading
	// Allocs is the heap profile after the run; `go tool pprof
	// -sample_index=alloc_objects -focus=runStep` shows the stepping's
	// allocations.
	Allocs io.Writer
}

// Bench opens the config with its agents scaled to n, runs steps steps with
// no trace and no output, and measures. workers, when not nil, overrides
// run.workers.
func Bench(cfg *Config, n, steps int, workers *int, prof Profiles) (BenchResult, error) {
	if n > 0 {
		cfg.ScaleAgents(n)
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	g, err := Open(cfg, Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, Workers: workers})
	if err != nil {
		return BenchResult{}, err
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		return BenchResult{}, err
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	r := BenchResult{Agents: len(g.agents), Steps: steps, Workers: g.Workers()}
	if r.Agents > 0 {
		r.BytesPerAgent = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(r.Agents)
	}
	goruntime.ReadMemStats(&before)
	if prof.CPU != nil {
		if err := pprof.StartCPUProfile(prof.CPU); err != nil {
			return r, err
		}
		defer pprof.StopCPUProfile()
	}
	g.measurePhases()
	cpu, _ := cputime.Self()
	start := time.Now()
	for range steps {
		k, err := g.runStep()
		if err != nil {
			return r, err
		}
		r.AgentSteps += k
	}
	r.Wall = time.Since(start)
	if now, ok := cputime.Self(); ok {
		r.CPU = now - cpu
	}
	r.Phases = g.phaseReport()
	goruntime.ReadMemStats(&after)
	r.Allocs = after.Mallocs - before.Mallocs
	if prof.Allocs != nil {
		if err := pprof.Lookup("allocs").WriteTo(prof.Allocs, 0); err != nil {
			return r, err
		}
	}
	return r, nil
}
