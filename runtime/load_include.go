package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
)

// Shared declaration blocks: <include file="decls.xml"/> at the top level
// of a tree file joins the declarations of another file (a <behaviorTree>
// that holds only <variables>, <signals>, <timestamps>, <gates> blocks and
// includes of its own) to the tree, as if they were written there. Several
// trees of a game (or CryEngine's Blocks/Ref) share one file of signals
// and variables so that they declare them alike. The path is relative to
// the folder of the file that holds the include; a file included more than
// once joins once; a cycle of includes, a missing file or a rule in an
// included file are load errors at the include.

var includeAttrs = []string{"file"}

// includeLine is a checked <include>.
type includeLine struct {
	file string // as written, trimmed
	pos  Pos
}

// include checks an <include>.
func (c *checker) include(e *elem) *includeLine {
	v := c.attrs(e, includeAttrs)
	why := "<include> takes only its file attribute"
	c.noChildren(e, why)
	c.noText(e, why)
	in := &includeLine{file: strings.Trim(c.nameAttr(e, v, 0, "the path of a declarations file, relative to this file's folder"), xmlSpace), pos: e.pos}
	return in
}

// include joins the declarations of the file in names (included from f)
// to the tree.
func (l *loader) include(from *treeFile, in *includeLine) {
	if in.file == "" {
		return // reported by the checker
	}
	f := l.open(subtreePath(from.path, in.file), nil)
	if f.readErr != nil {
		msg := fmt.Sprintf("cannot read included file %s: %s", f.display, readfile.Reason(f.readErr))
		if errors.Is(f.readErr, fs.ErrNotExist) {
			msg = fmt.Sprintf("included file %s does not exist; the path is relative to the folder of this file", f.display)
		}
		l.errs = append(l.errs, &Error{Pos: in.pos, Msg: msg, Err: fmt.Errorf("%w: %w", ErrInvalidTree, f.readErr)})
		return
	}
	if !f.ok {
		return // its problems are reported
	}
	for i, g := range l.chain {
		if g == f {
			names := make([]string, 0, len(l.chain)+1)
			for _, h := range l.chain[i:] {
				names = append(names, h.display)
			}
			l.errorf(in.pos, "include cycle: %s; a file cannot include itself, directly or through other files",
				strings.Join(append(names, f.display), " -> "))
			return
		}
	}
	if f.merged {
		return // its declarations joined already
	}
	f.merged = true
	l.chain = append(l.chain, f)
	for _, it := range f.items {
		switch {
		case it.rule != nil:
			l.errorf(it.rule.pos, "<%s> in %s, which %s includes at %s: an included file holds only declarations (variables, signals, timestamps, gates, include); put rules in a subtree file",
				it.rule.tag, f.display, from.display, in.pos)
		case it.include != nil:
			l.include(f, it.include)
		default:
			l.declare(f, it)
		}
	}
	l.resolveSignals(f)
	l.chain = l.chain[:len(l.chain)-1]
}
