package game

import (
	"io/fs"
	"math"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/btrun/btrun/runtime"
)

// Limits of a config. Each keeps a value far from where it would hurt: an
// allocation the machine cannot make, a time that is not a finite number,
// a timer that cannot tick. A real game is far inside all of them.
const (
	// MaxAgents bounds the agents of a game (all [[agents]] entries, and
	// `btrun bench -agents`): each costs memory and time every step.
	MaxAgents = 1_000_000
	// MaxScheduled bounds the [[signals]] entries.
	MaxScheduled = 1_000_000
	// MaxGameRules bounds the rules of a game's trees together, each
	// [[trees]] entry counted (one tree file holds at most as many).
	MaxGameRules = 1_000_000
	// MaxSteps bounds step numbers (run.steps, a save's step, and the two
	// together): up to 2^53 a step number and its time are exact in a
	// float64, which is what Lua and the trace see.
	MaxSteps = 1 << 53
	// MaxWorkers bounds run.workers: each worker holds a Lua state with
	// every script, so thousands of them would only waste memory.
	MaxWorkers = 256
	// MinDt and MaxDt bound run.dt: step × dt stays a finite, printable
	// time for every step number up to MaxSteps.
	MinDt = 1e-6
	MaxDt = 3600.0
	// MinTimeout and MaxTimeout bound the call timeouts.
	MinTimeout = time.Millisecond
	MaxTimeout = time.Hour
	// DefaultLuaMemory, MinLuaMemory and MaxLuaMemory: run.lua_memory, the
	// memory budget of each Lua state.
	DefaultLuaMemory = 256 << 20
	MinLuaMemory     = 1 << 20
	MaxLuaMemory     = 1 << 40
	// DefaultStimulusMemory and DefaultStimulusTotal: run.stimulus_memory
	// and run.stimulus_memory_total, the memory the stimuli of each agent
	// and of all the game's agents may take (stimuli.go); MinStimulusMemory
	// and MaxStimulusMemory bound both.
	DefaultStimulusMemory = runtime.DefaultStimulusMemory
	DefaultStimulusTotal  = 1 << 30
	MinStimulusMemory     = 64 << 10
	MaxStimulusMemory     = 1 << 40
	// maxTrees and maxPlugins bound those entries.
	maxTrees   = 10_000
	maxPlugins = 100
)

// maxGameRules is MaxGameRules, lower in tests.
var maxGameRules = MaxGameRules

// check checks the decoded values against their limits and each other.
// Keys whose value did not decode (d.bad) are reported once, there.
func (d *decoder) check(cfg *Config) {
	line := func(key ...string) int { return d.src.line(toml.Key(key)) }
	nth := func(n int, table, key string) int { return d.src.lineIn(n, table, key) }
	add := d.probs.add
	r := &cfg.Run
	if r.Steps < 0 || r.Steps > MaxSteps {
		add(line("run", "steps"), "run.steps = %d: must be from 0 to %d", r.Steps, MaxSteps)
	}
	if !(r.Dt >= MinDt && r.Dt <= MaxDt) {
		add(line("run", "dt"), "run.dt = %v: must be a number of seconds from %v to %v", r.Dt, MinDt, MaxDt)
	}
	if r.OnFailure != "restart" && r.OnFailure != "stop" {
		add(line("run", "on_failure"), "run.on_failure = %q: expected \"restart\" or \"stop\"", r.OnFailure)
	}
	if r.RunawayLimit < 1 || r.RunawayLimit > 65535 {
		add(line("run", "runaway_limit"), "run.runaway_limit = %d: must be from 1 to 65535", r.RunawayLimit)
	}
	for _, t := range []struct {
		key string
		d   time.Duration
	}{{"lua_call_timeout", r.LuaCallTimeout.Duration}, {"plugin_call_timeout", r.PluginCallTimeout.Duration}} {
		if t.d < MinTimeout || t.d > MaxTimeout {
			add(line("run", t.key), "run.%s = %q: must be from %v to %v", t.key, t.d.String(), MinTimeout, MaxTimeout)
		}
	}
	// The world's budgets are optional: left out (0), they grow with the
	// agents (world_budget.go).
	for _, t := range []struct {
		key string
		d   time.Duration
	}{{"world_init_timeout", r.WorldInitTimeout.Duration}, {"world_tick_timeout", r.WorldTickTimeout.Duration}} {
		if (t.d != 0 || line("run", t.key) > 0) && !d.bad["run."+t.key] && (t.d < MinTimeout || t.d > MaxTimeout) {
			add(line("run", t.key), "run.%s = %q: must be from %v to %v", t.key, t.d.String(), MinTimeout, MaxTimeout)
		}
	}
	cfg.luaMemorySet = line("run", "lua_memory") > 0
	if r.LuaMemory < MinLuaMemory || r.LuaMemory > MaxLuaMemory {
		add(line("run", "lua_memory"), "run.lua_memory = %d bytes: must be from 1MB to 1024GB", r.LuaMemory)
	}
	for _, m := range []struct {
		key string
		n   Size
	}{{"stimulus_memory", r.StimulusMemory}, {"stimulus_memory_total", r.StimulusTotal}} {
		if m.n < MinStimulusMemory || m.n > MaxStimulusMemory {
			add(line("run", m.key), "run.%s = %d bytes: must be from 64KB to 1024GB", m.key, m.n)
		}
	}
	if r.Workers < 0 || r.Workers > MaxWorkers {
		add(line("run", "workers"), "run.workers = %d: must be from 0 (one per CPU core) to %d", r.Workers, MaxWorkers)
	}
	if cfg.Save.Every < 0 || cfg.Save.Every > MaxSteps {
		add(line("save", "every"), "save.every = %d: must be from 0 to %d", cfg.Save.Every, MaxSteps)
	}
	if cfg.Cluster.Shards < 0 || cfg.Cluster.Shards > MaxShards {
		add(line("cluster", "shards"), "cluster.shards = %d: must be from 0 (one process) to %d", cfg.Cluster.Shards, MaxShards)
	}
	checkRecovery(&cfg.Cluster, func(key, format string, args ...any) { add(line("cluster", key), format, args...) })
	confine, err := newConfinement(cfg)
	if err != nil {
		add(line("scripts", "root"), "scripts.root = %q: %v", cfg.Scripts.Root, err)
	}
	outside := func(p string) string {
		if d.files != nil {
			return "" // the game's sources are in an fs.FS: nothing outside it can be named
		}
		if err := confine.check(cfg.Abs(p)); err != nil {
			return ": " + err.Error()
		}
		return ""
	}
	for i, p := range cfg.Scripts.Paths {
		if fi, err := statSource(cfg, d.files, p); err != nil || !fi.IsDir() {
			add(line("scripts", "paths"), "scripts.paths[%d] = %q: no such folder (paths are relative to the config's folder)", i, p)
		} else if o := outside(p); o != "" {
			add(line("scripts", "paths"), "scripts.paths[%d] = %q%s", i, p, o)
		}
	}
	if w := cfg.Scripts.World; w != "" {
		if _, err := statSource(cfg, d.files, w); err != nil {
			add(line("scripts", "world"), "scripts.world = %q: no such file", w)
		} else if o := outside(w); o != "" {
			add(line("scripts", "world"), "scripts.world = %q%s", w, o)
		}
	}
	for i, t := range cfg.Trees {
		if t.File == "" {
			continue
		}
		if _, err := statSource(cfg, d.files, t.File); err == nil {
			if o := outside(t.File); o != "" {
				add(nth(i, "trees", "file"), "trees[%d] (%s): file %q%s", i, t.Name, t.File, o)
			}
		}
	}
	if len(cfg.Trees) == 0 && !d.bad["trees"] {
		add(0, "no [[trees]]: a game needs at least one tree")
	}
	d.checkNamed(cfg, "trees", "tree", "file", maxTrees, len(cfg.Trees), func(i int) (string, string) { return cfg.Trees[i].Name, cfg.Trees[i].File }, d.files)
	d.checkNamed(cfg, "plugins", "plugin", "path", maxPlugins, len(cfg.Plugins), func(i int) (string, string) { return cfg.Plugins[i].Name, cfg.Plugins[i].Path }, nil)
	ids := d.checkAgents(cfg)
	if len(cfg.Signals) > MaxScheduled {
		add(line("signals"), "%d [[signals]] entries: a schedule holds at most %d", len(cfg.Signals), MaxScheduled)
	}
	for i, s := range cfg.Signals {
		if s.Signal == "" && !d.bad[keyName("signals", i, "signal")] {
			add(nth(i, "signals", "signal"), "signals[%d]: signal is missing", i)
		}
		if s.At < 0 || math.IsNaN(s.At) || math.IsInf(s.At, 0) {
			add(nth(i, "signals", "at"), "signals[%d]: at = %v: must be a time in seconds, 0 or more", i, s.At)
		}
		if len(s.To) == 0 && !d.bad[keyName("signals", i, "to")] {
			add(nth(i, "signals", "to"), "signals[%d]: to is missing; name agent ids or [\"all\"]", i)
		}
		for _, to := range s.To {
			if to != "all" && !ids[to] && ids != nil {
				add(nth(i, "signals", "to"), "signals[%d]: to names unknown agent %q", i, to)
			}
		}
	}
}

// checkNamed checks [[trees]] or [[plugins]]: a unique name and a path
// that exists.
func (d *decoder) checkNamed(cfg *Config, table, kind, pathKey string, limit, n int, entry func(int) (name, path string), files fs.FS) {
	nth := func(i int, key string) int { return d.src.lineIn(i, table, key) }
	if n > limit {
		d.probs.add(d.src.line(toml.Key{table}), "%d [[%s]] entries: a game has at most %d", n, table, limit)
		return
	}
	seen := map[string]bool{}
	for i := range n {
		name, path := entry(i)
		switch {
		case name == "" && d.bad[keyName(table, i, "name")]:
		case name == "":
			d.probs.add(nth(i, "name"), "%s[%d]: name is missing", table, i)
		case seen[name]:
			d.probs.add(nth(i, "name"), "%s[%d]: a %s named %q is already defined", table, i, kind, name)
		}
		seen[name] = true
		switch {
		case path == "" && d.bad[keyName(table, i, pathKey)]:
		case path == "":
			d.probs.add(nth(i, pathKey), "%s[%d] (%s): %s is missing", table, i, name, pathKey)
		default:
			if _, err := statSource(cfg, files, path); err != nil {
				d.probs.add(nth(i, pathKey), "%s[%d] (%s): %s %q: no such file", table, i, name, pathKey, path)
			}
		}
	}
}

// checkAgents checks the [[agents]] entries and returns the agent ids they
// make, or nil when their counts are beyond the limits (the ids are then
// not made: a billion of them would exhaust memory).
func (d *decoder) checkAgents(cfg *Config) map[string]bool {
	nth := func(i int, key string) int { return d.src.lineIn(i, "agents", key) }
	trees := map[string]bool{}
	for _, t := range cfg.Trees {
		trees[t.Name] = true
	}
	total := 0
	countsOK := true
	for i, a := range cfg.Agents {
		switch {
		case a.Tree == "" && d.bad[keyName("agents", i, "tree")]:
		case a.Tree == "":
			d.probs.add(nth(i, "tree"), "agents[%d]: tree is missing", i)
		case !trees[a.Tree]:
			d.probs.add(nth(i, "tree"), "agents[%d]: unknown tree %q; the config's trees are %s", i, a.Tree, quoteList(cfg.treeNames()))
		}
		switch {
		case a.Count < 1:
			d.probs.add(nth(i, "count"), "agents[%d]: count = %d: must be 1 or more", i, a.Count)
			countsOK = false
		case a.Count > MaxAgents:
			d.probs.add(nth(i, "count"), "agents[%d]: count = %d: a game has at most %d agents", i, a.Count, MaxAgents)
			countsOK = false
		default:
			total += a.Count
		}
	}
	if len(cfg.Agents) == 0 && !d.bad["agents"] && !d.goConfig {
		d.probs.add(0, "no [[agents]]: a game needs at least one agent")
	}
	if total > MaxAgents {
		d.probs.add(d.src.lineIn(0, "agents", "count"), "the [[agents]] entries make %d agents: a game has at most %d", total, MaxAgents)
		countsOK = false
	}
	if !countsOK {
		return nil
	}
	ids := make(map[string]bool, total)
	for i, a := range cfg.Agents {
		for _, id := range a.IDs() {
			if ids[id] {
				d.probs.add(nth(i, "tree"), "agents[%d]: agent id %q is already used by an earlier entry", i, id)
			}
			ids[id] = true
		}
	}
	return ids
}
