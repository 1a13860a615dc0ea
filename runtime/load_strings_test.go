package runtime

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/btrun/btrun/runtime/internal/treegen"
)

// TestStrTable_internsShortStringsAndCopiesAll: the same short bytes give
// the same string; no string shares memory with the bytes it was made from.
func TestStrTable_internsShortStringsAndCopiesAll(t *testing.T) {
	st := newStrTable()
	in := []byte("condition")
	a := st.intern(in)
	in[0] = 'X'
	if a != "condition" {
		t.Fatalf("interned string changed with its input: %q", a)
	}
	b := st.intern([]byte("condition"))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("the same name interned twice gives two strings")
	}
	long := bytes.Repeat([]byte("x"), maxInterned+1)
	l1, l2 := st.intern(long), st.intern(long)
	long[0] = 'y'
	if l1 != l2 || l1[0] != 'x' {
		t.Errorf("long strings %q %q", l1[:3], l2[:3])
	}
	// Many strings fill several chunks; each keeps its bytes.
	var made []string
	for i := range 5000 {
		made = append(made, st.copy(fmt.Appendf(nil, "label-%d", i)))
	}
	for i, s := range made {
		if s != fmt.Sprintf("label-%d", i) {
			t.Fatalf("string %d is %q", i, s)
		}
	}
	if st.concat("a.", "b") != "a.b" || st.intern(nil) != "" || st.copy(nil) != "" {
		t.Error("concat or empty strings")
	}
}

// TestLoad_keepsNoneOfTheBytes: a tree loaded from bytes in memory does not
// change when the caller reuses the bytes (the loader reads UTF-8 text in
// place, and every string it keeps is a copy).
func TestLoad_keepsNoneOfTheBytes(t *testing.T) {
	for _, src := range [][]byte{treegen.Tree(500), []byte(featuresTree)} {
		data := bytes.Clone(src)
		tree, err := LoadBytes("main.xml", data, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var before strings.Builder
		if err := tree.Format(&before); err != nil {
			t.Fatal(err)
		}
		for i := range data {
			data[i] = '#'
		}
		var after strings.Builder
		if err := tree.Format(&after); err != nil {
			t.Fatal(err)
		}
		if before.String() != after.String() {
			t.Fatal("the tree changed when its file's bytes were overwritten")
		}
	}
}

// TestSlab_releaseHandsOutAgain: values taken after a mark are handed out
// again after release; values taken before it stay.
func TestSlab_releaseHandsOutAgain(t *testing.T) {
	var s slab[int]
	keep := s.take(3)
	keep[0], keep[1], keep[2] = 1, 2, 3
	m := s.mark()
	first := s.take(100) // bigger than the first chunk: a chunk of its own
	small := s.take(5)
	s.release(m)
	again := s.take(100)
	if &again[0] != &first[0] {
		t.Error("release did not hand out the same values again")
	}
	if len(small) != 5 || cap(small) != 5 || len(again) != 100 || cap(again) != 100 {
		t.Errorf("runs of %d/%d and %d/%d", len(small), cap(small), len(again), cap(again))
	}
	if keep[0] != 1 || keep[2] != 3 {
		t.Errorf("values before the mark changed: %v", keep)
	}
	for range 10000 { // many takes without release: chunks grow and stay apart
		r := s.take(7)
		r[6] = 6
	}
	if keep[1] != 2 {
		t.Error("values before the mark were handed out again")
	}
}

// TestSortParams_sortedByNameTheLastWins: parameters in file order become
// Params sorted by name, a later one with the same name replacing an
// earlier one.
func TestSortParams_sortedByNameTheLastWins(t *testing.T) {
	in := []Param{{"b", "1"}, {"a", "2"}, {"b", "3"}, {"c", "4"}, {"a", "5"}, {"b", "6"}}
	got := sortParams(in)
	want := []Param{{"a", "5"}, {"b", "6"}, {"c", "4"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	sorted := []Param{{"a", "1"}, {"b", "2"}}
	if got := sortParams(sorted); fmt.Sprint(got) != fmt.Sprint(sorted) {
		t.Errorf("sorted parameters became %v", got)
	}
	if got := sortParams(nil); len(got) != 0 {
		t.Errorf("no parameters became %v", got)
	}
}
