package liveview

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// Fuzzing the editor: random sequences of operations on tree files never
// panic; each is applied or refused with an opError (a 422); an operation
// applied to text that loads gives text that loads; and whatever text they
// make stays well formed XML (read by encoding/xml, not only by the
// editor's own scanner). And any text the loader reads, the editor reads.

var fuzzValues = []string{"", "x", "a<b&c>", "é€", "true", "false", "1", "2.5", "\n", `'"`, ".dot", "guard", "!Alarm", "allFalse", "walk.steps", "bt.wait"}

var fuzzMarkup = []string{
	`<success/>`,
	`<action name="bt.log"><parameter name="log.message">hi</parameter></action>`,
	"<sequence id=\".s\">\n<failure/>\n<!-- note -->\n</sequence>",
	`<parallel success="any"><running id="r"/><yield/></parallel>`,
	`<choice order="random"><success/></choice>`,
	`<subtree>x.xml</subtree>`,
	`<variable name="V" default="true"/>`,
	`<signal name="Go"/>`,
	`<gate name="g" users="2"/>`,
	`<timestamp name="T"/>`,
	`<action`,
	`<action name="é€"/>`,
	``,
}

// fuzzOp builds an operation from a few bytes, naming rules of o.
func fuzzOp(o *outline, b []byte) map[string]any {
	at := func(i int) int {
		if i < len(b) {
			return int(b[i])
		}
		return 0
	}
	label := func(i int) string {
		if o == nil || len(o.Rules) == 0 || at(i) == 255 {
			return "nobody"
		}
		r := o.Rules[at(i)%len(o.Rules)]
		if at(i)&1 == 1 {
			return positionLabel(r.Tag, o.File, r.Line, r.Col)
		}
		return r.Label
	}
	parent := func(i int) string {
		if at(i)%5 == 0 {
			return ""
		}
		return label(i)
	}
	value := func(i int) any {
		if at(i) == 0 {
			return nil
		}
		return fuzzValues[at(i)%len(fuzzValues)]
	}
	str := func(i int) string { return fuzzValues[at(i)%len(fuzzValues)] }
	attrs := []string{"id", "name", "loop", "doNotFail", "abort", "timeout", "cooldown", "gate", "order", "success", "failure", "speed"}
	tags := []string{"action", "sequence", "choice", "parallel", "success", "failure", "running", "yield", "subtree", "variable"}
	decls := []string{"variable", "signal", "timestamp", "gate"}
	switch opNames[at(0)%len(opNames)] {
	case "attr":
		return map[string]any{"op": "attr", "rule": label(1), "name": attrs[at(2)%len(attrs)], "value": value(3)}
	case "param":
		return map[string]any{"op": "param", "rule": label(1), "name": str(2), "value": value(3)}
	case "conditions":
		var cs []string
		for i := range at(2) % 4 {
			cs = append(cs, str(3+i))
		}
		return map[string]any{"op": "conditions", "rule": label(1), "conditions": cs, "mode": value(7)}
	case "insert":
		return map[string]any{"op": "insert", "parent": parent(1), "index": at(2)%5 - 1, "xml": fuzzMarkup[at(3)%len(fuzzMarkup)]}
	case "delete":
		return map[string]any{"op": "delete", "rule": label(1)}
	case "move":
		return map[string]any{"op": "move", "rule": label(1), "parent": parent(2), "index": at(3)%5 - 1}
	case "tag":
		return map[string]any{"op": "tag", "rule": label(1), "tag": tags[at(2)%len(tags)]}
	case "text":
		return map[string]any{"op": "text", "rule": label(1), "value": value(2)}
	case "duplicate":
		return map[string]any{"op": "duplicate", "rule": label(1)}
	case "declare":
		return map[string]any{"op": "declare", "xml": fuzzMarkup[at(1)%len(fuzzMarkup)]}
	case "wrap":
		return map[string]any{"op": "wrap", "rule": label(1), "tag": tags[at(2)%len(tags)], "count": at(3)%4 - 1, "id": str(4)}
	case "unwrap":
		return map[string]any{"op": "unwrap", "rule": label(1)}
	case "paste":
		return map[string]any{"op": "paste", "parent": parent(1), "index": at(2)%5 - 1, "xml": fuzzMarkup[at(3)%len(fuzzMarkup)]}
	default:
		return map[string]any{"op": "undeclare", "tag": decls[at(1)%len(decls)], "name": str(2)}
	}
}

// wellFormed reports whether encoding/xml reads text to its end.
func wellFormed(text string) error {
	d := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(text, "\uFEFF")))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		_, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func FuzzEditOps(f *testing.F) {
	for _, seed := range []string{opsTree, "testdata/editor/ai/guard.xml", "testdata/editor/ai/rounds.xml", "../scripts/ai/grunt.xml", "../scripts/ai/courier.xml", "../scripts/ai/lookout.xml"} {
		text := seed
		if !strings.HasPrefix(seed, "<") {
			data, err := os.ReadFile(seed)
			if err != nil {
				f.Fatal(err)
			}
			text = string(data)
		}
		f.Add(text, []byte{3, 1, 2, 1, 5, 7, 1, 0, 4, 9, 9, 9})
		f.Add(text, []byte{0, 4, 3, 2, 1, 8, 1, 6, 3, 1, 0})
	}
	f.Add("<behaviorTree>\r\n\t<sequence id=\"s\">\r\n\t\t<success/>\r\n\t</sequence>\r\n</behaviorTree>", []byte{3, 1, 0, 2, 8, 1})
	f.Add("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><behaviorTree><action id=\"a\" name=\"bt.log\"/></behaviorTree>", []byte{1, 2, 11, 11})
	f.Fuzz(func(t *testing.T, text string, prog []byte) { checkOpSequence(t, text, prog) })
}

// TestEditOps_randomSequences runs FuzzEditOps's checks on a few thousand
// random sequences of operations on the seed files, in every test run.
func TestEditOps_randomSequences(t *testing.T) {
	texts := []string{opsTree}
	for _, path := range []string{"testdata/editor/ai/guard.xml", "../scripts/ai/grunt.xml", "../scripts/ai/courier.xml", "testdata/editor/ai/latin.xml", "../scripts/ai/lookout.xml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text, err := runtime.DecodeSource(path, data)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 600
	if testing.Short() {
		n = 60
	}
	var applied, refused int
	for i := range n {
		prog := make([]byte, 8*(1+rng.IntN(12)))
		for k := range prog {
			prog[k] = byte(rng.IntN(256))
		}
		a, r := checkOpSequence(t, texts[i%len(texts)], prog)
		applied, refused = applied+a, refused+r
	}
	t.Logf("%d operations applied, %d refused", applied, refused)
	if applied < n {
		t.Errorf("only %d operations of %d sequences were applied", applied, n)
	}
}

// checkOpSequence applies the operations prog describes (8 bytes each) to
// text, one at a time, and checks what FuzzEditOps promises.
// It returns how many were applied and how many refused.
func checkOpSequence(t *testing.T, text string, prog []byte) (applied, refused int) {
	const file = "f.xml"
	load := func(text string) error {
		data, err := runtime.EncodeSource(file, text)
		if err != nil {
			return err
		}
		_, err = runtime.LoadBytes(file, data, runtime.LoadOptions{ReadFile: func(string) ([]byte, error) { return []byte("<behaviorTree><success/></behaviorTree>"), nil }})
		return err
	}
	first := text
	var done []json.RawMessage // the operations applied, in order
	defer func() {
		if !t.Failed() {
			checkOneRequest(t, file, first, text, done, load)
		}
	}()
	for len(prog) > 0 && len(text) < 1<<20 {
		step := prog[:min(8, len(prog))]
		prog = prog[len(step):]
		o, _ := readSource(file, text)
		raw, err := json.Marshal(fuzzOp(o, step))
		if err != nil {
			t.Fatal(err)
		}
		ops := []json.RawMessage{raw}
		checked := step[0]&0x80 == 0
		var loader func(string) error
		if checked {
			loader = load
		}
		next, err := applyOps(file, text, ops, loader)
		var oe *opError
		if err != nil {
			if !errors.As(err, &oe) {
				t.Fatalf("%s: an error that is not an opError: %v", raw, err)
			}
			refused++
			continue
		}
		if o == nil {
			t.Fatalf("%s applied to text the editor cannot read:\n%s", raw, text)
		}
		if wellFormed(text) == nil {
			if err := wellFormed(next); err != nil {
				t.Fatalf("%s made text that is not well formed (%v):\n%s\nfrom\n%s", raw, err, next, text)
			}
		}
		if _, err := readSource(file, next); err != nil {
			t.Fatalf("%s made text the editor cannot read (%v):\n%s", raw, err, next)
		}
		if checked && load(text) == nil && load(next) != nil {
			t.Fatalf("%s: text that loaded became text that does not: %v\n%s", raw, load(next), next)
		}
		text = next
		done = append(done, raw)
		applied++
	}
	return applied, refused
}

// checkOneRequest applies in one request the operations that were applied
// one at a time to first and made last: the result is last, checked by one
// load, when first and last load; when first loads and last does not (some
// operations were applied unchecked), the request is refused naming one of
// its operations, found in a few loads.
func checkOneRequest(t *testing.T, file, first, last string, done []json.RawMessage, load func(string) error) {
	if len(done) == 0 || len(done) > maxOps || load(first) != nil {
		return
	}
	loads := 0
	counted := func(text string) error { loads++; return load(text) }
	got, err := applyOps(file, first, done, counted)
	if load(last) == nil {
		if err != nil || got != last || loads > 1 {
			t.Fatalf("%d operations in one request: %v, %d loads; the text is the same: %v", len(done), err, loads, got == last)
		}
		return
	}
	var oe *opError
	if !errors.As(err, &oe) || oe.index < 0 || oe.index >= len(done) || !strings.Contains(err.Error(), "the result would not load") {
		t.Fatalf("%d operations in one request make text that does not load: %v", len(done), err)
	}
	if most := 3 + bits.Len(uint(len(done))); loads > most {
		t.Fatalf("%d operations: %d loads to find the one to blame", len(done), loads)
	}
}

func FuzzScanSource(f *testing.F) {
	f.Add(opsTree)
	f.Add("<behaviorTree><!-- a -- b --><![CDATA[x]]><?pi x?></behaviorTree>")
	f.Add("<!DOCTYPE behaviorTree [<!ENTITY x \"y\">]><behaviorTree/>")
	f.Add("\uFEFF<behaviorTree a='1' b=\"&amp;&#65;&#x42;\">t</behaviorTree>")
	f.Add("<behaviorTree>\r<sequence\r\nid='s'/></behaviorTree>")
	f.Add(dottedDeep(35, 30)) // a full id just over the loader's bound
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := scanSource(text)
		if err != nil {
			var se *srcError
			if !errors.As(err, &se) {
				t.Fatalf("not a srcError: %v", err)
			}
			_, lerr := runtime.LoadBytes("f.xml", []byte(text), runtime.LoadOptions{Subtree: true, ReadFile: func(string) ([]byte, error) { return []byte("<behaviorTree/>"), nil }})
			if lerr == nil && utf8Text(text) {
				t.Fatalf("the loader reads it, the editor does not (%v):\n%q", err, text)
			}
			return
		}
		for _, n := range doc.nodes {
			if n.start < 0 || n.end > len(text) || n.start > n.end {
				t.Fatalf("node %+v outside the text", n)
			}
		}
		o, err := newOutline(tagFormat(), doc, "f.xml", runtime.TextEncoding{})
		if err != nil { // ids longer than the loader takes: it refuses them too
			if _, lerr := runtime.LoadBytes("f.xml", []byte(text), runtime.LoadOptions{Subtree: true, ReadFile: func(string) ([]byte, error) { return []byte("<behaviorTree/>"), nil }}); lerr == nil {
				t.Fatalf("the loader reads it, the editor's outline does not (%v):\n%q", err, text)
			}
			return
		}
		for i, r := range o.Rules {
			if k, err := o.find(positionLabel(r.Tag, o.File, r.Line, r.Col)); err != nil || k != i {
				t.Fatalf("rule %d at %d:%d is not found by its position: %d %v", i, r.Line, r.Col, k, err)
			}
		}
	})
}

// utf8Text reports whether the text declares no encoding but UTF-8 (the
// fuzzer's strings are text, not a file's bytes in another encoding).
func utf8Text(text string) bool {
	enc, err := runtime.SourceEncoding("f.xml", text)
	return err == nil && (enc.Name() == "UTF-8" || strings.EqualFold(enc.Name(), "utf8"))
}
