package runtime

// The loader's limits on ids, for tools that read tree files their own way
// and must stop where the loader stops (the live view's editor reads a
// file's rules and labels them as the loader does): a text those tools
// refuse for its ids is a text the loader refuses too.
const (
	// MaxIDBytes is the length of a full id, the prefixes of the rules
	// around it included.
	MaxIDBytes = maxIDLen
	// MaxLabelBytes is the length of all ids and labels of a tree together.
	MaxLabelBytes = maxLabelBytes
)
