package lua

// btrun patch "internconst" (third_party/PATCHES.md): the compiler gives
// equal short string constants of all the functions it compiles one
// string, so that a key a script sets in one function and reads in
// another (a.x in two modules) is the same string in memory, and the
// comparison of patch "smallstr" stops at the pointers instead of
// comparing bytes. Bounded: strings of up to maxInternLen bytes, at most
// maxInterned of them in the process (later ones are left as they are).

import "sync"

const (
	maxInternLen = 40
	maxInterned  = 1 << 16
)

var interned struct {
	sync.Mutex
	m map[string]LValue
}

// internConst is value, or the equal string constant compiled before.
func internConst(value LValue) LValue {
	s, ok := value.(LString)
	if !ok || len(s) > maxInternLen {
		return value
	}
	interned.Lock()
	defer interned.Unlock()
	if v, ok := interned.m[string(s)]; ok {
		return v
	}
	if interned.m == nil {
		interned.m = map[string]LValue{}
	}
	if len(interned.m) < maxInterned {
		interned.m[string(s)] = value
	}
	return value
}

// InternString is s as the compiler keeps it among its constants
// (registering it when it is short and new): a host that sets a table's
// keys with it gives scripts' reads of those keys the same string, found
// by pointer.
func InternString(s string) string {
	return string(internConst(LString(s)).(LString))
}
