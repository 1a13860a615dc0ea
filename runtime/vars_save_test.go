package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

const typedRun = `<behaviorTree>
<variables>
  <variable name="Ammo" type="number" default="2"/>
  <variable name="Target" type="string" default="a"/>
  <variable name="Pos" type="vector"/>
  <variable name="Aware"/>
</variables>
<signals><signal name="Refill" variable="Ammo" from="n"/></signals>
<sequence id="root" loop="true">
  <choice id="pick">
    <sequence id="shoot"><condition>Ammo &gt; 0</condition>
      <action id="fire" name="bt.variable.set"><parameter name="variable.name">Ammo</parameter><parameter name="variable.add">-1</parameter></action>
      <action id="aim" name="bt.variable.set"><parameter name="variable.name">Target</parameter><parameter name="variable.value">b</parameter></action>
      <action id="wait" name="bt.wait"><parameter name="wait.seconds">1</parameter></action>
    </sequence>
    <sequence id="reload"><condition>Target == "b"</condition>
      <action id="full" name="bt.variable.set"><parameter name="variable.name">Ammo</parameter><parameter name="variable.value">3</parameter></action>
      <action id="move" name="bt.variable.set"><parameter name="variable.name">Pos</parameter><parameter name="variable.value">1,2,-0.5</parameter></action>
      <action id="back" name="bt.variable.set"><parameter name="variable.name">Target</parameter><parameter name="variable.value">a</parameter></action>
    </sequence>
  </choice>
</sequence>
</behaviorTree>`

func typedAgent(t testing.TB, xml string) *Agent {
	t.Helper()
	b := bindXML(t, NewRegistry(), xml)
	return b.NewAgent("g1", nil)
}

func varsLine(a *Agent) string {
	var parts []string
	for i, v := range a.bound.Tree.Vars {
		parts = append(parts, v.Name+"="+a.VarValueAt(int32(i)).String())
	}
	return fmt.Sprintf("t=%g %s %s", a.Time(), a.bound.Tree.Rules[a.cursor].Label, strings.Join(parts, " "))
}

// TestVars_saveRestoreAtEveryStepContinuesExactly: an agent saved and
// restored into a fresh agent before every step runs exactly as one that
// never was, and the restored agent saves to the same bytes.
func TestVars_saveRestoreAtEveryStepContinuesExactly(t *testing.T) {
	const steps = 14
	run := func(restore bool) []string {
		a := typedAgent(t, typedRun)
		var out []string
		for s := range steps {
			if s == 5 {
				if err := a.SignalData("Refill", Value{Kind: TableValue, Table: []Field{{Key: String("n"), Val: Number(7)}}}); err != nil {
					t.Fatal(err)
				}
			}
			if restore {
				data := mustSave(t, a)
				b := typedAgent(t, typedRun)
				if _, err := RestoreAgents(data, []*Agent{b}, nil); err != nil {
					t.Fatal(err)
				}
				if again := mustSave(t, b); !bytes.Equal(again, data) {
					t.Fatalf("step %d: the restored agent saves other bytes", s)
				}
				a = b
			}
			if _, err := a.Step(0.5); err != nil {
				t.Fatal(err)
			}
			out = append(out, varsLine(a))
		}
		return out
	}
	want, got := run(false), run(true)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("restored at every step:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	seen := strings.Join(want, "\n")
	for _, s := range []string{"Ammo=6", `Target="a"`, "Pos=1,2,-0.5", "Ammo=1"} {
		if !strings.Contains(seen, s) {
			t.Errorf("the run never shows %s: too plain to test\n%s", s, seen)
		}
	}
}

// TestVars_restoreIntoAChangedType: a save's value of a variable whose type
// changed since is dropped with a warning, and the variable starts at its
// new default; a variable whose type stayed keeps its value. A reload
// (carry) does the same.
func TestVars_restoreIntoAChangedType(t *testing.T) {
	a := typedAgent(t, typedRun)
	for range 3 {
		if _, err := a.Step(0.5); err != nil {
			t.Fatal(err)
		}
	}
	edited := strings.Replace(typedRun, `<variable name="Target" type="string" default="a"/>`, `<variable name="Target" type="number" default="4"/>`, 1)
	edited = strings.Replace(edited, `<condition>Target == "b"</condition>`, `<condition>Target == 4</condition>`, 1)
	edited = strings.Replace(edited, `<parameter name="variable.value">b</parameter>`, `<parameter name="variable.value">5</parameter>`, 1)
	edited = strings.Replace(edited, `<parameter name="variable.value">a</parameter>`, `<parameter name="variable.value">6</parameter>`, 1)
	check := func(how string, b *Agent, warnings []string) {
		t.Helper()
		if got, _ := b.VarValue("Target"); !got.Equal(NumberVar(4)) {
			t.Errorf("%s: Target = %v, want its new default 4", how, got)
		}
		if got, _ := b.VarValue("Ammo"); !got.Equal(NumberVar(3)) {
			t.Errorf("%s: Ammo = %v, want 3 carried", how, got)
		}
		if w := strings.Join(warnings, "\n"); !strings.Contains(w, `variable "Target" of the save is a string and is declared a number now; it starts at its default`) {
			t.Errorf("%s: warnings %q", how, w)
		}
	}
	b := typedAgent(t, edited)
	warnings, err := RestoreAgents(mustSave(t, a), []*Agent{b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("restore", b, warnings)
	to, warnings := carryAll(t, []*Agent{a}, bindXML(t, NewRegistry(), edited))
	check("carry", to[0], warnings)
}

func TestVars_restoreRejectsBadValues(t *testing.T) {
	a := typedAgent(t, typedRun)
	s, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s.Vars[0].Typed = NumberVar(posInf())
	if _, err := a.Restore(&s); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a saved infinity: %v, want ErrCorrupt", err)
	}
	data := mustSave(t, a)
	i := bytes.Index(data, []byte("Ammo"))
	if i < 0 {
		t.Fatal("no Ammo in the save")
	}
	bad := append([]byte(nil), data...)
	bad[i+4] = 9 // the value's tag
	if _, err := RestoreAgents(bad, []*Agent{typedAgent(t, typedRun)}, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a bad tag: %v, want ErrCorrupt", err)
	}
}

// FuzzRestoreTyped is FuzzRestoreAgents for an agent with typed variables:
// no input panics, a failed restore changes nothing, and a restored agent
// saves to bytes that restore to the same agent.
func FuzzRestoreTyped(f *testing.F) {
	a := typedAgent(f, typedRun)
	for s := range 6 {
		f.Add(mustSave(f, a))
		if _, err := a.Step(0.5); err != nil {
			f.Fatal(err)
		}
		if s == 2 {
			if err := a.SetVarValue("Target", StringVar("grunt \x00 7")); err != nil {
				f.Fatal(err)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fresh := typedAgent(t, typedRun)
		before := mustSave(t, fresh)
		if _, err := RestoreAgents(data, []*Agent{fresh}, nil); err != nil {
			if after := mustSave(t, fresh); !bytes.Equal(before, after) {
				t.Fatalf("a failed restore changed the agent: %v", err)
			}
			return
		}
		again := mustSave(t, fresh)
		other := typedAgent(t, typedRun)
		if _, err := RestoreAgents(again, []*Agent{other}, nil); err != nil {
			t.Fatalf("a restored agent's save does not restore: %v", err)
		}
		if !bytes.Equal(mustSave(t, other), again) {
			t.Fatalf("a restored agent's save restores to another agent")
		}
	})
}
