package game

import (
	"path/filepath"
	"testing"
)

func TestScaleAgents_inProportion(t *testing.T) {
	cfg := &Config{Agents: []AgentConfig{{Tree: "a", Count: 3}, {Tree: "b", Count: 1}, {Tree: "c", Count: 1}},
		Signals: []SignalConfig{{Signal: "x", To: []string{"c-1"}}, {Signal: "y", To: []string{"a-7"}}}}
	cfg.ScaleAgents(11)
	got := []int{cfg.Agents[0].Count, cfg.Agents[1].Count, cfg.Agents[2].Count}
	if got[0] != 7 || got[1] != 2 || got[2] != 2 {
		t.Errorf("counts %v, want [7 2 2]", got)
	}
	if len(cfg.Signals) != 2 {
		t.Errorf("signals to existing agents were dropped: %+v", cfg.Signals)
	}
	cfg.ScaleAgents(5)
	if cfg.Agents[0].Count+cfg.Agents[1].Count+cfg.Agents[2].Count != 5 {
		t.Errorf("counts %+v do not add up to 5", cfg.Agents)
	}
	if len(cfg.Signals) != 1 {
		t.Errorf("the signal to a-7 (gone) should be dropped: %+v", cfg.Signals)
	}
}

func TestBench_measuresTheAlarmFixture(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("..", "..", "tests", "testdata", "fixtures", "alarm", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Bench(cfg, 300, 20, Profiles{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Agents != 300 || r.AgentSteps != 300*20 || r.Wall <= 0 || r.BytesPerAgent <= 0 {
		t.Errorf("result %+v", r)
	}
}
