package cluster

// Keep returns a copy of b that stays valid until o's next Reset: an
// item's Data made from a buffer its writer reuses (a shard's trace and
// output lines, taken after every agent's part). The copies share one
// buffer that Reset keeps, so a reply of many records allocates nothing
// once the buffer has grown to a reply's size; a transport encodes a reply
// (Message.Append) before the shard's next message resets its Out.
func (o *Out) Keep(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if cap(o.kept)-len(o.kept) < len(b) {
		// A new buffer: the slices already handed out keep the old one.
		o.kept = make([]byte, 0, max(2*cap(o.kept), len(b), 4096))
	}
	at := len(o.kept)
	o.kept = append(o.kept, b...)
	return o.kept[at:len(o.kept):len(o.kept)]
}
