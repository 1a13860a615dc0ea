package savecodec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"unicode/utf8"
)

// A container is how save data is framed on disk:
//
//	magic       8 bytes, names the kind of file ("BTRUNSAV" for btrun runs)
//	version     uvarint
//	strings     uvarint count, then each string as uvarint length + bytes
//	body        uvarint length + bytes (what an Encoder wrote)
//	crc         4 bytes, CRC-32 (IEEE), little endian, of everything before it
//
// The CRC catches damage and truncation before anything is decoded.

// WriteContainer frames what e wrote.
func WriteContainer(magic string, version uint64, e *Encoder) []byte {
	return appendContainer(make([]byte, 0, maxContainerSize(magic, e)), magic, version, e)
}

// Container is WriteContainer into a buffer e keeps: the bytes are valid
// until e's next Container call, and are what a save file holds. A game
// that saves again and again to files (which copy the bytes) frames each
// save in the same memory instead of taking a new buffer the size of the
// save each time.
func (e *Encoder) Container(magic string, version uint64) []byte {
	e.out = appendContainer(slices.Grow(e.out[:0], maxContainerSize(magic, e)), magic, version, e)
	return e.out
}

// maxContainerSize bounds the length of e's container.
func maxContainerSize(magic string, e *Encoder) int {
	size := len(magic) + 3*binary.MaxVarintLen64 + len(e.buf) + 4
	for _, s := range e.list {
		size += binary.MaxVarintLen64 + len(s)
	}
	return size
}

func appendContainer(out []byte, magic string, version uint64, e *Encoder) []byte {
	if len(magic) != 8 {
		panic("runtime: container magic must be 8 bytes") // programmer error
	}
	out = append(out, magic...)
	out = binary.AppendUvarint(out, version)
	out = binary.AppendUvarint(out, uint64(len(e.list)))
	for _, s := range e.list {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = binary.AppendUvarint(out, uint64(len(e.buf)))
	out = append(out, e.buf...)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// ContainerSize is the length of what WriteContainer(magic, version, e)
// returns, worked out without building it: a writer with a bound on its
// files refuses a state too big before it takes the memory of a copy.
func ContainerSize(magic string, version uint64, e *Encoder) int64 {
	n := int64(len(magic) + uvarintLen(version) + uvarintLen(uint64(len(e.list))))
	for _, s := range e.list {
		n += int64(uvarintLen(uint64(len(s))) + len(s))
	}
	return n + int64(uvarintLen(uint64(len(e.buf)))+len(e.buf)) + 4
}

// ReadContainer checks the frame of data and returns its version and a
// Decoder of its body. Every error wraps ErrCorrupt and says what is wrong:
// an empty file, another kind of file, damage, truncation.
func ReadContainer(magic string, data []byte) (uint64, *Decoder, error) {
	switch {
	case len(data) == 0:
		return 0, nil, fmt.Errorf("%w: the file is empty", ErrCorrupt)
	case len(data) < len(magic) || string(data[:len(magic)]) != magic:
		return 0, nil, fmt.Errorf("%w: not a %s file (it does not start with %q)", ErrCorrupt, magicName(magic), magic)
	case len(data) < len(magic)+4:
		return 0, nil, fmt.Errorf("%w: the file is truncated", ErrCorrupt)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return 0, nil, fmt.Errorf("%w: the file is damaged or truncated (checksum mismatch)", ErrCorrupt)
	}
	d := &Decoder{buf: body, off: len(magic)}
	version := d.Uvarint()
	n := d.Count(1)
	// The strings are cut from one copy of the table's bytes (lengths
	// included), not copied one by one: one allocation, not one per string.
	// A first pass finds where the table ends.
	scan := *d
	for range n {
		scan.off += scan.Count(1)
	}
	base := d.off
	all := string(d.buf[base:scan.off])
	strs := make([]string, 0, n)
	for range n {
		l := d.Count(1)
		if d.err != nil {
			break
		}
		s := all[d.off-base : d.off-base+l]
		if !utf8.ValidString(s) {
			d.Fail("string %d is not valid UTF-8", len(strs))
		}
		d.off += l
		strs = append(strs, s)
	}
	l := d.Count(1)
	if d.err == nil && l != d.Remaining() {
		d.Fail("body length %d does not match the %d bytes present", l, d.Remaining())
	}
	if d.err != nil {
		return 0, nil, d.err
	}
	return version, &Decoder{Version: version, buf: body[d.off:], strs: strs}, nil
}

// ShareStrings makes the strings of d's table that e's table also holds
// e's copies. A load compares the save's strings with the text the game
// holds (its agents' ids, its Lua tables' keys, which a save writes as they
// are): two copies of a text are compared byte by byte, a text with itself
// stops at the pointer. A game that loads a save it wrote itself (going
// back to a checkpoint, the live view's rewinds) passes the encoder of its
// saves, whose table holds the game's own copies; a text e does not hold
// keeps the save's copy. Strings compare as before: only the time changes.
func (d *Decoder) ShareStrings(e *Encoder) {
	if e == nil || len(e.list) == 0 {
		return
	}
	for i, s := range d.strs {
		if j, ok := e.strs[s]; ok {
			d.strs[i] = e.list[j]
		}
	}
}

func magicName(m string) string {
	switch m {
	case "BTRUNAGT":
		return "btrun agents"
	case "BTRUNSAV":
		return "btrun save"
	}
	return m
}
