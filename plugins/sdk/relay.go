package sdk

import "fmt"

// Batches and replies as bytes, for a host that relays a plugin's calls
// through another process before they reach the plugin: a cluster's shard
// sends its agents' calls of a round to the conductor, which runs the
// plugin, and gets the replies back (docs/cluster.md). The bytes are the
// wire's (wire.go): the messages Batch and BatchReply of plugin.proto.

// MarshalBatch encodes b as the message Batch.
func MarshalBatch(b *Batch) ([]byte, error) {
	r := batchRequest{b: b}
	data, err := r.marshal()
	if err != nil {
		return nil, fmt.Errorf("sdk: encoding a batch: %w", err)
	}
	return data, nil
}

// UnmarshalBatch decodes what MarshalBatch wrote into fresh storage. Bad
// bytes are an error, never a panic; a call's Site is checked against the
// batch's sites.
func UnmarshalBatch(data []byte) (Batch, error) {
	var in batchIn
	if err := in.unmarshal(data); err != nil {
		return Batch{}, fmt.Errorf("sdk: decoding a batch: %w", err)
	}
	for i := range in.b.Calls {
		if c := &in.b.Calls[i]; int(c.Site) >= len(in.b.Sites) {
			return Batch{}, fmt.Errorf("sdk: decoding a batch: call %d names site %d of %d", i, c.Site, len(in.b.Sites))
		}
	}
	return in.b, nil
}

// MarshalReplies encodes replies as the message BatchReply.
func MarshalReplies(replies []Reply) ([]byte, error) {
	data, err := encodeReplies(replies, 0)
	if err != nil {
		return nil, fmt.Errorf("sdk: encoding replies: %w", err)
	}
	return data, nil
}

// UnmarshalReplies decodes what MarshalReplies wrote into fresh storage.
func UnmarshalReplies(data []byte) ([]Reply, error) {
	var r batchReplies
	if err := r.unmarshal(data); err != nil {
		return nil, fmt.Errorf("sdk: decoding replies: %w", err)
	}
	return r.out, nil
}
