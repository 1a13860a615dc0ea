package game

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpen_gatesDeclaredDifferentlyByTwoTreesAreAnError: the agents of a
// game share each gate by name, so two trees must declare it alike; the
// error names both declarations, in both files.
func TestOpen_gatesDeclaredDifferentlyByTwoTreesAreAnError(t *testing.T) {
	config := writeGame(t, map[string]string{
		"config.toml": `[run]
steps = 1
[[trees]]
name = "a"
file = "a.xml"
[[trees]]
name = "b"
file = "b.xml"
[[agents]]
tree = "a"
[[agents]]
tree = "b"
`,
		"a.xml": `<behaviorTree><gates><gate name="grenade" users="1" cooldown="8"/></gates><success id="root"/></behaviorTree>`,
		"b.xml": `<behaviorTree>
  <gates><gate name="grenade" users="2"/></gates>
  <success id="root"/>
</behaviorTree>`,
	})
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(cfg, Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	want := `b.xml:2:10: gate "grenade" is declared here with users="2" cooldown="0" and at a.xml:1:22 with users="1" cooldown="8"; the agents of a game share a gate, so every tree declares it with the same settings`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestRun_summaryListsTheGates: the closing summary has a line per gate
// with its takes, refusals and longest hold, in steps and seconds.
func TestRun_summaryListsTheGates(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("..", "tests", "testdata", "fixtures", "gates", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	g, err := Open(cfg, Options{Quiet: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(60); err != nil {
		t.Fatal(err)
	}
	g.Close()
	g.WriteSummary()
	text := out.String()
	for _, want := range []string{
		"  gate     users  cooldown     takes  refusals  longest hold\n",
		"  grenade      1        2s ",
		"  flank        2        0s ",
		"  meet         2        0s ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	for _, gi := range g.Gates().List() {
		if gi.Takes == 0 || gi.LongestSteps == 0 || gi.LongestSeconds != float64(gi.LongestSteps)*0.25 {
			t.Errorf("gate %s: %+v", gi.Name, gi.GateStats)
		}
	}
}

// TestRun_gatesAndPluginsGiveTheSameTraceBatchedOrNot: the example game has
// gates (the grunts' grenade, the couriers' rendezvous) and a plugin (the
// grunts' chase): its trace is the same whether the plugin's calls travel in
// one batch per round or one by one, with more agents than the config has
// so that rounds hold many takes and calls.
func TestRun_gatesAndPluginsGiveTheSameTraceBatchedOrNot(t *testing.T) {
	run := func(unbatched bool) string {
		cfg, err := LoadConfig(filepath.Join("..", "config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.ScaleAgents(45)
		var trace, people bytes.Buffer
		g, err := Open(cfg, Options{Trace: "-", Stdout: &trace, Stderr: &people, Quiet: true, Unbatched: unbatched})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		if err := g.OpenTrace(); err != nil {
			t.Fatal(err)
		}
		if err := g.Start(); err != nil {
			t.Fatal(err)
		}
		if err := g.Run(300); err != nil {
			t.Fatal(err)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		return trace.String()
	}
	batched, unbatched := run(false), run(true)
	if batched != unbatched {
		t.Fatalf("the traces differ:\n%s", firstLineDiff(batched, unbatched))
	}
	for _, want := range []string{`"gates":[["grenade","take"]]`, `"gates":[["rendezvous","take"]]`, `"grunt.attack.close.chase","success"`} {
		if !strings.Contains(batched, want) {
			t.Errorf("the run never shows %s", want)
		}
	}
}

// firstLineDiff shows the first line where two texts differ.
func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + fmt.Sprint(i+1) + ":\n  " + al[i] + "\n  " + bl[i]
		}
	}
	return fmt.Sprintf("%d and %d lines", len(al), len(bl))
}
