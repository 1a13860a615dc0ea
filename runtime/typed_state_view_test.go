package runtime

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestTypedStateValue_decodesEveryKindAndRefusesCutBytes: the live view's
// decoding of typed state bytes gives each field by name, and bytes cut
// short or of another format are an error, never a panic.
func TestTypedStateValue_decodesEveryKindAndRefusesCutBytes(t *testing.T) {
	type st struct {
		N   float64
		I   int
		D   time.Duration
		B   bool
		S   string
		Neg int8
	}
	c, err := declareState[st]()
	if err != nil {
		t.Fatal(err)
	}
	s := st{N: 1.5, I: 42, D: 1500 * time.Millisecond, B: true, S: "hi", Neg: -3}
	b := c.encode(nil, unsafe.Pointer(&s))
	v, err := typedStateValue(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range v.Table {
		got = append(got, fmt.Sprintf("%s=%v%v%q", f.Key.Str, f.Val.Num, f.Val.Bool, f.Val.Str))
	}
	if want := `N=1.5false"" I=42false"" D=0false"1.5s" B=0true"" S=0false"hi" Neg=-3false""`; strings.Join(got, " ") != want {
		t.Errorf("decoded %s, want %s", strings.Join(got, " "), want)
	}
	cut := 0
	for i := 1; i < len(b); i++ {
		if _, err := typedStateValue(b[:i]); err != nil { // a cut at a field's end is a state with fewer fields
			cut++
		}
	}
	if cut == 0 {
		t.Errorf("no cut of the bytes was an error")
	}
	if _, err := typedStateValue([]byte{9, 1, 2}); err == nil {
		t.Errorf("bytes of another format decoded")
	}
	if v, err := typedStateValue(nil); err != nil || len(v.Table) != 0 {
		t.Errorf("no bytes: %v %v, want an empty table", v, err)
	}
}
