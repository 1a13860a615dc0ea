package game

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig: no config text makes the parser panic, every problem
// names the config file, at most maxProblems are listed, and a config that
// parses is inside every limit.
func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"../config.toml", "../tests/testdata/fixtures/alarm/config.toml"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimalConfig))
	f.Add([]byte("[run]\nsteps = \"x\"\n[[agents]]\ncount = -1\n"))
	f.Add([]byte(minimalConfig + "count = 9223372036854775807\n"))
	f.Add([]byte("[run]\ndt = 1e300\nlua_call_timeout = \"1ns\"\nplugin_call_timeout = \"100\"\nlua_memory = \"9999999999GB\"\non_failure = \"halt\"\n" + minimalConfig))
	f.Add([]byte("run = 5\ntrees = \"x\"\nagents = [1, 2]\nsignals = [{at = 1, signal = \"s\", to = [\"all\"]}]\n"))
	f.Add([]byte(minimalConfig + "[[signals]]\nat = nan\nto = [1]\n[[signals]]\nat = inf\nsignal = \"\"\n"))
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "ai"), 0o755)
	os.WriteFile(filepath.Join(dir, "ai", "guard.xml"), []byte(`<behaviorTree/>`), 0o644)
	path := filepath.Join(dir, "config.toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(path, data)
		if err == nil {
			if cfg == nil {
				t.Fatal("no config and no error")
			}
			checkInsideLimits(t, cfg)
			return
		}
		if !errors.Is(err, ErrConfig) {
			t.Fatalf("error does not wrap ErrConfig: %v", err)
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) > maxProblems+1 {
			t.Fatalf("%d lines of problems; at most %d and a count", len(lines), maxProblems)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, path) {
				t.Fatalf("problem without the file name: %q", l)
			}
		}
	})
}

func checkInsideLimits(t *testing.T, cfg *Config) {
	t.Helper()
	r := cfg.Run
	total := 0
	for _, a := range cfg.Agents {
		total += a.Count
	}
	switch {
	case r.Dt < MinDt || r.Dt > MaxDt:
		t.Fatalf("dt %v accepted", r.Dt)
	case r.Steps < 0 || r.Steps > MaxSteps:
		t.Fatalf("steps %d accepted", r.Steps)
	case r.LuaCallTimeout.Duration < MinTimeout || r.LuaCallTimeout.Duration > MaxTimeout,
		r.PluginCallTimeout.Duration < MinTimeout || r.PluginCallTimeout.Duration > MaxTimeout:
		t.Fatalf("timeouts %v %v accepted", r.LuaCallTimeout, r.PluginCallTimeout)
	case r.LuaMemory < MinLuaMemory || r.LuaMemory > MaxLuaMemory:
		t.Fatalf("lua_memory %d accepted", r.LuaMemory)
	case total < 1 || total > MaxAgents || len(cfg.Signals) > MaxScheduled:
		t.Fatalf("%d agents, %d signals accepted", total, len(cfg.Signals))
	}
}
