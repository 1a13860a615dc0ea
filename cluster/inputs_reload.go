package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A reload between two steps is an input from outside the run: the
// game's files as they are now, which a replay cannot read again from
// disk (they may have changed since). So the conductor stores every file
// in the run's FileStore under the hash of its content, and journals a
// manifest naming them (InputReload); every shard brings its copy of the
// game's files to the manifest (fetching what differs by hash) and loads
// them again (a Reload message), and a replay finds the same files by the
// same hashes.

// FileStore keeps a run's files by the SHA-256 of their content (hex).
type FileStore interface {
	// Put stores data (once: a file stored already is not sent again)
	// and returns its hash.
	Put(data []byte) (string, error)
	// Get returns the content stored under hash, checked against it.
	Get(hash string) ([]byte, error)
}

// ErrFileStore is a file a FileStore does not hold, or holds with
// another hash.
var ErrFileStore = errors.New("cluster: file store")

// HashOf is the hash a FileStore keeps data under.
func HashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// MemFiles is a FileStore in memory, for one process's tests.
type MemFiles struct {
	mu    sync.Mutex
	files map[string][]byte
	Puts  int // files stored (not counting those stored already)
}

func (m *MemFiles) Put(data []byte) (string, error) {
	h := HashOf(data)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	if _, ok := m.files[h]; !ok {
		m.files[h] = slices.Clone(data)
		m.Puts++
	}
	return h, nil
}

func (m *MemFiles) Get(hash string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[hash]
	if !ok {
		return nil, fmt.Errorf("%w: no file of hash %s", ErrFileStore, hash)
	}
	return slices.Clone(b), nil
}

// ReloadFile is one of the game's files in a reload's manifest: its path
// relative to the folder holding the game's files (slash-separated), the
// hash of its content, and whether it is written executable.
type ReloadFile struct {
	Path, Hash string
	Exec       bool
}

// ReloadManifest is what a reload journals and gives the shards: the
// config's path among the files, every file by hash, and what the reload
// was asked for (the files that changed, for its line; the plugins to
// build again).
type ReloadManifest struct {
	Config  string
	Files   []ReloadFile
	Changed []string
	Plugins []string
}

// maxManifestLines bounds a manifest read back (a journal's or a
// message's): far above any game's files.
const maxManifestLines = 1 << 16

// EncodeReload is the manifest as text: a line "config\tPATH", then a
// line per file "file\tHASH\tx|-\tPATH", per changed file "changed\tNAME"
// and per plugin "plugin\tNAME". A field holding a tab or a newline is
// refused.
func EncodeReload(m *ReloadManifest) ([]byte, error) {
	var b strings.Builder
	line := func(fields ...string) error {
		for _, f := range fields {
			if strings.ContainsAny(f, "\t\n") {
				return fmt.Errorf("cluster: a reload's manifest cannot name %q", f)
			}
		}
		b.WriteString(strings.Join(fields, "\t") + "\n")
		return nil
	}
	errs := []error{line("config", m.Config)}
	for _, f := range m.Files {
		flags := "-"
		if f.Exec {
			flags = "x"
		}
		errs = append(errs, line("file", f.Hash, flags, f.Path))
	}
	for _, c := range m.Changed {
		errs = append(errs, line("changed", c))
	}
	for _, p := range m.Plugins {
		errs = append(errs, line("plugin", p))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// DecodeReload reads what EncodeReload wrote.
func DecodeReload(b []byte) (*ReloadManifest, error) {
	if len(b) > MaxInputBytes {
		return nil, fmt.Errorf("%w: a reload's manifest of %d bytes", ErrInput, len(b))
	}
	m := &ReloadManifest{}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) > maxManifestLines {
		return nil, fmt.Errorf("%w: a reload's manifest of %d lines", ErrInput, len(lines))
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		bad := func() error { return fmt.Errorf("%w: a reload's manifest, line %d: %q", ErrInput, i+1, l) }
		switch {
		case i == 0:
			if len(f) != 2 || f[0] != "config" {
				return nil, bad()
			}
			m.Config = f[1]
		case f[0] == "file" && len(f) == 4 && (f[2] == "x" || f[2] == "-") && len(f[1]) == 64:
			m.Files = append(m.Files, ReloadFile{Hash: f[1], Exec: f[2] == "x", Path: f[3]})
		case f[0] == "changed" && len(f) == 2:
			m.Changed = append(m.Changed, f[1])
		case f[0] == "plugin" && len(f) == 2:
			m.Plugins = append(m.Plugins, f[1])
		default:
			return nil, bad()
		}
	}
	return m, nil
}

// ReloadHost is a shard host that takes reloads.
type ReloadHost interface {
	// Reload brings the shard's copy of the game's files to the manifest
	// (m's Data) and loads them again, its agents fresh: a Load of their
	// saves follows.
	Reload(m *ReloadManifest) error
}

// ReloadShards has every shard load the files of manifest again, between
// step and the next (the conductor gives them their agents' saves next,
// with LoadRange).
func (c *Conductor) ReloadShards(step uint64, manifest []byte) error {
	if err := c.init(); err != nil {
		return err
	}
	c.begin(Reload, step)
	for k := range c.out {
		c.out[k].Items = append(c.out[k].Items, Item{Kind: Record, Agent: -1, Peer: -1, Text: "reload", Data: manifest})
		if err := c.Link.Send(k, &c.out[k]); err != nil {
			return err
		}
	}
	if err := c.Link.Gather(c.replies); err != nil {
		return fmt.Errorf("cluster: after step %d, reloading the game's files: %w", step, err)
	}
	return nil
}

// reload serves a Reload message.
func (s *Shard) reload(m *Message) error {
	h, ok := s.Host.(ReloadHost)
	if !ok {
		return fmt.Errorf("cluster: shard: this shard takes no reloads")
	}
	if len(m.Items) != 1 || m.Items[0].Text != "reload" {
		return fmt.Errorf("cluster: shard: a %s message of %d items", m.Kind, len(m.Items))
	}
	man, err := DecodeReload(m.Items[0].Data)
	if err != nil {
		return err
	}
	return h.Reload(man)
}

// CarryIn routes signals (Signal items) that the conductor's own game sent
// between step and the next (a reload's cancel hooks, say) into the next
// step's first deliveries, where one process delivers them.
func (c *Conductor) CarryIn(signals []Item) error {
	c.outbox = append(c.outbox[:0], signals...)
	return c.carry1()
}
