package runtime

import "testing"

// What a custom rule costs (docs/performance.md, "Rules of your own"): a
// step that enters a rule over three actions that fail, then an action
// that succeeds, so the rule makes four decisions a step, against the same
// with a built-in choice. The custom rules are a choice written as a
// TypedRule: with no state (Go's cost of the call alone), and with a
// state of two integers (the decode and encode of its state per call).

type benchPickState struct{ Tried, Last int }

func benchCustomTree(b *testing.B, tag string) *Agent {
	b.Helper()
	reg := NewRegistry()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(reg.RegisterAction("fail", ActionFunc(func(*Agent, Params) (Status, error) { return Failure, nil })))
	must(reg.RegisterAction("ok", ActionFunc(func(*Agent, Params) (Status, error) { return Success, nil })))
	must(TypedRule[struct{}, struct{}]{Tag: "plain",
		Enter: func(*Agent, *struct{}, *struct{}, int) (Next, error) { return RunChild(0), nil },
		ChildDone: func(_ *Agent, _ *struct{}, _ *struct{}, n, child int, res Status) (Next, error) {
			if res == Success || child == n-1 {
				return Finish(res), nil
			}
			return RunChild(child + 1), nil
		}}.Register(reg))
	must(TypedRule[struct{}, benchPickState]{Tag: "stateful",
		Enter: func(_ *Agent, _ *struct{}, s *benchPickState, n int) (Next, error) {
			s.Tried = 1
			return RunChild(0), nil
		},
		ChildDone: func(_ *Agent, _ *struct{}, s *benchPickState, n, child int, res Status) (Next, error) {
			s.Last = child
			if res == Success || child == n-1 {
				return Finish(res), nil
			}
			s.Tried++
			return RunChild(child + 1), nil
		}}.Register(reg))
	xml := bt(`<` + tag + ` id="r"><action name="fail"/><action name="fail"/><action name="fail"/><action name="ok"/></` + tag + `>`)
	tree, err := LoadBytes("b.xml", []byte(xml), LoadOptions{Rules: reg.RuleDecls()})
	must(err)
	bound, err := Bind(tree, reg, BindOptions{})
	must(err)
	return bound.NewAgent("a", &Env{})
}

func BenchmarkCustom(b *testing.B) {
	for _, tag := range []string{"choice", "plain", "stateful"} {
		b.Run(tag, func(b *testing.B) {
			a := benchCustomTree(b, tag)
			b.ReportAllocs()
			for b.Loop() {
				if st, err := a.Step(0.1); st != Success || err != nil {
					b.Fatal(st, err)
				}
			}
		})
	}
}
