package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fuzzSubtree is the subtree file FuzzLoad's main files can include, as
// sub.xml (or sub/ok.xml, the name the invalid corpus uses): it has ids,
// declarations and a latin1 declaration. fuzzCycle, as cycle.xml, includes
// main.xml back, so subtree cycles are fuzzed too.
const (
	fuzzSubtree = `<?xml version="1.0" encoding="ISO-8859-1"?>
<behaviorTree>
  <variables><variable name="V" default="true"/></variables>
  <signals><signal name="S" variable="V" value="false"/></signals>
  <timestamps><timestamp name="T" setOnSignal="S" exclusiveTo="U"/><timestamp name="U"/></timestamps>
  <sequence id="s"><action id=".a" name="a"><condition>!V</condition></action></sequence>
  <choice id=".c"><success/></choice>
</behaviorTree>
`
	fuzzCycle = `<behaviorTree><subtree id="back">main.xml</subtree></behaviorTree>`
)

// FuzzLoad loads arbitrary main-file bytes. Loading must never panic, and
// every error must carry a file and a line. Trees that load must hold
// together, and be what reading every file with encoding/xml makes.
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*.xml", "testdata/valid/*/*.xml", "testdata/invalid/*.xml", "../scripts/ai/*.xml", "testdata/native/*.xml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) < 1<<16 {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(bt(`<subtree id="x">sub.xml</subtree>`)))
	f.Add([]byte(bt(`<sequence id="m"><subtree>sub.xml</subtree><subTree id=".y">sub.xml</subTree></sequence>`)))
	f.Add([]byte(bt(`<sequence id="m"><subtree>cycle.xml</subtree></sequence>`)))
	f.Add([]byte(bt(`<include file="decls.xml"/><stateMachine id="m"><state name="A"><transition signal="S" to="B"/><sequence id=".a"><success/></sequence></state><state name="B"><transition result="failure" to="A"/><subtree>sub.xml</subtree></state></stateMachine>`)))
	f.Add([]byte(bt(`<include file="sub.xml"/><include file="main.xml"/><success/>`)))

	common, err := os.ReadFile("testdata/native/Common.xml") // BHS blocks
	if err != nil {
		f.Fatal(err)
	}
	desmCommon, err := os.ReadFile("testdata/native/guard_common.desm") // a state machine's import
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`<stateMachine><import>guard_common.desm</import><import>main.xml</import><state id="watch"><transition event="calm" state="alert"/></state></stateMachine>`))
	readFile := memFiles(map[string]string{"sub.xml": fuzzSubtree, "sub/ok.xml": fuzzSubtree, "cycle.xml": fuzzCycle, "Common.xml": string(common), "guard_common.desm": string(desmCommon),
		"decls.xml": `<behaviorTree><signals><signal name="S"/></signals></behaviorTree>`})
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := LoadOptions{ReadFile: func(path string) ([]byte, error) {
			if filepath.ToSlash(path) == "main.xml" {
				return data, nil
			}
			return readFile(path)
		}}
		// A hang guard: an input that takes a minute is stuck, not slow
		// (what loading costs is measured by the benchmarks).
		timer := time.AfterFunc(time.Minute, func() { panic(fmt.Sprintf("stuck on input %q", data)) })
		tree, err := LoadBytes("main.xml", data, opts)
		timer.Stop()
		// The fast reading (the scanner, rules checked while reading) finds
		// exactly what encoding/xml's reading, checked at the end, finds.
		ref, refErr := loadWay(data, opts, xmlReading{noScan: true, noStream: true})
		if fmt.Sprint(err) != fmt.Sprint(refErr) || !reflect.DeepEqual(tree, ref) {
			t.Fatalf("read with the scanner: %v\nread with encoding/xml: %v", err, refErr)
		}
		if err != nil {
			if tree != nil {
				t.Fatalf("tree and error")
			}
			checkErrorList(t, err)
			if strings.Contains(err.Error(), "\x00") {
				t.Logf("error text holds a NUL: %q", err.Error())
			}
			return
		}
		checkTree(t, tree)
		checkConvert(t, tree, data, opts)
		var b strings.Builder
		if err := tree.Format(&b); err != nil {
			t.Fatal(err)
		}
	})
}

// checkConvert checks that a native document (MBT, BHS) that loads
// converts, and that the conversion loads as the same rules.
func checkConvert(t *testing.T, tree *Tree, data []byte, opts LoadOptions) {
	t.Helper()
	root, _, errs := readComments("main.xml", data)
	if len(errs) > 0 || !isNativeRoot(root.name) {
		return
	}
	conv, err := Convert("main.xml", data, opts)
	if err != nil {
		t.Fatalf("a native document that loads does not convert: %v", err)
	}
	again, err := LoadBytes("main.xml", conv.Text, opts)
	if err != nil {
		t.Fatalf("the conversion does not load: %v\n%s", err, conv.Text)
	}
	if len(again.Rules) != len(tree.Rules) {
		t.Fatalf("the conversion has %d rules, the document %d", len(again.Rules), len(tree.Rules))
	}
	for i := range tree.Rules {
		a, b := &tree.Rules[i], &again.Rules[i]
		if a.Kind != b.Kind || a.Parent != b.Parent || a.Action != b.Action || len(a.Conds) != len(b.Conds) || !reflect.DeepEqual(a.Params, b.Params) {
			t.Fatalf("rule %d differs after conversion: %+v\n%+v", i, *a, *b)
		}
	}
}
