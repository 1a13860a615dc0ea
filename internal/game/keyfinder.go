package game

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// keyFinder finds the lines where keys stand in a TOML source, because
// BurntSushi/toml keeps key positions to itself and a config error without
// a line sends the user hunting. It understands [table] and [[array]]
// headers, bare, quoted and dotted keys, and skips multi-line strings; that
// covers what a game config holds.
type keyFinder struct {
	keys []foundKey
	hdrs []foundKey // headers: path is the table, index counts [[array]] entries
}

type foundKey struct {
	path  []string // full key path, table included
	index int      // which [[array]] entry of its table, or 0
	line  int
}

func newKeyFinder(src string) *keyFinder {
	f := &keyFinder{}
	var table []string
	index := 0
	counts := map[string]int{}
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
			name := strings.Trim(line[:end], "[ \t")
			table = splitKey(name)
			index = 0
			if arr {
				k := strings.Join(table, ".")
				index = counts[k]
				counts[k]++
			}
			f.hdrs = append(f.hdrs, foundKey{path: table, index: index, line: i + 1})
			continue
		}
		eq := strings.Index(line, "=")
		if eq <= 0 {
			continue
		}
		key := splitKey(strings.TrimSpace(line[:eq]))
		path := append(append([]string{}, table...), key...)
		f.keys = append(f.keys, foundKey{path: path, index: index, line: i + 1})
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

func samePath(a []string, b toml.Key) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lines returns every line where key k stands (once per [[array]] entry),
// or, for a table, where its header stands.
func (f *keyFinder) lines(k toml.Key) []int {
	var out []int
	for _, fk := range f.keys {
		if samePath(fk.path, k) {
			out = append(out, fk.line)
		}
	}
	if len(out) == 0 {
		for _, h := range f.hdrs {
			if samePath(h.path, k) {
				out = append(out, h.line)
			}
		}
	}
	return out
}

// headers returns the lines of the [[name]] headers, in order.
func (f *keyFinder) headers(name string) []int {
	var out []int
	for _, h := range f.hdrs {
		if len(h.path) == 1 && h.path[0] == name {
			out = append(out, h.line)
		}
	}
	return out
}

// lineIn returns the line of key in the n-th [[table]] entry, else the
// line of that entry's header, else 0.
func (f *keyFinder) lineIn(n int, table, key string) int {
	for _, fk := range f.keys {
		if fk.index == n && samePath(fk.path, toml.Key{table, key}) {
			return fk.line
		}
	}
	if h := f.headers(table); n < len(h) {
		return h[n]
	}
	return 0
}

// has reports whether the n-th [[table]] entry sets key.
func (f *keyFinder) has(n int, table, key string) bool {
	for _, fk := range f.keys {
		if fk.index == n && samePath(fk.path, toml.Key{table, key}) {
			return true
		}
	}
	return false
}

// hasUndecodedPrefix reports whether a shorter key in all is a prefix of k.
func hasUndecodedPrefix(k toml.Key, all []toml.Key) bool {
	for _, o := range all {
		if len(o) < len(k) && samePath(o, k[:len(o)]) {
			return true
		}
	}
	return false
}
