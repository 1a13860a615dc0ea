package luabind

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/btrun/btrun/internal/readfile"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// Compiling a chunk, in this order:
//
//	precheck.go     the source's tokens: nesting, chains, size (no parse can
//	                overflow the stack), and their number, from which what
//	                parsing and compiling take in memory is estimated
//	parse           gopher-lua's parser
//	bigtables.go    big table constructors split into chunks
//	concat.go       ".." made a bounded call
//	compilecost.go  the compiler's searches counted: refused when too many
//	lua.Compile     gopher-lua's compiler
//
// so that a source within the size limit compiles in time linear in its
// size and in memory within the Lua state's budget, or is refused with an
// error at its position before the compiler sees it.
//
// A compiled chunk (a FunctionProto) is read-only and gopher-lua lets
// several states share it: a CodeCache keeps them, so that the Lua states
// of a game's workers, and hot reloads of sources that did not change,
// compile each source once.

// compileBytesPerToken is what parsing and compiling take in memory per
// token of the source at their peak (the syntax tree, the compiler's
// state, the code), measured on scripts of data, the densest in tokens:
// about 60 bytes for a table of records, 75 for a list of numbers, with
// the chunks big tables are split into. The estimate is refused when it is
// over the Lua state's memory budget.
const compileBytesPerToken = 96

// chunk is a compiled source with what is read from it once.
type chunk struct {
	proto    *lua.FunctionProto
	literals []Literal // the names it passes as literals (literals.go)
	size     int64     // an estimate of the memory its code keeps (codeSize)
}

// compileChunk compiles src, named name in errors and positions, within
// the memory budget limit (0: none). Errors are *ScriptError.
func compileChunk(name, src string, limit int64) (*chunk, error) {
	tokens, err := precheck(name, src)
	if err != nil {
		return nil, err
	}
	if need := tokens * compileBytesPerToken; limit > 0 && need > limit {
		return nil, &ScriptError{File: name, Line: 1, Msg: fmt.Sprintf("compiling the script would take about %s (%d tokens), over the Lua memory budget of %s (run.lua_memory); split it into smaller scripts, or raise the budget",
			megabytes(need), tokens, readfile.Size(limit)), Err: ErrMemory}
	}
	stmts, err := parseChunk(name, src)
	if err != nil {
		return nil, err
	}
	c := &chunk{literals: literalsOf(name, src, stmts)}
	if stmts, err = splitTables(name, stmts); err != nil {
		return nil, err
	}
	stmts, _ = rewriteConcat(stmts)
	if err := checkCompileCost(name, len(src), stmts); err != nil {
		return nil, err
	}
	proto, err := lua.Compile(stmts, name)
	if err != nil {
		se := &ScriptError{File: name, Msg: err.Error(), Err: ErrSyntax}
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			se.Line, se.Msg = ce.Line, ce.Message
		}
		return nil, se
	}
	compact(proto)
	c.proto = proto
	c.size = codeSize(proto)
	return c, nil
}

// compact gives back what gopher-lua's compiler leaves unused in a compiled
// chunk's functions: each keeps the compiler's buffers of 1,024
// instructions and lines and room for 128 calls, some 16 KB however small
// it is, which a chunk of data split into thousands of functions
// (bigtables.go) would keep for the whole game.
func compact(p *lua.FunctionProto) {
	p.Code = slices.Clip(slices.Clone(p.Code))
	p.DbgSourcePositions = slices.Clip(slices.Clone(p.DbgSourcePositions))
	p.Constants = slices.Clip(slices.Clone(p.Constants))
	p.DbgCalls = slices.Clip(slices.Clone(p.DbgCalls))
	p.DbgLocals = slices.Clip(slices.Clone(p.DbgLocals))
	p.DbgUpvalues = slices.Clip(slices.Clone(p.DbgUpvalues))
	p.FunctionPrototypes = slices.Clip(slices.Clone(p.FunctionPrototypes))
	for _, q := range p.FunctionPrototypes {
		compact(q)
	}
}

// compile is compileChunk without a memory budget, for code of the engine
// itself and of tests.
func compile(name, src string) (*lua.FunctionProto, error) {
	c, err := compileChunk(name, src, 0)
	if err != nil {
		return nil, err
	}
	return c.proto, nil
}

// parseChunk parses src; a syntax error is a *ScriptError with the line
// and column.
func parseChunk(name, src string) ([]ast.Stmt, error) {
	stmts, err := parse.Parse(strings.NewReader(src), name)
	if err == nil {
		return stmts, nil
	}
	se := &ScriptError{File: name, Msg: err.Error(), Err: ErrSyntax}
	var pe *parse.Error
	if errors.As(err, &pe) {
		se.Line, se.Col = pe.Pos.Line, pe.Pos.Column
		se.Msg = pe.Message
		if pe.Pos.Line == parse.EOF {
			se.Line, se.Col = strings.Count(src, "\n")+1, 0
			se.Msg += " at the end of the file"
		} else if pe.Token != "" {
			se.Msg += fmt.Sprintf(" near '%s'", pe.Token)
		}
	}
	return nil, se
}

// megabytes writes n bytes as MB with one decimal.
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// codeSize estimates the memory a compiled chunk keeps: its instructions
// and their lines, its constants, and the same for every function in it.
func codeSize(p *lua.FunctionProto) int64 {
	n := int64(768)              // the prototype, its slices' headers and the compiler's copy of string constants
	n += 12 * int64(len(p.Code)) // an instruction and its line
	for _, c := range p.Constants {
		n += 48 // the value, and a string's header in the compiler's copy
		if s, ok := c.(lua.LString); ok {
			n += int64(len(s))
		}
	}
	n += 32 * int64(len(p.DbgLocals)+len(p.DbgUpvalues)+len(p.DbgCalls))
	for _, q := range p.FunctionPrototypes {
		n += codeSize(q)
	}
	return n
}

// A CodeCache keeps compiled scripts by name and content, so that the Lua
// states of a game's workers, and the loads of a hot reload, compile each
// source once (gopher-lua shares a compiled chunk between states; it is
// read-only). Engines given the same cache (Options.Code) share it; it is
// safe for concurrent use.
type CodeCache struct {
	mu       sync.Mutex
	byID     map[codeID]*codeEntry
	compiled int // sources compiled so far
}

// codeID names a source: its chunk name and a hash of its bytes.
type codeID struct {
	name string
	sum  [sha256.Size]byte
}

type codeEntry struct {
	once  sync.Once
	limit int64 // the budget it was compiled within
	c     *chunk
	err   error
	used  bool // since the last Sweep
}

// NewCodeCache returns an empty cache.
func NewCodeCache() *CodeCache { return &CodeCache{byID: map[codeID]*codeEntry{}} }

// get compiles src once for every engine that asks with the same name,
// source and budget.
func (cc *CodeCache) get(name string, src []byte, limit int64) (*chunk, error) {
	id := codeID{name: name, sum: sha256.Sum256(src)}
	cc.mu.Lock()
	x := cc.byID[id]
	if x == nil || x.limit != limit {
		x = &codeEntry{limit: limit}
		cc.byID[id] = x
	}
	x.used = true
	cc.mu.Unlock()
	x.once.Do(func() {
		x.c, x.err = compileChunk(name, string(src), limit)
		cc.mu.Lock()
		cc.compiled++
		cc.mu.Unlock()
	})
	return x.c, x.err
}

// Compiled is how many sources the cache has compiled so far (the others
// it was asked for, it had).
func (cc *CodeCache) Compiled() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.compiled
}

// Sweep forgets the sources no engine asked for since the last Sweep: a
// game calls it after each load, so that the cache holds what the game
// runs now.
func (cc *CodeCache) Sweep() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for id, x := range cc.byID {
		if !x.used {
			delete(cc.byID, id)
			continue
		}
		x.used = false
	}
}

// compileSource compiles a source for this engine: through its code cache
// when it has one.
func (e *Engine) compileSource(name string, src []byte) (*chunk, error) {
	if e.opts.Code != nil {
		return e.opts.Code.get(name, src, e.limits.memory)
	}
	return compileChunk(name, string(src), e.limits.memory)
}
