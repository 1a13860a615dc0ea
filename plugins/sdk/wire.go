package sdk

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// A hand-written codec for the two messages that carry batches, Batch and
// BatchReply of plugins/proto/plugin.proto, on both ends: the generated
// code makes a Go message per call, per reply and per field value, every
// round (six allocations and about 680 bytes per call on the host), where
// this codec writes the wire bytes straight from the SDK's Batch and reads
// replies (and, in the plugin, requests) into storage reused round after
// round. The bytes are plain protobuf of the same schema, so either end
// still talks to the generated code (tests check both ways, field by
// field: wire_test.go). Every other message goes through protobuf.
//
// To add a field to Call or Reply, or a call kind: add it to plugin.proto
// and regenerate, then add it below (the field number constant, the
// encoder and the decoder); TestWire_knowsEveryField fails until then.

// Field numbers of plugin.proto.
const (
	fBatchSites, fBatchCalls                                                                                               = 1, 2
	fSiteName, fSiteRule, fSiteParams                                                                                      = 1, 2, 3
	fParamName, fParamValue                                                                                                = 1, 2
	fCallKind, fCallSite, fCallAgent, fCallFirstRun, fCallTime, fCallDt, fCallState, fCallFields, fCallStimuli             = 1, 2, 3, 4, 5, 6, 7, 8, 9
	fValueKind, fValueNumber, fValueText, fValueFlag                                                                       = 1, 2, 3, 4
	fBatchReplyReplies                                                                                                     = 1
	fReplyStatus, fReplyOK, fReplyStateSet, fReplyState, fReplyWrites, fReplyEffects, fReplyJump, fReplyError, fReplyScore = 1, 2, 3, 4, 5, 6, 7, 8, 9
	fEffectKind, fEffectName, fEffectTo, fEffectFlag, fEffectData                                                          = 1, 2, 3, 4, 5
	fDataKind, fDataFlag, fDataNumber, fDataText, fDataEntries                                                             = 1, 2, 3, 4, 5
	fDataEntryKey, fDataEntryValue                                                                                         = 1, 2
	fStimulusSignal, fStimulusData, fStimulusAge                                                                           = 1, 2, 3
)

// The errors protobuf gives for the same faults.
var (
	errWireDecode = errors.New("proto: cannot parse invalid wire-format data")
	errWireUTF8   = errors.New("string field contains invalid UTF-8")
)

// wireCodec is the gRPC codec of both ends: the batch messages below by
// hand, everything else by protobuf. Its name is protobuf's, so the content
// type on the wire is unchanged.
type wireCodec struct{}

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *batchRequest:
		return m.marshal()
	case wireBytes:
		return m, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (wireCodec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *batchReplies:
		return m.unmarshal(data)
	case *batchIn:
		return m.unmarshal(data)
	case *batchPick:
		return m.unmarshal(data)
	}
	return proto.Unmarshal(data, v.(proto.Message))
}

// wireBytes is a message already encoded.
type wireBytes []byte

// encoder appends protobuf fields to buf. Proto3 leaves out fields that
// hold their zero value, and so does it. A sub-message gets one byte for
// its length, moved up when it needs more (rare: a site's parameters, state
// bytes).
type encoder struct {
	buf []byte
	err error // the first string that is not UTF-8
}

// The append functions are protowire's with the one-byte case inline:
// every tag of these messages is one byte (field numbers below 16), and so
// are most varints and lengths; protowire's calls were a seventh of the
// host's encoding and decoding. The bytes are the same.

func appendTag(b []byte, f protowire.Number, t protowire.Type) []byte {
	if f < 16 {
		return append(b, byte(f)<<3|byte(t))
	}
	return protowire.AppendTag(b, f, t)
}

func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

func appendString(b []byte, s string) []byte {
	return append(appendVarint(b, uint64(len(s))), s...)
}

func appendBytes(b []byte, v []byte) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}

func (e *encoder) varint(f protowire.Number, v uint64) {
	if v != 0 {
		e.buf = appendTag(e.buf, f, protowire.VarintType)
		e.buf = appendVarint(e.buf, v)
	}
}

func (e *encoder) bool(f protowire.Number, b bool) {
	if b {
		e.varint(f, 1)
	}
}

func (e *encoder) double(f protowire.Number, x float64) {
	if bits := math.Float64bits(x); bits != 0 { // -0 is not zero: it is sent, as protobuf does
		e.buf = appendTag(e.buf, f, protowire.Fixed64Type)
		e.buf = protowire.AppendFixed64(e.buf, bits)
	}
}

func (e *encoder) bytes(f protowire.Number, b []byte) {
	if len(b) > 0 {
		e.buf = appendTag(e.buf, f, protowire.BytesType)
		e.buf = appendBytes(e.buf, b)
	}
}

func (e *encoder) string(f protowire.Number, s string) {
	if len(s) > 0 {
		if e.err == nil && !utf8.ValidString(s) {
			e.err = errWireUTF8
		}
		e.buf = appendTag(e.buf, f, protowire.BytesType)
		e.buf = appendString(e.buf, s)
	}
}

// begin starts a sub-message in field f; end closes it.
func (e *encoder) begin(f protowire.Number) int {
	e.buf = appendTag(e.buf, f, protowire.BytesType)
	e.buf = append(e.buf, 0)
	return len(e.buf)
}

func (e *encoder) end(start int) {
	n := len(e.buf) - start
	if n < 0x80 {
		e.buf[start-1] = byte(n)
		return
	}
	k := protowire.SizeVarint(uint64(n))
	e.buf = append(e.buf, make([]byte, k-1)...)
	copy(e.buf[start+k-1:], e.buf[start:start+n])
	appendVarint(e.buf[:start-1], uint64(n))
}

func (e *encoder) value(f protowire.Number, v *Value) {
	m := e.begin(f)
	e.varint(fValueKind, uint64(v.Kind))
	e.double(fValueNumber, v.Num)
	e.string(fValueText, v.Str)
	e.bool(fValueFlag, v.Bool)
	e.end(m)
}

// data writes a Data message in field f; nothing for the zero Data (no
// data: protobuf leaves out a nil message).
func (e *encoder) data(f protowire.Number, d *Data) {
	if d.Kind == DataNil && !d.Bool && math.Float64bits(d.Num) == 0 && d.Str == "" && d.Table == nil {
		return
	}
	m := e.begin(f)
	e.varint(fDataKind, uint64(d.Kind))
	e.bool(fDataFlag, d.Bool)
	e.double(fDataNumber, d.Num)
	if len(d.Str) > 0 { // bytes: a script's strings need not be UTF-8
		e.buf = appendTag(e.buf, fDataText, protowire.BytesType)
		e.buf = appendString(e.buf, d.Str)
	}
	for i := range d.Table {
		em := e.begin(fDataEntries)
		e.data(fDataEntryKey, &d.Table[i].Key)
		e.data(fDataEntryValue, &d.Table[i].Value)
		e.end(em)
	}
	e.end(m)
}

// batchRequest encodes a Batch as the message Batch.
type batchRequest struct {
	b    *Batch
	size int // the last encoding's size: the next one's first guess
	// sent is the last encoding; buf is one given back (by keep) once
	// gRPC was done with it, or nil: the next encoding writes into it
	// instead of fresh memory (64 bytes a call, cleared by the allocator).
	sent, buf []byte
}

// keep gives the last encoding's buffer back for the next: the caller
// knows gRPC no longer reads it (a unary call answered without error: the
// plugin read the whole request before it replied, and nothing is sent
// again). A buffer not given back is left to gRPC and the collector.
func (r *batchRequest) keep() { r.buf, r.sent = r.sent[:0], nil }

func (r *batchRequest) marshal() ([]byte, error) {
	// A buffer given back, or a new one: gRPC may still be writing one
	// not given back.
	buf := r.buf
	r.buf, r.sent = nil, nil
	if cap(buf) < max(r.size, 64*len(r.b.Calls)) {
		buf = make([]byte, 0, max(r.size, 64*len(r.b.Calls)))
	}
	e := encoder{buf: buf}
	for i := range r.b.Sites {
		s := &r.b.Sites[i]
		m := e.begin(fBatchSites)
		e.string(fSiteName, s.Name)
		e.string(fSiteRule, s.Rule)
		for _, p := range s.Params {
			pm := e.begin(fSiteParams)
			e.string(fParamName, p.Name)
			e.string(fParamValue, p.Value)
			e.end(pm)
		}
		e.end(m)
	}
	for i := range r.b.Calls {
		c := &r.b.Calls[i]
		m := e.begin(fBatchCalls)
		var ok bool
		if e.buf, ok = appendCall(e.buf, c); !ok && e.err == nil { // wire_fast.go
			e.err = errWireUTF8
		}
		for j := range c.Stimuli {
			st := &c.Stimuli[j]
			sm := e.begin(fCallStimuli)
			e.string(fStimulusSignal, st.Signal)
			e.data(fStimulusData, &st.Data)
			e.double(fStimulusAge, st.Age)
			e.end(sm)
		}
		e.end(m)
	}
	r.size, r.sent = len(e.buf), e.buf
	return e.buf, e.err
}

// encodeReplies encodes replies as the message BatchReply.
func encodeReplies(replies []Reply, sizeHint int) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, max(sizeHint, 16*len(replies)))}
	for i := range replies {
		r := &replies[i]
		m := e.begin(fBatchReplyReplies)
		var ok bool
		if e.buf, ok = appendReplyHead(e.buf, r); !ok && e.err == nil { // wire_fast.go
			e.err = errWireUTF8
		}
		for _, x := range r.Effects {
			em := e.begin(fReplyEffects)
			e.varint(fEffectKind, uint64(x.Kind))
			e.string(fEffectName, x.Name)
			e.string(fEffectTo, x.To)
			e.bool(fEffectFlag, x.Flag)
			e.data(fEffectData, &x.Data)
			e.end(em)
		}
		if r.Jump != "" || r.Err != "" {
			e.string(fReplyJump, r.Jump)
			e.string(fReplyError, r.Err)
		}
		e.buf = appendDouble(e.buf, tReplyScore, r.Score)
		e.buf = endSub(e.buf, m)
	}
	return e.buf, e.err
}

// decoder reads protobuf fields. Unknown fields, and known ones of another
// wire type, are skipped, as protobuf does.
type decoder struct {
	b   []byte
	err error
}

// next reads a field's tag; false at the end of the message or on error.
// The one-byte case (field numbers 1 to 15, every field of these messages)
// is small enough to be inlined into the decoders' loops; the rest is
// nextSlow's.
func (d *decoder) next() (protowire.Number, protowire.Type, bool) {
	if len(d.b) > 0 && d.err == nil && d.b[0] < 0x80 && d.b[0] >= 8 {
		t := d.b[0]
		d.b = d.b[1:]
		return protowire.Number(t >> 3), protowire.Type(t & 7), true
	}
	return d.nextSlow()
}

func (d *decoder) nextSlow() (protowire.Number, protowire.Type, bool) {
	if len(d.b) == 0 || d.err != nil {
		return 0, 0, false
	}
	num, typ, n := protowire.ConsumeTag(d.b)
	if n < 0 || num > protowire.MaxValidNumber {
		d.err = errWireDecode
		return 0, 0, false
	}
	d.b = d.b[n:]
	return num, typ, true
}

func (d *decoder) skip(num protowire.Number, typ protowire.Type) {
	n := protowire.ConsumeFieldValue(num, typ, d.b)
	if n < 0 {
		d.err = errWireDecode
		return
	}
	d.b = d.b[n:]
}

// varint, double and bytes are inlined where they are called in their
// common case (a one-byte varint or length); the rest is their Slow's.
func (d *decoder) varint() uint64 {
	if len(d.b) > 0 && d.b[0] < 0x80 {
		v := d.b[0]
		d.b = d.b[1:]
		return uint64(v)
	}
	return d.varintSlow()
}

func (d *decoder) varintSlow() uint64 {
	v, n := protowire.ConsumeVarint(d.b)
	if n < 0 {
		d.err = errWireDecode
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) double() float64 {
	if len(d.b) >= 8 {
		v := binary.LittleEndian.Uint64(d.b)
		d.b = d.b[8:]
		return math.Float64frombits(v)
	}
	d.err = errWireDecode
	return 0
}

// bytes returns the next length-delimited field, aliasing the input.
func (d *decoder) bytes() []byte {
	if len(d.b) > 0 && d.b[0] < 0x80 && int(d.b[0]) < len(d.b) { // a one-byte length
		n := int(d.b[0]) + 1
		v := d.b[1:n:n]
		d.b = d.b[n:]
		return v
	}
	return d.bytesSlow()
}

func (d *decoder) bytesSlow() []byte {
	v, n := protowire.ConsumeBytes(d.b)
	if n < 0 {
		d.err = errWireDecode
		return nil
	}
	d.b = d.b[n:]
	return v
}

// string copies a string field out of the input (gRPC may reuse it).
func (d *decoder) string(reuse string) string {
	b := d.bytes()
	if !utf8.Valid(b) {
		if d.err == nil {
			d.err = errWireUTF8
		}
		return ""
	}
	if string(b) == reuse { // the same as last round's: no new string
		return reuse
	}
	return string(b)
}

// sub returns a decoder of the next sub-message.
func (d *decoder) sub() decoder { return decoder{b: d.bytes()} }

// value reads a Value message.
func (d *decoder) value(reuseStr string) Value {
	var v Value
	m := d.sub()
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fValueKind && typ == protowire.VarintType:
			v.Kind = ValueKind(m.varint())
		case num == fValueNumber && typ == protowire.Fixed64Type:
			v.Num = m.double()
		case num == fValueText && typ == protowire.BytesType:
			v.Str = m.string(reuseStr)
		case num == fValueFlag && typ == protowire.VarintType:
			v.Bool = m.varint() != 0
		default:
			m.skip(num, typ)
		}
	}
	if d.err == nil {
		d.err = m.err
	}
	return v
}

// data reads a Data message, nested at most maxWireDataDepth deep (a
// deeper message is an error: protobuf's own limit is 100).
func (d *decoder) data(depth int) Data {
	var x Data
	m := d.sub()
	if depth > maxWireDataDepth {
		if d.err == nil {
			d.err = errWireDecode
		}
		return x
	}
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fDataKind && typ == protowire.VarintType:
			x.Kind = DataKind(m.varint())
		case num == fDataFlag && typ == protowire.VarintType:
			x.Bool = m.varint() != 0
		case num == fDataNumber && typ == protowire.Fixed64Type:
			x.Num = m.double()
		case num == fDataText && typ == protowire.BytesType:
			x.Str = string(m.bytes())
		case num == fDataEntries && typ == protowire.BytesType:
			var de DataEntry
			em := m.sub()
			for num, typ, ok := em.next(); ok; num, typ, ok = em.next() {
				switch {
				case num == fDataEntryKey && typ == protowire.BytesType:
					de.Key = em.data(depth + 1)
				case num == fDataEntryValue && typ == protowire.BytesType:
					de.Value = em.data(depth + 1)
				default:
					em.skip(num, typ)
				}
			}
			if m.err == nil {
				m.err = em.err
			}
			x.Table = append(x.Table, de)
		default:
			m.skip(num, typ)
		}
	}
	if d.err == nil {
		d.err = m.err
	}
	return x
}

// batchReplies decodes a BatchReply into out, reusing its storage: each
// reply's Writes and Effects go into the arrays the reply at that place in
// out had (a host that passes the same out from round to round allocates
// them once), so that several batches can be decoded at once, each into its
// own out. State bytes and strings are copied (the agent keeps them, and
// gRPC may reuse its buffer).
type batchReplies struct {
	out []Reply
}

func (r *batchReplies) unmarshal(data []byte) error {
	d := decoder{b: data}
	r.out = r.out[:0]
	for {
		var m decoder
		// A reply of fewer than 128 bytes, the common case, is cut out
		// here; anything else goes through next and sub.
		if b := d.b; d.err == nil && len(b) > 2 && b[0] == fBatchReplyReplies<<3|2 && b[1] < 0x80 && int(b[1])+2 <= len(b) {
			n := int(b[1]) + 2
			m.b, d.b = b[2:n:n], b[n:]
		} else {
			num, typ, ok := d.next()
			if !ok {
				break
			}
			if num != fBatchReplyReplies || typ != protowire.BytesType {
				d.skip(num, typ)
				continue
			}
			m = d.sub()
		}
		var writes []Value
		var effects []Effect
		if n := len(r.out); n < cap(r.out) {
			old := r.out[:n+1][n]
			writes, effects = old.Writes[:0], old.Effects[:0]
		}
		r.out = append(r.out, Reply{})
		rep := &r.out[len(r.out)-1]
		if _, ok := readReplyFast(m.b, rep, writes); ok { // wire_fast.go
			continue
		}
		*rep = Reply{}
		r.read(&m, rep, writes, effects)
		if d.err == nil {
			d.err = m.err
		}
	}
	return d.err
}

// read decodes one reply into rep, its writes and effects appended to
// writes[:0] and effects[:0] (the arrays to reuse).
func (r *batchReplies) read(m *decoder, rep *Reply, writes []Value, effects []Effect) {
	clear(effects[:cap(effects)]) // let go of the data of the effects before
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fReplyStatus && typ == protowire.VarintType:
			rep.Status = Status(m.varint())
		case num == fReplyOK && typ == protowire.VarintType:
			rep.OK = m.varint() != 0
		case num == fReplyStateSet && typ == protowire.VarintType:
			rep.StateSet = m.varint() != 0
		case num == fReplyState && typ == protowire.BytesType:
			if b := m.bytes(); len(b) > 0 {
				rep.State = append([]byte(nil), b...)
			}
		case num == fReplyWrites && typ == protowire.BytesType:
			writes = append(writes, m.value(""))
		case num == fReplyEffects && typ == protowire.BytesType:
			effects = append(effects, readEffect(m))
		case num == fReplyJump && typ == protowire.BytesType:
			rep.Jump = m.string("")
		case num == fReplyError && typ == protowire.BytesType:
			rep.Err = m.string("")
		case num == fReplyScore && typ == protowire.Fixed64Type:
			rep.Score = m.double()
		default:
			m.skip(num, typ)
		}
	}
	// nil when empty, as protobuf leaves an empty list (the array of a
	// reply without writes is not kept)
	if len(writes) > 0 {
		rep.Writes = writes
	}
	if len(effects) > 0 {
		rep.Effects = effects
	}
}

func readEffect(d *decoder) Effect {
	var x Effect
	m := d.sub()
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fEffectKind && typ == protowire.VarintType:
			x.Kind = EffectKind(m.varint())
		case num == fEffectName && typ == protowire.BytesType:
			x.Name = m.string("")
		case num == fEffectTo && typ == protowire.BytesType:
			x.To = m.string("")
		case num == fEffectFlag && typ == protowire.VarintType:
			x.Flag = m.varint() != 0
		case num == fEffectData && typ == protowire.BytesType:
			x.Data = m.data(0)
		default:
			m.skip(num, typ)
		}
	}
	if d.err == nil {
		d.err = m.err
	}
	return x
}

// batchIn decodes a Batch, in the plugin, into storage reused from batch to
// batch: the calls, their fields, the sites, and each call's agent id when
// it is the one the call at the same place had last time (a game calls its
// agents in the same order round after round). State bytes are copied into
// one array per batch. replies is where the plugin's replies go.
type batchIn struct {
	b       Batch
	fields  []Value
	replies []Reply
	size    int    // the last reply's encoded size
	taken   uint64 // when the server last took it (grpcServer.takeBatch)
}

// batchPick is what the plugin's RunBatch handler decodes a batch into:
// the codec picks, of the batchIns kept, the one whose last batch began with
// the same agent as this one (firstAgent), then decodes into it. A host
// sends a large batch as chunks, several in flight; each chunk lands in the
// storage that held the same chunk the round before, whose calls have the
// same agent ids at the same places: taken as they came back, the chunks
// swapped storage from round to round and every agent id was a new string.
type batchPick struct {
	s  *grpcServer
	in *batchIn
}

func (p *batchPick) unmarshal(data []byte) error {
	p.in = p.s.takeBatch(firstAgent(data))
	return p.in.unmarshal(data)
}

// firstAgent is the agent id of a Batch's first call, still in data, or
// nil (a batch without calls, or not well formed: unmarshal says why).
func firstAgent(data []byte) []byte {
	d := decoder{b: data}
	for num, typ, ok := d.next(); ok; num, typ, ok = d.next() {
		if num != fBatchCalls || typ != protowire.BytesType {
			d.skip(num, typ)
			continue
		}
		m := d.sub()
		for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
			if num == fCallAgent && typ == protowire.BytesType {
				return m.bytes()
			}
			m.skip(num, typ)
		}
		return nil
	}
	return nil
}

func (in *batchIn) unmarshal(data []byte) error {
	d := decoder{b: data}
	sites, calls := in.b.Sites[:0], in.b.Calls[:0]
	in.fields = in.fields[:0]
	var states []byte // this batch's state bytes, fresh: a plugin may keep them
	for {
		// A call of fewer than 128 bytes, the common case, is cut out here;
		// anything else goes through next and sub.
		if b := d.b; d.err == nil && len(b) > 2 && b[0] == fBatchCalls<<3|2 && b[1] < 0x80 && int(b[1])+2 <= len(b) {
			n := int(b[1]) + 2
			m := decoder{b: b[2:n:n]}
			d.b = b[n:]
			if states = in.readCallAt(&m, &calls, states); m.err != nil {
				d.err = m.err
				break
			}
			continue
		}
		num, typ, ok := d.next()
		if !ok {
			break
		}
		switch {
		case num == fBatchSites && typ == protowire.BytesType:
			var old Site
			if len(sites) < cap(sites) {
				old = sites[:len(sites)+1][len(sites)]
			}
			m := d.sub()
			sites = append(sites, readSite(&m, &old))
			if d.err == nil {
				d.err = m.err
			}
		case num == fBatchCalls && typ == protowire.BytesType:
			m := d.sub()
			states = in.readCallAt(&m, &calls, states)
			if d.err == nil {
				d.err = m.err
			}
		default:
			d.skip(num, typ)
		}
	}
	in.b.Sites, in.b.Calls = sites, calls
	return d.err
}

// readCallAt appends the call in m to calls, reading it fast where it can
// (wire_fast.go); an error is left in m.
func (in *batchIn) readCallAt(m *decoder, calls *[]Request, states []byte) []byte {
	cs := *calls
	var oldAgent string
	if len(cs) < cap(cs) {
		oldAgent = cs[:len(cs)+1][len(cs)].Agent
	}
	cs = append(cs, Request{})
	*calls = cs
	c, start := &cs[len(cs)-1], len(in.fields)
	var ok bool
	if states, ok = in.readCallFast(m.b, c, oldAgent, states); ok {
		return states
	}
	*c, in.fields = Request{}, in.fields[:start]
	return in.readCall(m, c, oldAgent, states)
}

func (in *batchIn) readCall(m *decoder, c *Request, oldAgent string, states []byte) []byte {
	start := len(in.fields)
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fCallKind && typ == protowire.VarintType:
			c.Kind = CallKind(m.varint())
		case num == fCallSite && typ == protowire.VarintType:
			c.Site = uint32(m.varint())
		case num == fCallAgent && typ == protowire.BytesType:
			c.Agent = m.string(oldAgent)
		case num == fCallFirstRun && typ == protowire.VarintType:
			c.FirstRun = m.varint() != 0
		case num == fCallTime && typ == protowire.Fixed64Type:
			c.Time = m.double()
		case num == fCallDt && typ == protowire.Fixed64Type:
			c.Dt = m.double()
		case num == fCallState && typ == protowire.BytesType:
			if b := m.bytes(); len(b) > 0 {
				if cap(states)-len(states) < len(b) {
					states = make([]byte, 0, max(len(b), 4096))
				}
				s := len(states)
				states = append(states, b...)
				c.State = states[s:len(states):len(states)]
			}
		case num == fCallFields && typ == protowire.BytesType:
			in.fields = append(in.fields, m.value(""))
		case num == fCallStimuli && typ == protowire.BytesType:
			c.Stimuli = append(c.Stimuli, readStimulus(m))
		default:
			m.skip(num, typ)
		}
	}
	if len(in.fields) > start {
		c.Fields = in.fields[start:len(in.fields):len(in.fields)]
	}
	return states
}

// readStimulus reads a Stimulus message.
func readStimulus(d *decoder) Stimulus {
	var s Stimulus
	m := d.sub()
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fStimulusSignal && typ == protowire.BytesType:
			s.Signal = m.string("")
		case num == fStimulusData && typ == protowire.BytesType:
			s.Data = m.data(0)
		case num == fStimulusAge && typ == protowire.Fixed64Type:
			s.Age = m.double()
		default:
			m.skip(num, typ)
		}
	}
	if d.err == nil {
		d.err = m.err
	}
	return s
}

// readSite reads a Site, keeping old's strings where they are the same.
func readSite(m *decoder, old *Site) Site {
	s := Site{Params: old.Params[:0]}
	for num, typ, ok := m.next(); ok; num, typ, ok = m.next() {
		switch {
		case num == fSiteName && typ == protowire.BytesType:
			s.Name = m.string(old.Name)
		case num == fSiteRule && typ == protowire.BytesType:
			s.Rule = m.string(old.Rule)
		case num == fSiteParams && typ == protowire.BytesType:
			var op Param
			if i := len(s.Params); i < len(old.Params) {
				op = old.Params[i]
			}
			p := Param{}
			pm := m.sub()
			for num, typ, ok := pm.next(); ok; num, typ, ok = pm.next() {
				switch {
				case num == fParamName && typ == protowire.BytesType:
					p.Name = pm.string(op.Name)
				case num == fParamValue && typ == protowire.BytesType:
					p.Value = pm.string(op.Value)
				default:
					pm.skip(num, typ)
				}
			}
			if m.err == nil {
				m.err = pm.err
			}
			s.Params = append(s.Params, p)
		default:
			m.skip(num, typ)
		}
	}
	if len(s.Params) == 0 {
		s.Params = nil
	}
	return s
}
