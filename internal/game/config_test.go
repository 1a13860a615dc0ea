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
			`config.toml:3: unknown key "run.stepz"; expected in [run] steps, dt, seed, on_failure, runaway_limit, strict, lua_call_timeout, plugin_call_timeout, realtime`},
		{"unknown table", "[runn]\nsteps = 10\n" + minimalConfig,
			`config.toml:1: unknown key "runn"`},
		{"unknown key in an array table", minimalConfig + "countt = 3\n",
			`config.toml:8: unknown key "agents.countt"; expected in [agents] tree, count, name`},
		{"negative dt", "[run]\ndt = -0.1\n" + minimalConfig,
			`config.toml:2: run.dt = -0.1: must be a number of seconds greater than 0`},
		{"bad on_failure", "[run]\non_failure = \"retry\"\n" + minimalConfig,
			`config.toml:2: run.on_failure = "retry": expected "restart" or "stop"`},
		{"bad duration", "[run]\nlua_call_timeout = \"fast\"\n" + minimalConfig,
			`config.toml:2: "fast" is not a duration (for example "100ms" or "2s")`},
		{"wrong type", "[run]\nsteps = \"many\"\n" + minimalConfig,
			`incompatible types: TOML value has type string; destination has type integer`},
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
