package game

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// keyFinder finds the lines where keys stand in a TOML source, because
// BurntSushi/toml keeps key positions to itself and a config error without
// a line sends the user hunting. It understands [table] and [[array]]
// headers, bare, quoted and dotted keys, and skips multi-line strings; that
// covers what a game config holds. It keeps little per key and looks keys
// up without hashing the entry number, so a config of a million [[array]]
// entries is indexed in linear time and modest memory.
type keyFinder struct {
	keys   map[string]int         // key path of a plain table (joined by keySep) -> first line
	hdrs   map[string][]int       // table path -> lines of its headers, in order
	arrays map[string]*arrayLines // [[array]] table -> the lines of its entries' keys
}

// arrayLines are the keys of an [[array]]'s entries: entry n's keys are
// recs[first[n]:first[n+1]].
type arrayLines struct {
	first []int32
	recs  []keyRec
}

type keyRec struct {
	key  string
	line int32
}

// keySep joins key parts; it cannot appear in a key.
const keySep = "\x00"

func newKeyFinder(src string) *keyFinder {
	f := &keyFinder{keys: map[string]int{}, hdrs: map[string][]int{}, arrays: map[string]*arrayLines{}}
	var table []string
	var array *arrayLines // the [[array]] whose entry is being read; nil in a plain table
	inMulti := ""
	line := 0
	for len(src) > 0 {
		raw := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			raw, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		line++
		text := strings.TrimSpace(raw)
		if inMulti != "" {
			if strings.Contains(text, inMulti) {
				inMulti = ""
			}
			continue
		}
		if text == "" || text[0] == '#' {
			continue
		}
		if strings.HasPrefix(text, "[") {
			arr := strings.HasPrefix(text, "[[")
			end := strings.Index(text, "]")
			if end < 0 {
				continue
			}
			table = splitKey(strings.Trim(text[:end], "[ \t"))
			k := strings.Join(table, keySep)
			f.hdrs[k] = append(f.hdrs[k], line)
			array = nil
			if arr && len(table) == 1 {
				array = f.arrays[k]
				if array == nil {
					array = &arrayLines{}
					f.arrays[k] = array
				}
				array.first = append(array.first, int32(len(array.recs)))
			}
			continue
		}
		eq := strings.Index(text, "=")
		if eq <= 0 {
			continue
		}
		key := strings.TrimSpace(text[:eq])
		if array != nil && !strings.ContainsAny(key, "\"'.") {
			array.recs = append(array.recs, keyRec{key, int32(line)}) // the common case: no copy
		} else {
			parts := splitKey(key)
			if array != nil {
				array.recs = append(array.recs, keyRec{strings.Join(parts, keySep), int32(line)})
			} else {
				path := strings.Join(append(append([]string{}, table...), parts...), keySep)
				if _, ok := f.keys[path]; !ok {
					f.keys[path] = line
				}
			}
		}
		rest := text[eq+1:]
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

// line returns the line where key k of a plain table stands, or the line
// of the table's header, or 0.
func (f *keyFinder) line(k toml.Key) int {
	p := strings.Join(k, keySep)
	if l, ok := f.keys[p]; ok {
		return l
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
	if a := f.arrays[table]; a != nil && n < len(a.first) {
		end := len(a.recs)
		if n+1 < len(a.first) {
			end = int(a.first[n+1])
		}
		for _, r := range a.recs[a.first[n]:end] {
			if r.key == key {
				return int(r.line)
			}
		}
	}
	if h := f.hdrs[table]; n < len(h) {
		return h[n]
	}
	if l, ok := f.keys[table]; ok {
		return l
	}
	return 0
}
