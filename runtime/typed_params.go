package runtime

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Typed parameters: a Go action, condition or hook declares the rule
// parameters it reads as the fields of a struct, and gets them parsed once,
// when the tree is bound:
//
//	type moveParams struct {
//		Speed  float64       `param:"move.speed" default:"1.5" doc:"metres per second"`
//		Target string        `param:"move.target,required" doc:"where to go"`
//		Pause  time.Duration `param:"move.pause" doc:"how long to stop at the target"`
//	}
//
// ParamSet reads such a struct type once (DeclareParams); its Specs are what
// `btrun validate` lists and what its unread-parameter warning compares
// against; Parse checks a rule's parameters at bind time and returns the
// parsed values, which every agent on that rule then reads through a
// pointer: no parsing, look-up or allocation per step. A parameter of the
// wrong type, or a required one left out, is a bind error at the rule's (or
// the condition's) FILE:LINE:COL, every problem of a rule together.

// ParamKind is the type of a declared parameter's value, from the Go type
// of its field.
type ParamKind uint8

const (
	// ParamAny is a parameter whose value the reader parses itself (the
	// built-ins, Lua and plugins): binding does not check it.
	ParamAny ParamKind = iota
	// ParamNumber is a finite number (float64, float32 fields).
	ParamNumber
	// ParamInteger is a whole number in the field's range (int, int8 ..
	// int64, uint, uint8 .. uint64 fields).
	ParamInteger
	// ParamDuration is a time.Duration field: a Go duration such as
	// "250ms", "1.5s" or "2m", or a plain number of seconds ("0.25").
	ParamDuration
	// ParamBool is a bool field: true or false, nothing else.
	ParamBool
	// ParamString is a string field: any text, "" included.
	ParamString
)

// String is the kind's name as the reference and `btrun validate` show it.
func (k ParamKind) String() string {
	switch k {
	case ParamNumber:
		return "number"
	case ParamInteger:
		return "integer"
	case ParamDuration:
		return "duration"
	case ParamBool:
		return "boolean"
	case ParamString:
		return "string"
	}
	return "any"
}

// ErrParamDecl marks a struct that cannot declare parameters (or state): a
// field of a type no parameter has, a missing tag, a bad default. It is a
// programmer's mistake, reported when the action is registered.
var ErrParamDecl = errors.New("runtime: bad parameter declaration")

// ParamSet is the parameters a Go action, condition or hook reads, declared
// by the fields of P. It is made once per registered name (DeclareParams)
// and read-only afterwards: any number of goroutines may use it.
type ParamSet[P any] struct {
	specs  []ParamSpec
	fields []paramField
	zero   P // the defaults, copied into every rule's values
}

// paramField is one declared parameter: where it lives in P and how its
// text is read.
type paramField struct {
	index []int
	spec  ParamSpec
	bits  int // integer fields: the size in bits, for the range check
	signd bool
}

// DeclareParams reads the parameter declarations of P, a struct type whose
// exported fields each carry a `param:"NAME"` tag (`param:"NAME,required"`
// for one that must be given, `param:"-"` to leave a field out), an
// optional `default:"VALUE"` written as in a tree file, and an optional
// `doc:"TEXT"`. Fields are float64/float32 (number), int and uint types
// (integer), time.Duration (duration), bool (boolean) and string. P may be
// struct{} for a reader of no parameters.
func DeclareParams[P any]() (*ParamSet[P], error) {
	s := &ParamSet[P]{specs: []ParamSpec{}}
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: parameters are declared by a struct, not a %s", ErrParamDecl, t)
	}
	zero := reflect.ValueOf(&s.zero).Elem()
	var errs []error
	seen := map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("param")
		if tag == "-" {
			continue
		}
		where := t.String() + "." + f.Name
		if !ok {
			errs = append(errs, fmt.Errorf("%w: field %s has no param tag (`param:\"NAME\"`, or `param:\"-\"` to leave it out)", ErrParamDecl, where))
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		pf := paramField{index: f.Index, spec: ParamSpec{Name: name, Doc: f.Tag.Get("doc")}}
		switch opts {
		case "":
		case "required":
			pf.spec.Required = true
		default:
			errs = append(errs, fmt.Errorf("%w: field %s: unknown param option %q (the one option is required)", ErrParamDecl, where, opts))
		}
		if name == "" {
			errs = append(errs, fmt.Errorf("%w: field %s: the param tag names no parameter", ErrParamDecl, where))
			continue
		}
		if other, dup := seen[name]; dup {
			errs = append(errs, fmt.Errorf("%w: fields %s and %s both declare parameter %q", ErrParamDecl, other, where, name))
			continue
		}
		seen[name] = where
		pf.spec.Kind, pf.bits, pf.signd = kindOf(f.Type)
		if pf.spec.Kind == ParamAny {
			errs = append(errs, fmt.Errorf("%w: field %s is a %s; a parameter is a number (float64), an integer (int...), a duration (time.Duration), a bool or a string", ErrParamDecl, where, f.Type))
			continue
		}
		pf.spec.Type = pf.spec.Kind.String()
		if def, ok := f.Tag.Lookup("default"); ok {
			if pf.spec.Required {
				errs = append(errs, fmt.Errorf("%w: field %s: a required parameter has no default", ErrParamDecl, where))
				continue
			}
			if err := pf.set(zero.FieldByIndex(f.Index), def); err != nil {
				errs = append(errs, fmt.Errorf("%w: field %s: default %v", ErrParamDecl, where, err))
				continue
			}
			pf.spec.Default = def
		} else if !pf.spec.Required {
			pf.spec.Default = zeroText[pf.spec.Kind] // what the field holds when the rule gives none
		}
		s.fields = append(s.fields, pf)
		s.specs = append(s.specs, pf.spec)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// zeroText is the zero value of each kind, as a tree would write it.
var zeroText = map[ParamKind]string{ParamNumber: "0", ParamInteger: "0", ParamDuration: "0s", ParamBool: "false", ParamString: ""}

// kindOf is the parameter kind of a field's type; integers also give their
// size and sign.
func kindOf(t reflect.Type) (ParamKind, int, bool) {
	if t == reflect.TypeFor[time.Duration]() {
		return ParamDuration, 64, true
	}
	switch t.Kind() {
	case reflect.Float64, reflect.Float32:
		return ParamNumber, t.Bits(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ParamInteger, t.Bits(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ParamInteger, t.Bits(), false
	case reflect.Bool:
		return ParamBool, 0, false
	case reflect.String:
		return ParamString, 0, false
	}
	return ParamAny, 0, false
}

// Specs are the declared parameters in field order, as ActionDef.Params,
// ConditionDef.Params and `btrun validate -v` list them. The slice is
// shared: do not change it.
func (s *ParamSet[P]) Specs() []ParamSpec { return s.specs }

// Parse reads the declared parameters of the rule being bound: a value for
// every field, the default (or the zero value) where the rule gives none.
// Every problem is reported at the site, together (what names the reader,
// "action \"move\"" for instance). Call it at bind time, from an
// ActionDef's or ConditionDef's Bind; the result is the rule's, shared by
// every agent that runs it.
func (s *ParamSet[P]) Parse(site *Site, what string) (*P, error) {
	p := new(P)
	*p = s.zero
	if len(s.fields) == 0 {
		return p, nil
	}
	v := reflect.ValueOf(p).Elem()
	var errs ErrorList
	for i := range s.fields {
		f := &s.fields[i]
		text, ok := site.Params.Get(f.spec.Name)
		if !ok {
			if f.spec.Required {
				errs = append(errs, site.Errorf("%s: needs parameter %q (%s)", what, f.spec.Name, f.spec.Kind).(*Error))
			}
			continue
		}
		if err := f.set(v.FieldByIndex(f.index), text); err != nil {
			errs = append(errs, site.Errorf("%s: parameter %v", what, err).(*Error))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// set parses text into the field v; the error reads after "parameter ".
func (f *paramField) set(v reflect.Value, text string) error {
	bad := func(want string) error { return fmt.Errorf("%q = %q is not %s", f.spec.Name, text, want) }
	switch f.spec.Kind {
	case ParamString:
		v.SetString(text)
	case ParamBool:
		switch text {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return bad("a boolean (true or false)")
		}
	case ParamNumber:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), f.bits)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("a number")
		}
		v.SetFloat(x)
	case ParamInteger:
		t := strings.TrimSpace(text)
		if f.signd {
			x, err := strconv.ParseInt(t, 10, f.bits)
			if err != nil {
				if f.bits == 64 {
					return bad("an integer")
				}
				return bad(fmt.Sprintf("an integer from %d to %d", int64(-1)<<(f.bits-1), int64(1)<<(f.bits-1)-1))
			}
			v.SetInt(x)
		} else {
			x, err := strconv.ParseUint(t, 10, f.bits)
			if err != nil {
				if f.bits == 64 {
					return bad("an integer >= 0")
				}
				return bad(fmt.Sprintf("an integer from 0 to %d", uint64(1)<<f.bits-1))
			}
			v.SetUint(x)
		}
	case ParamDuration:
		d, err := parseDuration(text)
		if err != nil {
			return bad(`a duration ("250ms", "1.5s", "2m", or a number of seconds)`)
		}
		v.SetInt(int64(d))
	}
	return nil
}

// parseDuration reads a Go duration ("1.5s") or a number of seconds
// ("1.5"), finite and within time.Duration's range.
func parseDuration(text string) (time.Duration, error) {
	t := strings.TrimSpace(text)
	if d, err := time.ParseDuration(t); err == nil {
		return d, nil
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(x) || math.Abs(x*float64(time.Second)) >= math.MaxInt64 {
		return 0, fmt.Errorf("not a duration")
	}
	return time.Duration(math.Round(x * float64(time.Second))), nil
}
