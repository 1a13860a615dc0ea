package luabind

import "fmt"

// The pre-check: a pass over a script's tokens before gopher-lua parses it.
//
// gopher-lua's parser and compiler recurse once per level of nesting and
// once per operator of a chain, and compile a chain of ".." in time that
// grows with its square. Deep enough input (a table nested 100,000 deep, a
// "not not not ..." of that length, a few thousand nested blocks, a
// 100,000-long ".." chain) overflows the goroutine stack, a fatal error no
// recover catches, or keeps the compiler busy for minutes. Lua itself stops
// such input with "chunk has too many syntax levels" (200 levels); this pass
// does the same in terms a lexer can see, so the parser only ever meets
// input whose depth and chains are bounded:
//
//   - nesting: open blocks (function, if, while, for, repeat, do), open
//     brackets ( [ { and the unary operators (not, -, #) in a row before an
//     operand, together at most maxNesting;
//   - chains: at one nesting level, the binary operators and the suffixes
//     (. : and calls or indexing after an operand) of one expression, and
//     the elseif branches of one if, at most maxChain each;
//   - size: at most maxSource bytes (scripts are read with the same limit).
//
// It also counts the tokens, from which compile.go estimates the memory
// parsing and compiling will take.
//
// The pass does not judge anything else: code it lets through that is not
// Lua is reported by the parser as before. Its errors are syntax errors
// with the file, line and column of the token that went too far.

const (
	maxNesting = 200
	maxChain   = 1000
	maxSource  = 16 << 20
)

// precheck returns the number of tokens of src, or a *ScriptError
// (ErrSyntax).
func precheck(name, src string) (int64, error) {
	if len(src) > maxSource {
		return 0, &ScriptError{File: name, Line: 1, Msg: fmt.Sprintf("the code is %d bytes long; a chunk of Lua may be at most %d MB", len(src), maxSource>>20), Err: ErrSyntax}
	}
	p := prechecker{src: src, line: 1}
	err := p.run(name)
	return p.tokens, err
}

// token kinds the pre-check tells apart.
type tokKind uint8

const (
	tokEOF     tokKind = iota
	tokOperand         // a name, number, string, nil, true, false, ...
	tokKeyword         // a keyword that is not an operand or operator
	tokOpen            // ( [ {
	tokClose           // ) ] }
	tokBinary          // a binary operator, and, or
	tokMinus           // - (binary or unary)
	tokUnary           // not, #
	tokSuffix          // . :
	tokSep             // , ; =
	tokString          // a string literal (an operand; also a call after an operand)
)

type token struct {
	kind      tokKind
	word      string // keywords and names
	pos, line int
}

// block is an open block or bracket.
type block struct {
	word     string // "function", "if", "(", ...
	awaitDo  bool   // while and for: their "do" is not a block of its own
	elseifs  int
	chain    int // operators and suffixes of the expression being read at this level
	unary    int // unary operators in a row before an operand, at this level
	lastEnds bool
}

type prechecker struct {
	src    string
	off    int
	line   int
	stack  []block
	top    block // the chunk's level
	tokens int64 // read so far
}

func (p *prechecker) cur() *block {
	if len(p.stack) == 0 {
		return &p.top
	}
	return &p.stack[len(p.stack)-1]
}

func (p *prechecker) errAt(name string, t token, format string, args ...any) error {
	col := t.pos - p.lineStartOf(t) + 1
	return &ScriptError{File: name, Line: t.line, Col: col, Msg: fmt.Sprintf(format, args...), Err: ErrSyntax}
}

// lineStartOf finds the start of the line of token t (tokens are checked
// on the line they start on).
func (p *prechecker) lineStartOf(t token) int {
	i := t.pos
	for i > 0 && p.src[i-1] != '\n' {
		i--
	}
	return i
}

func (p *prechecker) run(name string) error {
	for {
		t, err := p.next(name)
		if err != nil {
			return err
		}
		if t.kind == tokEOF {
			return nil
		}
		b := p.cur()
		ends := b.lastEnds // the previous token ended an operand
		switch t.kind {
		case tokOperand:
			if ends {
				b.chain = 0 // "f(x) g(y)": a new statement
			}
			b.unary = 0
			b.lastEnds = true
			continue
		case tokString:
			if ends {
				if b.chain++; b.chain > maxChain {
					return p.errAt(name, t, "an expression chains more than %d operators, calls and indexings; split it (table.concat joins many strings)", maxChain)
				}
			}
			b.unary = 0
			b.lastEnds = true
			continue
		case tokBinary:
			if b.chain++; b.chain > maxChain {
				return p.errAt(name, t, "an expression chains more than %d operators, calls and indexings; split it (table.concat joins many strings)", maxChain)
			}
			b.lastEnds = false
			continue
		case tokMinus, tokUnary:
			if t.kind == tokMinus && ends {
				if b.chain++; b.chain > maxChain {
					return p.errAt(name, t, "an expression chains more than %d operators, calls and indexings; split it (table.concat joins many strings)", maxChain)
				}
			} else if b.unary++; len(p.stack)+b.unary > maxNesting {
				return p.errAt(name, t, "code nested more than %d levels deep (blocks, brackets and unary operators in a row); Lua code nests at most %d levels", maxNesting, maxNesting)
			}
			b.lastEnds = false
			continue
		case tokSuffix:
			if b.chain++; b.chain > maxChain {
				return p.errAt(name, t, "an expression chains more than %d operators, calls and indexings; split it (table.concat joins many strings)", maxChain)
			}
			b.lastEnds = false
			continue
		case tokSep:
			b.chain, b.unary, b.lastEnds = 0, 0, false
			continue
		case tokOpen:
			if ends {
				if b.chain++; b.chain > maxChain {
					return p.errAt(name, t, "an expression chains more than %d operators, calls and indexings; split it (table.concat joins many strings)", maxChain)
				}
			}
			if err := p.push(name, t, t.word); err != nil {
				return err
			}
			continue
		case tokClose:
			p.pop()
			b = p.cur()
			b.unary = 0
			b.lastEnds = true
			continue
		}
		// Keywords.
		switch t.word {
		case "function":
			if err := p.push(name, t, "function"); err != nil {
				return err
			}
		case "if", "repeat":
			b.chain, b.unary, b.lastEnds = 0, 0, false
			if err := p.push(name, t, t.word); err != nil {
				return err
			}
		case "while", "for":
			b.chain, b.unary, b.lastEnds = 0, 0, false
			if err := p.push(name, t, t.word); err != nil {
				return err
			}
			p.cur().awaitDo = true
		case "do":
			if top := p.cur(); len(p.stack) > 0 && top.awaitDo {
				top.awaitDo = false
				top.chain, top.unary, top.lastEnds = 0, 0, false
				break
			}
			b.chain, b.unary, b.lastEnds = 0, 0, false
			if err := p.push(name, t, "do"); err != nil {
				return err
			}
		case "elseif":
			if b.elseifs++; b.elseifs > maxChain {
				return p.errAt(name, t, "an if statement has more than %d elseif branches; split it", maxChain)
			}
			b.chain, b.unary, b.lastEnds = 0, 0, false
		case "end":
			p.pop()
			b = p.cur()
			b.unary = 0
			b.lastEnds = true // "function() end" is an operand
		case "until":
			p.pop()
			b = p.cur()
			b.chain, b.unary, b.lastEnds = 0, 0, false
		default: // local, return, break, then, else, in
			b.chain, b.unary, b.lastEnds = 0, 0, false
		}
	}
}

func (p *prechecker) push(name string, t token, word string) error {
	cur := p.cur()
	if len(p.stack)+1+cur.unary > maxNesting {
		return p.errAt(name, t, "code nested more than %d levels deep (blocks, brackets and unary operators in a row); Lua code nests at most %d levels", maxNesting, maxNesting)
	}
	// The unary operators in a row before a bracket or function stay open
	// while it is: "not not (not not (...))" nests them all.
	p.stack = append(p.stack, block{word: word, unary: cur.unary})
	return nil
}

// pop closes the innermost block or bracket (a stray closer is the
// parser's to report).
func (p *prechecker) pop() {
	if len(p.stack) > 0 {
		p.stack = p.stack[:len(p.stack)-1]
	}
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameChar(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }

var keywordKinds = map[string]tokKind{
	"nil": tokOperand, "true": tokOperand, "false": tokOperand,
	"and": tokBinary, "or": tokBinary, "not": tokUnary,
	"function": tokKeyword, "if": tokKeyword, "then": tokKeyword, "else": tokKeyword, "elseif": tokKeyword,
	"end": tokKeyword, "while": tokKeyword, "do": tokKeyword, "for": tokKeyword, "in": tokKeyword,
	"repeat": tokKeyword, "until": tokKeyword, "local": tokKeyword, "return": tokKeyword, "break": tokKeyword,
}

// next reads the next token, skipping white space and comments.
func (p *prechecker) next(name string) (token, error) {
	s := p.src
	for p.off < len(s) {
		c := s[p.off]
		switch {
		case c == '\n':
			p.line++
			p.off++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			p.off++
		case c == '-' && p.off+1 < len(s) && s[p.off+1] == '-':
			p.off += 2
			if lvl, ok := p.longBracket(); ok {
				p.skipLong(lvl)
				continue
			}
			for p.off < len(s) && s[p.off] != '\n' {
				p.off++
			}
		default:
			p.tokens++
			return p.token(name), nil
		}
	}
	return token{kind: tokEOF}, nil
}

// token reads one token at p.off (not white space or a comment).
func (p *prechecker) token(name string) token {
	s := p.src
	start, line := p.off, p.line
	tok := func(k tokKind, word string) token { return token{kind: k, word: word, pos: start, line: line} }
	c := s[p.off]
	switch {
	case isNameStart(c):
		for p.off < len(s) && isNameChar(s[p.off]) {
			p.off++
		}
		w := s[start:p.off]
		if k, ok := keywordKinds[w]; ok {
			return tok(k, w)
		}
		return tok(tokOperand, "")
	case c >= '0' && c <= '9' || (c == '.' && p.off+1 < len(s) && s[p.off+1] >= '0' && s[p.off+1] <= '9'):
		for p.off < len(s) {
			d := s[p.off]
			if (d == '+' || d == '-') && (s[p.off-1] == 'e' || s[p.off-1] == 'E') {
				p.off++
				continue
			}
			if !isNameChar(d) && d != '.' {
				break
			}
			p.off++
		}
		return tok(tokOperand, "")
	case c == '"' || c == '\'':
		p.off++
		for p.off < len(s) && s[p.off] != c {
			if s[p.off] == '\\' {
				p.off++
			}
			if p.off < len(s) && s[p.off] == '\n' {
				p.line++
			}
			p.off++
		}
		p.off++
		return tok(tokString, "")
	case c == '[':
		if lvl, ok := p.longBracket(); ok {
			p.skipLong(lvl)
			return tok(tokString, "")
		}
		p.off++
		return tok(tokOpen, "[")
	case c == '(' || c == '{':
		p.off++
		return tok(tokOpen, string(c))
	case c == ')' || c == ']' || c == '}':
		p.off++
		return tok(tokClose, "")
	case c == '.':
		if p.off+2 < len(s) && s[p.off+1] == '.' && s[p.off+2] == '.' {
			p.off += 3
			return tok(tokOperand, "") // ...
		}
		if p.off+1 < len(s) && s[p.off+1] == '.' {
			p.off += 2
			return tok(tokBinary, "..")
		}
		p.off++
		return tok(tokSuffix, ".")
	case c == ':':
		p.off++
		return tok(tokSuffix, ":")
	case c == ',' || c == ';':
		p.off++
		return tok(tokSep, "")
	case c == '=':
		p.off++
		if p.off < len(s) && s[p.off] == '=' {
			p.off++
			return tok(tokBinary, "==")
		}
		return tok(tokSep, "")
	case c == '-':
		p.off++
		return tok(tokMinus, "-")
	case c == '#':
		p.off++
		return tok(tokUnary, "#")
	case c == '<' || c == '>' || c == '~':
		p.off++
		if p.off < len(s) && s[p.off] == '=' {
			p.off++
		}
		return tok(tokBinary, "")
	case c == '+' || c == '*' || c == '/' || c == '%' || c == '^':
		p.off++
		return tok(tokBinary, "")
	}
	// Anything else is for the parser to reject; it is one operand here.
	p.off++
	return tok(tokOperand, "")
}

// longBracket reports whether a long bracket [[ or [==[ starts at p.off
// and its level; it moves past the opening bracket when it does.
func (p *prechecker) longBracket() (int, bool) {
	s := p.src
	if p.off >= len(s) || s[p.off] != '[' {
		return 0, false
	}
	i := p.off + 1
	for i < len(s) && s[i] == '=' {
		i++
	}
	if i < len(s) && s[i] == '[' {
		lvl := i - p.off - 1
		p.off = i + 1
		return lvl, true
	}
	return 0, false
}

// skipLong moves past the closing bracket of a long string or comment of
// level lvl, counting lines.
func (p *prechecker) skipLong(lvl int) {
	s := p.src
	for p.off < len(s) {
		c := s[p.off]
		if c == '\n' {
			p.line++
		}
		if c == ']' {
			j := p.off + 1
			for j < len(s) && s[j] == '=' {
				j++
			}
			if j < len(s) && s[j] == ']' && j-p.off-1 == lvl {
				p.off = j + 1
				return
			}
		}
		p.off++
	}
}
