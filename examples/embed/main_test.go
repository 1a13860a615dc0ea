package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestRun runs the program as `go run .` does: it checks itself (the game
// restored from its save ends as the original, byte for byte) and reports
// what happened. Being in its own module, it also shows that everything it
// uses is public.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, settings{frames: 120, dir: t.TempDir(), workers: 1}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"live view: 200 OK, trees guard",
		"frame 30: guard-3 joins",
		`level=DEBUG msg="(start) -> guard.patrol" t=3 agent=guard-3`,
		`msg="guard.patrol -> guard.search"`,
		`level=INFO msg="caught the thief" t=0.5 agent=guard-2 rule=guard.chase`,
		"(its catch number 2)", // Lua's chase adds to the unit's Catches, a Go slice
		`msg="searches at (`,   // a second alarm: search's typed signal handler
		"frame 80: reloaded, 3 guards kept their place",
		"frame 100: guard-2 leaves",
		"the same game, byte for byte",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRun_twoWorkersStepTheAddedGuardsAsOneDoes: the game opens with no
// guards and adds them (AddAgent); with 2 workers it steps them on two
// goroutines (run it with -race) and writes the one worker's trace, byte
// for byte.
func TestRun_twoWorkersStepTheAddedGuardsAsOneDoes(t *testing.T) {
	traces := map[int][]byte{}
	for _, workers := range []int{1, 2} {
		dir := t.TempDir()
		path := filepath.Join(dir, "trace.jsonl")
		var out bytes.Buffer
		if err := run(&out, settings{frames: 120, dir: dir, trace: path, workers: workers}); err != nil {
			t.Fatalf("%d workers: %v\n%s", workers, err, out.String())
		}
		for _, want := range []string{"the same game, byte for byte", fmt.Sprintf("the guards stepped on %d workers", workers)} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%d workers: the run's output lacks %q:\n%s", workers, want, out.String())
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		traces[workers] = data
	}
	if !bytes.Equal(traces[1], traces[2]) {
		t.Errorf("the traces of 1 and 2 workers differ")
	}
}

// TestOpen_aWrongParameterIsAnErrorAtItsPosition: the Go actions' typed
// parameters are checked when the tree is bound: their types, and the
// values patrol's Check refuses.
func TestOpen_aWrongParameterIsAnErrorAtItsPosition(t *testing.T) {
	for _, c := range []struct{ param, want string }{
		{`<parameter name="patrol.speed">fast</parameter>`,
			`ai/guard.xml:28:5: rule guard.patrol: patrol: parameter "patrol.speed" = "fast" is not a number`},
		{`<parameter name="patrol.speed">0</parameter>`,
			`ai/guard.xml:28:5: rule guard.patrol: action "patrol": parameters refused: patrol.speed and patrol.span must be above 0`},
	} {
		files := fstest.MapFS{}
		for _, name := range []string{"ai/guard.xml", "ai/guard.lua"} {
			data, err := sources.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = &fstest.MapFile{Data: data}
		}
		files["ai/guard.xml"].Data = bytes.Replace(files["ai/guard.xml"].Data,
			[]byte(`<parameter name="patrol.speed">1</parameter>`), []byte(c.param), 1)
		g, err := open(io.Discard, nil, files, 1)
		if err == nil {
			g.g.Close()
			t.Fatalf("%s opened", c.param)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("error:\n%v\nwant it to hold:\n%s", err, c.want)
		}
	}
}
