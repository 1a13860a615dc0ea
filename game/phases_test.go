package game

import (
	"math"
	"testing"
	"time"
)

// TestPhaseReport_projectionIsAmdahlsLaw: the projection to n cores is
// (serial + work) / (serial + work/n) of the measured parts: the serial
// parts of a step (tick, schedule, round ends, report, delivery) and the
// work of every worker added up.
func TestPhaseReport_projectionIsAmdahlsLaw(t *testing.T) {
	us := time.Microsecond
	r := PhaseReport{Tick: 2 * us, Schedule: 1 * us, Gates: 3 * us, Plugins: 1 * us, Merge: 1 * us, Report: 1 * us, Delivery: 1 * us,
		WorkerBusy: []time.Duration{50 * us, 40 * us}}
	if r.Serial() != 10*us || r.Work() != 90*us || r.Rounds() != 5*us {
		t.Fatalf("serial %v, work %v, rounds %v; want 10µs, 90µs, 5µs", r.Serial(), r.Work(), r.Rounds())
	}
	for _, c := range []struct {
		n    int
		want float64
	}{
		{1, 1},
		{2, 100.0 / 55},      // 1.818...
		{4, 100.0 / 32.5},    // 3.077...
		{16, 100.0 / 15.625}, // 6.4
		{1 << 20, 100.0 / (10 + 90.0/(1<<20))},
	} {
		if got := r.Projection(c.n); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%d cores: %.6f, want %.6f", c.n, got, c.want)
		}
	}
	// All serial: no speed-up; all parallel: n times; nothing measured: 0.
	if got := (PhaseReport{Tick: us}).Projection(16); got != 1 {
		t.Errorf("all serial: %v", got)
	}
	if got := (PhaseReport{WorkerBusy: []time.Duration{us}}).Projection(16); got != 16 {
		t.Errorf("all parallel: %v", got)
	}
	if got := (PhaseReport{}).Projection(16); got != 0 {
		t.Errorf("nothing measured: %v", got)
	}
}
