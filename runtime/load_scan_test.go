package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

// The fast XML scanner (load_scan.go) must read every file it does not give
// up on exactly as encoding/xml does, and checking rules while reading
// (xmlBuilder) must find exactly what checking them afterwards finds. These
// tests and fuzz targets compare the ways.

// readings are the ways readXML can read, the reference (encoding/xml,
// every rule checked at the end) first.
var readings = []xmlReading{{noScan: true, noStream: true}, {}, {noScan: true}, {noStream: true}}

// loadWay loads a main file from memory the way how says.
func loadWay(data []byte, opts LoadOptions, how xmlReading) (*Tree, error) {
	l := newLoader(opts)
	l.reading = how
	return l.load("main.xml", data)
}

// sameLoads loads data every way and reports where a way differs from the
// reference: in the error text or in the tree, field for field.
func sameLoads(t *testing.T, data []byte, opts LoadOptions) {
	t.Helper()
	ref, refErr := loadWay(data, opts, readings[0])
	for _, how := range readings[1:] {
		tree, err := loadWay(data, opts, how)
		if fmt.Sprint(err) != fmt.Sprint(refErr) {
			t.Fatalf("%+v: error\n%v\nwant (encoding/xml, checked at the end)\n%v\ninput %q", how, err, refErr, data)
		}
		if !reflect.DeepEqual(tree, ref) {
			t.Fatalf("%+v: the tree differs from the one encoding/xml's reading makes; input %q", how, data)
		}
	}
}

// readBoth reads text with the scanner and with encoding/xml, keeping every
// element. ok is false when the scanner gave up.
func readBoth(text []byte) (scan, std *elem, scanErrs, stdErrs ErrorList, ok bool) {
	strs := newStrTable()
	b := newXMLBuilder("f.xml", text, strs, nil, xmlReading{noStream: true})
	scan, ok = scanXML(b)
	scanErrs = b.errs
	b = newXMLBuilder("f.xml", text, strs, nil, xmlReading{noStream: true})
	std = decodeXML(b)
	return scan, std, scanErrs, b.errs, ok
}

// sameElems reports the first difference between two element trees.
func sameElems(a, b *elem) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Sprintf("root %v and %v", a, b)
		}
		return ""
	case a.name != b.name || a.pos != b.pos || a.text != b.text || a.textPos != b.textPos:
		return fmt.Sprintf("element %q at %v text %q at %v, want %q at %v text %q at %v",
			a.name, a.pos, a.text, a.textPos, b.name, b.pos, b.text, b.textPos)
	case len(a.attrs) != len(b.attrs) || len(a.children) != len(b.children):
		return fmt.Sprintf("<%s> at %v: attributes %v children %d, want %v and %d", a.name, a.pos, a.attrs, len(a.children), b.attrs, len(b.children))
	}
	for i := range a.attrs {
		if a.attrs[i] != b.attrs[i] {
			return fmt.Sprintf("<%s> at %v: attribute %+v, want %+v", a.name, a.pos, a.attrs[i], b.attrs[i])
		}
	}
	for i := range a.children {
		if d := sameElems(a.children[i], b.children[i]); d != "" {
			return d
		}
	}
	return ""
}

// What a test wants of the scanner on a text: to read it, to give up, or
// either (but then to read it as encoding/xml does).
type scanWant uint8

const (
	wantRead scanWant = iota
	wantGiveUp
	wantEither
)

// checkScan compares the scanner with encoding/xml on text.
func checkScan(t *testing.T, text []byte, want scanWant) {
	t.Helper()
	scan, std, scanErrs, stdErrs, ok := readBoth(text)
	switch {
	case !ok && want == wantRead:
		t.Errorf("the scanner gave up on %q", text)
	case ok && want == wantGiveUp:
		t.Errorf("the scanner read %q (encoding/xml: %v)", text, stdErrs)
	}
	if !ok {
		return
	}
	if d := sameElems(scan, std); d != "" {
		t.Fatalf("the scanner read %q differently: %s", text, d)
	}
	if fmt.Sprint(scanErrs) != fmt.Sprint(stdErrs) {
		t.Fatalf("the scanner read %q with problems %v, encoding/xml with %v", text, scanErrs, stdErrs)
	}
}

// TestScanXML_readsWhatTreeFilesHold: the markup tree files are written
// with is read by the scanner (not left to encoding/xml), and read the
// same.
func TestScanXML_readsWhatTreeFilesHold(t *testing.T) {
	tests := []struct{ name, text string }{
		{"declaration", `<?xml version="1.0" encoding="ISO-8859-1"?><behaviorTree/>`},
		{"declaration single quotes", "<?xml version='1.0'?>\n<behaviorTree/>"},
		{"declaration without version", `<?xml encoding="UTF-8" ?><a/>`},
		{"namespaces", `<behaviorTree xmlns="urn:x" xmlns:bt="urn:bt" xsi:schemaLocation="a b"><bt:action bt:name="x"/></behaviorTree>`},
		{"attributes", `<a  x = "1"	y='2'
			z="&lt;&gt;&amp;&apos;&quot;"/>`},
		{"attributes without space between", `<a x="1"y="2"/>`},
		{"quotes inside values", `<a x='say "hi"' y="it's"/>`},
		{"entities in text", `<a>&lt;b&gt; &amp; &apos;c&quot; &#233; &#xE9; &#x1F600;</a>`},
		{"surrogate reference", `<a>&#xD800;</a>`},
		{"carriage returns", "<a x=\"1\r\n2\r3\">\r\n  t\r\n  <b/>\r</a>\r\n"},
		{"carriage returns and references", "<a>x\r&#13;\r\n&amp;\r</a>"},
		{"comments", "<!-- top --><a><!----><!-- - -->t<!-- x -->u</a><!-- end -->"},
		{"CDATA", "<a>x<![CDATA[ <b>&amp; ]] ]]]>y</a>"},
		{"CDATA with line ends", "<a><![CDATA[\r\n]]></a>"},
		{"CDATA only spaces", "<a><![CDATA[  ]]>\n</a>"},
		{"text around children", "<a> x <b>y</b> z <c/> </a>"},
		{"stray text", "x<a/>y"},
		{"second root", "<a/><b/>"},
		{"end tag spaces", "<a></a \n>"},
		{"non-ASCII text", "<a x=\"ü€\">Grüße – «Café» 😀</a>"},
		{"brackets in text", "<a>]] ] ]>]</a>"},
		{"brackets in values", `<a x="]]>"/>`},
		{"names", `<_a-b.c:d e_f.g-h="1" :x="2" y:="3"/>`},
		{"mismatched end tag", "<a><b></a></b>"},
		{"end tag without start", "</a>"},
		{"unclosed", "<a><b>"},
		{"no element", "  <!-- x -->  "},
		{"declaration not at the start", " <?xml version=\"1.0\"?><a/>"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkScan(t, []byte(tt.text), wantRead) })
	}
}

// TestScanXML_leavesTheRestToEncodingXML: on anything it does not read the
// way encoding/xml does, the scanner gives up, and encoding/xml reports
// the problems.
func TestScanXML_leavesTheRestToEncodingXML(t *testing.T) {
	for _, text := range []string{
		`<!DOCTYPE a><a/>`, `<a><?pi x?></a>`, `<?xml version="1.1"?><a/>`, `<ä/>`, `<a ä="1"/>`, `<a:b:c/>`, `<a x:y:z="1"/>`,
		`<1a/>`, `<-a/>`, `<a 1="x"/>`, `< a/>`, `<a/ >`, `<a x/>`, `<a x=1/>`, `<a x="<"/>`, `<a x="1/>`,
		`<a>&unknown;</a>`, `<a>&amp</a>`, `<a>& </a>`, `<a>&#;</a>`, `<a>&#x;</a>`, `<a>&#X41;</a>`, `<a>&#0;</a>`, `<a>&#1;</a>`,
		`<a>&#xFFFE;</a>`, `<a>&#x110000;</a>`, `<a>&#00000065;</a>`, `<a>` + "\x01" + `</a>`, `<a>` + "\uFFFE" + `</a>`,
		`<a>]]></a>`, `<a><!-- -- --></a>`, `<a><!- x --></a>`, `<a><![CDAT[x]]></a>`, `<a><![CDATA[x</a>`, `<a></a b>`,
		`<a><!--`, `<a`, `<a x="1"`, `</`, `<`, `<a>x&`, `<?xml`, `<?xml version="1.0"`,
	} {
		checkScan(t, []byte(text), wantGiveUp)
	}
}

// TestScanXML_namesByte: every ASCII byte, at the start or inside an
// element or attribute name, is read as encoding/xml reads it.
func TestScanXML_namesByte(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		b := string(rune(c))
		for _, text := range []string{"<" + b + "a/>", "<a" + b + "b/>", "<a " + b + "b=\"1\"/>", "<a b" + b + "c=\"1\"/>", "<a>" + b + "</a>", "<a x=\"" + b + "\"/>"} {
			checkScan(t, []byte(text), wantEither)
		}
	}
}

// TestScanXML_readsTheRepositorysTrees: every tree file of the repository
// and a generated big tree are read by the scanner, the same as by
// encoding/xml, and load the same every way.
func TestScanXML_readsTheRepositorysTrees(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/valid/*.xml", "testdata/valid/*/*.xml", "testdata/valid/*/*/*.xml", "../scripts/ai/*.xml", "../tests/testdata/fixtures/*/ai/*.xml", "../tests/testdata/hostile/*.xml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d tree files found", len(files))
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text, derr := decodeText(raw)
		if derr != nil {
			t.Fatalf("%s: %s", file, derr.msg)
		}
		checkScan(t, text, wantRead)
		sameLoads(t, raw, LoadOptions{})
	}
	sameLoads(t, treegen.Tree(3000), LoadOptions{})
}

// TestLoad_everyWayTheSame: the invalid corpus loads to the same errors,
// and the subtree cases to the same trees, whichever way files are read.
func TestLoad_everyWayTheSame(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	readFile := memFiles(map[string]string{"sub.xml": fuzzSubtree, "sub/ok.xml": fuzzSubtree, "cycle.xml": fuzzCycle})
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sameLoads(t, data, LoadOptions{ReadFile: readFile})
	}
	for _, body := range []string{
		`<subtree id="x">sub.xml</subtree>`,
		`<sequence id="m"><subtree>sub.xml</subtree><subTree id=".y">sub.xml</subTree></sequence>`,
		`<sequence id="m"><subtree>cycle.xml</subtree></sequence>`,
		// A rule that is not checked as a rule (inside an action) and its
		// rules inside it, checked or not.
		`<sequence><action name="a"><sequence><action name="b"/></sequence></action><subtree>sub.xml<action/></subtree></sequence>`,
		`<choice order="weighted"><action name="a"><parameter name="choice.weight">x</parameter></action><sequence><parameter name="choice.weight">-1</parameter></sequence></choice>`,
		`<choice order="score"><action name="a" abort="lower"><parameter name="choice.score">nan</parameter></action></choice>`,
		`<parallel success="3"><action name="a" abort="both"/><parameter name="p"><x/></parameter></parallel>`,
	} {
		sameLoads(t, []byte(bt(body)), LoadOptions{ReadFile: readFile})
	}
	sameLoads(t, []byte(`<notATree><action name="a" id=""/></notATree>`), LoadOptions{})
	sameLoads(t, []byte(`<behaviorTree><action name="a" id=""/><sequence id="s"><x/></sequence></behaviorTree><action id=""/>`), LoadOptions{})
}

// FuzzScanXML: on any text, the scanner gives up or reads as encoding/xml.
func FuzzScanXML(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*.xml", "testdata/invalid/*.xml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) < 1<<14 {
				if text, derr := decodeText(data); derr == nil {
					f.Add(text)
				}
			}
		}
	}
	f.Add([]byte("<a x=\"1\r\n2\">&lt;&#233;<![CDATA[x]]><!-- c --></a>"))
	f.Add([]byte(strings.Repeat("<a>", 5) + "t" + strings.Repeat("</a>", 5)))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, derr := decodeText(data) // the scanner reads decoded text: valid UTF-8
		if derr != nil {
			return
		}
		checkScan(t, text, wantEither)
	})
}
