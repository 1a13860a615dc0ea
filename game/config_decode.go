package game

import (
	"container/heap"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Decoding a config. The TOML text is read into plain values first (only a
// syntax error stops that), then every key is converted on its own into the
// Config struct field its toml tag names, so a value of the wrong type is
// one problem among the others, with its line, instead of the only one
// reported. The struct's tags are the one list of keys: the decoder, the
// unknown-key messages and the reference (config_doc.go) all read them.

// decoder converts the raw TOML values into a Config, collecting problems.
type decoder struct {
	probs problems
	src   *keyFinder
	bad   map[string]bool // "table[i].key" or "table.key" of values that did not convert
	// A Config made in Go (config_go.go): its sources may be in files, and
	// it may have no agents (the program adds them).
	files    fs.FS
	goConfig bool
}

// knownKeys lists the keys of each table, from the Config struct's tags ("":
// the top level), for unknown-key messages.
var knownKeys = func() map[string][]string {
	out := map[string][]string{}
	ct := reflect.TypeOf(Config{})
	for i := range ct.NumField() {
		f := ct.Field(i)
		table := tomlName(f)
		if table == "-" {
			continue
		}
		out[""] = append(out[""], table)
		st := f.Type
		if st.Kind() == reflect.Slice {
			st = st.Elem()
		}
		for j := range st.NumField() {
			out[table] = append(out[table], tomlName(st.Field(j)))
		}
	}
	return out
}()

func (d *decoder) config(raw map[string]any, cfg *Config) {
	cv := reflect.ValueOf(cfg).Elem()
	for _, k := range sortedKeys(raw) {
		f, ok := fieldByTag(cv, k)
		switch {
		case !ok || k == "-":
			d.probs.add(d.src.line(toml.Key{k}), "unknown key %q; expected at the top level %s", k, strings.Join(knownKeys[""], ", "))
		case f.Kind() == reflect.Slice:
			d.entries(k, raw[k], f)
		default:
			m, isTable := raw[k].(map[string]any)
			if !isTable {
				d.bad[k] = true
				d.probs.add(d.src.line(toml.Key{k}), "%s = %s: expected a table ([%s] and its keys), not %s", k, valueText(raw[k]), k, valueType(raw[k]))
				continue
			}
			d.fields(k, -1, m, f)
		}
	}
}

// entryDefaults set what an [[array]] entry holds for the keys it leaves
// out, where that is not the zero value.
var entryDefaults = map[string]func(reflect.Value){
	"agents": func(v reflect.Value) { v.Addr().Interface().(*AgentConfig).Count = 1 },
}

// entries decodes an array of tables such as [[agents]] into the slice f.
func (d *decoder) entries(name string, v any, f reflect.Value) {
	list, ok := v.([]map[string]any)
	if !ok {
		if arr, isArr := v.([]any); isArr && len(arr) == 0 {
			return
		}
		d.bad[name] = true
		d.probs.add(d.src.line(toml.Key{name}), "%s = %s: expected [[%s]] entries, not %s", name, valueText(v), name, valueType(v))
		return
	}
	out := reflect.MakeSlice(f.Type(), len(list), len(list))
	for i, m := range list {
		e := out.Index(i)
		if def := entryDefaults[name]; def != nil {
			def(e)
		}
		d.fields(name, i, m, e)
	}
	f.Set(out)
}

// fields stores the keys of one table (index < 0) or [[array]] entry into
// the struct v.
func (d *decoder) fields(table string, index int, m map[string]any, v reflect.Value) {
	for _, k := range sortedKeys(m) {
		line := d.keyLine(table, index, k)
		f, ok := fieldByTag(v, k)
		if !ok {
			d.probs.add(line, "unknown key %q; expected in [%s] %s", table+"."+k, table, strings.Join(knownKeys[table], ", "))
			continue
		}
		if msg := store(f, m[k]); msg != "" {
			d.bad[keyName(table, index, k)] = true
			d.probs.add(line, "%s = %s: %s", keyTitle(table, index, k), valueText(m[k]), msg)
		}
	}
}

// fieldByTag is the field of struct v whose toml tag is key.
func fieldByTag(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if tomlName(t.Field(i)) == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

var (
	durationType = reflect.TypeOf(Duration{})
	sizeType     = reflect.TypeOf(Size(0))
)

// store converts v into the field f and returns "", or what is wrong.
func store(f reflect.Value, v any) string {
	switch f.Type() {
	case durationType:
		return duration(f.Addr().Interface().(*Duration), v)
	case sizeType:
		return size(f.Addr().Interface().(*Size), v)
	case dataType:
		return storeData(f, v)
	}
	switch f.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return "expected a string, not " + valueType(v)
		}
		f.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return "expected true or false, not " + valueType(v)
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, ok := v.(int64)
		if !ok {
			return "expected a whole number, not " + valueType(v)
		}
		// The checks bound every int key far inside what an int holds; on
		// a 32-bit system a bigger value is clamped and then reported there.
		if f.OverflowInt(n) {
			n = max(min(n, math.MaxInt32), math.MinInt32)
		}
		f.SetInt(n)
	case reflect.Float64:
		switch n := v.(type) {
		case float64:
			f.SetFloat(n)
		case int64:
			f.SetFloat(float64(n))
		default:
			return "expected a number, not " + valueType(v)
		}
	case reflect.Slice: // of strings: the only lists a config holds
		arr, ok := v.([]any)
		if !ok {
			return "expected a list of strings, not " + valueType(v)
		}
		out := make([]string, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				return fmt.Sprintf("expected a list of strings; item %d is %s", i+1, valueType(e))
			}
			out[i] = s
		}
		f.Set(reflect.ValueOf(out))
	case reflect.Map: // of strings to strings: [[agents]] translate
		m, ok := v.(map[string]any)
		if !ok {
			return "expected a table of names, such as { Attack = \"gruntAttack\" }, not " + valueType(v)
		}
		out := make(map[string]string, len(m))
		for _, k := range sortedKeys(m) {
			s, ok := m[k].(string)
			if !ok || s == "" || k == "" {
				return fmt.Sprintf("expected a table of action names; %q = %s is not a name", k, valueText(m[k]))
			}
			out[k] = s
		}
		f.Set(reflect.ValueOf(out))
	default:
		panic("game: config field of a type the decoder does not know: " + f.Type().String())
	}
	return ""
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

func duration(p *Duration, v any) string {
	s, ok := v.(string)
	if !ok {
		return `expected a duration as a string, such as "100ms" or "2s", not ` + valueType(v)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return `not a duration; write one such as "100ms" or "2s"`
	}
	p.Duration = d
	return ""
}

// size reads a size in bytes: a string such as "256MB", "1 GB", "512KB"
// (powers of 1024) or "1048576" (bytes).
func size(p *Size, v any) string {
	s, ok := v.(string)
	if !ok {
		return `expected a size as a string, such as "256MB", not ` + valueType(v)
	}
	b, ok := parseSize(s)
	if !ok {
		return `not a size; write one such as "256MB" or "1GB"`
	}
	*p = Size(b)
	return ""
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

// valueType names the TOML type of a decoded value, with an article.
func valueType(v any) string {
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
