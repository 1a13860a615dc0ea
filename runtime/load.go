package runtime

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/btrun/btrun/internal/readfile"
)

// Loading a tree goes through these steps, one file each:
//   load_decode.go  raw bytes -> UTF-8 text (the declared encoding)
//   load_xml.go     text -> elements with positions (well-formedness), read
//                   by load_scan.go's scanner, or by encoding/xml where the
//                   scanner gives up
//   load_check.go   elements -> checked rule nodes and declaration lines;
//                   each rule is checked as soon as its end tag is read
// and then, for the whole tree:
//   load_build.go   nodes -> Tree.Rules, with the id rules and subtree files
//   load_decls.go   declaration lines -> Tree.Vars, Signals, Stamps
// Every step adds its problems to one ErrorList and goes on where it can, so
// one load reports every problem it can find. Strings come from one table
// (load_strings.go), and elements, lists of children, conditions and
// parameters from slabs (load_slab.go): a big tree costs few allocations.

// LoadOptions configure LoadFile and LoadBytes.
type LoadOptions struct {
	// Root is the folder that display paths (in labels, positions,
	// Tree.File/Files) are relative to; "" means the current directory.
	Root string
	// ReadFile reads a tree file; nil means reading it from disk as a
	// regular file of at most 32 MB (a device, a named pipe or a bigger
	// file is an error). Lets tests and fuzzing supply files from memory.
	ReadFile func(path string) ([]byte, error)
	// Subtree loads the file as a <subtree> would include it: its top-level
	// rules, any number of them, become the children of a root sequence
	// (tag "subtree", labelled at the file's <behaviorTree>). `btrun tree`
	// uses it to print a subtree file on its own.
	Subtree bool
	// Rules are the custom rules (custom.go) whose tags the files may use:
	// Registry.RuleDecls of the registry the tree will be bound with.
	Rules []RuleDecl
}

// maxRules caps the rules of one tree, subtree files included, so that
// files which include each other many times over cannot exhaust memory.
const maxRules = 1_000_000

// LoadFile loads a tree file and its subtree files. On any problem it
// returns (nil, err) where err is an ErrorList holding every problem found
// in one pass.
func LoadFile(path string, opts LoadOptions) (*Tree, error) {
	l := newLoader(opts)
	data, err := l.readFile(path)
	if err != nil {
		return nil, ErrorList{{
			Pos: Pos{File: l.display(path)},
			Msg: "cannot read tree file: " + readfile.Reason(err),
			Err: fmt.Errorf("%w: %w", ErrInvalidTree, err),
		}}
	}
	return l.load(path, data)
}

// LoadBytes is LoadFile for a main file already in memory (path names it;
// subtree paths resolve relative to its folder through opts.ReadFile).
func LoadBytes(path string, data []byte, opts LoadOptions) (*Tree, error) {
	return newLoader(opts).load(path, data)
}

// treeFile is one tree file as read and checked. A file included several
// times is read and checked once.
type treeFile struct {
	path    string // the path given to ReadFile
	display string // relative to LoadOptions.Root, slash-separated
	readErr error  // set when the file could not be read
	ok      bool   // read and well formed: items can be built
	rootPos Pos    // the <behaviorTree> element
	items   []item
	merged  bool         // its declarations have joined the tree
	pending []pendingSet // its signal lines whose variable is resolved at the end of the file
}

// loader holds the state of one load.
type loader struct {
	readFile func(string) ([]byte, error)
	subtree  bool   // LoadOptions.Subtree
	rootAbs  string // LoadOptions.Root made absolute; "" if that failed
	tree     *Tree
	errs     ErrorList
	files    map[string]*treeFile // by display path
	order    []*treeFile          // files read, in load order
	hash     hash.Hash
	chain    []*treeFile      // the files being built, main first: finds subtree cycles
	ids      map[string]int32 // full id -> rule index
	full     bool             // too many or too deep rules: building stopped
	// labelBytes counts the bytes of the ids and labels built so far
	// (maxLabelBytes).
	labelBytes int
	strs       *strTable  // every string the tree keeps
	reading    xmlReading // how files are read: the fast way but in tests
	custom     customTags // LoadOptions.Rules by tag
	decls
}

func newLoader(opts LoadOptions) *loader {
	l := &loader{
		readFile: opts.ReadFile,
		subtree:  opts.Subtree,
		tree:     &Tree{},
		files:    make(map[string]*treeFile),
		hash:     sha256.New(),
		ids:      make(map[string]int32),
		strs:     newStrTable(),
		decls:    newDecls(),
		custom:   newCustomTags(opts.Rules),
	}
	if l.readFile == nil {
		l.readFile = readTreeFile
	}
	root := opts.Root
	if root == "" {
		root = "."
	}
	if abs, err := filepath.Abs(root); err == nil {
		l.rootAbs = abs
	}
	return l
}

func (l *loader) errorf(pos Pos, format string, args ...any) {
	l.errs = append(l.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidTree})
}

// load builds the tree from the main file's bytes.
func (l *loader) load(path string, data []byte) (*Tree, error) {
	if data == nil {
		data = []byte{} // open reads the file when data is nil
	}
	main := l.open(path, data)
	t := l.tree
	t.File = main.display
	if main.ok {
		l.chain = []*treeFile{main}
		if l.subtree {
			l.addSubtreeRoot(main)
		} else {
			l.addFile(main, -1, 0, idScope{})
		}
		if len(t.Rules) == 0 && !l.full {
			// A main file without rules gets a root that always fails.
			pos := main.rootPos
			t.Rules = append(t.Rules, Rule{
				Kind: KindFailure, Tag: "failure", Label: "failure@" + pos.String(), Pos: pos,
				Parent: -1, FirstChild: -1, Next: -1,
			})
		}
		l.finishDecls()
		l.checkMachineSignals()
	}
	if len(l.errs) > 0 {
		l.sortErrors()
		return nil, l.errs
	}
	for _, f := range l.order {
		t.Files = append(t.Files, f.display)
	}
	t.Fingerprint = hex.EncodeToString(l.hash.Sum(nil))
	t.ids = l.ids // every id once: a duplicate is an error
	t.index()
	return t, nil
}

// addSubtreeRoot loads the main file as a subtree file: a root sequence
// whose children are the file's top-level rules.
func (l *loader) addSubtreeRoot(f *treeFile) {
	pos := f.rootPos
	l.tree.Rules = append(l.tree.Rules, Rule{
		Kind: KindSequence, Tag: "subtree", Label: l.label("subtree", pos), Pos: pos, Subtree: f.display,
		Parent: -1, FirstChild: -1, Next: -1,
	})
	l.addFile(f, Root, 1, idScope{})
}

// open reads, decodes, parses and checks a file, once per file: later calls
// return the same treeFile. data is the main file's content; nil means read
// the file.
func (l *loader) open(path string, data []byte) *treeFile {
	display := l.display(path)
	if f, ok := l.files[display]; ok {
		return f
	}
	f := &treeFile{path: path, display: display}
	l.files[display] = f
	if data == nil {
		var err error
		if data, err = l.readFile(path); err != nil {
			f.readErr = err
			return f
		}
	}
	l.order = append(l.order, f)
	l.hash.Write([]byte(display))
	l.hash.Write([]byte{0})
	l.hash.Write(data)

	text, derr := decodeText(data)
	if derr != nil {
		l.errorf(Pos{File: display, Line: derr.line, Col: derr.col}, "%s", derr.msg)
		return f
	}
	root, c := readXML(display, text, l.strs, &l.errs, l.reading, l.custom)
	if root == nil {
		return f
	}
	f.rootPos = root.pos
	if isNativeRoot(root.name) { // load_native.go
		root = translateNative(display, root, c.errs, nil, func(pos Pos, rel string) *elem { return l.blockFile(f, pos, rel, root.name) })
	}
	f.items = c.checkFile(root)
	l.errs = append(l.errs, *c.errs...)
	f.ok = true
	if len(l.order) == 1 { // the main file: enough unless subtrees add more
		l.tree.Rules = make([]Rule, 0, c.rules+1)
		l.ids = make(map[string]int32, c.ids)
	}
	return f
}

// readTreeFile reads a tree file from disk: a regular file, within the
// size limit of tree files.
func readTreeFile(path string) ([]byte, error) {
	return readfile.Read(path, readfile.TreeLimit, "tree file")
}

// display returns the path people see: relative to the root folder, with
// forward slashes.
func (l *loader) display(path string) string {
	if l.rootAbs != "" {
		if abs, err := filepath.Abs(path); err == nil {
			if rel, err := filepath.Rel(l.rootAbs, abs); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// subtreePath resolves the path text of a subtree tag against the folder of
// the file holding the tag. Backslashes count as separators too, so paths
// written on Windows work everywhere.
func subtreePath(from, text string) string {
	p := filepath.FromSlash(strings.ReplaceAll(text, `\`, "/"))
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(filepath.Dir(from), p)
}

// readError reports a subtree file that could not be read, at the tag.
func (l *loader) readError(pos Pos, f *treeFile) {
	msg := fmt.Sprintf("cannot read subtree file %s: %s", f.display, readfile.Reason(f.readErr))
	if errors.Is(f.readErr, fs.ErrNotExist) {
		msg = fmt.Sprintf("subtree file %s does not exist; the path is relative to the folder of this file", f.display)
	}
	l.errs = append(l.errs, &Error{Pos: pos, Msg: msg, Err: fmt.Errorf("%w: %w", ErrInvalidTree, f.readErr)})
}

// sortErrors orders the errors by file (in load order), line and column,
// so they read like the files; errors at one position keep their order.
func (l *loader) sortErrors() {
	rank := make(map[string]int, len(l.order))
	for i, f := range l.order {
		rank[f.display] = i
	}
	fileRank := func(file string) int {
		if r, ok := rank[file]; ok {
			return r
		}
		return len(l.order)
	}
	slices.SortStableFunc(l.errs, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(fileRank(a.Pos.File), fileRank(b.Pos.File)),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
		)
	})
}
