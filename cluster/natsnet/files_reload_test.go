package natsnet

import (
	"errors"
	"testing"
)

// A reload's file put by the conductor is fetched by a shard by its hash,
// checked; a hash the store does not hold is an error.
func TestNATS_reloadFilesByHash(t *testing.T) {
	s := startServer(t)
	o := Options{URL: s.URL(), Run: "reloadfiles", Version: "v1", Files: []File{{Path: "config.toml", Data: []byte("[run]\n")}}}
	c, ends := joinAll(t, o, 1)
	defer c.Close()
	h, err := c.FileStore().Put([]byte("edited\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h2, err := c.FileStore().Put([]byte("edited\n")); err != nil || h2 != h {
		t.Fatalf("the same file again: %s, %v", h2, err)
	}
	got, err := ends[0].(*ShardLink).FileStore().Get(h)
	if err != nil || string(got) != "edited\n" {
		t.Fatalf("fetched %q, %v", got, err)
	}
	if _, err := ends[0].(*ShardLink).FileStore().Get(hashOf([]byte("never stored"))); !errors.Is(err, ErrFiles) {
		t.Fatalf("a hash not stored: %v", err)
	}
}
