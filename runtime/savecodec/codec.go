package savecodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// ErrCorrupt marks save data that cannot be decoded: truncated, damaged, or
// not a save at all.
//
// Its text still starts with "runtime:" (the package the codec was part of),
// so messages that games and golden files hold did not change with the move;
// runtime.ErrCorrupt is this same value.
var ErrCorrupt = errors.New("runtime: corrupt save data")

// Encoder writes save data: varints, floats, strings through a string
// table (the names of variables, rules and Lua fields repeat in every agent
// of a save, so each is written once), and Values. Its output is Bytes plus
// Strings, which a save file stores ahead of the body. It is the engine's
// side of saves, for the hosts that keep state in them (HostState: luabind's
// Lua values, package game's world): a game that embeds btrun saves with
// game.Game.Save and never needs it.
type Encoder struct {
	buf  []byte
	strs map[string]uint64
	list []string
	// recent remembers strings by where their bytes are: the same name
	// written for every agent (a tree's file and fingerprint, a Lua field
	// set by the same line of script) is most often the same string, found
	// here without hashing its bytes. Holding the pointer keeps those bytes
	// from being reused for another string. It grows with the string table
	// (a save of many agents meets hundreds of names in turn, which a small
	// cache kept evicting; a value converted alone needs a few entries).
	recent []recentString

	// A part of another encoder's body (parts.go): where each string index
	// was written, for Join. parts and remap are the parts an encoder
	// keeps for its next save and Join's scratch.
	part  bool
	refs  []strRef
	parts []*Encoder
	remap []uint64
	out   []byte // Container's
}

// Sizes of Encoder.recent: it starts small and grows fourfold while the
// string table outgrows half of it, up to recentMax entries.
const (
	recentMin = 64
	recentMax = 1 << 13
)

type recentString struct {
	p     *byte
	n     int
	index uint64
}

// NewEncoder returns an empty encoder.
func NewEncoder() *Encoder {
	return &Encoder{strs: map[string]uint64{}, recent: make([]recentString, recentMin)}
}

// Reset empties the encoder, keeping its storage, so that a game saving
// again and again does not grow a new buffer and string table each time.
// What Bytes and Strings returned before is overwritten.
func (e *Encoder) Reset() {
	e.buf = e.buf[:0]
	clear(e.strs)
	clear(e.list)
	e.list = e.list[:0]
	clear(e.recent)
	e.refs = e.refs[:0]
}

// Bytes is what has been written (the string table aside).
func (e *Encoder) Bytes() []byte { return e.buf }

// Strings is the string table, in index order.
func (e *Encoder) Strings() []string { return e.list }

// Uvarint writes v as a varint; most are below 128 (string indices of
// the first names, counts, flags), one byte without AppendUvarint's loop,
// written where Uvarint is called (it inlines).
func (e *Encoder) Uvarint(v uint64) {
	if v < 0x80 {
		e.buf = append(e.buf, byte(v))
		return
	}
	e.uvarintLong(v)
}

// uvarintLong is Uvarint for v ≥ 128: most are below 2^14 (the string
// indices of a save of many agents), two bytes without the loop.
func (e *Encoder) uvarintLong(v uint64) {
	if v < 1<<14 {
		e.buf = append(e.buf, byte(v)|0x80, byte(v>>7))
		return
	}
	e.buf = binary.AppendUvarint(e.buf, v)
}
func (e *Encoder) Varint(v int64) { e.buf = binary.AppendVarint(e.buf, v) }
func (e *Encoder) Byte(b byte)    { e.buf = append(e.buf, b) }

func (e *Encoder) Bool(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Float writes the exact bits of f (NaN and infinities included).
func (e *Encoder) Float(f float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(f))
}

// String writes s as an index into the string table.
func (e *Encoder) String(s string) {
	p := unsafe.StringData(s)
	r := &e.recent[(uintptr(unsafe.Pointer(p))>>3^uintptr(len(s)))&uintptr(len(e.recent)-1)]
	if r.p == p && r.n == len(s) && p != nil {
		if e.part {
			e.refs = append(e.refs, strRef{uint32(len(e.buf)), uint32(r.index)})
		}
		e.Uvarint(r.index)
		return
	}
	i, ok := e.strs[s]
	if !ok {
		i = uint64(len(e.list))
		e.strs[s] = i
		e.list = append(e.list, s)
		if n := len(e.recent); len(e.list) > n/2 && n < recentMax {
			// Grown, the cache starts empty: the strings come back.
			e.recent = make([]recentString, 4*n)
			r = &e.recent[(uintptr(unsafe.Pointer(p))>>3^uintptr(len(s)))&uintptr(len(e.recent)-1)]
		}
	}
	*r = recentString{p, len(s), i}
	if e.part {
		e.refs = append(e.refs, strRef{uint32(len(e.buf)), uint32(i)})
	}
	e.Uvarint(i)
}

// Fixed64 writes v as 8 bytes (random generator states: a varint of a
// random number would take 10).
func (e *Encoder) Fixed64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }

// Blob writes raw bytes inline (for opaque state such as a plugin's).
func (e *Encoder) Blob(b []byte) {
	e.Uvarint(uint64(len(b)))
	e.buf = append(e.buf, b...)
}

// Decoder reads what an Encoder wrote. Errors are sticky: after the first,
// every read returns a zero value and Err reports it, so decoding code reads
// straight through and checks once. No input makes it panic or allocate
// more than the input's size can justify.
type Decoder struct {
	// Version is the format version of the data: what a snapshot holds
	// depends on it. ReadContainer sets it from the frame; 0 (NewDecoder's)
	// is the current version of whoever reads (package runtime's snapshots
	// read it as runtime.AgentsVersion): this package knows the frame and
	// the values, not what a snapshot holds.
	Version uint64

	buf  []byte
	off  int
	strs []string
	err  error
}

// NewDecoder reads body, written in the current format, with the string
// table strs.
func NewDecoder(body []byte, strs []string) *Decoder {
	return &Decoder{buf: body, strs: strs}
}

// Err is the first error met, wrapping ErrCorrupt.
func (d *Decoder) Err() error { return d.err }

// Done reports an error if input is left over.
func (d *Decoder) Done() error {
	if d.err == nil && d.off != len(d.buf) {
		d.Fail("%d bytes left over after the data", len(d.buf)-d.off)
	}
	return d.err
}

// Remaining is the number of bytes not read yet.
func (d *Decoder) Remaining() int { return len(d.buf) - d.off }

func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrCorrupt, d.off, fmt.Sprintf(format, args...))
		// No byte is left to read: the inlined fast paths (Uvarint,
		// Byte) need not check the error.
		d.buf = d.buf[:min(d.off, len(d.buf))]
	}
}

func (d *Decoder) Uvarint() uint64 {
	// Most varints of a save are one byte (counts, flags, the first
	// names): read where Uvarint is called (it inlines; a call was an
	// eighth of a load's instructions), the others in uvarintLong.
	if off := d.off; off < len(d.buf) && d.buf[off] < 0x80 { // none after an error (fail)
		d.off++
		return uint64(d.buf[off])
	}
	return d.uvarintLong()
}

// uvarintLong is Uvarint for a varint of more than one byte (or none, or
// after an error). Most are two bytes (the string indices of a save of
// many agents): read without binary.Uvarint's loop.
func (d *Decoder) uvarintLong() uint64 {
	if d.err != nil {
		return 0
	}
	if b := d.buf[d.off:]; len(b) >= 2 && b[1] < 0x80 {
		d.off += 2
		return uint64(b[0]&0x7f) | uint64(b[1])<<7
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated number")
		return 0
	}
	d.off += n
	return v
}

func (d *Decoder) Varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated number")
		return 0
	}
	d.off += n
	return v
}

func (d *Decoder) Byte() byte {
	if off := d.off; off < len(d.buf) { // none after an error (fail); small enough to inline
		d.off++
		return d.buf[off]
	}
	return d.byteAtEnd()
}

// byteAtEnd is Byte at the end of the input or after an error.
func (d *Decoder) byteAtEnd() byte {
	if d.err == nil {
		d.Fail("truncated")
	}
	return 0
}

func (d *Decoder) Bool() bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.Fail("bad boolean")
	return false
}

func (d *Decoder) Float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.buf)-d.off < 8 {
		d.Fail("truncated")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.buf[d.off:]))
	d.off += 8
	return v
}

// Fixed64 reads what Encoder.Fixed64 wrote.
func (d *Decoder) Fixed64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.buf)-d.off < 8 {
		d.Fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.buf[d.off:])
	d.off += 8
	return v
}

// index reads a rule index or position: a uvarint that fits an int32.
func (d *Decoder) Index() int32 {
	v := d.Uvarint()
	if v > math.MaxInt32 {
		d.Fail("index %d out of range", v)
		return 0
	}
	return int32(v)
}

func (d *Decoder) String() string {
	// The index read here, not in a call of Uvarint: a load reads a string
	// for every name, and in a save of many agents most indices are two
	// bytes (each agent's id and Lua keys beyond the first 128 strings).
	var i uint64
	if b, off := d.buf, d.off; off+1 < len(b) && b[off] >= 0x80 && b[off+1] < 0x80 {
		i = uint64(b[off]&0x7f) | uint64(b[off+1])<<7
		d.off = off + 2
	} else if off < len(b) && b[off] < 0x80 { // none after an error (fail)
		i = uint64(b[off])
		d.off = off + 1
	} else {
		i = d.uvarintLong()
	}
	if i < uint64(len(d.strs)) && d.err == nil {
		return d.strs[i]
	}
	if d.err != nil {
		return ""
	}
	d.Fail("string %d is not in the string table (%d strings)", i, len(d.strs))
	return ""
}

func (d *Decoder) Blob() []byte { return append([]byte(nil), d.blob()...) }

// keptBlob is Blob copied into *keep when keep is not nil (one buffer for
// the bytes of many snapshots read in a row), nil when empty.
func (d *Decoder) KeptBlob(keep *[]byte) []byte {
	switch b := d.blob(); {
	case len(b) == 0:
		return nil
	case keep == nil:
		return append([]byte(nil), b...)
	default:
		start := len(*keep)
		*keep = append(*keep, b...)
		return (*keep)[start:len(*keep):len(*keep)]
	}
}

// blob is Blob without the copy: the bytes are the input's.
func (d *Decoder) blob() []byte {
	n := d.Count(1)
	if d.err != nil {
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

// Count reads a length of items that take at least minSize bytes each, and
// refuses one the rest of the input could not hold, so that a damaged length
// cannot make the reader allocate gigabytes.
func (d *Decoder) Count(minSize int) int {
	var n uint64
	if off := d.off; off < len(d.buf) && d.buf[off] < 0x80 { // most counts are small; none after an error (fail)
		n = uint64(d.buf[off])
		d.off = off + 1
	} else if n = d.uvarintLong(); d.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	// n*minSize > Remaining, without a division (a save reads a count for
	// every table) and without overflow (a count is checked against the
	// bytes left first).
	if left := uint64(d.Remaining()); n > left || n*uint64(minSize) > left {
		d.Fail("a count of %d does not fit in the %d bytes left", n, d.Remaining())
		return 0
	}
	return int(n)
}
