package game

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// configDir makes a folder with a tree file and a script folder, so configs
// in tests can name real files.
func configDir(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ai"), 0o755)
	os.WriteFile(filepath.Join(dir, "ai", "guard.xml"), []byte(`<behaviorTree><running id="root"/></behaviorTree>`), 0o644)
	return dir
}

const minimalConfig = `
[[trees]]
name = "guard"
file = "ai/guard.xml"

[[agents]]
tree = "guard"
`

func TestConfig_defaults(t *testing.T) {
	dir := configDir(t)
	cfg, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(minimalConfig))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Run
	if r.Steps != 600 || r.Dt != 0.1 || r.Seed != 1 || r.OnFailure != "restart" || r.RunawayLimit != 100 ||
		!r.Strict || r.LuaCallTimeout.Duration != 100*time.Millisecond {
		t.Errorf("defaults: %+v", r)
	}
	if ids := cfg.Agents[0].IDs(); strings.Join(ids, ",") != "guard-1" {
		t.Errorf("ids %v", ids)
	}
	if cfg.Abs("ai/guard.xml") != filepath.Join(dir, "ai", "guard.xml") {
		t.Errorf("paths are not relative to the config's folder: %s", cfg.Abs("ai/guard.xml"))
	}
}

func TestConfig_agentIDs(t *testing.T) {
	for _, c := range []struct {
		a    AgentConfig
		want string
	}{
		{AgentConfig{Tree: "wanderer", Count: 3}, "wanderer-1,wanderer-2,wanderer-3"},
		{AgentConfig{Tree: "wanderer", Count: 2, Name: "scout"}, "scout-1,scout-2"},
	} {
		if got := strings.Join(c.a.IDs(), ","); got != c.want {
			t.Errorf("%+v: %s, want %s", c.a, got, c.want)
		}
	}
}

func TestConfig_errorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, toml, want string
	}{
		{"unknown key in a table", "[run]\nsteps = 10\nstepz = 3\n" + minimalConfig,
			`config.toml:3: unknown key "run.stepz"; expected in [run] steps, dt, seed, on_failure, runaway_limit, strict, lua_call_timeout, world_init_timeout, world_tick_timeout, plugin_call_timeout, lua_memory, realtime`},
		{"unknown table", "[runn]\nsteps = 10\n" + minimalConfig,
			`config.toml:1: unknown key "runn"`},
		{"unknown key in an array table", minimalConfig + "countt = 3\n",
			`config.toml:8: unknown key "agents.countt"; expected in [agents] tree, count, name`},
		{"negative dt", "[run]\ndt = -0.1\n" + minimalConfig,
			`config.toml:2: run.dt = -0.1: must be a number of seconds from 1e-06 to 3600`},
		{"bad on_failure", "[run]\non_failure = \"retry\"\n" + minimalConfig,
			`config.toml:2: run.on_failure = "retry": expected "restart" or "stop"`},
		{"bad duration", "[run]\nlua_call_timeout = \"fast\"\n" + minimalConfig,
			`config.toml:2: run.lua_call_timeout = "fast": not a duration; write one such as "100ms" or "2s"`},
		{"wrong type", "[run]\nsteps = \"many\"\n" + minimalConfig,
			`config.toml:2: run.steps = "many": expected a whole number, not a string`},
		{"syntax error", "[run\nsteps = 1\n", `config.toml:2: expected`},
		{"unknown tree", "[[trees]]\nname = \"guard\"\nfile = \"ai/guard.xml\"\n\n[[agents]]\ntree = \"gaurd\"\n",
			`config.toml:6: agents[0]: unknown tree "gaurd"; the config's trees are "guard"`},
		{"missing tree file", "[[trees]]\nname = \"guard\"\nfile = \"ai/nope.xml\"\n[[agents]]\ntree = \"guard\"\n",
			`config.toml:3: trees[0] (guard): file "ai/nope.xml": no such file`},
		{"zero count", minimalConfig + "count = 0\n",
			`config.toml:8: agents[0]: count = 0: must be 1 or more`},
		{"signal to unknown agent", minimalConfig + "\n[[signals]]\nat = 1.0\nsignal = \"Go\"\nto = [\"guard-9\"]\n",
			`config.toml:12: signals[0]: to names unknown agent "guard-9"`},
		{"missing script folder", "[scripts]\npaths = [\"nope\"]\n" + minimalConfig,
			`config.toml:2: scripts.paths[0] = "nope": no such folder (paths are relative to the config's folder)`},
		{"duplicate agent ids", minimalConfig + "\n[[agents]]\ntree = \"guard\"\n",
			`config.toml:10: agents[1]: agent id "guard-1" is already used by an earlier entry`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := configDir(t)
			_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(c.toml))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error does not wrap ErrConfig: %v", err)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.Contains(got, c.want) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestConfig_reportsEveryProblem(t *testing.T) {
	dir := configDir(t)
	_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte("[run]\ndt = 0\nsteps = -1\nfoo = 1\n"+minimalConfig))
	if err == nil {
		t.Fatal("no error")
	}
	if n := len(strings.Split(err.Error(), "\n")); n != 3 {
		t.Errorf("want 3 problems, got %d:\n%v", n, err)
	}
}

// TestConfig_typeErrorsDoNotHideOtherProblems: a value of the wrong type is
// one problem among the others, each reported with its line.
func TestConfig_typeErrorsDoNotHideOtherProblems(t *testing.T) {
	dir := configDir(t)
	text := "[run]\nsteps = \"ten\"\non_failure = \"halt\"\nlua_call_timeout = \"100\"\nplugin_call_timeout = 5\nstrict = \"yes\"\n" +
		"\n[scripts]\npaths = \"ai\"\n" + minimalConfig + "count = 2.5\nname = 7\n"
	_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(text))
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	want := `config.toml:2: run.steps = "ten": expected a whole number, not a string
config.toml:3: run.on_failure = "halt": expected "restart" or "stop"
config.toml:4: run.lua_call_timeout = "100": not a duration; write one such as "100ms" or "2s"
config.toml:5: run.plugin_call_timeout = 5: expected a duration as a string, such as "100ms" or "2s", not an integer
config.toml:6: run.strict = "yes": expected true or false, not a string
config.toml:9: scripts.paths = "ai": expected a list of strings, not a string
config.toml:17: agents[0]: count = 2.5: expected a whole number, not a float
config.toml:18: agents[0]: name = 7: expected a string, not an integer`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestConfig_limits: every value that would exhaust memory, make a time
// that is not a finite number or a timer that cannot tick is an error at
// its line.
func TestConfig_limits(t *testing.T) {
	for _, c := range []struct{ name, toml, want string }{
		{"a billion agents", minimalConfig + "count = 1000000000\n", `config.toml:8: agents[0]: count = 1000000000: a game has at most 1000000 agents`},
		{"the largest count", minimalConfig + "count = 9223372036854775807\n", `config.toml:8: agents[0]: count = 9223372036854775807: a game has at most 1000000 agents`},
		{"agents adding up", minimalConfig + "count = 600000\n[[agents]]\ntree = \"guard\"\nname = \"b\"\ncount = 600000\n",
			`config.toml:8: the [[agents]] entries make 1200000 agents: a game has at most 1000000`},
		{"dt 1e300", "[run]\ndt = 1e300\n" + minimalConfig, `config.toml:2: run.dt = 1e+300: must be a number of seconds from 1e-06 to 3600`},
		{"dt inf", "[run]\ndt = inf\n" + minimalConfig, `config.toml:2: run.dt = +Inf: must be a number of seconds from 1e-06 to 3600`},
		{"dt nan", "[run]\ndt = nan\n" + minimalConfig, `config.toml:2: run.dt = NaN: must be a number`},
		{"lua_call_timeout 1ns", "[run]\nlua_call_timeout = \"1ns\"\n" + minimalConfig, `config.toml:2: run.lua_call_timeout = "1ns": must be from 1ms to 1h0m0s`},
		{"plugin_call_timeout 2h", "[run]\nplugin_call_timeout = \"2h\"\n" + minimalConfig, `config.toml:2: run.plugin_call_timeout = "2h0m0s": must be from 1ms to 1h0m0s`},
		{"negative timeout", "[run]\nlua_call_timeout = \"-5s\"\n" + minimalConfig, `run.lua_call_timeout = "-5s": must be from 1ms`},
		{"world_init_timeout 0s", "[run]\nworld_init_timeout = \"0s\"\n" + minimalConfig, `config.toml:2: run.world_init_timeout = "0s": must be from 1ms to 1h0m0s`},
		{"world_tick_timeout 2h", "[run]\nsteps = 1\nworld_tick_timeout = \"2h\"\n" + minimalConfig, `config.toml:3: run.world_tick_timeout = "2h0m0s": must be from 1ms to 1h0m0s`},
		{"world_init_timeout not a duration", "[run]\nworld_init_timeout = 5\n" + minimalConfig, `config.toml:2: run.world_init_timeout = 5: expected a duration`},
		{"steps beyond 2^53", "[run]\nsteps = 9007199254740993\n" + minimalConfig, `config.toml:2: run.steps = 9007199254740993: must be from 0 to 9007199254740992`},
		{"workers negative", "[run]\nworkers = -1\n" + minimalConfig, `config.toml:2: run.workers = -1: must be from 0 (one per CPU core) to 256`},
		{"workers too many", "[run]\nworkers = 100000\n" + minimalConfig, `config.toml:2: run.workers = 100000: must be from 0 (one per CPU core) to 256`},
		{"lua_memory too small", "[run]\nlua_memory = \"1KB\"\n" + minimalConfig, `config.toml:2: run.lua_memory = 1024 bytes: must be from 1MB to 1024GB`},
		{"lua_memory not a size", "[run]\nlua_memory = \"lots\"\n" + minimalConfig, `config.toml:2: run.lua_memory = "lots": not a size; write one such as "256MB" or "1GB"`},
		{"stimulus_memory too small", "[run]\nstimulus_memory = \"1KB\"\n" + minimalConfig, `config.toml:2: run.stimulus_memory = 1024 bytes: must be from 64KB to 1024GB`},
		{"stimulus_memory_total too large", "[run]\nstimulus_memory_total = \"2048GB\"\n" + minimalConfig, `config.toml:2: run.stimulus_memory_total = 2199023255552 bytes: must be from 64KB to 1024GB`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := configDir(t)
			_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(c.toml))
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	dir := configDir(t)
	cfg, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte("[run]\nlua_memory = \"64MB\"\n"+minimalConfig))
	if err != nil || cfg.Run.LuaMemory != 64<<20 {
		t.Errorf("lua_memory = \"64MB\": %v, %v", cfg, err)
	}
	// A value that is not a duration is one problem, not also one of range.
	if _, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte("[run]\nworld_tick_timeout = \"fast\"\n"+minimalConfig)); err == nil ||
		!strings.Contains(err.Error(), `run.world_tick_timeout = "fast": not a duration`) || strings.Contains(err.Error(), "must be from") {
		t.Errorf("world_tick_timeout = \"fast\": %v", err)
	}
	cfg, err = ParseConfig(filepath.Join(dir, "config.toml"), []byte("[run]\nworld_init_timeout = \"30s\"\nworld_tick_timeout = \"1ms\"\n"+minimalConfig))
	if err != nil || cfg.Run.WorldInitTimeout.Duration != 30*time.Second || cfg.Run.WorldTickTimeout.Duration != time.Millisecond {
		t.Errorf("world timeouts: %+v, %v", cfg, err)
	}
}

// TestConfig_manyBadEntriesAreFastAndCapped: problems are collected in
// linear time and at most 100 are listed, then a count of the others
// (100,000 bad [[signals]] took 38 s when they were collected in quadratic
// time).
func TestConfig_manyBadEntriesAreFastAndCapped(t *testing.T) {
	const n = 200_000
	var b strings.Builder
	b.WriteString(minimalConfig)
	for range n {
		b.WriteString("[[signals]]\nat = -1\nsignal = \"Go\"\nto = [\"all\"]\n")
	}
	dir := configDir(t)
	done := make(chan error, 1)
	go func() {
		_, err := ParseConfig(filepath.Join(dir, "config.toml"), []byte(b.String()))
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("still collecting problems after 2 minutes")
	}
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 101 {
		t.Fatalf("%d lines; want 100 problems and a count", len(lines))
	}
	if want := "config.toml:9: signals[0]: at = -1: must be a time in seconds, 0 or more"; !strings.HasSuffix(lines[0], want) {
		t.Errorf("first line %q; want ...%s", lines[0], want)
	}
	if want := "config.toml: ... and 199900 more problems (only the first 100 are listed)"; !strings.HasSuffix(lines[100], want) {
		t.Errorf("last line %q; want ...%s", lines[100], want)
	}
	var more *MoreProblems
	if !errors.As(err, &more) || more.N != n-100 {
		t.Errorf("no MoreProblems counting %d in %T", n-100, err)
	}
}
