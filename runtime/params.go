package runtime

import (
	"slices"
	"sort"
	"strings"
)

// Param is one string parameter of a rule.
type Param struct {
	Name  string
	Value string
}

// Params are a rule's parameters, sorted by name, each name once. A rule's
// action and all of its conditions see the same Params. Read-only.
type Params []Param

// Get returns the value of the named parameter.
func (p Params) Get(name string) (string, bool) {
	i := sort.Search(len(p), func(i int) bool { return p[i].Name >= name })
	if i < len(p) && p[i].Name == name {
		return p[i].Value, true
	}
	return "", false
}

// sortParams turns parameters in file order into Params, in place: sorted
// by name, and of several with the same name only the last, which wins. It
// returns the prefix of in that holds them.
func sortParams(in []Param) []Param {
	sorted := true
	for i := 1; i < len(in); i++ {
		if in[i-1].Name >= in[i].Name {
			sorted = false
			break
		}
	}
	if sorted {
		return in
	}
	// A stable sort keeps same-named parameters in file order.
	slices.SortStableFunc(in, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	out := in[:0]
	for i, p := range in {
		if i+1 < len(in) && in[i+1].Name == p.Name {
			continue // a later one has the same name
		}
		out = append(out, p)
	}
	return out
}
