package runtime

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestCompose_desmConvertedRunsAndRestoresAsTheDocument: a state machine
// document converted to a tree file (btrun convert) runs step for step as
// the document itself, and an agent of the document saved at any step
// restores into the converted tree and goes on as before: the conversion
// keeps the rules' ids.
func TestCompose_desmConvertedRunsAndRestoresAsTheDocument(t *testing.T) {
	data, err := os.ReadFile("testdata/native/desm_lamp.xml")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.NewReplacer("setLight", "e", "click", "x", "fade", "long", "warn", "f",
		`name="light.level">`, `name="p">`, `name="fade.seconds">0.5`, `name="steps">2`).Replace(string(data))
	conv, err := Convert("main.xml", []byte(doc), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds := map[string]bool{"light.dimmable": true, "light.hot": false}
	const n = 12
	want := newDesmHarness(t, doc, nil, conds).run(n, lampEvents)
	if got := newDesmHarness(t, string(conv.Text), nil, conds).run(n, lampEvents); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the converted tree:\n got %q\nwant %q", got, want)
	}
	for at := range n {
		h := newDesmHarness(t, doc, nil, conds)
		into := newDesmHarness(t, string(conv.Text), nil, conds)
		var got []string
		for i := range n {
			if i == at {
				data, err := SaveAgents([]*Agent{h.agent}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := RestoreAgents(data, []*Agent{into.agent}, nil); err != nil {
					t.Fatalf("restore into the conversion before step %d: %v", i, err)
				}
				into.ran, into.log = h.ran, h.log
				h = into
			}
			for _, ev := range lampEvents[i] {
				h.signal(ev)
			}
			got = append(got, h.step())
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("moved to the conversion before step %d:\n got %q\nwant %q", at, got, want)
		}
	}
}
