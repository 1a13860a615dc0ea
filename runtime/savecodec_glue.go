package runtime

import "github.com/btrun/btrun/runtime/savecodec"

// ErrCorrupt marks save data that cannot be decoded: truncated, damaged, or
// not a save at all. It is savecodec's error, under runtime's name for
// the games that test for it.
var ErrCorrupt = savecodec.ErrCorrupt

// savedVersion is the format version of the data d reads: the container's,
// or the current one for a decoder made from bytes alone.
func savedVersion(d *savecodec.Decoder) uint64 {
	if d.Version == 0 {
		return AgentsVersion
	}
	return d.Version
}
