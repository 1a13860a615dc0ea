package game

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Decoding a config. The TOML text is read into plain values first (only a
// syntax error stops that), then every key is converted on its own, so a
// value of the wrong type is one problem among the others, with its line,
// instead of the only one reported.

// field is a key a table accepts and how its value is stored.
type field struct {
	key string
	set func(v any) string // "" when stored, else what is wrong with v
}

// tableSpec is what a table or [[array]] entry accepts.
type tableSpec struct {
	name   string
	fields []field
}

func (t tableSpec) keys() string {
	names := make([]string, len(t.fields))
	for i, f := range t.fields {
		names[i] = f.key
	}
	return strings.Join(names, ", ")
}

// topKeys are the config's tables, in the order of the docs.
var topKeys = []string{"run", "scripts", "trees", "plugins", "agents", "signals", "trace", "save"}

// decoder converts the raw TOML values into a Config, collecting problems.
type decoder struct {
	probs problems
	src   *keyFinder
	bad   map[string]bool // "table[i].key" or "table.key" of values that did not convert
}

func (d *decoder) config(raw map[string]any, cfg *Config) {
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		switch k {
		case "run":
			d.table(k, v, runSpec(&cfg.Run))
		case "scripts":
			d.table(k, v, scriptsSpec(&cfg.Scripts))
		case "trace":
			d.table(k, v, tableSpec{"trace", []field{{"file", str(&cfg.Trace.File)}}})
		case "save":
			d.table(k, v, tableSpec{"save", []field{{"file", str(&cfg.Save.File)}, {"every", whole(&cfg.Save.Every)}}})
		case "trees":
			cfg.Trees = entries(d, k, v, func(t *TreeConfig) tableSpec {
				return tableSpec{k, []field{{"name", str(&t.Name)}, {"file", str(&t.File)}}}
			})
		case "plugins":
			cfg.Plugins = entries(d, k, v, func(p *PluginConfig) tableSpec {
				return tableSpec{k, []field{{"name", str(&p.Name)}, {"path", str(&p.Path)}}}
			})
		case "agents":
			cfg.Agents = entries(d, k, v, func(a *AgentConfig) tableSpec {
				a.Count = 1
				return tableSpec{k, []field{{"tree", str(&a.Tree)}, {"count", whole(&a.Count)}, {"name", str(&a.Name)}}}
			})
		case "signals":
			cfg.Signals = entries(d, k, v, func(s *SignalConfig) tableSpec {
				return tableSpec{k, []field{{"at", number(&s.At)}, {"signal", str(&s.Signal)}, {"to", strList(&s.To)}}}
			})
		default:
			d.probs.add(d.src.line(toml.Key{k}), "unknown key %q; expected at the top level %s", k, strings.Join(topKeys, ", "))
		}
	}
}

func runSpec(r *RunConfig) tableSpec {
	return tableSpec{"run", []field{
		{"steps", whole(&r.Steps)},
		{"dt", number(&r.Dt)},
		{"seed", whole64(&r.Seed)},
		{"on_failure", str(&r.OnFailure)},
		{"runaway_limit", whole(&r.RunawayLimit)},
		{"strict", boolean(&r.Strict)},
		{"lua_call_timeout", duration(&r.LuaCallTimeout)},
		{"plugin_call_timeout", duration(&r.PluginCallTimeout)},
		{"lua_memory", size(&r.LuaMemory)},
	}}
}

func scriptsSpec(s *ScriptsConfig) tableSpec {
	return tableSpec{"scripts", []field{{"paths", strList(&s.Paths)}, {"world", str(&s.World)}}}
}

// table decodes a plain table such as [run].
func (d *decoder) table(name string, v any, spec tableSpec) {
	m, ok := v.(map[string]any)
	if !ok {
		d.bad[name] = true
		d.probs.add(d.src.line(toml.Key{name}), "%s = %s: expected a table ([%s] and its keys), not %s", name, valueText(v), name, tomlType(v))
		return
	}
	d.fields(-1, m, spec)
}

// entries decodes an array of tables such as [[agents]]; spec gives the
// fields of one new entry.
func entries[T any](d *decoder, name string, v any, spec func(*T) tableSpec) []T {
	list, ok := v.([]map[string]any)
	if !ok {
		if arr, isArr := v.([]any); isArr && len(arr) == 0 {
			return nil
		}
		d.bad[name] = true
		d.probs.add(d.src.line(toml.Key{name}), "%s = %s: expected [[%s]] entries, not %s", name, valueText(v), name, tomlType(v))
		return nil
	}
	out := make([]T, len(list))
	for i, m := range list {
		d.fields(i, m, spec(&out[i]))
	}
	return out
}

// fields stores the keys of one table (index < 0) or [[array]] entry.
func (d *decoder) fields(index int, m map[string]any, spec tableSpec) {
	for _, k := range sortedKeys(m) {
		at := slices.IndexFunc(spec.fields, func(f field) bool { return f.key == k })
		line := d.keyLine(spec.name, index, k)
		if at < 0 {
			d.probs.add(line, "unknown key %q; expected in [%s] %s", spec.name+"."+k, spec.name, spec.keys())
			continue
		}
		if msg := spec.fields[at].set(m[k]); msg != "" {
			d.bad[keyName(spec.name, index, k)] = true
			d.probs.add(line, "%s = %s: %s", keyTitle(spec.name, index, k), valueText(m[k]), msg)
		}
	}
}

func (d *decoder) keyLine(table string, index int, key string) int {
	if index < 0 {
		return d.src.line(toml.Key{table, key})
	}
	return d.src.lineIn(index, table, key)
}

// keyName identifies a key for d.bad; keyTitle is how messages name it:
// run.steps, agents[0]: count.
func keyName(table string, index int, key string) string {
	if index < 0 {
		return table + "." + key
	}
	return table + "[" + strconv.Itoa(index) + "]." + key
}

func keyTitle(table string, index int, key string) string {
	if index < 0 {
		return table + "." + key
	}
	return table + "[" + strconv.Itoa(index) + "]: " + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// The converters: each stores v in its target and returns "", or returns
// what is wrong.

func str(p *string) func(any) string {
	return func(v any) string {
		s, ok := v.(string)
		if !ok {
			return "expected a string, not " + tomlType(v)
		}
		*p = s
		return ""
	}
}

func boolean(p *bool) func(any) string {
	return func(v any) string {
		b, ok := v.(bool)
		if !ok {
			return "expected true or false, not " + tomlType(v)
		}
		*p = b
		return ""
	}
}

func whole64(p *int64) func(any) string {
	return func(v any) string {
		n, ok := v.(int64)
		if !ok {
			return "expected a whole number, not " + tomlType(v)
		}
		*p = n
		return ""
	}
}

// whole stores into an int; the checks bound every int key far inside
// what an int holds, so a value beyond them is reported there. Beyond int32
// the value is clamped (on 32-bit systems) and then reported by the checks.
func whole(p *int) func(any) string {
	return func(v any) string {
		n, ok := v.(int64)
		if !ok {
			return "expected a whole number, not " + tomlType(v)
		}
		*p = int(max(min(n, math.MaxInt), math.MinInt))
		return ""
	}
}

func number(p *float64) func(any) string {
	return func(v any) string {
		switch n := v.(type) {
		case float64:
			*p = n
		case int64:
			*p = float64(n)
		default:
			return "expected a number, not " + tomlType(v)
		}
		return ""
	}
}

func strList(p *[]string) func(any) string {
	return func(v any) string {
		arr, ok := v.([]any)
		if !ok {
			return "expected a list of strings, not " + tomlType(v)
		}
		out := make([]string, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				return fmt.Sprintf("expected a list of strings; item %d is %s", i+1, tomlType(e))
			}
			out[i] = s
		}
		*p = out
		return ""
	}
}

func duration(p *Duration) func(any) string {
	return func(v any) string {
		s, ok := v.(string)
		if !ok {
			return `expected a duration as a string, such as "100ms" or "2s", not ` + tomlType(v)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return `not a duration; write one such as "100ms" or "2s"`
		}
		p.Duration = d
		return ""
	}
}

// size reads a size in bytes: a whole number, or a string with a unit
// ("256MB", "1 GB", "512KB"; powers of 1024).
func size(p *int64) func(any) string {
	return func(v any) string {
		switch n := v.(type) {
		case int64:
			*p = n
			return ""
		case string:
			if b, ok := parseSize(n); ok {
				*p = b
				return ""
			}
			return `not a size; write one such as "256MB" or "1GB"`
		}
		return `expected a size such as "256MB", not ` + tomlType(v)
	}
}

func parseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	unit := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(s), u.suffix) {
			s, unit = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/unit {
		return 0, false
	}
	return n * unit, true
}

// tomlType names the TOML type of a decoded value, with an article.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// valueText shows a value as the config wrote it, cut short.
func valueText(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = strconv.Quote(x)
	case map[string]any:
		s = "{...}"
	case []map[string]any:
		s = "[{...}]"
	case []any:
		s = "[...]"
	default:
		s = fmt.Sprint(x)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// problems collects a config's problems, each with its line. A config can
// hold millions of bad entries: all are counted, but only the first
// maxProblems in line order are kept (a bounded heap) and formatted.
type problems struct {
	path string
	kept problemHeap
	n    int // problems added
}

type problem struct {
	line   int // 0 (unknown) sorts last
	seq    int // the order problems were found in, for equal lines
	format string
	args   []any
}

// maxProblems is how many problems a config error lists; the rest are
// counted in a last line.
const maxProblems = 100

func (p *problems) add(line int, format string, args ...any) {
	p.n++
	pr := problem{line: line, seq: p.n, format: format, args: args}
	switch {
	case len(p.kept) < maxProblems:
		heap.Push(&p.kept, pr)
	case pr.before(p.kept[0]):
		p.kept[0] = pr
		heap.Fix(&p.kept, 0)
	}
}

func (a problem) before(b problem) bool {
	la, lb := a.line, b.line
	if la == 0 {
		la = math.MaxInt
	}
	if lb == 0 {
		lb = math.MaxInt
	}
	return la < lb || (la == lb && a.seq < b.seq)
}

// problemHeap is a max-heap: its root is the problem that sorts last.
type problemHeap []problem

func (h problemHeap) Len() int           { return len(h) }
func (h problemHeap) Less(i, j int) bool { return h[j].before(h[i]) }
func (h problemHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *problemHeap) Push(x any)        { *h = append(*h, x.(problem)) }
func (h *problemHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// err returns nil, or the kept problems as joined *ConfigError values in
// line order (problems without a line last), then a *MoreProblems counting
// the others.
func (p *problems) err() error {
	if p.n == 0 {
		return nil
	}
	list := slices.Clone(p.kept)
	slices.SortFunc(list, func(a, b problem) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	errs := make([]error, 0, len(list)+1)
	for _, pr := range list {
		errs = append(errs, &ConfigError{File: p.path, Line: pr.line, Msg: fmt.Sprintf(pr.format, pr.args...)})
	}
	if more := p.n - len(list); more > 0 {
		errs = append(errs, &MoreProblems{File: p.path, N: more})
	}
	return errors.Join(errs...)
}

// MoreProblems stands for the problems of a config beyond the ones listed.
type MoreProblems struct {
	File string
	N    int
}

func (e *MoreProblems) Error() string {
	return fmt.Sprintf("%s: ... and %d more problems (only the first %d are listed)", e.File, e.N, maxProblems)
}

func (e *MoreProblems) Unwrap() error { return ErrConfig }
