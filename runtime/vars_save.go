package runtime

import (
	"fmt"
	"math"

	"github.com/btrun/btrun/runtime/savecodec"
)

// Typed variables in saves. A saved variable is its name, then one byte: 0
// or 1 for a boolean, as every version wrote it, or a type tag followed by
// the value: 2 a number (its float64), 3 a string, 4 a vector (three
// float64s). So a save of a game whose variables are all booleans is the
// same bytes as before typed variables existed, and the format's version
// did not change: older saves read as they always did. (A btrun from
// before typed variables refuses a save holding one as a bad boolean.)

const (
	varTagNumber byte = 2 + iota
	varTagString
	varTagVector
)

// varValue writes a saved variable's value.
func encodeVarValue(e *savecodec.Encoder, v NamedBool) {
	switch v.Typed.Type {
	case VarNumber:
		e.Byte(varTagNumber)
		e.Float(v.Typed.Num)
	case VarString:
		e.Byte(varTagString)
		e.String(v.Typed.Str)
	case VarVector:
		e.Byte(varTagVector)
		e.Float(v.Typed.Vec.X)
		e.Float(v.Typed.Vec.Y)
		e.Float(v.Typed.Vec.Z)
	default:
		e.Bool(v.Value)
	}
}

// varValue reads a saved variable's value.
func decodeVarValue(d *savecodec.Decoder, name string) NamedBool {
	v := NamedBool{Name: name}
	finite := func(x float64) float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			d.Fail("variable %q: %v is not a finite number", name, x)
		}
		return x
	}
	switch tag := d.Byte(); tag {
	case 0, 1:
		v.Value = tag == 1
	case varTagNumber:
		v.Typed = NumberVar(finite(d.Float()))
	case varTagString:
		v.Typed = StringVar(d.String())
	case varTagVector:
		x := finite(d.Float())
		y := finite(d.Float())
		v.Typed = VectorVar(x, y, finite(d.Float()))
	default:
		d.Fail("variable %q: bad value tag %d", name, tag)
	}
	return v
}

// planTyped puts a saved variable into the plan when the variable or the
// saved value is typed. A value whose type is not the declaration's any
// more (the tree was edited: a reload or a restore into a changed tree) is
// dropped with a warning and the variable starts at its default, as a
// variable newly declared would: nothing is converted.
func (p *RestorePlan) planTyped(i int32, v NamedBool) error {
	d := &p.bound.Tree.Vars[i]
	if v.Typed.Type != d.Type {
		p.warn("variable %q of the save is a %s and is declared a %s now; it starts at its default", v.Name, v.Typed.Type, d.Type)
		return nil
	}
	if err := checkVarValue(d, v.Typed); err != nil {
		return &Error{Agent: p.a.id, Err: ErrCorrupt, Msg: fmt.Sprintf("saved %v", err)}
	}
	w := p.bound.varPlace[i]
	switch v.Typed.Type {
	case VarNumber:
		p.slab[w] = math.Float64bits(v.Typed.Num)
	case VarString:
		p.strs[w] = v.Typed.Str
	case VarVector:
		p.slab[w] = math.Float64bits(v.Typed.Vec.X)
		p.slab[w+1] = math.Float64bits(v.Typed.Vec.Y)
		p.slab[w+2] = math.Float64bits(v.Typed.Vec.Z)
	}
	return nil
}
