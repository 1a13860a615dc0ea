package natsnet

import (
	"context"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A reload's files (cluster.ReloadManifest) travel as the game's files
// do at the start: by the hash of their content in the run's object store
// btrun-files-RUN, each stored once; a shard fetches those its copy lacks.

// objectFiles is a link's run's object store as a cluster.FileStore.
type objectFiles struct {
	nc  *nats.Conn
	run string
}

// FileStore is the run's object store, where the conductor puts a
// reload's files (game.Conductor.SetFiles).
func (c *ConductorLink) FileStore() cluster.FileStore { return objectFiles{c.nc, c.o.Run} }

// FileStore is the run's object store, where the shard fetches a reload's
// files (game.ShardOptions.Files).
func (s *ShardLink) FileStore() cluster.FileStore { return objectFiles{s.nc, s.o.Run} }

func (f objectFiles) store(ctx context.Context) (jetstream.ObjectStore, error) {
	js, err := jetstream.New(f.nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFiles, err)
	}
	obs, err := js.ObjectStore(ctx, filesBucket(f.run))
	if err != nil {
		return nil, fmt.Errorf("%w: the object store of run %s: %w", ErrFiles, f.run, err)
	}
	return obs, nil
}

func (f objectFiles) Put(data []byte) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if len(data) > MaxFiles {
		return "", fmt.Errorf("%w: a file of %d bytes", ErrFiles, len(data))
	}
	obs, err := f.store(ctx)
	if err != nil {
		return "", err
	}
	h := hashOf(data)
	if err := putOnce(ctx, obs, h, data); err != nil {
		return "", fmt.Errorf("%w: storing a file of %d bytes: %w", ErrFiles, len(data), err)
	}
	return h, nil
}

func (f objectFiles) Get(hash string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	obs, err := f.store(ctx)
	if err != nil {
		return nil, err
	}
	info, err := obs.GetInfo(ctx, hash)
	if err != nil {
		return nil, fmt.Errorf("%w: fetching %s: %w", ErrFiles, hash, err)
	}
	if info.Size > MaxFiles {
		return nil, fmt.Errorf("%w: %s holds %d bytes", ErrFiles, hash, info.Size)
	}
	b, err := obs.GetBytes(ctx, hash)
	if err != nil {
		return nil, fmt.Errorf("%w: fetching %s: %w", ErrFiles, hash, err)
	}
	if got := hashOf(b); got != hash {
		return nil, fmt.Errorf("%w: %s has hash %s", ErrFiles, hash, got)
	}
	return b, nil
}
