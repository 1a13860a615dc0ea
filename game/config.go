package game

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
)

// Config is a game config, decoded strictly (config_decode.go): every key
// it does not know and every value of the wrong type is an error with the
// key's line, and every value is checked against its limits
// (config_check.go).
type Config struct {
	Run     RunConfig      `toml:"run"`
	Scripts ScriptsConfig  `toml:"scripts"`
	Trees   []TreeConfig   `toml:"trees"`
	Plugins []PluginConfig `toml:"plugins"`
	Agents  []AgentConfig  `toml:"agents"`
	Signals []SignalConfig `toml:"signals"`
	Trace   TraceConfig    `toml:"trace"`
	Save    SaveConfig     `toml:"save"`
	Cluster ClusterConfig  `toml:"cluster"`

	Path string `toml:"-"` // the config file as given
	Dir  string `toml:"-"` // its folder: every path in the config is relative to it

	checked bool `toml:"-"` // read by ParseConfig, which checked it; Open checks the others (config_go.go)
	// run.lua_memory is written in the file: its default grows with the
	// agents, a value written does not (lua_memory.go).
	luaMemorySet bool `toml:"-"`
}

// RunConfig is [run].
type RunConfig struct {
	Steps             int      `toml:"steps"`
	Dt                float64  `toml:"dt"`
	Seed              int64    `toml:"seed"`
	OnFailure         string   `toml:"on_failure"`
	RunawayLimit      int      `toml:"runaway_limit"`
	Strict            bool     `toml:"strict"`
	LuaCallTimeout    Duration `toml:"lua_call_timeout"`
	WorldInitTimeout  Duration `toml:"world_init_timeout"` // 0: grows with the agents (world_budget.go)
	WorldTickTimeout  Duration `toml:"world_tick_timeout"` // 0: grows with the agents
	PluginCallTimeout Duration `toml:"plugin_call_timeout"`
	LuaMemory         Size     `toml:"lua_memory"`
	Realtime          bool     `toml:"realtime"`
	Workers           int      `toml:"workers"`
	StimulusMemory    Size     `toml:"stimulus_memory"`
	StimulusTotal     Size     `toml:"stimulus_memory_total"`
}

// ScriptsConfig is [scripts].
type ScriptsConfig struct {
	Paths []string `toml:"paths"`
	World string   `toml:"world"`
	Root  string   `toml:"root"` // confine.go
}

// TreeConfig is one [[trees]] entry.
type TreeConfig struct {
	Name string `toml:"name"`
	File string `toml:"file"`
}

// PluginConfig is one [[plugins]] entry.
type PluginConfig struct {
	Name string `toml:"name"`
	Path string `toml:"path"`
	// Shardable is the plugin author's promise that a reply depends only
	// on the call and the agent's own plugin state: a cluster may then run
	// an instance of it on each shard, for that shard's agents.
	Shardable bool `toml:"shardable"`
}

// AgentConfig is one [[agents]] entry.
type AgentConfig struct {
	Tree  string `toml:"tree"`
	Count int    `toml:"count"`
	Name  string `toml:"name"`
	// Translate maps the action names the tree calls to this kind's own
	// actions (leaf translations): the kinds share the tree, each binding it
	// to its own actions (runtime.BindOptions.Translate).
	Translate map[string]string `toml:"translate"`
}

// SignalConfig is one [[signals]] entry of the schedule.
type SignalConfig struct {
	At     float64  `toml:"at"`
	Signal string   `toml:"signal"`
	To     []string `toml:"to"`
	// Data is what the signal carries (config_data.go); NilValue: nothing.
	Data runtime.Value `toml:"data"`
}

// TraceConfig is [trace].
type TraceConfig struct {
	File string `toml:"file"`
}

// SaveConfig is [save].
type SaveConfig struct {
	File  string `toml:"file"`
	Every int    `toml:"every"`
}

// ClusterConfig is [cluster] (docs/cluster.md).
type ClusterConfig struct {
	Shards int    `toml:"shards"`
	Store  string `toml:"store"`
	// Recovery (cluster_recover.go).
	CheckpointEvery int      `toml:"checkpoint_every"`
	Deadline        Duration `toml:"deadline"`
	// Moving agents between shards (cluster_rebalance.go).
	Rebalance bool `toml:"rebalance"`
}

// MaxShards bounds a cluster's shards.
const MaxShards = 1024

// Duration is a TOML string such as "100ms" or "2s".
type Duration struct{ time.Duration }

// Size is a number of bytes, written in TOML as a string such as "256MB",
// "1GB" or "512KB" (powers of 1024; "B" or no unit is bytes).
type Size int64

// String writes the size back as the config would ("256MB").
func (s Size) String() string {
	for _, u := range []struct {
		unit string
		n    int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if s >= Size(u.n) && int64(s)%u.n == 0 {
			return fmt.Sprintf("%d%s", int64(s)/u.n, u.unit)
		}
	}
	return fmt.Sprintf("%dB", int64(s))
}

// Sentinel errors of the package.
var (
	// ErrConfig marks a problem in a game config.
	ErrConfig = errors.New("game: bad config")
	// ErrConfined marks a file outside the folder [scripts] root confines
	// the game to.
	ErrConfined = errors.New("game: outside the game's folder")
)

// ConfigError is one problem in a config file, with its line when known.
type ConfigError struct {
	File string
	Line int
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *ConfigError) Unwrap() error { return ErrConfig }

// defaults are the values of SPEC §7 for keys the file leaves out.
func defaults() Config {
	return Config{Run: RunConfig{
		Steps: 600, Dt: 0.1, Seed: 1, OnFailure: "restart", RunawayLimit: 100, Strict: true, Workers: 1,
		LuaCallTimeout:    Duration{100 * time.Millisecond},
		PluginCallTimeout: Duration{2 * time.Second},
		LuaMemory:         DefaultLuaMemory,
		StimulusMemory:    DefaultStimulusMemory,
		StimulusTotal:     DefaultStimulusTotal,
	}, Cluster: ClusterConfig{Store: "btrun-cluster", CheckpointEvery: 100, Deadline: Duration{time.Minute}}}
}

// LoadConfig reads and checks a game config. It reports every problem it
// finds (unknown keys, values of the wrong type, bad values, missing files)
// in one joined error.
func LoadConfig(path string) (*Config, error) {
	data, err := readfile.Read(path, readfile.ConfigLimit, "config")
	if err != nil {
		return nil, &ConfigError{File: path, Msg: "cannot read the config: " + readfile.Reason(err)}
	}
	return ParseConfig(path, data)
}

// ParseConfig is LoadConfig for a config already in memory. A TOML syntax
// error stops the reading at once (nothing after it can be trusted); every
// other problem is collected, so one run reports them all.
func ParseConfig(path string, data []byte) (*Config, error) {
	cfg := defaults()
	cfg.Path = path
	cfg.Dir = filepath.Dir(path)
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{File: path, Line: pe.Position.Line, Msg: oneLine(pe.Message)}
		}
		return nil, &ConfigError{File: path, Msg: oneLine(strings.TrimPrefix(err.Error(), "toml: "))}
	}
	d := &decoder{probs: problems{path: path}, src: newKeyFinder(string(data)), bad: map[string]bool{}}
	d.config(raw, &cfg)
	d.check(&cfg)
	if err := d.probs.err(); err != nil {
		return nil, err
	}
	cfg.checked = true
	return &cfg, nil
}

// oneLine keeps a message on one line (the TOML reader quotes the bad
// text, line ends included): one problem, one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// Abs resolves a path of the config relative to the config's folder.
func (c *Config) Abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

func (c *Config) treeNames() []string {
	out := make([]string, len(c.Trees))
	for i, t := range c.Trees {
		out[i] = t.Name
	}
	return out
}

// IDs are the agent ids an [[agents]] entry makes: NAME-1 .. NAME-COUNT,
// where NAME is the entry's name or else its tree's.
func (a AgentConfig) IDs() []string {
	base := a.Name
	if base == "" {
		base = a.Tree
	}
	out := make([]string, 0, max(a.Count, 0))
	for i := 1; i <= a.Count; i++ {
		out = append(out, fmt.Sprintf("%s-%d", base, i))
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
