package luabind

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/btrun/btrun/runtime"
)

// TestEngine_scriptsFromAnFS loads scripts held in memory (an fs.FS): the
// folder's files in path order, require between them, a world module, and
// errors named by their path in the FS.
func TestEngine_scriptsFromAnFS(t *testing.T) {
	fsys := fstest.MapFS{
		"ai/util.lua":     {Data: []byte(`return {greet = function(n) return "hi " .. n end}`)},
		"ai/guard.lua":    {Data: []byte("local bt = require('bt')\nlocal util = require('util')\nbt.action('greet', function(ctx) print(util.greet(ctx.id)) return bt.SUCCESS end)\n")},
		"ai/world.lua":    {Data: []byte(`return {spawn = function(ctx) ctx.agent.hp = 3 end}`)},
		"ai/types.d.lua":  {Data: []byte(`this is not Lua: annotations are skipped`)},
		"other/skip.lua":  {Data: []byte(`error("not in the script folders")`)},
		"broken/bad.lua":  {Data: []byte("local x = \n")},
		"broken/good.lua": {Data: []byte(`return 1`)},
	}
	var out bytes.Buffer
	e, err := New(Options{FS: fsys, Paths: []string{"ai"}, Seed: 1, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	reg := runtime.NewRegistry()
	must(t, e.Load())
	must(t, e.Register(reg))
	w, err := e.LoadWorld("ai/world.lua")
	must(t, err)
	tree, _ := runtime.LoadBytes("t.xml", []byte(`<behaviorTree><action id="a" name="greet"/></behaviorTree>`), runtime.LoadOptions{})
	b, err := runtime.Bind(tree, reg, runtime.BindOptions{})
	must(t, err)
	a := b.NewAgent("guard-1", nil)
	must(t, e.Attach(a))
	must(t, w.Spawn(a))
	if st, err := a.Step(0.1); st != runtime.Success || err != nil {
		t.Fatalf("step: %v %v", st, err)
	}
	if out.String() != "hi guard-1\n" {
		t.Errorf("printed %q", out.String())
	}
	if v, _ := e.mustData(t, a).GetField("hp"); v != 3.0 {
		t.Errorf("spawn's hp = %v", v)
	}

	// A syntax error names the file as the FS names it.
	e2, err := New(Options{FS: fsys, Paths: []string{"broken"}, Seed: 1})
	must(t, err)
	defer e2.Close()
	if err := e2.Load(); err == nil || !strings.HasPrefix(err.Error(), "broken/bad.lua:2:") {
		t.Errorf("syntax error: %v", err)
	}
	if _, err := New(Options{FS: fsys, Paths: []string{"nowhere"}}); err == nil {
		t.Errorf("a folder the FS does not have: no error")
	}
}

func (e *Engine) mustData(t *testing.T, a *runtime.Agent) *AgentData {
	st, err := e.Data(a)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
