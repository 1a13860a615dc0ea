package liveview

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

const typedGame = "testdata/typed/config.toml"

// TestAPI_typedVariablesShownAndSet: the agent's view shows every
// variable with its type and value; POST .../var sets one between steps
// (the trace shows the change), refuses a value of another type or an
// unknown name, and time travel replays the set.
func TestAPI_typedVariablesShownAndSet(t *testing.T) {
	h := start(t, typedGame, 100, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":2}`)
	a := h.agent("gunner-1")
	want := []string{"Ammo=3", "Target=player", "Goal=map[x:1 y:2 z:3]", "Aware=false"}
	if got := varsOf(a); !slices.Equal(got, want) {
		t.Fatalf("vars %v, want %v", got, want)
	}
	var types []string
	for _, v := range a.Vars {
		types = append(types, v.Type)
	}
	if strings.Join(types, " ") != "number string vector boolean" {
		t.Errorf("types %v", types)
	}
	// The tree's declarations carry the types and defaults the editor
	// completes conditions with.
	tree := h.ok("GET", "/api/trees/gunner", "")
	var decls []string
	for _, v := range tree["vars"].([]any) {
		m := v.(map[string]any)
		decls = append(decls, fmt.Sprintf("%v:%v=%v", m["name"], m["type"], m["default"]))
	}
	if got := strings.Join(decls, " "); got != "Ammo:number=5 Target:string=player Goal:vector=map[x:1 y:2 z:3] Aware:boolean=false" {
		t.Errorf("the tree's variables: %s", got)
	}
	h.ok("POST", "/api/agents/gunner-1/var", `{"name":"Ammo","value":10}`)
	h.ok("POST", "/api/agents/gunner-1/var", `{"name":"Target","value":"grunt-2"}`)
	h.ok("POST", "/api/agents/gunner-1/var", `{"name":"Goal","value":{"x":4,"y":5,"z":-6}}`)
	h.ok("POST", "/api/agents/gunner-1/var", `{"name":"Aware","value":true}`)
	for body, code := range map[string]int{
		`{"name":"Ammo","value":"ten"}`:   http.StatusUnprocessableEntity,
		`{"name":"Goal","value":{"x":4}}`: http.StatusUnprocessableEntity,
		`{"name":"Aware","value":1}`:      http.StatusUnprocessableEntity,
		`{"name":"Amo","value":1}`:        http.StatusNotFound,
		`{"name":"Ammo"}`:                 http.StatusBadRequest,
		`{"value":1}`:                     http.StatusBadRequest,
	} {
		if got, v := h.do("POST", "/api/agents/gunner-1/var", body); got != code {
			t.Errorf("%s: %d %v, want %d", body, got, v, code)
		}
	}
	want = []string{"Ammo=10", "Target=grunt-2", "Goal=map[x:4 y:5 z:-6]", "Aware=true"}
	if got := varsOf(h.agent("gunner-1")); !slices.Equal(got, want) {
		t.Fatalf("after the sets: vars %v, want %v", got, want)
	}
	h.ok("POST", "/api/step", `{"steps":2}`)
	if got := varsOf(h.agent("gunner-1")); got[0] != "Ammo=8" {
		t.Fatalf("two steps after the set: %v", got)
	}
	h.ok("POST", "/api/travel", `{"step":1}`)
	h.ok("POST", "/api/travel", `{"step":4}`)
	if got := varsOf(h.agent("gunner-1")); !slices.Equal(got, []string{"Ammo=8", "Target=grunt-2", "Goal=map[x:4 y:5 z:-6]", "Aware=true"}) {
		t.Errorf("replayed by time travel: %v", got)
	}
	h.ok("POST", "/api/quit", "")
	<-h.done
	h.done <- nil
	data, err := os.ReadFile(h.trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"step":2,"time":1,"agent":"gunner-1","var":"Ammo","value":10}`,
		`{"step":2,"time":1,"agent":"gunner-1","var":"Goal","value":{"x":4,"y":5,"z":-6}}`,
	} {
		if !strings.Contains(string(data), line+"\n") {
			t.Errorf("the trace lacks %s:\n%s", line, data)
		}
	}
}

// TestEditOps_aComparisonIsWrittenEscaped: the editor's conditions op
// writes a comparison as the file needs it (< as &lt;), beside a typed
// declaration.
func TestEditOps_aComparisonIsWrittenEscaped(t *testing.T) {
	got, err := applyOps("editor.xml", opsTree, ops(t,
		`{"op":"declare","xml":"<variable name=\"Ammo\" type=\"number\" default=\"3\"/>"}`,
		`{"op":"conditions","rule":"guard.fight","conditions":["Ammo < 3","Alarm"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    <variable name=\"Ammo\" type=\"number\" default=\"3\"/>\n",
		"      <condition>Ammo &lt; 3</condition>\n      <condition>Alarm</condition>\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the edited file lacks %q:\n%s", want, got)
		}
	}
}
