package game

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// TestConductorReload_ofAnAgentAddedOnAConductorWithoutCopies: an agent
// added to the cluster (made on the conductor for its spawn and forgotten
// there) is carried by a later reload as the others are: the conductor
// makes a copy of every agent for the reload, the added one too, and
// holds none after it. The trace, output and save are one process's that
// adds the agent and reloads between the same steps.
func TestConductorReload_ofAnAgentAddedOnAConductorWithoutCopies(t *testing.T) {
	rc := reloadCases()[0] // a Lua action edited: every agent keeps its memory
	config := writeGame(t, rc.files)
	dir := filepath.Dir(config)
	const added, addAt = "c-99", 1

	g, trace, out := openSolo(t, config)
	if err := g.Run(addAt); err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddAgent(added, "c", nil); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(rc.at - addAt); err != nil {
		t.Fatal(err)
	}
	changed := rc.apply(t, dir)
	if _, err := g.Reload(ReloadOptions{Changed: changed}); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(rc.steps - rc.at); err != nil {
		t.Fatal(err)
	}
	wantSave := endSolo(t, g)
	rc.undo(t, dir)
	if !bytes.Contains(trace.Bytes(), []byte(`"`+added+`"`)) {
		t.Fatalf("one process's trace does not name %s:\n%s", added, trace.String())
	}

	for _, shards := range []int{1, 2} {
		label := fmt.Sprintf("%d shards", shards)
		tc := openCluster(t, clusterSetup{name: config, shards: shards, workers: 2})
		c := tc.conductor()
		if err := c.Run(addAt); err != nil {
			t.Fatal(err)
		}
		if err := c.AddAgent(added, "c", nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Run(rc.at - addAt); err != nil {
			t.Fatal(err)
		}
		changed := rc.apply(t, dir)
		if _, err := c.Reload(ReloadOptions{Changed: changed}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if held := tc.ch.g.Agents(); len(held) != 0 {
			t.Errorf("%s: the conductor holds %d agents after the reload, want none", label, len(held))
		}
		if err := c.Run(rc.steps - rc.at); err != nil {
			t.Fatal(err)
		}
		tc.wantSolo(label, trace.String(), out.String(), wantSave)
		tc.stop()
		rc.undo(t, dir)
	}
}
