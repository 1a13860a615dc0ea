package cluster

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A reload's manifest journals and reads back whole; a name holding a tab
// or a newline is refused when written; a malformed one is ErrInput.
func TestReloadManifest_roundTrip(t *testing.T) {
	m := &ReloadManifest{Config: "game/config.toml",
		Files:   []ReloadFile{{Path: "game/config.toml", Hash: HashOf([]byte("a"))}, {Path: "plugins/nav", Hash: HashOf(nil), Exec: true}},
		Changed: []string{"ai/g.xml"}, Plugins: []string{"nav"}}
	b, err := EncodeReload(m)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Step: 7, Kind: InputReload, Data: b}
	got, err := DecodeInput(AppendInput(nil, &in))
	if err != nil || got.Kind != InputReload {
		t.Fatalf("%+v, %v", got, err)
	}
	back, err := DecodeReload(got.Data)
	if err != nil || !reflect.DeepEqual(back, m) {
		t.Fatalf("%+v, %v", back, err)
	}
	if _, err := EncodeReload(&ReloadManifest{Config: "c", Changed: []string{"a\tb"}}); err == nil {
		t.Error("a tab in a name was written")
	}
	for _, bad := range []string{"", "file\tx\t-\tp\n", "config\tc\nfile\tshort\t-\tp\n", "config\tc\nother\tx\n", "config\tc\nfile\t" + strings.Repeat("a", 64) + "\t?\tp\n"} {
		if _, err := DecodeReload([]byte(bad)); !errors.Is(err, ErrInput) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// FuzzDecodeReload: any bytes are a manifest or ErrInput, never a panic.
func FuzzDecodeReload(f *testing.F) {
	f.Add([]byte("config\tc.toml\nfile\t" + strings.Repeat("0", 64) + "\tx\tp\nchanged\tp\nplugin\tnav\n"))
	f.Add([]byte("config\t\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := DecodeReload(b); err != nil && !errors.Is(err, ErrInput) {
			t.Fatal(err)
		}
	})
}

// MemFiles keeps a file once by its hash and refuses a hash it lacks.
func TestMemFiles(t *testing.T) {
	var m MemFiles
	h, _ := m.Put([]byte("x"))
	h2, _ := m.Put([]byte("x"))
	if h != h2 || m.Puts != 1 || h != HashOf([]byte("x")) {
		t.Fatalf("%s %s %d", h, h2, m.Puts)
	}
	if b, err := m.Get(h); err != nil || string(b) != "x" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := m.Get(HashOf([]byte("y"))); !errors.Is(err, ErrFileStore) {
		t.Fatal(err)
	}
}
