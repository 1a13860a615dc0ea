package game

import "testing"

// TestReportSteps_thePickedStepsGiveTheOutputOfEveryStep: without a trace,
// the game reports only the steps picked as they ended (report_pick.go).
// On every workers game (failures, errors, a crashing plugin, gates,
// parallels, the example game) and on 1, 2 and 3 workers, the output must
// be what reporting every agent's step gives (a traced run does), while far
// fewer steps are reported than were run (all of them in the failing
// fixture, whose every step fails or errors).
func TestReportSteps_thePickedStepsGiveTheOutputOfEveryStep(t *testing.T) {
	allRan, allReported := 0, 0
	for _, tc := range workersGames {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3} {
				traced := openWithWorkers(t, tc.config, tc.scale, n)
				quiet := openOnWorkers(t, tc.config, tc.scale, n, false)
				ran, reported := 0, 0
				for range tc.steps {
					if _, err := traced.g.runStep(); err != nil {
						t.Fatal(err)
					}
					m, err := quiet.g.runStep()
					if err != nil {
						t.Fatal(err)
					}
					if traced.g.picked || !quiet.g.picked {
						t.Fatalf("workers=%d: the traced game picked steps (%v), or the untraced one did not (%v)", n, traced.g.picked, quiet.g.picked)
					}
					ran += m
					for _, p := range quiet.g.picks {
						reported += len(p.at)
					}
				}
				if got, want := withoutBuilds(quiet.people.String()), withoutBuilds(traced.people.String()); got != want {
					t.Fatalf("workers=%d: the output of the picked steps differs from that of every step:\n%s", n, firstDiff(got, want))
				}
				if reported == 0 || reported > ran {
					t.Errorf("workers=%d: %d of %d steps reported", n, reported, ran)
				}
				allRan += ran
				allReported += reported
			}
		})
	}
	if allReported*4 > allRan {
		t.Errorf("%d of %d steps reported: a quarter at most was expected", allReported, allRan)
	}
	t.Logf("%d of %d steps reported", allReported, allRan)
}
