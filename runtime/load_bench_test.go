package runtime_test

import (
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/internal/treegen"
)

// treegenRegistry registers the actions and conditions a generated tree
// (runtime/internal/treegen) calls.
func treegenRegistry() *runtime.Registry {
	reg := runtime.NewRegistry()
	for _, name := range treegen.Actions {
		reg.RegisterAction(name, runtime.ActionFunc(func(a *runtime.Agent, p runtime.Params) (runtime.Status, error) {
			return runtime.Success, nil
		}))
	}
	for _, name := range treegen.Conditions {
		reg.RegisterCondition(name, runtime.ConditionFunc(func(a *runtime.Agent, p runtime.Params) (bool, error) {
			return true, nil
		}))
	}
	return reg
}

// BenchmarkLoadAndBind loads and binds a generated tree (treegen) of 1,000,
// 10,000 and 100,000 rules from bytes in memory; one op is one load and
// bind. ns/rule, B/rule and allocs/rule divide the op's cost by the rules;
// cpu-ns/rule divides the process's CPU time instead of the wall time (the
// garbage collector's work on other threads included), which other work on
// the machine changes far less.
//
//	go test ./runtime -run '^$' -bench LoadAndBind -benchmem
func BenchmarkLoadAndBind(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			data := treegen.Tree(n)
			reg := treegenRegistry()
			load := func() {
				tree, err := runtime.LoadBytes("gen.xml", data, runtime.LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if len(tree.Rules) != n {
					b.Fatalf("generated %d rules, want %d", len(tree.Rules), n)
				}
				if _, err := runtime.Bind(tree, reg, runtime.BindOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			load() // the registry's and the runtime's first-use costs are not the benchmark's
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			cpu, cpuOK := cpuTime()
			b.ResetTimer()
			for range b.N {
				load()
			}
			b.StopTimer()
			cpuEnd, _ := cpuTime()
			goruntime.ReadMemStats(&after)
			ops := float64(b.N) * float64(n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops, "ns/rule")
			if cpuOK {
				b.ReportMetric(float64((cpuEnd-cpu).Nanoseconds())/ops, "cpu-ns/rule")
			}
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/ops, "B/rule")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/ops, "allocs/rule")
			b.SetBytes(int64(len(data)))
		})
	}
}

// TestTreegen_makesTheAskedRules: a generated tree has exactly the rules
// asked for, binds with treegenRegistry, and uses what the benchmark says
// it does (ids four parts deep, declarations, unsorted parameters).
func TestTreegen_makesTheAskedRules(t *testing.T) {
	for _, n := range []int{1, 2, 11, 101, 1000, 12345} {
		tree, err := runtime.LoadBytes("gen.xml", treegen.Tree(n), runtime.LoadOptions{})
		if err != nil {
			t.Fatalf("%d rules: %v", n, err)
		}
		if len(tree.Rules) != n {
			t.Errorf("asked %d rules, got %d", n, len(tree.Rules))
		}
		if _, err := runtime.Bind(tree, treegenRegistry(), runtime.BindOptions{}); err != nil {
			t.Fatalf("%d rules: %v", n, err)
		}
	}
	tree, err := runtime.LoadBytes("gen.xml", treegen.Tree(1000), runtime.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tree.RuleIndex("platoon3.squad7.tactic.flank.shoot"); !ok {
		t.Error("no rule platoon3.squad7.tactic.flank.shoot")
	}
	if len(tree.Vars) != 5 || len(tree.Signals) != 4 || len(tree.Stamps) != 2 {
		t.Errorf("%d variables, %d signals, %d timestamps", len(tree.Vars), len(tree.Signals), len(tree.Stamps))
	}
}

// TestLoadAndBind_costPerRule holds loading and binding a big generated
// tree to its budget: under 1 KB and a fraction of an allocation per rule
// (about 0.78 KB and 0.13 when this was written, against 2.2 KB and 31
// before the loader was made lean).
func TestLoadAndBind_costPerRule(t *testing.T) {
	const n = 20000
	data := treegen.Tree(n)
	reg := treegenRegistry()
	load := func() {
		tree, err := runtime.LoadBytes("gen.xml", data, runtime.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runtime.Bind(tree, reg, runtime.BindOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	load()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	load()
	goruntime.ReadMemStats(&after)
	bytes := float64(after.TotalAlloc-before.TotalAlloc) / n
	allocs := float64(after.Mallocs-before.Mallocs) / n
	if bytes > 1000 || allocs > 0.5 {
		t.Errorf("%.0f bytes and %.2f allocations per rule, want at most 1000 and 0.5", bytes, allocs)
	}
}
