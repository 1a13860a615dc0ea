package luabind

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrun/btrun/runtime"
)

// fixture is an engine over a temporary script folder, with a registry,
// optionally a bound tree and agents.
type fixture struct {
	t     *testing.T
	dir   string
	e     *Engine
	reg   *runtime.Registry
	tree  *runtime.BoundTree
	env   *runtime.Env
	out   *bytes.Buffer // print()
	log   *logSink      // ctx:log
	sends *router
}

type logSink struct{ lines []string }

func (l *logSink) Log(a *runtime.Agent, label, msg string) {
	l.lines = append(l.lines, a.ID()+" "+label+": "+msg)
}

type router struct{ sent []string }

func (r *router) Route(from *runtime.Agent, to, signal string, data runtime.Value) error {
	s := from.ID() + "->" + to + ":" + signal
	if data.Kind != runtime.NilValue {
		s += "=" + runtime.DataText(data, 500)
	}
	r.sent = append(r.sent, s)
	return nil
}

// writeScripts writes name -> source files under dir.
func writeScripts(t testing.TB, dir string, scripts map[string]string) {
	t.Helper()
	for name, src := range scripts {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newFixture loads scripts (file name -> source) into a new engine and
// registers them. It fails the test on any error.
func newFixture(t *testing.T, scripts map[string]string, opts ...func(*Options)) *fixture {
	t.Helper()
	f := newFixtureNoLoad(t, scripts, opts...)
	if err := f.e.Load(); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if err := f.e.Register(f.reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return f
}

func newFixtureNoLoad(t *testing.T, scripts map[string]string, opts ...func(*Options)) *fixture {
	t.Helper()
	dir := t.TempDir()
	writeScripts(t, dir, scripts)
	f := &fixture{t: t, dir: dir, reg: runtime.NewRegistry(), out: &bytes.Buffer{}, log: &logSink{}, sends: &router{}}
	o := Options{Paths: []string{dir}, Root: dir, Seed: 1, Output: f.out}
	for _, fn := range opts {
		fn(&o)
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	f.e = e
	f.env = &runtime.Env{Logger: f.log, Router: f.sends}
	return f
}

// bind loads and binds a tree from XML text.
func (f *fixture) bind(xml string) *runtime.BoundTree {
	f.t.Helper()
	b, err := f.bindErr(xml)
	if err != nil {
		f.t.Fatalf("bind: %v", err)
	}
	f.tree = b
	return b
}

func (f *fixture) bindErr(xml string) (*runtime.BoundTree, error) {
	tree, err := runtime.LoadBytes("test.xml", []byte(xml), runtime.LoadOptions{})
	if err != nil {
		f.t.Fatalf("load: %v", err)
	}
	return runtime.Bind(tree, f.reg, runtime.BindOptions{})
}

// agent creates and attaches an agent on the bound tree.
func (f *fixture) agent(id string) *runtime.Agent {
	f.t.Helper()
	a := f.tree.NewAgent(id, f.env)
	if err := f.e.Attach(a); err != nil {
		f.t.Fatal(err)
	}
	return a
}

// do runs Lua in the engine and fails the test on error.
func (f *fixture) do(src string) {
	f.t.Helper()
	if err := f.e.DoString("test", src); err != nil {
		f.t.Fatalf("DoString: %v", err)
	}
}

// step steps a and returns "status" or "error: message".
func step(t *testing.T, a *runtime.Agent) string {
	t.Helper()
	st, err := a.Step(0.5)
	if err != nil {
		return "error: " + err.Error()
	}
	return st.String()
}

// tree wraps rules in a behaviorTree element.
func tree(body string) string {
	return "<?xml version='1.0'?>\n<behaviorTree>\n" + strings.TrimSpace(body) + "\n</behaviorTree>\n"
}

func wantContains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("got %q\nwant it to contain %q", got, w)
		}
	}
}

// within runs f and fails the test if it does not return in d: the cases
// that use it used to hang or exhaust memory. d is a hang guard: what a
// case costs is measured by benchmarks, never judged here; on a busy
// machine a call's timeout counts only the time its process ran.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v: hangs", d)
	}
}
