package runtime

import "sort"

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

// makeParams builds Params from parameters in file order: a later one with
// the same name wins.
func makeParams(in []Param) Params {
	if len(in) == 0 {
		return nil
	}
	last := make(map[string]string, len(in))
	for _, p := range in {
		last[p.Name] = p.Value
	}
	out := make(Params, 0, len(last))
	for n, v := range last {
		out = append(out, Param{n, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
