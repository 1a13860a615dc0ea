package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Typed variables (the designer's blackboard): besides booleans, a tree may
// declare number, string and vector variables (<variable name="Ammo"
// type="number" default="12"/>). They share the booleans' index space
// (Tree.Vars, VarIndex) so that names, saves, reloads and the trace treat
// every variable alike; only where the value lives differs (vars_agent.go).

// VarType is a variable's type.
type VarType uint8

const (
	VarBoolean VarType = iota // the default
	VarNumber                 // a finite float64
	VarString
	VarVector // x, y, z
)

var varTypeNames = [...]string{"boolean", "number", "string", "vector"}

func (t VarType) String() string {
	if int(t) < len(varTypeNames) {
		return varTypeNames[t]
	}
	return "VarType(" + strconv.Itoa(int(t)) + ")"
}

// ParseVarType reads a type attribute's value.
func ParseVarType(s string) (VarType, bool) {
	for i, n := range varTypeNames {
		if n == s {
			return VarType(i), true
		}
	}
	return 0, false
}

// Vec3 is a vector variable's value.
type Vec3 struct{ X, Y, Z float64 }

// VarValue is a variable's value, of any type: Type says which field holds it.
type VarValue struct {
	Type VarType
	Bool bool
	Num  float64
	Str  string
	Vec  Vec3
}

// BoolVar, NumberVar, StringVar and VectorVar make values of each type.
func BoolVar(v bool) VarValue            { return VarValue{Type: VarBoolean, Bool: v} }
func NumberVar(v float64) VarValue       { return VarValue{Type: VarNumber, Num: v} }
func StringVar(v string) VarValue        { return VarValue{Type: VarString, Str: v} }
func VectorVar(x, y, z float64) VarValue { return VarValue{Type: VarVector, Vec: Vec3{x, y, z}} }

// ErrBadValue marks a variable's value of the wrong type or not finite: a
// declaration's default, a signal's data, a set from Lua or Go.
var ErrBadValue = errors.New("runtime: bad variable value")

// Equal reports whether two values have the same type and value (numbers
// compared exactly).
func (v VarValue) Equal(w VarValue) bool {
	if v.Type != w.Type {
		return false
	}
	switch v.Type {
	case VarNumber:
		return v.Num == w.Num
	case VarString:
		return v.Str == w.Str
	case VarVector:
		return v.Vec == w.Vec
	}
	return v.Bool == w.Bool
}

// String writes the value as a declaration's default would: true, 12,
// "grunt-2" (quoted), 1,2,3.
func (v VarValue) String() string {
	switch v.Type {
	case VarNumber:
		return formatNumber(v.Num)
	case VarString:
		return strconv.Quote(v.Str)
	case VarVector:
		return formatVec(v.Vec)
	}
	return strconv.FormatBool(v.Bool)
}

// Text writes the value as an attribute holds it (a string unquoted).
func (v VarValue) Text() string {
	if v.Type == VarString {
		return v.Str
	}
	return v.String()
}

func formatNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func formatVec(v Vec3) string {
	return formatNumber(v.X) + "," + formatNumber(v.Y) + "," + formatNumber(v.Z)
}

// Data is the value as signal data or a host's value: a vector is a table
// with x, y and z.
func (v VarValue) Data() Value {
	switch v.Type {
	case VarNumber:
		return Value{Kind: NumberValue, Num: v.Num}
	case VarString:
		return Value{Kind: StringValue, Str: v.Str}
	case VarVector:
		return Value{Kind: TableValue, Table: []Field{
			{Key: Value{Kind: StringValue, Str: "x"}, Val: Value{Kind: NumberValue, Num: v.Vec.X}},
			{Key: Value{Kind: StringValue, Str: "y"}, Val: Value{Kind: NumberValue, Num: v.Vec.Y}},
			{Key: Value{Kind: StringValue, Str: "z"}, Val: Value{Kind: NumberValue, Num: v.Vec.Z}},
		}}
	}
	return Value{Kind: BoolValue, Bool: v.Bool}
}

// VarValueOf reads data as a value of type t, without conversion: a number
// for a number, a string for a string, a boolean for a boolean, a table
// with numbers x, y and z (and nothing else) for a vector. A number must
// be finite.
func VarValueOf(t VarType, d Value) (VarValue, error) {
	switch t {
	case VarBoolean:
		if d.Kind == BoolValue {
			return BoolVar(d.Bool), nil
		}
	case VarNumber:
		if d.Kind == NumberValue {
			if math.IsNaN(d.Num) || math.IsInf(d.Num, 0) {
				return VarValue{}, fmt.Errorf("%w: %s is not a finite number", ErrBadValue, formatNumber(d.Num))
			}
			return NumberVar(d.Num), nil
		}
	case VarString:
		if d.Kind == StringValue {
			return StringVar(d.Str), nil
		}
	case VarVector:
		if d.Kind == TableValue {
			return vectorOf(d)
		}
	}
	return VarValue{}, fmt.Errorf("%w: expected a %s, got %s", ErrBadValue, t, dataKindName(d))
}

// vectorOf reads a table {x=, y=, z=} of finite numbers.
func vectorOf(d Value) (VarValue, error) {
	var got [3]bool
	var xyz [3]float64
	for _, f := range d.Table {
		k := -1
		if f.Key.Kind == StringValue && len(f.Key.Str) == 1 {
			k = strings.IndexByte("xyz", f.Key.Str[0])
		}
		if k < 0 || f.Val.Kind != NumberValue || math.IsNaN(f.Val.Num) || math.IsInf(f.Val.Num, 0) {
			return VarValue{}, fmt.Errorf("%w: expected a vector, a table with finite numbers x, y and z and nothing else", ErrBadValue)
		}
		got[k], xyz[k] = true, f.Val.Num
	}
	if !got[0] || !got[1] || !got[2] {
		return VarValue{}, fmt.Errorf("%w: expected a vector, a table with finite numbers x, y and z", ErrBadValue)
	}
	return VectorVar(xyz[0], xyz[1], xyz[2]), nil
}

func dataKindName(d Value) string {
	switch d.Kind {
	case NilValue:
		return "nothing"
	case BoolValue:
		return "a boolean"
	case NumberValue:
		return "a number"
	case StringValue:
		return "a string"
	}
	return "a table"
}

// ParseVarValue reads a value of type t as a declaration writes it: true
// or false, a finite decimal number, any text for a string, x,y,z for a
// vector. NaN, infinities, hexadecimal and empty numbers are errors.
func ParseVarValue(t VarType, s string) (VarValue, error) {
	switch t {
	case VarNumber:
		x, err := parseDecimal(strings.TrimSpace(s))
		if err != nil {
			return VarValue{}, err
		}
		return NumberVar(x), nil
	case VarString:
		return StringVar(s), nil
	case VarVector:
		parts := strings.Split(s, ",")
		if len(parts) != 3 {
			return VarValue{}, fmt.Errorf("%w: %q is not a vector; expected x,y,z such as 0,1.5,-2", ErrBadValue, s)
		}
		var xyz [3]float64
		for i, p := range parts {
			x, err := parseDecimal(strings.TrimSpace(p))
			if err != nil {
				return VarValue{}, fmt.Errorf("%w: %q is not a vector (%s); expected x,y,z such as 0,1.5,-2", ErrBadValue, s, badValueMsg(err))
			}
			xyz[i] = x
		}
		return VectorVar(xyz[0], xyz[1], xyz[2]), nil
	}
	switch s {
	case "true":
		return BoolVar(true), nil
	case "false":
		return BoolVar(false), nil
	}
	return VarValue{}, fmt.Errorf("%w: %q is not a boolean; expected true or false", ErrBadValue, s)
}

// parseDecimal reads a finite decimal number: digits, an optional sign, a
// point and an exponent; no hexadecimal, underscores, NaN or infinity.
func parseDecimal(s string) (float64, error) {
	if !isDecimal(s) {
		return 0, fmt.Errorf("%w: %q is not a number; expected a finite decimal such as 12 or -0.5", ErrBadValue, s)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%w: %q is not a finite number; expected a decimal such as 12 or -0.5", ErrBadValue, s)
	}
	return x, nil
}

// isDecimal reports whether s is [+-]digits[.digits][e[+-]digits] with at
// least one digit before the exponent.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// badValueMsg is an ErrBadValue error's message without the sentinel's
// text, for a message that gives its own context.
func badValueMsg(err error) string {
	return strings.TrimPrefix(err.Error(), ErrBadValue.Error()+": ")
}

// typeAttr is a declaration's type attribute as a message writes it: none
// for a boolean.
func typeAttr(t VarType) string {
	if t == VarBoolean {
		return ""
	}
	return fmt.Sprintf(" type=%q", t.String())
}

// setText is what a signal line sets, for comparing declarations.
func setText(set *SignalSet) string {
	switch {
	case set.From != nil:
		return "from:" + strings.Join(set.From, ".")
	case set.Typed.Type != VarBoolean:
		return set.Typed.String()
	}
	return strconv.FormatBool(set.Value)
}
