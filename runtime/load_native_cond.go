package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// The condition expressions of native documents: names of variables (or of
// any condition) combined with and, or, xor, not (also &&, ||, ^, !) and
// parentheses, as MBT's IfCondition, AssertCondition and Case and BHS's
// Priority and Leaf write them. An expression the format's own conditions
// say directly becomes <condition> elements: a name, a negated name, or
// names joined by one operator (a conditionMode). Any other expression
// (xor, a mix of operators) becomes the inline-Lua condition bt.lua over
// ctx:var, which every game that runs Lua registers.

// cexpr is a parsed condition expression.
type cexpr struct {
	op   byte // 'v' a name, '!' not, '&' and, '|' or, '^' xor
	name string
	kids []*cexpr
}

// maxExprDepth bounds the nesting of a condition expression.
const maxExprDepth = 64

type exprParser struct {
	toks  []string
	i     int
	depth int
	err   string
}

// parseCond parses a condition expression; the error says what is wrong.
func parseCond(s string) (*cexpr, error) {
	toks, err := lexCond(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("is empty; expected a variable name or an expression such as \"A and not B\"")
	}
	p := &exprParser{toks: toks}
	e := p.or()
	if p.err == "" && p.i < len(p.toks) {
		p.err = fmt.Sprintf("has %q where an operator (and, or, xor) or the end was expected", p.toks[p.i])
	}
	if p.err != "" {
		return nil, fmt.Errorf("%s", p.err)
	}
	return e, nil
}

func lexCond(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isXMLSpace(c):
			i++
		case c == '(' || c == ')' || c == '!' || c == '^':
			toks = append(toks, s[i:i+1])
			i++
		case c == '&' || c == '|':
			if i+1 >= len(s) || s[i+1] != c {
				return nil, fmt.Errorf("has a single %q at byte %d; expected %c%c", c, i+1, c, c)
			}
			toks = append(toks, s[i:i+2])
			i += 2
		case isNameByte(c):
			j := i
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			return nil, fmt.Errorf("has %q at byte %d; expected names, and, or, xor, not, !, &&, ||, ^ and parentheses", s[i:i+1], i+1)
		}
	}
	return toks, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

// is reports whether the next token is one of the operator's spellings.
func (p *exprParser) is(words ...string) bool {
	t := p.peek()
	for _, w := range words {
		if strings.EqualFold(t, w) {
			return true
		}
	}
	return false
}

func (p *exprParser) binary(op byte, next func() *cexpr, words ...string) *cexpr {
	e := next()
	for p.err == "" && p.is(words...) {
		p.i++
		r := next()
		if e.op == op {
			e.kids = append(e.kids, r)
		} else {
			e = &cexpr{op: op, kids: []*cexpr{e, r}}
		}
	}
	return e
}

func (p *exprParser) or() *cexpr  { return p.binary('|', p.xor, "or", "||") }
func (p *exprParser) xor() *cexpr { return p.binary('^', p.and, "xor", "^") }
func (p *exprParser) and() *cexpr { return p.binary('&', p.not, "and", "&&") }

func (p *exprParser) not() *cexpr {
	if p.depth++; p.depth > maxExprDepth {
		if p.err == "" {
			p.err = fmt.Sprintf("nests more than %d deep", maxExprDepth)
		}
		return &cexpr{op: 'v'}
	}
	defer func() { p.depth-- }()
	switch t := p.peek(); {
	case p.err != "":
		return &cexpr{op: 'v'}
	case t == "":
		p.err = "ends where a name or ( was expected"
	case p.is("not", "!"):
		p.i++
		return &cexpr{op: '!', kids: []*cexpr{p.not()}}
	case t == "(":
		p.i++
		e := p.or()
		if p.err == "" && p.peek() != ")" {
			p.err = "has a ( without its )"
		}
		p.i++
		return e
	case t == ")" || p.is("and", "or", "xor", "&&", "||", "^"):
		p.err = fmt.Sprintf("has %q where a name, not or ( was expected", t)
	default:
		p.i++
		return &cexpr{op: 'v', name: t}
	}
	return &cexpr{op: 'v'}
}

// literal returns the condition text of a name or a negated name.
func (e *cexpr) literal() (string, bool) {
	switch {
	case e.op == 'v':
		return e.name, true
	case e.op == '!' && e.kids[0].op == 'v':
		return "!" + e.kids[0].name, true
	}
	return "", false
}

// literals returns the condition texts of kids when each is a literal.
func literals(kids []*cexpr) ([]string, bool) {
	out := make([]string, 0, len(kids))
	for _, k := range kids {
		l, ok := k.literal()
		if !ok {
			return nil, false
		}
		out = append(out, l)
	}
	return out, true
}

// flat returns e as conditions and a mode, when the format says it directly.
func (e *cexpr) flat() ([]string, CondMode, bool) {
	if l, ok := e.literal(); ok {
		return []string{l}, AllTrue, true
	}
	inner, negated := e, false
	if e.op == '!' {
		inner, negated = e.kids[0], true
	}
	lits, ok := literals(inner.kids)
	if !ok {
		return nil, 0, false
	}
	switch {
	case inner.op == '&' && !negated:
		return lits, AllTrue, true
	case inner.op == '|' && !negated:
		return lits, AnyTrue, true
	case inner.op == '&':
		return lits, AnyFalse, true
	case inner.op == '|':
		return lits, AllFalse, true
	}
	return nil, 0, false
}

// lua writes e as a Lua expression over ctx:var.
func (e *cexpr) lua(b *strings.Builder) {
	switch e.op {
	case 'v':
		b.WriteString("ctx:var(" + strconv.Quote(e.name) + ")")
	case '!':
		b.WriteString("not ")
		e.kids[0].luaOperand(b)
	default:
		sep := map[byte]string{'&': " and ", '|': " or ", '^': " ~= "}[e.op]
		for i, k := range e.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			k.luaOperand(b)
		}
	}
}

func (e *cexpr) luaOperand(b *strings.Builder) {
	if e.op == 'v' {
		e.lua(b)
		return
	}
	b.WriteByte('(')
	e.lua(b)
	b.WriteByte(')')
}

// conditions adds the conditions of expression s (written on native
// element from) to rule dst; false when s is not a valid expression
// (reported).
func (t *native) conditions(dst, from *elem, attr, s string) bool {
	e, err := parseCond(s)
	if err != nil {
		t.errorf(from.pos, "%s=%q on %s <%s> %v", attr, s, t.kind, from.name, err)
		return false
	}
	if lits, mode, ok := e.flat(); ok {
		for _, l := range lits {
			dst.children = append(dst.children, textElem("condition", from.pos, l))
		}
		if mode != AllTrue {
			dst.children = append(dst.children, textElem("conditionMode", from.pos, mode.String()))
		}
		return true
	}
	var b strings.Builder
	e.lua(&b)
	dst.children = append(dst.children,
		paramElem(from.pos, "lua.test", b.String()),
		textElem("condition", from.pos, "bt.lua"))
	return true
}
