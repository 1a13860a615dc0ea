package savecodec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// partsScript writes item i of a body: strings old and new (a few shared by
// every item, some its own, enough in all for indices of one, two and three
// bytes), numbers and tables, some of 128 entries or more, whose count
// EndTable makes room for by moving their entries.
func partsScript(e *Encoder, i int, r *rand.Rand) {
	e.String(fmt.Sprintf("item-%d", i))
	if i%10 == 0 {
		for j := range 500 {
			e.String(fmt.Sprintf("u%d-%d", i, j))
		}
	}
	for range r.IntN(6) {
		switch r.IntN(5) {
		case 0:
			e.String("shared")
		case 1:
			e.String(fmt.Sprintf("s%d", r.IntN(40000)))
		case 2:
			e.ValueNumber(float64(r.IntN(1000)) / 4)
		case 3:
			n := []int{0, 3, 127, 128, 200}[r.IntN(5)]
			if i == 7 {
				n = 17000 // a count of three bytes
			}
			m := e.BeginTable()
			for k := range n {
				e.ValueString(fmt.Sprintf("k%d", k%300))
				e.ValueNumber(float64(k))
			}
			e.EndTable(m, n)
		default:
			e.Blob([]byte{byte(i), 1, 2})
		}
	}
}

// TestJoin_partsGiveTheBytesOfOneEncoder: a body written in 1 to 5 parts,
// split anywhere, joined, is byte for byte the body one encoder writes,
// with the same string table; and the parts joined in another order are
// not (so the test would see a join out of order).
func TestJoin_partsGiveTheBytesOfOneEncoder(t *testing.T) {
	const items = 400
	seeds := [][2]uint64{{1, 2}, {3, 4}, {5, 6}}
	for _, seed := range seeds {
		one := NewEncoder()
		one.String("header")
		r := rand.New(rand.NewPCG(seed[0], seed[1]))
		for i := range items {
			partsScript(one, i, r)
		}
		joined := NewEncoder()
		for _, n := range []int{1, 2, 3, 5} {
			joined.Reset()
			joined.String("header")
			parts := joined.Parts(n)
			cuts := []int{0}
			for k := 1; k < n; k++ {
				cuts = append(cuts, k*items/n+int(seed[0])*k%7)
			}
			cuts = append(cuts, items)
			r := rand.New(rand.NewPCG(seed[0], seed[1]))
			for k := range n {
				for i := cuts[k]; i < cuts[k+1]; i++ {
					partsScript(parts[k], i, r)
				}
			}
			if err := joined.Join(parts); err != nil {
				t.Fatal(err)
			}
			if string(joined.Bytes()) != string(one.Bytes()) || !slices.Equal(joined.Strings(), one.Strings()) {
				t.Fatalf("seed %v, %d parts: the joined body (%d bytes, %d strings) is not the one encoder's (%d bytes, %d strings)",
					seed, n, len(joined.Bytes()), len(joined.Strings()), len(one.Bytes()), len(one.Strings()))
			}
			if n < 2 {
				continue
			}
			joined.Reset()
			joined.String("header")
			parts = joined.Parts(n)
			r = rand.New(rand.NewPCG(seed[0], seed[1]))
			for k := range n {
				for i := cuts[k]; i < cuts[k+1]; i++ {
					partsScript(parts[k], i, r)
				}
			}
			slices.Reverse(parts)
			if err := joined.Join(parts); err != nil {
				t.Fatal(err)
			}
			if string(joined.Bytes()) == string(one.Bytes()) {
				t.Fatalf("seed %v, %d parts joined in reverse give the one encoder's body", seed, n)
			}
		}
		if len(one.Strings()) < 1<<14 {
			t.Fatalf("only %d strings: no index of three bytes was written", len(one.Strings()))
		}
	}
}

// TestJoin_refusesWhatIsNotAPart: Join takes only Parts' encoders, and
// leaves e as it was when it refuses.
func TestJoin_refusesWhatIsNotAPart(t *testing.T) {
	e := NewEncoder()
	e.String("a")
	before := string(e.Bytes())
	p := NewEncoder()
	p.String("b")
	if err := e.Join([]*Encoder{p}); err == nil || string(e.Bytes()) != before || len(e.Strings()) != 1 {
		t.Fatalf("Join of a plain encoder: %v, body % x, %d strings", err, e.Bytes(), len(e.Strings()))
	}
}

// TestRewind_forgetsBytesAndStrings: after Rewind, an encoder writes what
// it would have written had it never written what came after the mark.
func TestRewind_forgetsBytesAndStrings(t *testing.T) {
	one, e := NewEncoder(), NewEncoder()
	for _, x := range []*Encoder{one, e} {
		x.String("a")
		x.Uvarint(3)
	}
	m := e.Mark()
	for i := range 300 {
		e.String(fmt.Sprintf("gone-%d", i))
		e.String("a")
	}
	e.Rewind(m)
	for _, x := range []*Encoder{one, e} {
		x.String("gone-7")
		x.String("b")
		x.String("a")
	}
	if string(e.Bytes()) != string(one.Bytes()) || !slices.Equal(e.Strings(), one.Strings()) {
		t.Fatalf("rewound: % x %q, want % x %q", e.Bytes(), e.Strings(), one.Bytes(), one.Strings())
	}
}
