package host

import (
	"testing"

	"github.com/btrun/btrun/runtime"
)

// TestStream_chunksGoWhileTheAgentsAreStepped: once a chunk's worth of
// calls is queued, they are handed to the plugin before the round's Flush
// (the plugin runs them while the host steps the agents after them); Flush
// sends the rest, and every agent resumes with its own reply.
func TestStream_chunksGoWhileTheAgentsAreStepped(t *testing.T) {
	defer func(c int) { chunkCalls = c }(chunkCalls)
	chunkCalls = 4
	const n = 22
	data := make([]benchFields, n)
	w := newWorld(t, `<behaviorTree><action id="root" name="test.move"/></behaviorTree>`,
		[]Spec{helperSpec("test", "plugin")}, Options{}, n, nil)
	for i, a := range w.agents {
		data[i].x = float64(10 * i)
		a.SetUserData(&data[i])
	}
	q := &w.set.plugins[0].queue
	for step := 1; step <= 3; step++ {
		before := w.set.Stats().RoundTrips
		for i, a := range w.agents {
			if st, err := a.StepAt(float64(step) * 0.1); st != runtime.Paused || err != nil {
				t.Fatalf("step %d, agent %s: %v %v, want it paused at its call", step, a.ID(), st, err)
			}
			// The plugin's first round goes in chunks of chunkCalls, the
			// next in quarters of the last (22 calls: 6), the rest at Flush.
			size := 4
			if step > 1 {
				size = 6
			}
			if want := (i + 1) / size * size; q.streamed != want {
				t.Fatalf("step %d: %d calls handed over after %d agents, want %d", step, q.streamed, i+1, want)
			}
		}
		if err := w.set.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := w.set.Stats().RoundTrips-before, int64(4); step > 1 && got != want {
			t.Errorf("step %d: %d round trips, want %d (3 chunks of 6 and the rest)", step, got, want)
		}
		for i, a := range w.agents {
			if st, err := w.set.Resume(a); st != runtime.Success || err != nil {
				t.Fatalf("step %d, agent %d: %v %v", step, i+1, st, err)
			}
			if want := float64(10*i + step); data[i].x != want {
				t.Fatalf("step %d: agent %d's x is %v, want %v", step, i+1, data[i].x, want)
			}
		}
	}
}

// TestStream_aRoundsFirstChunkIsSmall: a round's first chunk goes after
// firstChunkCalls calls, not a whole chunk's worth (the plugin, idle since
// the last round, starts sooner); the chunks after it are as large as
// before, and every agent resumes with its own reply.
func TestStream_aRoundsFirstChunkIsSmall(t *testing.T) {
	defer func(c, f int) { chunkCalls, firstChunkCalls = c, f }(chunkCalls, firstChunkCalls)
	chunkCalls, firstChunkCalls = 8, 2
	const n = 40
	data := make([]benchFields, n)
	w := newWorld(t, `<behaviorTree><action id="root" name="test.move"/></behaviorTree>`,
		[]Spec{helperSpec("test", "plugin")}, Options{}, n, nil)
	for i, a := range w.agents {
		data[i].x = float64(10 * i)
		a.SetUserData(&data[i])
	}
	q := &w.set.plugins[0].queue
	for step := 1; step <= 2; step++ {
		size := 8 // chunkCalls; then a quarter of the 40 calls of the last round
		if step > 1 {
			size = 10
		}
		for i, a := range w.agents {
			if st, err := a.StepAt(float64(step) * 0.1); st != runtime.Paused || err != nil {
				t.Fatalf("step %d, agent %s: %v %v, want it paused at its call", step, a.ID(), st, err)
			}
			want := 0
			if i+1 >= 2 {
				want = 2 + (i+1-2)/size*size
			}
			if q.streamed != want {
				t.Fatalf("step %d: %d calls handed over after %d agents, want %d", step, q.streamed, i+1, want)
			}
		}
		if err := w.set.Flush(); err != nil {
			t.Fatal(err)
		}
		for i, a := range w.agents {
			if st, err := w.set.Resume(a); st != runtime.Success || err != nil {
				t.Fatalf("step %d, agent %d: %v %v", step, i+1, st, err)
			}
			if want := float64(10*i + step); data[i].x != want {
				t.Fatalf("step %d: agent %d's x is %v, want %v", step, i+1, data[i].x, want)
			}
		}
	}
}
