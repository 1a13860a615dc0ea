package runtime

import (
	"slices"
	"testing"
)

// TestLoaderFormat_listsEveryTag: the tags LoaderFormat describes are the
// loader's, each once.
func TestLoaderFormat_listsEveryTag(t *testing.T) {
	var got []string
	for _, ts := range LoaderFormat().Tags {
		if slices.Contains(got, ts.Tag) {
			t.Errorf("<%s> is described twice", ts.Tag)
		}
		got = append(got, ts.Tag)
	}
	for tag := range knownTags {
		if !slices.Contains(got, tag) {
			t.Errorf("the loader knows <%s>, LoaderFormat does not", tag)
		}
	}
	if len(got) != len(knownTags) {
		t.Errorf("LoaderFormat lists %d tags, the loader knows %d", len(got), len(knownTags))
	}
}
