package game

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/btrun/btrun/internal/readfile"
)

// Config is a game config (SPEC §7), decoded strictly: every key it does not
// know is an error with the key's line.
type Config struct {
	Run     RunConfig      `toml:"run"`
	Scripts ScriptsConfig  `toml:"scripts"`
	Trees   []TreeConfig   `toml:"trees"`
	Plugins []PluginConfig `toml:"plugins"`
	Agents  []AgentConfig  `toml:"agents"`
	Signals []SignalConfig `toml:"signals"`
	Trace   TraceConfig    `toml:"trace"`
	Save    SaveConfig     `toml:"save"`

	Path string `toml:"-"` // the config file as given
	Dir  string `toml:"-"` // its folder: every path in the config is relative to it
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
	PluginCallTimeout Duration `toml:"plugin_call_timeout"`
}

// ScriptsConfig is [scripts].
type ScriptsConfig struct {
	Paths []string `toml:"paths"`
	World string   `toml:"world"`
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
}

// AgentConfig is one [[agents]] entry.
type AgentConfig struct {
	Tree  string `toml:"tree"`
	Count int    `toml:"count"`
	Name  string `toml:"name"`
}

// SignalConfig is one [[signals]] entry of the schedule.
type SignalConfig struct {
	At     float64  `toml:"at"`
	Signal string   `toml:"signal"`
	To     []string `toml:"to"`
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

// Duration is a TOML string such as "100ms" or "2s".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (for example \"100ms\" or \"2s\")", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration back as a string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Sentinel errors of the package.
var (
	// ErrConfig marks a problem in a game config.
	ErrConfig = errors.New("game: bad config")
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
		Steps: 600, Dt: 0.1, Seed: 1, OnFailure: "restart", RunawayLimit: 100, Strict: true,
		LuaCallTimeout:    Duration{100 * time.Millisecond},
		PluginCallTimeout: Duration{2 * time.Second},
	}}
}

// LoadConfig reads and checks a game config. It reports every problem it
// finds (unknown keys, bad values, missing files) in one joined error.
func LoadConfig(path string) (*Config, error) {
	data, err := readfile.Read(path, readfile.ConfigLimit, "config")
	if err != nil {
		return nil, &ConfigError{File: path, Msg: "cannot read the config: " + readfile.Reason(err)}
	}
	return ParseConfig(path, data)
}

// ParseConfig is LoadConfig for a config already in memory.
func ParseConfig(path string, data []byte) (*Config, error) {
	cfg := defaults()
	cfg.Path = path
	cfg.Dir = filepath.Dir(path)
	src := newKeyFinder(string(data))
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{File: path, Line: pe.Position.Line, Msg: pe.Message}
		}
		return nil, &ConfigError{File: path, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	var errs []error
	add := func(line int, format string, args ...any) {
		errs = append(errs, &ConfigError{File: path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	undecoded := md.Undecoded()
	for _, k := range undecoded {
		if hasUndecodedPrefix(k, undecoded) {
			continue // reported once, at its table
		}
		lines := src.lines(k)
		if len(lines) == 0 {
			lines = []int{0}
		}
		for _, l := range lines {
			add(l, "unknown key %q%s", k.String(), knownKeysHint(k))
		}
	}
	line := func(key ...string) int {
		if l := src.lines(toml.Key(key)); len(l) > 0 {
			return l[0]
		}
		return 0
	}
	nth := func(n int, table, key string) int { return src.lineIn(n, table, key) }
	r := &cfg.Run
	if r.Steps < 0 {
		add(line("run", "steps"), "run.steps = %d: must be 0 or more", r.Steps)
	}
	if !(r.Dt > 0) || math.IsInf(r.Dt, 0) {
		add(line("run", "dt"), "run.dt = %v: must be a number of seconds greater than 0", r.Dt)
	}
	if r.OnFailure != "restart" && r.OnFailure != "stop" {
		add(line("run", "on_failure"), "run.on_failure = %q: expected \"restart\" or \"stop\"", r.OnFailure)
	}
	if r.RunawayLimit < 1 || r.RunawayLimit > 65535 {
		add(line("run", "runaway_limit"), "run.runaway_limit = %d: must be from 1 to 65535", r.RunawayLimit)
	}
	if r.LuaCallTimeout.Duration <= 0 {
		add(line("run", "lua_call_timeout"), "run.lua_call_timeout = %q: must be greater than 0", r.LuaCallTimeout)
	}
	if r.PluginCallTimeout.Duration <= 0 {
		add(line("run", "plugin_call_timeout"), "run.plugin_call_timeout = %q: must be greater than 0", r.PluginCallTimeout)
	}
	if cfg.Save.Every < 0 {
		add(line("save", "every"), "save.every = %d: must be 0 or more", cfg.Save.Every)
	}
	for i, p := range cfg.Scripts.Paths {
		if fi, err := os.Stat(cfg.Abs(p)); err != nil || !fi.IsDir() {
			add(line("scripts", "paths"), "scripts.paths[%d] = %q: no such folder (paths are relative to the config's folder)", i, p)
		}
	}
	if w := cfg.Scripts.World; w != "" {
		if _, err := os.Stat(cfg.Abs(w)); err != nil {
			add(line("scripts", "world"), "scripts.world = %q: no such file", w)
		}
	}
	if len(cfg.Trees) == 0 {
		add(0, "no [[trees]]: a game needs at least one tree")
	}
	// [[trees]] and [[plugins]] entries are alike: a unique name and a path
	// that must exist.
	checkNamed := func(table, kind, pathKey string, i int, name, path string, seen map[string]bool) {
		switch {
		case name == "":
			add(nth(i, table, "name"), "%s[%d]: name is missing", table, i)
		case seen[name]:
			add(nth(i, table, "name"), "%s[%d]: a %s named %q is already defined", table, i, kind, name)
		}
		seen[name] = true
		if path == "" {
			add(nth(i, table, pathKey), "%s[%d] (%s): %s is missing", table, i, name, pathKey)
		} else if _, err := os.Stat(cfg.Abs(path)); err != nil {
			add(nth(i, table, pathKey), "%s[%d] (%s): %s %q: no such file", table, i, name, pathKey, path)
		}
	}
	trees := map[string]bool{}
	for i, t := range cfg.Trees {
		checkNamed("trees", "tree", "file", i, t.Name, t.File, trees)
	}
	plugins := map[string]bool{}
	for i, p := range cfg.Plugins {
		checkNamed("plugins", "plugin", "path", i, p.Name, p.Path, plugins)
	}
	ids := map[string]bool{}
	for i := range cfg.Agents {
		a := &cfg.Agents[i]
		if !src.has(i, "agents", "count") {
			a.Count = 1
		}
		switch {
		case a.Tree == "":
			add(nth(i, "agents", "tree"), "agents[%d]: tree is missing", i)
		case !trees[a.Tree]:
			add(nth(i, "agents", "tree"), "agents[%d]: unknown tree %q; the config's trees are %s", i, a.Tree, quoteList(cfg.treeNames()))
		}
		if a.Count < 1 {
			add(nth(i, "agents", "count"), "agents[%d]: count = %d: must be 1 or more", i, a.Count)
		}
		for _, id := range a.IDs() {
			if ids[id] {
				add(nth(i, "agents", "tree"), "agents[%d]: agent id %q is already used by an earlier entry", i, id)
			}
			ids[id] = true
		}
	}
	if len(cfg.Agents) == 0 {
		add(0, "no [[agents]]: a game needs at least one agent")
	}
	for i, s := range cfg.Signals {
		if s.Signal == "" {
			add(nth(i, "signals", "signal"), "signals[%d]: signal is missing", i)
		}
		if s.At < 0 || math.IsNaN(s.At) || math.IsInf(s.At, 0) {
			add(nth(i, "signals", "at"), "signals[%d]: at = %v: must be a time in seconds, 0 or more", i, s.At)
		}
		if len(s.To) == 0 {
			add(nth(i, "signals", "to"), "signals[%d]: to is missing; name agent ids or [\"all\"]", i)
		}
		for _, to := range s.To {
			if to != "all" && !ids[to] {
				add(nth(i, "signals", "to"), "signals[%d]: to names unknown agent %q", i, to)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &cfg, nil
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

// knownKeys lists the keys each table accepts, for unknown-key messages.
var knownKeys = map[string][]string{
	"":        {"run", "scripts", "trees", "plugins", "agents", "signals", "trace", "save"},
	"run":     {"steps", "dt", "seed", "on_failure", "runaway_limit", "strict", "lua_call_timeout", "plugin_call_timeout"},
	"scripts": {"paths", "world"},
	"trees":   {"name", "file"},
	"plugins": {"name", "path"},
	"agents":  {"tree", "count", "name"},
	"signals": {"at", "signal", "to"},
	"trace":   {"file"},
	"save":    {"file", "every"},
}

func knownKeysHint(k toml.Key) string {
	table := ""
	if len(k) > 1 {
		table = k[0]
	}
	known, ok := knownKeys[table]
	if !ok || len(k) > 2 {
		return ""
	}
	where := "at the top level"
	if table != "" {
		where = "in [" + table + "]"
	}
	return fmt.Sprintf("; expected %s %s", where, strings.Join(known, ", "))
}
