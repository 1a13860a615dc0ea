package natsnet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Store is a run's checkpoints in JetStream (a cluster.CheckpointStore):
// the parts in the object store btrun-ckpt-RUN, which cuts each into
// chunks under the server's message limit, and the committed record under
// the key "checkpoint" of the key-value store btrun-run-RUN, written only
// by compare-and-set of its revision. Both use file storage, so that a
// run survives its server's restart; on a NATS cluster, Replicas copies
// survive the loss of a server.
type Store struct {
	nc   *nats.Conn // its own connection (OpenStore), or nil
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	obs  jetstream.ObjectStore
	run  string
	read uint64 // the record's revision this store read or committed last
}

// StoreOptions are a store's durability settings.
type StoreOptions struct {
	// Replicas is the copies JetStream keeps of each (1 on one server; 3
	// on a NATS cluster survives the loss of one server).
	Replicas int
}

const checkpointKey = "checkpoint"

func runBucket(run string) string  { return "btrun-run-" + run }
func ckptBucket(run string) string { return "btrun-ckpt-" + run }

// OpenStore connects to o.URL and opens (or makes) the store of run o.Run.
func OpenStore(o Options, so StoreOptions) (*Store, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	nc, err := connect(&o, "conductor")
	if err != nil {
		return nil, err
	}
	s, err := openStore(nc, o.Run, so)
	if err != nil {
		nc.Close()
		return nil, err
	}
	s.nc = nc
	return s, nil
}

func openStore(nc *nats.Conn, run string, o StoreOptions) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsnet: the store of run %s: %w", run, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: runBucket(run), Storage: jetstream.FileStorage, Replicas: o.Replicas})
	if err != nil {
		return nil, fmt.Errorf("natsnet: the key-value store of run %s: %w", run, err)
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: ckptBucket(run), Storage: jetstream.FileStorage, Replicas: o.Replicas})
	if err != nil {
		return nil, fmt.Errorf("natsnet: the checkpoint store of run %s: %w", run, err)
	}
	return &Store{js: js, kv: kv, obs: obs, run: run}, nil
}

// Close closes the store's connection.
func (s *Store) Close() {
	if s.nc != nil {
		s.nc.Close()
	}
}

// Drop deletes the run's checkpoints and lease: a run that ended leaves
// nothing in the store.
func (s *Store) Drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := s.js.DeleteObjectStore(ctx, ckptBucket(s.run)); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("natsnet: deleting the checkpoints of run %s: %w", s.run, err)
	}
	if err := s.js.DeleteKeyValue(ctx, runBucket(s.run)); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("natsnet: deleting the store of run %s: %w", s.run, err)
	}
	return s.dropInputs(ctx) // inputs.go
}

// DropFiles deletes the files' object store of link, a link of the run
// under a name of its own (made for a recovery); the run's own is kept,
// for its next run to send only what changed.
func (s *Store) DropFiles(link string) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := s.js.DeleteObjectStore(ctx, filesBucket(link)); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("natsnet: deleting the files of link %s: %w", link, err)
	}
	return nil
}

func partName(seq uint64, name string) string { return strconv.FormatUint(seq, 10) + "/" + name }

func (s *Store) PutPart(seq uint64, name string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if _, err := s.obs.PutBytes(ctx, partName(seq, name), data); err != nil {
		return fmt.Errorf("natsnet: storing %s of run %s: %w", partName(seq, name), s.run, err)
	}
	return nil
}

func (s *Store) Part(seq uint64, name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	b, err := s.obs.GetBytes(ctx, partName(seq, name))
	if err != nil {
		return nil, fmt.Errorf("natsnet: reading %s of run %s: %w", partName(seq, name), s.run, err)
	}
	return b, nil
}

func (s *Store) Commit(cp cluster.Checkpoint) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	rec := cp.Append(nil)
	var rev uint64
	var err error
	if s.read == 0 {
		rev, err = s.kv.Create(ctx, checkpointKey, rec)
	} else {
		rev, err = s.kv.Update(ctx, checkpointKey, rec, s.read)
	}
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) || isWrongSequence(err) {
			return fmt.Errorf("%w (run %s): %w", cluster.ErrFenced, s.run, err)
		}
		return fmt.Errorf("natsnet: committing checkpoint %d of run %s: %w", cp.Seq, s.run, err)
	}
	s.read = rev
	return nil
}

// isWrongSequence is JetStream's refusal of an update whose revision is
// not the key's last.
func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

func (s *Store) Latest() (cluster.Checkpoint, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	e, err := s.kv.Get(ctx, checkpointKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		s.read = 0
		if e, err = s.lastDeleted(ctx); err != nil || e == nil {
			return cluster.Checkpoint{}, false, err
		}
		s.read = e.Revision()
		return cluster.Checkpoint{}, false, nil
	}
	if err != nil {
		return cluster.Checkpoint{}, false, fmt.Errorf("natsnet: reading the checkpoint of run %s: %w", s.run, err)
	}
	s.read = e.Revision()
	cp, err := cluster.DecodeCheckpoint(e.Value())
	if err != nil {
		return cp, false, fmt.Errorf("natsnet: the checkpoint of run %s: %w", s.run, err)
	}
	return cp, true, nil
}

// lastDeleted is the record's delete marker, if Forget left one: a
// commit after it updates that revision.
func (s *Store) lastDeleted(ctx context.Context) (jetstream.KeyValueEntry, error) {
	h, err := s.kv.History(ctx, checkpointKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("natsnet: reading the checkpoint of run %s: %w", s.run, err)
	}
	return h[len(h)-1], nil
}

// Forget deletes the run's checkpoint record (a new run of the same name
// starts from its beginning), by compare-and-set as a commit.
func (s *Store) Forget() error {
	if _, ok, err := s.Latest(); err != nil || !ok {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := s.kv.Delete(ctx, checkpointKey, jetstream.LastRevision(s.read)); err != nil {
		return fmt.Errorf("natsnet: forgetting the checkpoint of run %s: %w", s.run, err)
	}
	_, _, err := s.Latest()
	return err
}

func (s *Store) Prune(seq uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	list, err := s.obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("natsnet: listing the checkpoints of run %s: %w", s.run, err)
	}
	for _, o := range list {
		n, _, _ := strings.Cut(o.Name, "/")
		if v, err := strconv.ParseUint(n, 10, 64); err == nil && v != seq {
			if err := s.obs.Delete(ctx, o.Name); err != nil {
				return fmt.Errorf("natsnet: pruning %s of run %s: %w", o.Name, s.run, err)
			}
		}
	}
	return nil
}
