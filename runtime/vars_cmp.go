package runtime

import (
	"fmt"
	"math"
	"strings"
)

// Comparisons in <condition> texts (Ammo < 3, Target == "grunt-2"): parsed
// when the file is loaded (Cond.Cmp), resolved to variable slots when the
// tree is bound (bindCompare), and evaluated by evalCompare with no name
// look-up or allocation. A leading ! negates the whole comparison, as it
// negates a name (Cond.Negate).

// CmpOp is a comparison's operator.
type CmpOp uint8

const (
	CmpNone CmpOp = iota // a number variable alone: > 0
	CmpLT
	CmpLE
	CmpGT
	CmpGE
	CmpEQ
	CmpNE
)

var cmpOpText = [...]string{"", "<", "<=", ">", ">=", "==", "!="}

func (o CmpOp) String() string { return cmpOpText[o] }

// mirror is the operator with its operands swapped (3 < Ammo is Ammo > 3).
func (o CmpOp) mirror() CmpOp {
	switch o {
	case CmpLT:
		return CmpGT
	case CmpLE:
		return CmpGE
	case CmpGT:
		return CmpLT
	case CmpGE:
		return CmpLE
	}
	return o
}

// OperandKind says what an operand is.
type OperandKind uint8

const (
	OperandVar    OperandKind = iota // a declared variable
	OperandNumber                    // a decimal number
	OperandString                    // a double-quoted string
)

// Operand is one side of a comparison.
type Operand struct {
	Kind OperandKind
	Name string  // OperandVar
	Num  float64 // OperandNumber
	Str  string  // OperandString, without its quotes
}

func (o Operand) String() string {
	switch o.Kind {
	case OperandNumber:
		return formatNumber(o.Num)
	case OperandString:
		return `"` + o.Str + `"`
	}
	return o.Name
}

// Compare is a comparison as written: Left Op Right.
type Compare struct {
	Left, Right Operand
	Op          CmpOp
}

func (c *Compare) String() string {
	return c.Left.String() + " " + c.Op.String() + " " + c.Right.String()
}

// Vars lists the variables the comparison reads.
func (c *Compare) Vars() []string {
	var out []string
	for _, o := range [2]Operand{c.Left, c.Right} {
		if o.Kind == OperandVar {
			out = append(out, o.Name)
		}
	}
	return out
}

// IsComparison reports whether a condition's text (without its leading !)
// is a comparison rather than a name: it holds an operator or a quote.
func IsComparison(text string) bool {
	return strings.ContainsAny(text, `<>="`)
}

// ParseCompare reads a comparison: operand, operator, operand, with
// optional spaces. The error says what is wrong, for the loader to place.
func ParseCompare(text string) (*Compare, error) {
	p := cmpParser{s: text}
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	op, err := p.op()
	if err != nil {
		return nil, err
	}
	right, err := p.operand()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the comparison; expected one operand, an operator (<, <=, >, >=, ==, !=) and one operand", p.s[p.i:])
	}
	if left.Kind != OperandVar && right.Kind != OperandVar {
		return nil, fmt.Errorf("compares %s with %s, two constants; one side must be a declared variable", left, right)
	}
	return &Compare{Left: left, Right: right, Op: op}, nil
}

type cmpParser struct {
	s string
	i int
}

func (p *cmpParser) space() {
	for p.i < len(p.s) && strings.IndexByte(xmlSpace, p.s[p.i]) >= 0 {
		p.i++
	}
}

// operand reads a quoted string, a number or a name.
func (p *cmpParser) operand() (Operand, error) {
	p.space()
	if p.i == len(p.s) {
		return Operand{}, fmt.Errorf("missing operand; expected a variable, a number or a double-quoted string")
	}
	if p.s[p.i] == '"' {
		end := strings.IndexByte(p.s[p.i+1:], '"')
		if end < 0 {
			return Operand{}, fmt.Errorf("unterminated string %s; expected a closing \"", p.s[p.i:])
		}
		str := p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		return Operand{Kind: OperandString, Str: str}, nil
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(`<>=!"`+xmlSpace, rune(p.s[p.i])) {
		p.i++
	}
	tok := p.s[start:p.i]
	if tok == "" {
		return Operand{}, fmt.Errorf("missing operand before %q; expected a variable, a number or a double-quoted string", p.s[p.i:])
	}
	if c := tok[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		x, err := parseDecimal(tok)
		if err != nil {
			return Operand{}, fmt.Errorf("%q is not a number; expected a finite decimal such as 3 or -0.5", tok)
		}
		return Operand{Kind: OperandNumber, Num: x}, nil
	}
	return Operand{Kind: OperandVar, Name: tok}, nil
}

// op reads an operator.
func (p *cmpParser) op() (CmpOp, error) {
	p.space()
	rest := p.s[p.i:]
	for _, o := range [...]CmpOp{CmpLE, CmpGE, CmpEQ, CmpNE, CmpLT, CmpGT} {
		if strings.HasPrefix(rest, cmpOpText[o]) {
			p.i += len(cmpOpText[o])
			return o, nil
		}
	}
	if strings.HasPrefix(rest, "=") {
		return 0, fmt.Errorf("= is not an operator; expected == to test equality")
	}
	if rest == "" {
		return 0, fmt.Errorf("missing operator; expected <, <=, >, >=, == or !=")
	}
	return 0, fmt.Errorf("unexpected %q; expected an operator: <, <=, >, >=, == or !=", rest)
}

// cmpSide is a bound operand: a variable's place (varPlace) or a constant.
type cmpSide struct {
	v     int32 // the variable's index; -1 for a constant
	place int32 // where its value lives (varPlace)
}

// bindCompare resolves a comparison, or a typed variable named alone, into
// bc: a variable on the left, the constant or other variable on the right.
func (b *BoundTree) bindCompare(rule int32, c *Cond, bc *boundCond) error {
	t := b.Tree
	r := &t.Rules[rule]
	fail := func(format string, args ...any) error {
		return &Error{Pos: c.Pos, Label: r.Label, Err: ErrUnbound,
			Msg: fmt.Sprintf("condition %q: ", c.Name) + fmt.Sprintf(format, args...)}
	}
	cmp := c.Cmp
	left, right, op := cmp.Left, cmp.Right, cmp.Op
	if left.Kind != OperandVar {
		left, right, op = right, left, op.mirror()
	}
	look := func(o Operand) (int32, error) {
		i, ok := t.VarIndex(o.Name)
		if ok {
			return i, nil
		}
		names := make([]string, len(t.Vars))
		for k, v := range t.Vars {
			names[k] = v.Name
		}
		msg := fmt.Sprintf("%q is not a declared variable; a comparison's operands are variables, numbers and double-quoted strings", o.Name)
		if s := suggest(o.Name, names); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return 0, fail("%s", msg)
	}
	li, err := look(left)
	if err != nil {
		return err
	}
	typ := t.Vars[li].Type
	bc.kind, bc.cmp, bc.vtype, bc.slot, bc.v1, bc.v2, bc.slot2 = condCmp, op, typ, b.varPlace[li], li, -1, -1
	switch right.Kind {
	case OperandVar:
		ri, err := look(right)
		if err != nil {
			return err
		}
		if rt := t.Vars[ri].Type; rt != typ {
			return fail("%s is a %s and %s a %s; a comparison's sides need one type", left.Name, typ, right.Name, rt)
		}
		bc.v2, bc.slot2 = ri, b.varPlace[ri]
	case OperandNumber:
		if typ != VarNumber {
			return fail("%s is a %s, compared with the number %s; compare a number variable with a number", left.Name, typ, right)
		}
		bc.limit = right.Num
	case OperandString:
		if typ != VarString {
			return fail("%s is a %s, compared with the string %s; compare a string variable with a string", left.Name, typ, right)
		}
		bc.str = right.Str
	}
	if typ != VarNumber && op != CmpEQ && op != CmpNE {
		return fail("%s is a %s, which takes only == and !=; %s orders numbers only", left.Name, typ, op)
	}
	return nil
}

// bindAlone binds a variable named alone as a condition: a boolean is
// itself (condVar), a number means > 0, a string or vector is an error.
func (b *BoundTree) bindAlone(rule int32, c *Cond, v int32, bc *boundCond) error {
	d := &b.Tree.Vars[v]
	switch d.Type {
	case VarBoolean:
		bc.kind, bc.slot = condVar, v
		return nil
	case VarNumber:
		bc.kind, bc.cmp, bc.vtype, bc.slot, bc.v1, bc.v2, bc.slot2 = condCmp, CmpGT, VarNumber, b.varPlace[v], v, -1, -1
		return nil
	}
	hint := fmt.Sprintf(`%s != ""`, d.Name)
	if d.Type == VarVector {
		hint = fmt.Sprintf("%s != OtherVector", d.Name)
	}
	return &Error{Pos: c.Pos, Label: b.Tree.Rules[rule].Label, Err: ErrUnbound,
		Msg: fmt.Sprintf("condition %q: %s is a %s variable, which is not a condition alone; compare it, as in %s", c.Name, d.Name, d.Type, hint)}
}

// evalCompare evaluates a bound comparison (before its negation).
func (a *Agent) evalCompare(c *boundCond) bool {
	switch c.vtype {
	case VarNumber:
		x, y := math.Float64frombits(a.slab[c.slot]), c.limit
		if c.slot2 >= 0 {
			y = math.Float64frombits(a.slab[c.slot2])
		}
		switch c.cmp {
		case CmpLT:
			return x < y
		case CmpLE:
			return x <= y
		case CmpGT:
			return x > y
		case CmpGE:
			return x >= y
		case CmpEQ:
			return x == y
		}
		return x != y
	case VarString:
		x, y := a.ext.strs[c.slot], c.str
		if c.slot2 >= 0 {
			y = a.ext.strs[c.slot2]
		}
		return (x == y) == (c.cmp == CmpEQ)
	case VarVector:
		// compared as numbers, not bits: 0 == -0
		eq := math.Float64frombits(a.slab[c.slot]) == math.Float64frombits(a.slab[c.slot2]) &&
			math.Float64frombits(a.slab[c.slot+1]) == math.Float64frombits(a.slab[c.slot2+1]) &&
			math.Float64frombits(a.slab[c.slot+2]) == math.Float64frombits(a.slab[c.slot2+2])
		return eq == (c.cmp == CmpEQ)
	}
	eq := a.VarAt(c.slot) == a.VarAt(c.slot2)
	return eq == (c.cmp == CmpEQ)
}

// whyCompare writes the values a comparison read, for "why" (explain.go):
// Ammo=2, or Ammo=2 Max=3.
func (a *Agent) whyCompare(c *boundCond) string {
	t := a.bound.Tree
	s := t.Vars[c.v1].Name + "=" + a.VarValueAt(c.v1).String()
	if c.v2 >= 0 {
		s += " " + t.Vars[c.v2].Name + "=" + a.VarValueAt(c.v2).String()
	}
	return s
}

// Eval evaluates the comparison on values given by name (before a leading
// !); false when a side names a variable value does not give, or the
// sides' types differ.
func (c *Compare) Eval(value func(name string) (VarValue, bool)) (result, ok bool) {
	side := func(o Operand) (VarValue, bool) {
		switch o.Kind {
		case OperandNumber:
			return NumberVar(o.Num), true
		case OperandString:
			return StringVar(o.Str), true
		}
		return value(o.Name)
	}
	x, okx := side(c.Left)
	y, oky := side(c.Right)
	if !okx || !oky || x.Type != y.Type {
		return false, false
	}
	if x.Type != VarNumber {
		if c.Op != CmpEQ && c.Op != CmpNE {
			return false, false
		}
		return x.Equal(y) == (c.Op == CmpEQ), true
	}
	switch c.Op {
	case CmpLT:
		return x.Num < y.Num, true
	case CmpLE:
		return x.Num <= y.Num, true
	case CmpGT:
		return x.Num > y.Num, true
	case CmpGE:
		return x.Num >= y.Num, true
	case CmpEQ:
		return x.Num == y.Num, true
	}
	return x.Num != y.Num, true
}
