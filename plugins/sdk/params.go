package sdk

import (
	"fmt"
	"sort"
	"strconv"
)

// Params are a rule's parameters (strings, sorted by name), shared by its
// action and all of its conditions. The typed getters return the default
// when the parameter is absent and an error (ErrBadParam) when it does not
// parse: a typo in a tree file is a clear error, not a silent default.
type Params []Param

// Get returns the raw value of a parameter.
func (p Params) Get(name string) (string, bool) {
	i := sort.Search(len(p), func(i int) bool { return p[i].Name >= name })
	if i < len(p) && p[i].Name == name {
		return p[i].Value, true
	}
	return "", false
}

// String returns a parameter or def when absent.
func (p Params) String(name, def string) string {
	if v, ok := p.Get(name); ok {
		return v
	}
	return def
}

// Float returns a parameter parsed as a number, or def when absent.
func (p Params) Float(name string, def float64) (float64, error) {
	v, ok := p.Get(name)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return def, fmt.Errorf("%w: parameter %q = %q is not a number", ErrBadParam, name, v)
	}
	return f, nil
}

// Int returns a parameter parsed as an integer, or def when absent.
func (p Params) Int(name string, def int) (int, error) {
	v, ok := p.Get(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def, fmt.Errorf("%w: parameter %q = %q is not an integer", ErrBadParam, name, v)
	}
	return n, nil
}

// Bool returns a parameter that must be "true" or "false", or def when
// absent.
func (p Params) Bool(name string, def bool) (bool, error) {
	v, ok := p.Get(name)
	if !ok {
		return def, nil
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return def, fmt.Errorf("%w: parameter %q = %q is not true or false", ErrBadParam, name, v)
}
