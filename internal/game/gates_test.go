package game

import (
	"bytes"
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
	cfg, err := LoadConfig(filepath.Join("..", "..", "tests", "testdata", "fixtures", "gates", "config.toml"))
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
