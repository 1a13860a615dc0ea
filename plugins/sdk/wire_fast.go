package sdk

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// Straight-line encoders and decoders of the two messages every batched
// call crosses the socket as: a Call (host to plugin) and a Reply (back).
// The encoder's and decoder's methods (wire.go) are general and too large
// for the compiler to inline, so a call of a few scalars and one number
// field made some forty function calls on each side; these append to and
// read from a local slice instead. They write the same bytes (fields in
// number order, zero values left out), and the fast readers accept only
// what they fully understand: one-byte tags and lengths of the fields they
// know. Anything else (state bytes of 128 or more, stimuli, effects, text
// in a value, an unknown or malformed field) makes them report false, and
// the caller reads the message again with the general decoder, so a
// message decodes the same whichever reads it (the wire tests and fuzzers
// compare both with protobuf).

// One-byte tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 bytes).
const (
	tCallKind     = fCallKind << 3
	tCallSite     = fCallSite << 3
	tCallAgent    = fCallAgent<<3 | 2
	tCallFirstRun = fCallFirstRun << 3
	tCallTime     = fCallTime<<3 | 1
	tCallDt       = fCallDt<<3 | 1
	tCallState    = fCallState<<3 | 2
	tCallFields   = fCallFields<<3 | 2
	tValueKind    = fValueKind << 3
	tValueNumber  = fValueNumber<<3 | 1
	tValueFlag    = fValueFlag << 3
	tReplyStatus  = fReplyStatus << 3
	tReplyOK      = fReplyOK << 3
	tReplyStSet   = fReplyStateSet << 3
	tReplyState   = fReplyState<<3 | 2
	tReplyWrites  = fReplyWrites<<3 | 2
	tReplyScore   = fReplyScore<<3 | 1
)

// validString is utf8.ValidString with the all-ASCII case (agent ids,
// names) checked in line.
func validString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s[i:])
		}
	}
	return true
}

// endSub writes the length of the sub-message that starts at start (one
// byte was kept for it before start), moving the message up when its
// length needs more than one byte.
func endSub(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	e := encoder{buf: b}
	e.end(start)
	return e.buf
}

func appendDouble(b []byte, tag byte, x float64) []byte {
	if bits := math.Float64bits(x); bits != 0 { // -0 is sent, as protobuf does
		b = append(b, tag)
		b = binary.LittleEndian.AppendUint64(b, bits)
	}
	return b
}

// appendValue appends v as a Value message with tag tag; ok is false when
// its text is not UTF-8 (the bytes are written all the same).
func appendValue(b []byte, tag byte, v *Value) ([]byte, bool) {
	b = append(b, tag, 0)
	start := len(b)
	if v.Kind != 0 {
		b = append(b, tValueKind)
		b = appendVarint(b, uint64(v.Kind))
	}
	b = appendDouble(b, tValueNumber, v.Num)
	ok := true
	if v.Str != "" {
		ok = validString(v.Str)
		b = append(b, fValueText<<3|2)
		b = appendString(b, v.Str)
	}
	if v.Bool {
		b = append(b, tValueFlag, 1)
	}
	return endSub(b, start), ok
}

// appendCall appends the fields of call c before its stimuli (which the
// caller writes after them, in field order); ok as for appendValue.
func appendCall(b []byte, c *Request) ([]byte, bool) {
	ok := true
	if c.Kind != 0 {
		b = append(b, tCallKind)
		b = appendVarint(b, uint64(c.Kind))
	}
	if c.Site != 0 {
		b = append(b, tCallSite)
		b = appendVarint(b, uint64(c.Site))
	}
	if c.Agent != "" {
		ok = validString(c.Agent)
		b = append(b, tCallAgent)
		b = appendString(b, c.Agent)
	}
	if c.FirstRun {
		b = append(b, tCallFirstRun, 1)
	}
	b = appendDouble(b, tCallTime, c.Time)
	b = appendDouble(b, tCallDt, c.Dt)
	if len(c.State) > 0 {
		b = append(b, tCallState)
		b = appendBytes(b, c.State)
	}
	for j := range c.Fields {
		var vok bool
		b, vok = appendValue(b, tCallFields, &c.Fields[j])
		ok = ok && vok
	}
	return b, ok
}

// appendReplyHead appends a reply's fields before its effects: status,
// flags, state bytes and writes.
func appendReplyHead(b []byte, r *Reply) ([]byte, bool) {
	ok := true
	if r.Status != 0 {
		b = append(b, tReplyStatus)
		b = appendVarint(b, uint64(r.Status))
	}
	if r.OK {
		b = append(b, tReplyOK, 1)
	}
	if r.StateSet {
		b = append(b, tReplyStSet, 1)
	}
	if len(r.State) > 0 {
		b = append(b, tReplyState)
		b = appendBytes(b, r.State)
	}
	for j := range r.Writes {
		var vok bool
		b, vok = appendValue(b, tReplyWrites, &r.Writes[j])
		ok = ok && vok
	}
	return b, ok
}

// readValueFast reads a Value message's bytes holding no text.
func readValueFast(b []byte) (Value, bool) {
	var v Value
	for i := 0; i < len(b); {
		switch b[i] {
		case tValueKind:
			if i+1 >= len(b) || b[i+1] >= 0x80 {
				return v, false
			}
			v.Kind = ValueKind(b[i+1])
			i += 2
		case tValueNumber:
			if i+9 > len(b) {
				return v, false
			}
			v.Num = math.Float64frombits(binary.LittleEndian.Uint64(b[i+1:]))
			i += 9
		case tValueFlag:
			if i+1 >= len(b) || b[i+1] >= 0x80 {
				return v, false
			}
			v.Bool = b[i+1] != 0
			i += 2
		default:
			return v, false
		}
	}
	return v, true
}

// readCallFast reads a Call message's bytes into c (zeroed by the caller)
// and its fields into in.fields; false when it holds what only readCall
// reads, in which case c and in.fields are to be reset and read again.
// States are copied into states, as readCall does.
func (in *batchIn) readCallFast(b []byte, c *Request, oldAgent string, states []byte) ([]byte, bool) {
	start := len(in.fields)
	for i := 0; i < len(b); {
		tag := b[i]
		if tag == tCallTime || tag == tCallDt {
			if i+9 > len(b) {
				return states, false
			}
			x := math.Float64frombits(binary.LittleEndian.Uint64(b[i+1:]))
			if tag == tCallTime {
				c.Time = x
			} else {
				c.Dt = x
			}
			i += 9
			continue
		}
		if i+1 >= len(b) || b[i+1] >= 0x80 { // every other field: a one-byte varint or length
			return states, false
		}
		n := int(b[i+1])
		switch tag {
		case tCallKind:
			c.Kind = CallKind(n)
			i += 2
			continue
		case tCallSite:
			c.Site = uint32(n)
			i += 2
			continue
		case tCallFirstRun:
			c.FirstRun = n != 0
			i += 2
			continue
		}
		if i+2+n > len(b) {
			return states, false
		}
		v := b[i+2 : i+2+n : i+2+n]
		i += 2 + n
		switch tag {
		case tCallAgent:
			if string(v) == oldAgent { // valid already: the same as last round's
				c.Agent = oldAgent
			} else if utf8.Valid(v) {
				c.Agent = string(v)
			} else {
				return states, false
			}
		case tCallState:
			if len(v) > 0 {
				if cap(states)-len(states) < len(v) {
					states = make([]byte, 0, max(len(v), 4096))
				}
				s := len(states)
				states = append(states, v...)
				c.State = states[s:len(states):len(states)]
			}
		case tCallFields:
			f, ok := readValueFast(v)
			if !ok {
				return states, false
			}
			in.fields = append(in.fields, f)
		default:
			return states, false
		}
	}
	if len(in.fields) > start {
		c.Fields = in.fields[start:len(in.fields):len(in.fields)]
	}
	return states, true
}

// readReplyFast reads a Reply message's bytes into rep (zeroed by the
// caller), its writes appended to writes; false when it holds what only
// batchReplies.read reads.
func readReplyFast(b []byte, rep *Reply, writes []Value) ([]Value, bool) {
	for i := 0; i < len(b); {
		tag := b[i]
		if tag == tReplyScore {
			if i+9 > len(b) {
				return writes, false
			}
			rep.Score = math.Float64frombits(binary.LittleEndian.Uint64(b[i+1:]))
			i += 9
			continue
		}
		if i+1 >= len(b) || b[i+1] >= 0x80 {
			return writes, false
		}
		n := int(b[i+1])
		switch tag {
		case tReplyStatus:
			rep.Status = Status(n)
			i += 2
		case tReplyOK:
			rep.OK = n != 0
			i += 2
		case tReplyStSet:
			rep.StateSet = n != 0
			i += 2
		case tReplyWrites, tReplyState:
			if i+2+n > len(b) {
				return writes, false
			}
			v := b[i+2 : i+2+n]
			i += 2 + n
			if tag == tReplyState {
				if len(v) > 0 { // the agent keeps them, and gRPC may reuse its buffer
					rep.State = append([]byte(nil), v...)
				}
				continue
			}
			w, ok := readValueFast(v)
			if !ok {
				return writes, false
			}
			writes = append(writes, w)
		default:
			return writes, false
		}
	}
	if len(writes) > 0 {
		rep.Writes = writes
	}
	return writes, true
}
