package savecodec

// MakeDecoder is a Decoder of body, written in format version version (0:
// the reader's current one) with the string table strs, as a value: a
// reader that keeps one in its own struct, reset for each agent of a save,
// makes none on the heap.
func MakeDecoder(version uint64, body []byte, strs []string) Decoder {
	return Decoder{Version: version, buf: body, strs: strs}
}

// Input is the whole of what d reads (Offset is where it is in it).
func (d *Decoder) Input() []byte { return d.buf }

// StringTable is the string table d reads strings from.
func (d *Decoder) StringTable() []string { return d.strs }

// Offset is how many bytes of Input have been read.
func (d *Decoder) Offset() int { return d.off }

// Seek goes back (or on) to offset off of Input, as Offset gave it: a
// reader that tried one reading goes back to try another. An offset
// outside the input is an error.
func (d *Decoder) Seek(off int) {
	if off < 0 || off > len(d.buf) {
		d.Fail("seek to byte %d of %d", off, len(d.buf))
		return
	}
	d.off = off
}

// RawEncoder is an encoder that has written body already, against the
// string table strs: data made apart (or damaged on purpose, by a test)
// that WriteContainer frames.
func RawEncoder(body []byte, strs []string) *Encoder {
	e := NewEncoder()
	e.buf = body
	e.RawStrings(strs)
	for i, s := range strs {
		if _, ok := e.strs[s]; !ok {
			e.strs[s] = uint64(i)
		}
	}
	return e
}

// Raw writes b as it is: bytes encoded already, against this encoder's
// string table (or damaged on purpose, by a test).
func (e *Encoder) Raw(b []byte) { e.buf = append(e.buf, b...) }

// RawStrings adds strings to the string table without writing them, for a
// body written with Raw that refers to them.
func (e *Encoder) RawStrings(s []string) { e.list = append(e.list, s...) }
