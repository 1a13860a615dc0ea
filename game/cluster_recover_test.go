package game

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfig_recoveryKeys: [cluster] checkpoint_every and deadline have
// defaults, and a value out of range is an error at its line.
func TestConfig_recoveryKeys(t *testing.T) {
	dir := configDir(t)
	cfg, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(minimalConfig))
	if err != nil || cfg.Cluster.CheckpointEvery != 100 || cfg.Cluster.Deadline.Duration != time.Minute {
		t.Fatalf("defaults: %+v, %v", cfg.Cluster, err)
	}
	for _, c := range []struct{ toml, want string }{
		{"[cluster]\ncheckpoint_every = 0\n", `config.toml:2: cluster.checkpoint_every = 0: must be from 1 to 9007199254740992`},
		{"[cluster]\nshards = 2\ndeadline = \"10ms\"\n", `config.toml:3: cluster.deadline = "10ms": must be from 1s to 1h`},
		{"[cluster]\ndeadline = \"2h\"\n", `config.toml:2: cluster.deadline = "2h0m0s": must be from 1s to 1h`},
	} {
		_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(c.toml+minimalConfig))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.toml, err, c.want)
		}
	}
}
