package natsnet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The game's files (config, trees, scripts, plugin sources) travel to the
// shards through the run's JetStream object store, each stored once under
// the hash of its content: a shard fetches what the manifest lists and
// checks every hash, and a file that did not change since an earlier run
// is not sent again.

// File is one of the game's files: its path relative to the config's
// folder, slash-separated, and its content.
type File struct {
	Path string
	Data []byte
	Exec bool // written executable (a plugin's program)
}

// MaxFiles bounds the bytes of a run's files, together: a shard never
// fetches more.
const MaxFiles = 1 << 30

// ErrFiles is a file that cannot be published or fetched: the store full
// or unreachable, a hash that does not match, a manifest beyond limits.
var ErrFiles = errors.New("natsnet: files")

const opTimeout = 10 * time.Second

func filesBucket(run string) string { return "btrun-files-" + run }

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// publishFiles stores files (and their manifest, itself by hash) in the
// run's object store; it returns the manifest's hash. config, when not "",
// is the path among files of the game's config: the manifest names it for
// the shards (ShardLink.Config).
//
// The manifest is text: an optional first line "config\tPATH", then a line
// "HASH\tSIZE\tFLAGS\tPATH" per file in path order, FLAGS "x" for a file
// written executable and "-" for the others.
func publishFiles(nc *nats.Conn, run string, files []File, config string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrFiles, err)
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: filesBucket(run)})
	if err != nil {
		return "", fmt.Errorf("%w: the object store of run %s: %w", ErrFiles, run, err)
	}
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var manifest bytes.Buffer
	if config != "" {
		if !slices.ContainsFunc(sorted, func(f File) bool { return f.Path == config }) {
			return "", fmt.Errorf("%w: the config %s is not among the files", ErrFiles, config)
		}
		fmt.Fprintf(&manifest, "config\t%s\n", config)
	}
	total := 0
	for i, f := range sorted {
		if i > 0 && f.Path == sorted[i-1].Path {
			return "", fmt.Errorf("%w: %s listed twice", ErrFiles, f.Path)
		}
		if strings.ContainsAny(f.Path, "\n\t") {
			return "", fmt.Errorf("%w: path %q", ErrFiles, f.Path)
		}
		if total += len(f.Data); total > MaxFiles {
			return "", fmt.Errorf("%w: the game's files pass %d bytes at %s", ErrFiles, MaxFiles, f.Path)
		}
		h := hashOf(f.Data)
		if err := putOnce(ctx, obs, h, f.Data); err != nil {
			return "", fmt.Errorf("%w: storing %s (%d bytes): %w", ErrFiles, f.Path, len(f.Data), err)
		}
		flags := "-"
		if f.Exec {
			flags = "x"
		}
		fmt.Fprintf(&manifest, "%s\t%d\t%s\t%s\n", h, len(f.Data), flags, f.Path)
	}
	mh := hashOf(manifest.Bytes())
	if err := putOnce(ctx, obs, mh, manifest.Bytes()); err != nil {
		return "", fmt.Errorf("%w: storing the manifest: %w", ErrFiles, err)
	}
	return mh, nil
}

// putOnce stores data under its hash unless it is there already.
func putOnce(ctx context.Context, obs jetstream.ObjectStore, hash string, data []byte) error {
	if _, err := obs.GetInfo(ctx, hash); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return err
	}
	_, err := obs.PutBytes(ctx, hash, data)
	return err
}

// fetchFiles fetches the files the manifest with hash mh lists, checking
// every hash, and the config's path among them ("" when it names none).
func fetchFiles(nc *nats.Conn, run, mh string) ([]File, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrFiles, err)
	}
	obs, err := js.ObjectStore(ctx, filesBucket(run))
	if err != nil {
		return nil, "", fmt.Errorf("%w: the object store of run %s: %w", ErrFiles, run, err)
	}
	get := func(hash, what string) ([]byte, error) {
		b, err := obs.GetBytes(ctx, hash)
		if err != nil {
			return nil, fmt.Errorf("%w: fetching %s: %w", ErrFiles, what, err)
		}
		if got := hashOf(b); got != hash {
			return nil, fmt.Errorf("%w: %s has hash %s, not %s", ErrFiles, what, got, hash)
		}
		return b, nil
	}
	m, err := get(mh, "the manifest")
	if err != nil {
		return nil, "", err
	}
	var files []File
	config := ""
	total := 0
	for i, line := range strings.Split(strings.TrimSuffix(string(m), "\n"), "\n") {
		if len(m) == 0 {
			break // a game of no files (a test's)
		}
		if c, ok := strings.CutPrefix(line, "config\t"); ok && i == 0 {
			config = c
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 || (f[2] != "-" && f[2] != "x") {
			return nil, "", fmt.Errorf("%w: manifest line %d: %q", ErrFiles, i+1, line)
		}
		size, err := strconv.Atoi(f[1])
		if err != nil || size < 0 {
			return nil, "", fmt.Errorf("%w: manifest line %d: size %q", ErrFiles, i+1, f[1])
		}
		if total += size; total > MaxFiles {
			return nil, "", fmt.Errorf("%w: the manifest lists more than %d bytes", ErrFiles, MaxFiles)
		}
		b, err := get(f[0], f[3])
		if err != nil {
			return nil, "", err
		}
		files = append(files, File{Path: f[3], Data: b, Exec: f[2] == "x"})
	}
	return files, config, nil
}
