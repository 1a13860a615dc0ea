package liveview

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// The editor's API (`btrun run -debug ADDR -edit`; docs/debug.md,
// "Editing"): a tree file's source, edit operations applied to it by the
// server, checks of a candidate source as `btrun validate` does, and saving
// it, which writes the file and hot-reloads the game. Like every request,
// these run on the game's goroutine between steps (queue.go): a check binds
// against the registry the game runs with, and a save reloads between two
// steps. Edit operations are the exception: the game's goroutine only
// checks the request's files, and the operations and the load that checks
// their result run on the request's own goroutine (at most
// maxEditsAtOnce at a time), so that a big edit does not hold the game.
// Without Options.Edit every one of them is refused (403): the server then
// writes nothing; so is every one of them for a game whose sources are an
// fs.FS (game.Options.Files), since the editor reads and writes files on
// disk.

const (
	// maxEditBody bounds an editor request's body (a source and its
	// operations, as JSON).
	maxEditBody = 16 << 20
	// maxEditSource bounds the source of one file the editor takes.
	maxEditSource = 8 << 20
)

// routeEditor serves the editor's endpoints; false when the path is not
// one of them.
func (d *Debugger) routeEditor(w http.ResponseWriter, r *http.Request, seg []string) bool {
	n := len(seg)
	var serve func()
	switch {
	case n == 1 && seg[0] == "palette":
		serve = func() {
			if method(w, r, "GET") {
				d.call(w, r, func(*request) (any, error) { return d.paletteView(), nil })
			}
		}
	case n == 1 && seg[0] == "check":
		serve = func() { d.serveCheck(w, r) }
	case n == 3 && seg[0] == "trees" && seg[2] == "source":
		serve = func() {
			switch r.Method {
			case http.MethodGet, http.MethodHead:
				d.serveSource(w, r, seg[1])
			case http.MethodPut:
				d.serveSave(w, r, seg[1])
			default:
				methodNotAllowed(w, r, "GET, PUT")
			}
		}
	case n == 3 && seg[0] == "trees" && seg[2] == "edit":
		serve = func() { d.serveEdit(w, r, seg[1]) }
	default:
		return false
	}
	if err := d.editorRefusal(r); err != nil {
		writeError(w, err)
		return true
	}
	serve()
	return true
}

// editorRefusal says why an editor request is refused (403), or nil. It
// applies the live view's own host and origin checks (http.go) to every
// editor request, reads included: a file's source is not for other sites.
func (d *Debugger) editorRefusal(r *http.Request) error {
	if !d.opts.Edit {
		return errorf(http.StatusForbidden, "this run does not edit its trees: start it with btrun run -debug ADDR -edit")
	}
	if err := d.host.EditableTrees(); err != nil {
		// The game runs what Options.Files holds; the editor would read,
		// check and write other files, on disk.
		return errorf(http.StatusForbidden, "this game's trees cannot be edited: %v", err)
	}
	if err := checkRequest(r, d.opts.Host); err != nil {
		return err
	}
	// Reads too: a tree's source is not for another site's page, so an
	// Origin on a GET must be the live view's own as well.
	if o, ok := r.Header["Origin"]; ok && (len(o) != 1 || !sameOrigin(o[0], r)) {
		return errorf(http.StatusForbidden, "editor request refused (Origin %q): the editor answers the live view's own page only (%s)", strings.Join(o, ", "), ownOrigin(r))
	}
	return nil
}

// sourceView is GET .../source's answer.
type sourceView struct {
	Tree     string   `json:"tree"`
	File     string   `json:"file"`
	Files    []string `json:"files"` // the tree's files, main first
	Source   string   `json:"source"`
	Version  string   `json:"version"`
	Encoding string   `json:"encoding"`
	Outline  *outline `json:"outline"`
	// OutlineError says why there is no outline (the source is not well
	// formed); the source can then be edited as text only.
	OutlineError string `json:"outlineError,omitempty"`
}

// versionOf is a file's version: it changes whenever its bytes do.
func versionOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// treeFiles returns the files of tree name (404 when there is none).
func (d *Debugger) treeFiles(name string) ([]string, error) {
	files, err := d.host.TreeFiles(name)
	if err != nil {
		return nil, &apiError{code: http.StatusNotFound, msg: err.Error(), extra: map[string]any{"trees": d.g.TreeNames()}}
	}
	return files, nil
}

func (d *Debugger) serveSource(w http.ResponseWriter, r *http.Request, name string) {
	file := r.URL.Query().Get("file")
	d.call(w, r, func(*request) (any, error) {
		files, err := d.treeFiles(name)
		if err != nil {
			return nil, err
		}
		if file == "" {
			file = files[0]
		}
		if !slices.Contains(files, file) {
			return nil, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("%s is not a file of tree %s", file, name), extra: map[string]any{"files": files}}
		}
		raw, err := d.host.ReadTreeFile(file)
		if err != nil {
			return nil, errorf(http.StatusUnprocessableEntity, "%v", err)
		}
		if len(raw) > maxEditSource {
			return nil, errorf(http.StatusRequestEntityTooLarge, "%s is %d bytes: the editor takes files of at most %d bytes", file, len(raw), maxEditSource)
		}
		text, err := runtime.DecodeSource(file, raw)
		if err != nil {
			return nil, errorf(http.StatusUnprocessableEntity, "%v", err)
		}
		v := sourceView{Tree: name, File: file, Files: files, Source: text, Version: versionOf(raw)}
		v.Outline, v.Encoding, v.OutlineError = outlineOf(d.format(), file, text)
		return v, nil
	})
}

// outlineOf reads text's outline, or says why it cannot.
func outlineOf(f *formatIndex, file, text string) (*outline, string, string) {
	enc := "UTF-8"
	if e, err := runtime.SourceEncoding(file, text); err == nil {
		enc = e.Name()
	}
	o, err := readSourceIn(f, file, text)
	if err != nil {
		return nil, enc, err.Error()
	}
	return o, enc, ""
}

// fileSource is a file and its text, in a request.
type fileSource struct {
	File   string `json:"file"`
	Source string `json:"source"`
}

// editRequest is POST .../edit's body.
type editRequest struct {
	File   string            `json:"file"`
	Source *string           `json:"source"`
	Ops    []json.RawMessage `json:"ops"`
	// New are new subtree files (not written yet) the tree may include: a
	// result is loaded with them.
	New []fileSource `json:"new"`
}

// editView is POST .../edit's answer.
type editView struct {
	Source       string   `json:"source"`
	Changed      bool     `json:"changed"`
	Outline      *outline `json:"outline"`
	OutlineError string   `json:"outlineError,omitempty"`
}

func (d *Debugger) serveEdit(w http.ResponseWriter, r *http.Request, name string) {
	var body editRequest
	if !method(w, r, "POST") || !decodeUpTo(w, r, &body, maxEditBody) ||
		!need(w, body.Source != nil, `"source" (the file's text to edit) is required`) {
		return
	}
	if len(*body.Source) > maxEditSource {
		writeError(w, errorf(http.StatusRequestEntityTooLarge, `"source" is longer than %d bytes: the editor takes files of at most that`, maxEditSource))
		return
	}
	// On the game's goroutine, what needs the game: which file, which new
	// files, and a loader that needs nothing of it any more.
	res := d.ask(r, func(*request) (any, error) { return d.editLoader(name, body) })
	if res.err != nil {
		writeError(w, res.err)
		return
	}
	job := res.body.(editJob)
	// Off it, the operations and the loads that check them: the game steps
	// on meanwhile, and answers other requests.
	release, err := d.editSlot(r)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	file := job.file
	text, err := applyOpsSafely(d.format(), file, *body.Source, body.Ops, job.load)
	if err != nil {
		var oe *opError
		if errors.As(err, &oe) {
			extra := map[string]any{"op": oe.index}
			if oe.field != "" {
				extra = map[string]any{"field": oe.field}
			}
			writeError(w, &apiError{code: http.StatusUnprocessableEntity, msg: err.Error(), extra: extra})
			return
		}
		writeError(w, err)
		return
	}
	v := editView{Source: text, Changed: text != *body.Source}
	v.Outline, _, v.OutlineError = outlineOf(d.format(), file, text)
	writeJSON(w, http.StatusOK, v)
}

// applyOpsSafely is applyOps, a panic made a 500 answer as on the game's
// goroutine (queue.go).
func applyOpsSafely(f *formatIndex, file, text string, ops []json.RawMessage, load func(string) error) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", errorf(http.StatusInternalServerError, "internal error (please report it): %v", p)
		}
	}()
	return applyOpsIn(f, file, text, ops, load)
}

// maxEditsAtOnce bounds the edit requests worked on at once, off the
// game's goroutine: each may take a few times its source in memory.
const maxEditsAtOnce = 2

// editSlot waits for a turn to work on an edit request (as long as a
// request waits for the game) and returns what ends it.
func (d *Debugger) editSlot(r *http.Request) (func(), error) {
	t := time.NewTimer(d.opts.Timeout)
	defer t.Stop()
	select {
	case d.edits <- struct{}{}:
		return func() { <-d.edits }, nil
	case <-r.Context().Done():
		return nil, errorf(http.StatusServiceUnavailable, "the request was cancelled")
	case <-t.C:
		return nil, errorf(http.StatusServiceUnavailable, "the editor is busy with %d other requests: try again", maxEditsAtOnce)
	}
}

// editJob is what an edit request works on off the game's goroutine: its
// file, and how a text of it is loaded.
type editJob struct {
	file string
	load func(string) error
}

// editLoader checks an edit request's files, on the game's goroutine, and
// returns how its results are loaded, from any goroutine.
func (d *Debugger) editLoader(name string, body editRequest) (any, error) {
	file, err := d.editableFile(name, body.File)
	if err != nil {
		return nil, err
	}
	news := map[string][]byte{}
	for _, f := range body.New {
		if err := d.newFileProblem(f.File); err != nil {
			return nil, errorf(http.StatusForbidden, "new file %s: %v", f.File, err)
		}
		if data, err := runtime.EncodeSource(f.File, f.Source); err == nil {
			news[f.File] = data
		}
	}
	files, _ := d.host.TreeFiles(name)
	return editJob{file: file, load: d.loader(name, file, slices.Contains(files, file), news)}, nil
}

// editableFile checks a file named in a request: a file of tree name, or a
// new file (one that does not exist yet, inside the config's folder, ending
// in .xml) that a save may create along with the file including it.
func (d *Debugger) editableFile(name, file string) (string, error) {
	files, err := d.treeFiles(name)
	if err != nil {
		return "", err
	}
	if file == "" {
		return files[0], nil
	}
	if slices.Contains(files, file) {
		return file, nil
	}
	if err := d.newFileProblem(file); err != nil {
		return "", &apiError{code: http.StatusForbidden, msg: fmt.Sprintf("%s: %v", file, err), extra: map[string]any{"files": files}}
	}
	return file, nil
}

// maxFileName bounds the name of a new tree file.
const maxFileName = 1024

// newFileProblem says why file cannot be a new tree file, or nil.
func (d *Debugger) newFileProblem(file string) error {
	switch {
	case strings.ContainsFunc(file, unicode.IsControl):
		// Its name is printed as it is (a reload's summary): a newline
		// would forge a line of btrun's output, an escape sequence reach
		// the terminal.
		return fmt.Errorf("a file's name may not hold control characters (%q)", file)
	case len(file) > maxFileName:
		return fmt.Errorf("a file's name is at most %d bytes", maxFileName)
	case !fs.ValidPath(file) || strings.Contains(file, `\`):
		return errors.New("a file is named by its path relative to the config's folder, with forward slashes, inside that folder")
	case path.Ext(file) != ".xml":
		return errors.New("a tree file's name ends in .xml")
	}
	if _, err := d.host.ReadTreeFile(file); !errors.Is(err, fs.ErrNotExist) {
		return errors.New("it is not a file of the tree (the files a save writes are the tree's main file, its subtree files, and new subtree files it includes)")
	}
	return nil
}

// loader returns how applyOps learns whether a text of file loads: tree
// name loaded with it in place of the file, and the new files news; a new
// file (inTree false), loaded on its own as a subtree file. It may be
// called from any goroutine (game.TreeLoader).
func (d *Debugger) loader(name, file string, inTree bool, news map[string][]byte) func(string) error {
	tl, hook := d.host.TreeLoader(), d.loadHook
	return func(text string) error {
		if hook != nil {
			hook()
		}
		data, err := runtime.EncodeSource(file, text)
		if err != nil {
			return err
		}
		if !inTree {
			_, err = tl.LoadTreeFile(file, data)
			return err
		}
		override := map[string][]byte{file: data}
		for f, data := range news {
			override[f] = data
		}
		_, err = tl.LoadTree(name, override)
		return err
	}
}

// checkBody is POST /api/check's body.
type checkBody struct {
	Tree   string       `json:"tree"`
	File   string       `json:"file"`
	Source *string      `json:"source"`
	New    []fileSource `json:"new"`
}

// problemView is one problem of a check.
type problemView struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Severity string `json:"severity"` // "error" or "warning"
}

func (d *Debugger) serveCheck(w http.ResponseWriter, r *http.Request) {
	var body checkBody
	if !method(w, r, "POST") || !decodeUpTo(w, r, &body, maxEditBody) ||
		!need(w, body.Tree != "", `"tree" (the tree's name) is required`) ||
		!need(w, body.Source != nil, `"source" (the file's text to check) is required`) {
		return
	}
	d.call(w, r, func(*request) (any, error) {
		override, problems, err := d.candidate(body.Tree, body.File, *body.Source, body.New)
		if err != nil {
			return nil, err
		}
		if len(problems) == 0 {
			_, problems = d.checkTree(body.Tree, override)
		}
		return map[string]any{"problems": problems}, nil
	})
}

// candidate makes the files of a check or a save: the file with its text
// and the new files, encoded. Text that cannot be encoded is a problem.
func (d *Debugger) candidate(tree, file, source string, news []fileSource) (map[string][]byte, []problemView, error) {
	file, err := d.editableFile(tree, file)
	if err != nil {
		return nil, nil, err
	}
	files := append([]fileSource{{File: file, Source: source}}, news...)
	override := map[string][]byte{}
	var problems []problemView
	for i, f := range files {
		if i > 0 {
			if err := d.newFileProblem(f.File); err != nil {
				return nil, nil, errorf(http.StatusForbidden, "new file %s: %v", f.File, err)
			}
		}
		if len(f.Source) > maxEditSource {
			return nil, nil, errorf(http.StatusRequestEntityTooLarge, "the source of %s is longer than %d bytes", f.File, maxEditSource)
		}
		data, err := runtime.EncodeSource(f.File, f.Source)
		if err != nil {
			problems = append(problems, problemsView(map[string]string{f.File: f.Source}, problemsOfError(err, f.File))...)
			continue
		}
		override[f.File] = data
	}
	return override, problems, nil
}

// checkTree checks tree name with override and returns its problems, each
// at its rule (a label found from the position when the problem has none).
func (d *Debugger) checkTree(name string, override map[string][]byte) (*runtime.Tree, []problemView) {
	t, ps := d.host.CheckTree(name, override)
	out := []problemView{}
	texts := map[string]string{}
	for f, data := range override {
		if text, err := runtime.DecodeSource(f, data); err == nil {
			texts[f] = text
		}
	}
	return t, append(out, problemsView(texts, ps)...)
}

// problemsOfError lists an error's problems (in file when it names none).
func problemsOfError(err error, file string) []game.TreeProblem {
	ps := game.ProblemsOf(err)
	for i := range ps {
		if ps[i].Pos.File == "" {
			ps[i].Pos.File = file
		}
	}
	return ps
}

// problemsView turns problems into the API's shape. texts holds the
// sources of files being edited: their outlines name the rule at a
// problem's position when the problem names none.
func problemsView(texts map[string]string, ps []game.TreeProblem) []problemView {
	outlines := map[string]*outline{}
	out := make([]problemView, len(ps))
	for i, p := range ps {
		v := problemView{File: p.Pos.File, Line: p.Pos.Line, Col: p.Pos.Col, Rule: p.Rule, Message: p.Msg, Severity: "error"}
		if p.Warning {
			v.Severity = "warning"
		}
		if text, ok := texts[v.File]; ok && v.Rule == "" && v.Line > 0 {
			o, seen := outlines[v.File]
			if !seen {
				o, _ = readSource(v.File, text)
				outlines[v.File] = o
			}
			if o != nil { // nil: the text is not well formed, and names no rule
				if k := o.ruleAt(v.Line, v.Col); k >= 0 {
					v.Rule = o.Rules[k].Label
				}
			}
		}
		out[i] = v
	}
	return out
}

// saveRequest is PUT .../source's body.
type saveRequest struct {
	File    string       `json:"file"`
	Source  *string      `json:"source"`
	Version *string      `json:"version"`
	New     []fileSource `json:"new"`
}

func (d *Debugger) serveSave(w http.ResponseWriter, r *http.Request, name string) {
	var body saveRequest
	if !decodeUpTo(w, r, &body, maxEditBody) ||
		!need(w, body.Source != nil, `"source" (the file's new text) is required`) ||
		!need(w, body.Version != nil, `"version" (the version the text was made from, as GET .../source gave it) is required`) {
		return
	}
	d.call(w, r, func(*request) (any, error) { return d.save(name, body) })
}

// save writes a file (and new subtree files it includes) and reloads the
// game; see serveSave. Everything is checked before anything is written,
// and a reload that fails puts the files back as they were.
func (d *Debugger) save(name string, body saveRequest) (any, error) {
	files, err := d.treeFiles(name)
	if err != nil {
		return nil, err
	}
	file := body.File
	if file == "" {
		file = files[0]
	}
	if !slices.Contains(files, file) {
		return nil, &apiError{code: http.StatusForbidden, msg: fmt.Sprintf("%s is not a file of tree %s: only the files of the game's trees can be written", file, name),
			extra: map[string]any{"files": files}}
	}
	old, err := d.host.ReadTreeFile(file)
	if err != nil {
		return nil, errorf(http.StatusConflict, "%s cannot be read any more: %v", file, err)
	}
	if v := versionOf(old); v != *body.Version {
		return nil, &apiError{code: http.StatusConflict, msg: fmt.Sprintf("%s changed on disk since it was opened: compare the two versions and merge them, or reload it", file),
			extra: map[string]any{"version": v}}
	}
	override, problems, err := d.candidate(name, file, *body.Source, body.New)
	if err != nil {
		return nil, err
	}
	var tree *runtime.Tree
	if len(problems) == 0 {
		tree, problems = d.checkTree(name, override)
	}
	if n := countErrors(problems); n > 0 {
		return nil, &apiError{code: http.StatusUnprocessableEntity, msg: fmt.Sprintf("not saved: the tree would not load or bind (%d %s); %s is unchanged", n, plural(n, "problem"), file),
			extra: map[string]any{"problems": problems}}
	}
	for _, f := range body.New {
		if !slices.Contains(tree.Files, f.File) {
			return nil, errorf(http.StatusForbidden, "new file %s is not included by tree %s: a new file is saved with the file whose <subtree> includes it", f.File, name)
		}
	}
	if bytes.Equal(override[file], old) && len(body.New) == 0 {
		return map[string]any{"file": file, "version": versionOf(old), "unchanged": true}, nil
	}
	discarded, err := d.tl.branch(d)
	if err != nil {
		return nil, err
	}
	written, err := d.write(file, override, body.New)
	if err != nil {
		if uerr := d.undo(file, old, written); uerr != nil {
			return nil, errorf(http.StatusInternalServerError, "not saved: %v; and putting the files back as they were failed: %v", err, uerr)
		}
		return nil, errorf(http.StatusInternalServerError, "not saved, and %s is as it was: %v", file, err)
	}
	changed := append([]string{file}, written...)
	d.pendingEdit = map[string][]byte{file: old} // time travel keeps the steps before the save (timeline_edits.go)
	rep, err := d.host.Reload(game.ReloadOptions{Changed: changed})
	d.pendingEdit = nil
	if err != nil {
		problems := problemsView(map[string]string{file: *body.Source}, problemsOfError(err, file))
		if uerr := d.undo(file, old, written); uerr != nil {
			return nil, &apiError{code: http.StatusInternalServerError,
				msg:   fmt.Sprintf("not applied: %v; and putting the files back as they were failed, so they hold the text that does not apply: %v", err, uerr),
				extra: map[string]any{"problems": problems}}
		}
		return nil, &apiError{code: http.StatusUnprocessableEntity, msg: fmt.Sprintf("not applied, and %s is back as it was: %v", file, err),
			extra: map[string]any{"problems": problems}}
	}
	v := map[string]any{"file": file, "version": versionOf(override[file]), "written": changed, "reload": d.reloadView(rep)}
	if discarded[0] != 0 {
		v["discarded"] = discarded[:]
	}
	return v, nil
}

// treeWriter writes tree files: the game (a test's stand-in fails).
type treeWriter interface {
	WriteTreeFile(file string, data []byte, create bool) error
	RemoveTreeFile(file string) error
}

// write writes the new files, then the file; it returns the new files
// written.
func (d *Debugger) write(file string, data map[string][]byte, news []fileSource) ([]string, error) {
	var written []string
	for _, f := range news {
		if err := d.disk.WriteTreeFile(f.File, data[f.File], true); err != nil {
			return written, err
		}
		written = append(written, f.File)
	}
	return written, d.disk.WriteTreeFile(file, data[file], false)
}

// undo puts file back to old and removes the new files written, after a
// save that failed; the error says what could not be undone (the answer
// then must not say the files are as they were).
func (d *Debugger) undo(file string, old []byte, written []string) error {
	var errs []error
	if err := d.disk.WriteTreeFile(file, old, false); err != nil {
		errs = append(errs, err)
	}
	for _, f := range written {
		if err := d.disk.RemoveTreeFile(f); err != nil {
			errs = append(errs, fmt.Errorf("removing the new file %s: %w", f, err))
		}
	}
	return errors.Join(errs...)
}

// reloadView is what a save's reload did: who kept their place and who
// restarted, and why: at the root, or at the initial state of the state
// machine "at" names.
func (d *Debugger) reloadView(rep *game.ReloadReport) map[string]any {
	restarted := []map[string]string{}
	gone := map[string]bool{}
	for _, r := range rep.Restarted {
		gone[r.Agent] = true
		restarted = append(restarted, map[string]string{"agent": r.Agent, "rule": r.Rule.Label, "why": r.Rule.String(), "at": r.At})
	}
	kept := []string{}
	for _, r := range d.agents {
		if id := r.a.ID(); !gone[id] {
			kept = append(kept, id)
		}
	}
	nonNil := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	return map[string]any{"summary": rep.Summary(), "step": rep.Step, "kept": kept, "restarted": restarted,
		"warnings": nonNil(rep.Warnings), "plugins": nonNil(rep.Plugins)}
}

func countErrors(ps []problemView) int {
	n := 0
	for _, p := range ps {
		if p.Severity == "error" {
			n++
		}
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
