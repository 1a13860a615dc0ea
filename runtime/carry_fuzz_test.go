package runtime

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCarry runs agents on one tree, then carries them over to another (any
// two trees, as a reload may load anything): RuleMap must map rules only to
// rules of the same kind and action, ids to the same id; an agent it leaves
// unplaced must carry over once reset; the carried agents must step on. No
// input may panic.
func FuzzCarry(f *testing.F) {
	files, _ := filepath.Glob("../scripts/ai/*.xml")
	var seeds [][]byte
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 1<<16 {
			seeds = append(seeds, data)
		}
	}
	seeds = append(seeds, []byte(featuresTree))
	for _, a := range seeds {
		for _, b := range seeds {
			f.Add(a, b, uint8(7))
		}
	}
	f.Add([]byte(`<behaviorTree><sequence id="r"><action id=".a" name="work"/></sequence></behaviorTree>`),
		[]byte(`<behaviorTree><sequence id="r"><success/><action id=".a" name="work" timeout="1"/></sequence></behaviorTree>`), uint8(3))
	f.Fuzz(func(t *testing.T, from, to []byte, steps uint8) {
		load := func(data []byte) *BoundTree {
			tree, err := LoadBytes("main.xml", data, LoadOptions{ReadFile: memFiles(map[string]string{"sub.xml": fuzzSubtree})})
			if err != nil {
				return nil
			}
			b, err := Bind(tree, featuresRegistry(), BindOptions{Lenient: true})
			if err != nil {
				return nil
			}
			return b
		}
		b1, b2 := load(from), load(to)
		if b1 == nil || b2 == nil {
			return
		}
		m := MapRules(b1.Tree, b2.Tree)
		for i := range b1.Tree.Rules {
			o := &b1.Tree.Rules[i]
			c, ok := m.Rule(int32(i))
			if !ok {
				continue
			}
			n := &b2.Tree.Rules[c]
			if o.Kind != n.Kind || o.Action != n.Action || (o.ID != "" && i != int(Root) && o.ID != n.ID) {
				t.Fatalf("rule %s mapped to %s", o.Label, n.Label)
			}
		}
		env := &Env{Seed: 5}
		var from1, to2 []*Agent
		for _, id := range []string{"a-1", "a-2"} {
			a := b1.NewAgent(id, env)
			for s := range int(steps % 40) {
				a.StepAt(float64(s+1) * 0.25)
			}
			from1 = append(from1, a)
			to2 = append(to2, b2.NewAgent(id, env))
		}
		for i, a := range from1 {
			if _, lost := m.Unplaced(a, to2[i]); lost {
				a.Reset()
			}
		}
		p, err := PlanCarry(from1, to2, nil, nil, []*RuleMap{m})
		if err != nil {
			t.Fatalf("carry: %v", err)
		}
		p.Apply()
		for _, a := range to2 {
			for s := range 5 {
				a.StepAt(float64(int(steps%40)+s+1) * 0.25)
			}
		}
	})
}
