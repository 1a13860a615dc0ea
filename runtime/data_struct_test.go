package runtime

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type testVec struct {
	X float64 `bt:"x"`
	Y float64 `bt:"y"`
}

type testNPC struct {
	HP    float64           `bt:"hp"`
	Level int8              `bt:"level"`
	Gold  uint16            `bt:"gold"`
	Speed float32           `bt:"speed"`
	Name  string            `bt:"name"`
	Alive bool              `bt:"alive"`
	Pos   testVec           `bt:"pos"`
	Loot  []string          `bt:"loot"`
	Path  []testVec         `bt:"path"`
	Seen  map[string]int    `bt:"seen"`
	ByID  map[int]string    `bt:"byId"`
	Pair  [2]int            `bt:"pair"`
	brain map[string]func() // untagged: the game's own
	Notes string            // untagged and exported: not the trees'
}

func declareNPC(t *testing.T) DataType[testNPC] {
	t.Helper()
	d, err := DeclareData[testNPC]()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDeclareData_refusesWhatCannotBeData: each type that cannot be agent
// data is refused by DeclareData, naming the field.
func TestDeclareData_refusesWhatCannotBeData(t *testing.T) {
	type ptr struct {
		P *int `bt:"p"`
	}
	type fn struct {
		F func() `bt:"f"`
	}
	type loop struct {
		Kids []loop `bt:"kids"`
	}
	type bare struct{ X, Y float64 }
	type nested struct {
		B bare `bt:"b"`
	}
	type twice struct {
		A int `bt:"a"`
		B int `bt:"a"`
	}
	type hidden struct {
		a int `bt:"a"`
	}
	type floatKeys struct {
		M map[float64]int `bt:"m"`
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(DeclareData[ptr]()), "field runtime.ptr.P is a *int"},
		{second(DeclareData[fn]()), "field runtime.fn.F is a func()"},
		{second(DeclareData[loop]()), "holds its own type runtime.loop"},
		{second(DeclareData[nested]()), "runtime.bare (at runtime.nested.B) has no field with a bt tag"},
		{second(DeclareData[twice]()), `two fields of runtime.twice are tagged bt:"a"`},
		{second(DeclareData[hidden]()), "runtime.hidden.a has a bt tag but is not exported"},
		{second(DeclareData[floatKeys]()), "is a map with float64 keys"},
		{second(DeclareData[int]()), "agent data is a struct, not a int"},
	} {
		if !errors.Is(c.err, ErrParamDecl) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestMustDeclareData_panicsOnATypeThatCannotBeData(t *testing.T) {
	type fn struct {
		F func() `bt:"f"`
	}
	if got := fmt.Sprint(panicValue(func() { MustDeclareData[fn]() })); !strings.Contains(got, "field runtime.fn.F is a func()") {
		t.Errorf("panic %q", got)
	}
	if got := panicValue(func() { MustDeclareData[testNPC]() }); got != nil {
		t.Errorf("panic %v", got)
	}
}

func panicValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// savedData is what MarshalBinary would save for the table v.
func savedData(v Value) []byte {
	return base64.RawStdEncoding.AppendEncode(nil, appendDataValue([]byte{structFormat}, v))
}

// TestStructData_fieldsReadAndWrittenByTag: scalars by their tags, with
// their Go types' ranges; tables built from and written into the Go
// values; every write that does not fit is an error naming its path, and
// leaves the value as it was.
func TestStructData_fieldsReadAndWrittenByTag(t *testing.T) {
	npc := &testNPC{HP: 7, Level: 3, Name: "grunt", Pos: testVec{1, 2}, Seen: map[string]int{"b": 2, "a": 1}}
	d := declareNPC(t).Of(npc)
	if v := d.Field("hp"); v.Kind != NumberValue || v.Num != 7 {
		t.Errorf("hp = %v", v)
	}
	if v := d.Field("Notes"); v.Kind != NilValue {
		t.Errorf("an untagged field reads %v", v)
	}
	for _, c := range []struct {
		name string
		v    Value
	}{{"hp", Number(9.5)}, {"level", Number(-128)}, {"gold", Number(65535)}, {"speed", Number(1.5)},
		{"name", String("orc")}, {"alive", Bool(true)}} {
		if err := d.SetField(c.name, c.v); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if npc.HP != 9.5 || npc.Level != -128 || npc.Gold != 65535 || npc.Speed != 1.5 || npc.Name != "orc" || !npc.Alive {
		t.Errorf("after writes: %+v", npc)
	}
	if got, want := DataText(d.Field("pos"), 200), "{x = 1, y = 2}"; got != want {
		t.Errorf("pos = %s, want %s", got, want)
	}
	if got, want := DataText(d.Field("seen"), 200), "{a = 1, b = 2}"; got != want {
		t.Errorf("seen = %s, want %s (keys sorted)", got, want)
	}
	must(t, d.SetField("pos", Table("x", 5)))
	must(t, d.SetField("path", List(Table("x", 1, "y", 2), Table("y", 3))))
	must(t, d.SetField("loot", List("axe", "rope")))
	must(t, d.SetField("byId", Table(2, "b", 1, "a")))
	must(t, d.SetField("pair", List(4, 5)))
	if npc.Pos != (testVec{5, 0}) || len(npc.Path) != 2 || npc.Path[1] != (testVec{0, 3}) ||
		strings.Join(npc.Loot, ",") != "axe,rope" || npc.ByID[2] != "b" || npc.Pair != [2]int{4, 5} {
		t.Errorf("after table writes: %+v", npc)
	}
	if got, want := DataText(d.Field("byId"), 200), `{[1] = "a", [2] = "b"}`; got != want {
		t.Errorf("byId = %s, want %s", got, want)
	}
	before := *npc
	for _, c := range []struct {
		name string
		v    Value
		want string
	}{
		{"hp", String("x"), "hp is a number (float64), not a string"},
		{"level", Number(128), "level: 128 does not fit a int8"},
		{"level", Number(1.5), "level: 1.5 does not fit a int8"},
		{"gold", Number(-1), "gold: -1 does not fit a uint16"},
		{"alive", Value{}, "alive is a boolean (bool), not nil"},
		{"nope", Number(1), `has no field "nope"`},
		{"pos", Number(1), "pos is a table (runtime.testVec), not a number"},
		{"pos", Table("z", 1), "pos: runtime.testVec has no field \"z\""},
		{"path", List(Table("x", 1), Table("x", "far")), "path[2].x is a number (float64), not a string"},
		{"loot", Table(1, "a", 3, "c"), "loot: key 3 in a table for []string"},
		{"pair", List(1), "pair: a table of 1 entries for [2]int, which holds 2"},
		{"seen", Table(1, 1), "seen[1] (key) is a string (string), not a number"},
	} {
		if err := d.SetField(c.name, c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %s: got %v, want %q", c.name, DataText(c.v, 100), err, c.want)
		}
	}
	if npc.HP != before.HP || npc.Level != before.Level || npc.Pos != before.Pos || len(npc.Path) != 2 || npc.Pair != before.Pair {
		t.Errorf("a refused write changed the data: %+v", npc)
	}
	if n := testing.AllocsPerRun(100, func() {
		_ = d.SetField("hp", Number(d.Field("hp").Num+1))
		_ = d.SetField("name", d.Field("name"))
	}); n != 0 {
		t.Errorf("reading and writing scalar fields allocates %v times", n)
	}
}

// TestStructData_savedAndRestoredByTag: the bytes name the fields and sort
// map keys (equal data, equal bytes, however the maps were filled); a
// restore sets the struct, keeps fields the save lacks, drops fields the
// struct lacks; damaged bytes are an error that changes nothing.
func TestStructData_savedAndRestoredByTag(t *testing.T) {
	typ := declareNPC(t)
	a := &testNPC{HP: 3, Name: "a", Seen: map[string]int{}, Path: []testVec{{1, 2}}}
	b := &testNPC{HP: 3, Name: "a", Seen: map[string]int{}, Path: []testVec{{1, 2}}}
	for i := range 50 {
		a.Seen[string(rune('a'+i%26))+strings.Repeat("x", i)] = i
		b.Seen[string(rune('a'+(49-i)%26))+strings.Repeat("x", 49-i)] = 49 - i
	}
	ab, err := typ.Of(a).MarshalBinary()
	must(t, err)
	bb, err := typ.Of(b).MarshalBinary()
	must(t, err)
	if !bytes.Equal(ab, bb) {
		t.Fatal("equal data saved different bytes")
	}
	c := &testNPC{Notes: "kept", brain: map[string]func(){}}
	cd := typ.Of(c)
	must(t, cd.UnmarshalBinary(ab))
	if c.HP != 3 || c.Name != "a" || len(c.Seen) != 50 || c.Seen["bx"] != 1 || c.Path[0] != (testVec{1, 2}) || c.Notes != "kept" {
		t.Errorf("restored %+v", c)
	}
	// An older build's save with a field this struct lacks, and without hp.
	old := savedData(Table("gone", 5, "name", "z"))
	must(t, cd.UnmarshalBinary(old))
	if c.Name != "z" || c.HP != 3 {
		t.Errorf("older save: %+v", c)
	}
	bad := savedData(Table("name", "y", "hp", "high"))
	if err := cd.UnmarshalBinary(bad); err == nil || !strings.Contains(err.Error(), "hp is a number") || c.Name != "z" {
		t.Errorf("a save that does not fit: %v, name %q", err, c.Name)
	}
	raw, _ := base64.RawStdEncoding.DecodeString(string(ab))
	for i := range len(raw) - 1 {
		if err := cd.UnmarshalBinary(base64.RawStdEncoding.AppendEncode(nil, raw[:i])); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d: %v", i, err)
		}
	}
	if err := cd.UnmarshalBinary([]byte("not base64!")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("not base64: %v", err)
	}
	if c.Name != "z" {
		t.Errorf("damaged saves changed the data: %+v", c)
	}
}

// FuzzStructData_unmarshal: any bytes (in base64, as saved) are restored
// or refused, never a panic, and what is restored saves again to bytes
// that restore the same.
func FuzzStructData_unmarshal(f *testing.F) {
	typ, err := DeclareData[testNPC]()
	if err != nil {
		f.Fatal(err)
	}
	full, _ := typ.Of(&testNPC{HP: 1, Loot: []string{"a"}, Seen: map[string]int{"k": 2}, ByID: map[int]string{3: "c"}}).MarshalBinary()
	raw, _ := base64.RawStdEncoding.DecodeString(string(full))
	f.Add(raw) // the fuzzer's bytes are the decoded bytes: base64 is no obstacle
	f.Add([]byte{structFormat, sdTable, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := &testNPC{}
		d := typ.Of(n)
		if d.UnmarshalBinary(base64.RawStdEncoding.AppendEncode(nil, b)) != nil {
			return
		}
		again, err := d.MarshalBinary()
		must(t, err)
		m := &testNPC{}
		must(t, typ.Of(m).UnmarshalBinary(again))
		if twice, _ := typ.Of(m).MarshalBinary(); !bytes.Equal(again, twice) {
			t.Fatal("a restored value saves other bytes")
		}
	})
}

// TestDataOf_goActionReadsTheStructAndSavesCarryIt: a Go action reads the
// agent's struct typed; a save (DataHost) and restore carry it.
func TestDataOf_goActionReadsTheStructAndSavesCarryIt(t *testing.T) {
	typ := declareNPC(t)
	reg := NewRegistry()
	must(t, reg.RegisterAction("heal", ActionFunc(func(a *Agent, _ Params) (Status, error) {
		npc := DataOf[*testNPC](a)
		npc.HP++
		npc.Seen["heals"]++
		return Running, nil
	})))
	b, err := bindTyped(t, `<behaviorTree><action id="heal" name="heal"/></behaviorTree>`, reg)
	must(t, err)
	npc := &testNPC{HP: 1, Seen: map[string]int{}}
	a := b.NewAgent("a", nil)
	a.SetUserData(typ.Of(npc))
	if DataOf[*testNPC](a) != npc || DataOf[*counter](a) != nil {
		t.Fatal("DataOf does not give the struct back")
	}
	a.Step(0.1)
	a.Step(0.1)
	if npc.HP != 3 {
		t.Fatalf("hp = %v", npc.HP)
	}
	if n := testing.AllocsPerRun(50, func() { a.Step(0.1) }); n != 0 {
		t.Errorf("a step of a Go action on struct data allocates %v times", n)
	}
	data, err := SaveAgents([]*Agent{a}, DataHost{})
	must(t, err)
	back := &testNPC{}
	a2 := b.NewAgent("a", nil)
	a2.SetUserData(typ.Of(back))
	if _, err := RestoreAgents(data, []*Agent{a2}, DataHost{}); err != nil {
		t.Fatal(err)
	}
	if back.HP != npc.HP || back.Seen["heals"] != npc.Seen["heals"] {
		t.Errorf("restored %+v, saved %+v", back, npc)
	}
}
