package runtime

// slab hands out values of T in runs from big chunks, so that a big tree
// file costs a few allocations instead of one per element. It is also a
// stack: release takes back every value handed out after a mark, to hand
// it out again. The XML reader uses that to drop the elements inside a rule
// once the rule is checked (load_xml.go), so reading a file holds only a
// few of its elements at a time however big it is.
//
// Values handed out again hold what they held before: the taker
// overwrites them. The zero slab starts with chunks of 64 values, growing
// to 1024.
type slab[T any] struct {
	chunks [][]T
	c, n   int // the next value is chunks[c][n]
	size   int // length of the next new chunk
	max    int // chunks grow up to this length
}

// slabMark is where a slab stands: what release goes back to.
type slabMark struct{ c, n int }

func newSlab[T any](first, max int) slab[T] {
	return slab[T]{size: first, max: max}
}

// take returns k consecutive values (k > 0), capped at k.
func (s *slab[T]) take(k int) []T {
	for s.c < len(s.chunks) {
		if ch := s.chunks[s.c]; len(ch)-s.n >= k {
			v := ch[s.n : s.n+k : s.n+k]
			s.n += k
			return v
		}
		s.c, s.n = s.c+1, 0
	}
	if s.size == 0 {
		s.size, s.max = 64, 1024
	}
	n := max(k, s.size)
	s.size = min(2*s.size, s.max)
	s.chunks = append(s.chunks, make([]T, n))
	s.n = k
	return s.chunks[s.c][:k:k]
}

// mark returns where the slab stands.
func (s *slab[T]) mark() slabMark { return slabMark{s.c, s.n} }

// release takes back every value handed out after m.
func (s *slab[T]) release(m slabMark) { s.c, s.n = m.c, m.n }
