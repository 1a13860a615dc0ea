package runtime

import (
	"strings"
	"testing"
)

// TestTable_buildsDataAndEntriesReadIt: Table and List build what a Value
// literal would, nil leaving an entry out; Get, Index and the readers give
// the entry or the zero value, however deep, and never fail.
func TestTable_buildsDataAndEntriesReadIt(t *testing.T) {
	v := Table("x", 5, "who", "grunt", "ok", true, "none", nil, 7, int8(-2),
		"pos", List(1.5, nil, uint16(3)), "deep", Table("a", Table("b", "c")))
	if got, want := DataText(v, 200), `{x = 5, who = "grunt", ok = true, [7] = -2, pos = {[1] = 1.5, [3] = 3}, deep = {a = {b = "c"}}}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := CheckData(v); err != nil {
		t.Error(err)
	}
	if v.Get("x").Num() != 5 || v.Get("x").Int() != 5 || v.Get("who").Str() != "grunt" || !v.Get("ok").Bool() ||
		v.Index(7).Num() != -2 || v.Get("pos").Index(3).Num() != 3 || v.Get("deep").Get("a").Get("b").Str() != "c" {
		t.Error("an entry reads wrong")
	}
	if v.Len() != 6 || v.Get("pos").Len() != 2 {
		t.Errorf("lengths %d %d", v.Len(), v.Get("pos").Len())
	}
	if s, ok := v.Get("x").Text(); ok || s != "" {
		t.Error("a number read as a string")
	}
	if x, ok := v.Get("x").Number(); !ok || x != 5 {
		t.Error("Number")
	}
	for _, e := range []Entry{v.Get("none"), v.Get("nope"), v.Index(2), v.Get("x").Get("y"), Number(1).Get("x"), v.Get("pos").Index(2)} {
		if e.Found() || e.Num() != 0 || e.Str() != "" || e.Bool() || e.Value().Kind != NilValue {
			t.Errorf("a missing entry reads %v", e.Value())
		}
	}
	if !v.Get("who").Found() || v.Get("who").Value().Str != "grunt" {
		t.Error("Found or Value")
	}
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { Table("x") }, "runtime.Table: 1 arguments; keys and values come in pairs"},
		{func() { Table(1.5, 1) }, "runtime.Table: key 1 is a float64; keys are strings or integers"},
		{func() { Table("a", 1, true, 1) }, "runtime.Table: key 2 is a bool"},
		{func() { List(struct{}{}) }, "runtime.List: a value of type struct {}"},
	} {
		if got := panicText(c.f); !strings.Contains(got, c.want) {
			t.Errorf("got panic %q, want %q", got, c.want)
		}
	}
}

func panicText(f func()) (s string) {
	defer func() { s, _ = recover().(string) }()
	f()
	return ""
}
