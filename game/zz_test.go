package game

import (
	"os"
	"testing"
)

func TestZZOut(t *testing.T) {
	config := composeClusterGame(t, true)
	cfg, _ := LoadConfig(config)
	before := func(g *Game, s StepInfo) error {
		applyCompose(t, s.Step-1, g.Signal, func(id, tree string) error { _, err := g.AddAgent(id, tree, nil); return err }, g.RemoveAgent)
		return nil
	}
	_, out, _ := soloRun(t, cfg, Options{BeforeStep: before}, 24, false)
	os.WriteFile("/tmp/solo_out.txt", []byte(out), 0o644)
}
