package game

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// keyFinder finds the lines where keys stand in a TOML source, because
// BurntSushi/toml keeps key positions to itself and a config error without
// a line sends the user hunting. It understands [table] and [[array]]
// headers, bare, quoted and dotted keys, and skips multi-line strings; that
// covers what a game config holds. Look-ups go through maps, so finding the
// lines of a million entries' keys takes linear time.
type keyFinder struct {
	keys    map[string][]int // full key path (joined by keySep) -> its lines
	entries map[entryKey]int // key of the n-th [[array]] entry -> its line
	hdrs    map[string][]int // table path -> lines of its headers, in order
}

// entryKey is a key of one [[array]] entry: table, entry number, key.
type entryKey struct {
	table string
	n     int
	key   string
}

// keySep joins key parts; it cannot appear in a key.
const keySep = "\x00"

func newKeyFinder(src string) *keyFinder {
	f := &keyFinder{keys: map[string][]int{}, entries: map[entryKey]int{}, hdrs: map[string][]int{}}
	var table []string
	index := -1 // entry number inside an [[array]]; -1 in a plain table
	inMulti := ""
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if inMulti != "" {
			if strings.Contains(line, inMulti) {
				inMulti = ""
			}
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			arr := strings.HasPrefix(line, "[[")
			end := strings.Index(line, "]")
			if end < 0 {
				continue
			}
			table = splitKey(strings.Trim(line[:end], "[ \t"))
			k := strings.Join(table, keySep)
			index = -1
			if arr {
				index = len(f.hdrs[k])
			}
			f.hdrs[k] = append(f.hdrs[k], i+1)
			continue
		}
		eq := strings.Index(line, "=")
		if eq <= 0 {
			continue
		}
		key := splitKey(strings.TrimSpace(line[:eq]))
		path := strings.Join(append(append([]string{}, table...), key...), keySep)
		f.keys[path] = append(f.keys[path], i+1)
		if index >= 0 && len(table) == 1 {
			ek := entryKey{table[0], index, strings.Join(key, keySep)}
			if _, ok := f.entries[ek]; !ok {
				f.entries[ek] = i + 1
			}
		}
		rest := line[eq+1:]
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(rest, q) == 1 {
				inMulti = q
			}
		}
	}
	return f
}

// splitKey splits a dotted key, keeping quoted parts whole.
func splitKey(s string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// line returns the first line where key k of a plain table stands, or the
// line of the table's header, or 0.
func (f *keyFinder) line(k toml.Key) int {
	p := strings.Join(k, keySep)
	if l := f.keys[p]; len(l) > 0 {
		return l[0]
	}
	if h := f.hdrs[p]; len(h) > 0 {
		return h[0]
	}
	return 0
}

// lineIn returns the line of key in the n-th [[table]] entry, else the
// line of that entry's header, else the line where the table is assigned
// (table = [ ... ] written inline), else 0.
func (f *keyFinder) lineIn(n int, table, key string) int {
	if l, ok := f.entries[entryKey{table, n, key}]; ok {
		return l
	}
	if h := f.hdrs[table]; n < len(h) {
		return h[n]
	}
	if l := f.keys[table]; len(l) > 0 {
		return l[0]
	}
	return 0
}
