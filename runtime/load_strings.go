package runtime

import "strings"

// strTable makes the strings a load keeps: tags, names, ids, labels,
// parameter values. A big tree repeats the same few dozen tags, action,
// condition and parameter names thousands of times, so short strings are
// interned: a repeat costs a map look-up and no allocation, and the tree
// holds each once. The others (full ids, labels, long values) are copied
// into shared chunks, one allocation for many strings. Either way no string
// points into the file's bytes, which are dropped after the load.
type strTable struct {
	m      map[string]string
	recent [512]string     // the last interned string of each cheap hash: most look-ups stop here
	chunk  strings.Builder // the chunk being filled; never grown past its capacity
	next   int             // capacity of the next chunk
	buf    []byte          // scratch for strings built in pieces (ids, labels)
}

const (
	maxInterned = 64       // longer strings are copied, not interned
	firstChunk  = 1 << 10  // a small tree's strings take one small chunk
	maxChunk    = 64 << 10 // chunks double up to this size
)

func newStrTable() *strTable {
	return &strTable{m: make(map[string]string), next: firstChunk}
}

// intern returns b as a string, the same string for the same bytes when b
// is short.
func (t *strTable) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInterned {
		return t.copy(b)
	}
	// The hash reads the length and three bytes: enough to tell apart the
	// names of a tree, which mostly differ at their ends.
	h := uint32(len(b)) ^ uint32(b[0])<<5 ^ uint32(b[len(b)/2])<<10 ^ uint32(b[len(b)-1])<<15
	r := &t.recent[(h*0x9E3779B1)>>(32-9)]
	if *r == string(b) {
		return *r
	}
	s, ok := t.m[string(b)] // no allocation: the compiler looks up b's bytes
	if !ok {
		s = t.copy(b)
		t.m[s] = s
	}
	*r = s
	return s
}

// copy returns b as a string stored in the current chunk.
//
// A chunk is a strings.Builder whose capacity is reserved once: writes
// append within that capacity, so the bytes of the strings already handed
// out (slices of Builder.String) are never moved or written again.
func (t *strTable) copy(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if t.chunk.Cap()-t.chunk.Len() < len(b) {
		if len(b) > maxChunk/4 {
			return string(b) // a rare big string gets its own allocation
		}
		t.chunk = strings.Builder{}
		t.chunk.Grow(max(t.next, len(b)))
		t.next = min(2*t.next, maxChunk)
	}
	start := t.chunk.Len()
	t.chunk.Write(b)
	return t.chunk.String()[start:]
}

// concat returns a + b, stored in the current chunk.
func (t *strTable) concat(a, b string) string {
	t.buf = append(append(t.buf[:0], a...), b...)
	return t.copy(t.buf)
}
