package lua

// btrun patch "internconst": its test.

import (
	"testing"
	"unsafe"
)

func TestInternConst_equalConstantsShareTheirBytes(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`function f(t) t.someField = 1 end`); err != nil {
		t.Fatal(err)
	}
	if err := L.DoString(`function g(t) return t.someField end`); err != nil {
		t.Fatal(err)
	}
	key := func(name string) string {
		for _, c := range L.GetGlobal(name).(*LFunction).Proto.Constants {
			if s, ok := c.(LString); ok && s == "someField" {
				return string(s)
			}
		}
		t.Fatalf("%s has no constant someField", name)
		return ""
	}
	if unsafe.StringData(key("f")) != unsafe.StringData(key("g")) {
		t.Error("two chunks' constant someField are two strings")
	}
}

func TestInternString_isTheCompilersConstant(t *testing.T) {
	host := InternString("hostKeyForTest")
	L := NewState()
	defer L.Close()
	if err := L.DoString(`function h(t) return t.hostKeyForTest end`); err != nil {
		t.Fatal(err)
	}
	for _, c := range L.GetGlobal("h").(*LFunction).Proto.Constants {
		if s, ok := c.(LString); ok && s == "hostKeyForTest" {
			if unsafe.StringData(string(s)) != unsafe.StringData(host) {
				t.Error("the script's constant is another string than the host's")
			}
			return
		}
	}
	t.Fatal("no constant hostKeyForTest")
}
