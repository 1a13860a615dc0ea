package cluster_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// Fuzzing the protocol's two ends (cluster.Shard and cluster.Conductor)
// over the model's hosts: sequences of messages made from fuzzed bytes,
// through cluster.Decode, end in an error, never a panic, a hang or
// unbounded memory. The seeds are what a real run on cluster.NewLocal
// carried (modelRun: steps with requests, signals and deliveries, a save
// and its load, a move of agents, the finish); the game's hosts have
// fuzzers of their own (game/cluster_fuzz_test.go).

const fuzzAgents, fuzzShards = 9, 2

// frames cuts b into frames, each a uvarint length and its bytes: at most
// 256 of at most 1 MiB, the rest ignored.
func frames(b []byte) [][]byte {
	var fs [][]byte
	for len(b) > 0 && len(fs) < 256 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > 1<<20 || n > uint64(len(b)-k) {
			break
		}
		fs = append(fs, b[k:k+int(n)])
		b = b[k+int(n):]
	}
	return fs
}

func appendFrame(b, frame []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(frame))), frame...)
}

// feedShard is a shard's end fed by frames (each Recv decodes the next);
// replies are encoded and dropped. The checkpoint store it opens, whatever
// its name, is its own.
type feedShard struct {
	fs    [][]byte
	store cluster.MemStore
}

func (l *feedShard) CheckpointStore(string) (cluster.CheckpointStore, error) { return &l.store, nil }

func (l *feedShard) Recv() (cluster.Message, error) {
	if len(l.fs) == 0 {
		return cluster.Message{}, cluster.ErrClosed
	}
	b := l.fs[0]
	l.fs = l.fs[1:]
	return cluster.Decode(b)
}

func (l *feedShard) Reply(m *cluster.Message) error { m.Append(nil); return nil }
func (l *feedShard) Close() error                   { return nil }

// feedConductor is the conductor's end of shards whose replies are frames,
// given in shard order to the shards sent to; once used up, the shards are
// gone.
type feedConductor struct {
	sent []bool
	fs   [][]byte
}

func (l *feedConductor) Shards() int { return len(l.sent) }

func (l *feedConductor) Send(k int, m *cluster.Message) error {
	if k < 0 || k >= len(l.sent) {
		return errors.New("fuzz: no such shard")
	}
	m.Append(nil)
	l.sent[k] = true
	return nil
}

func (l *feedConductor) Gather(replies []cluster.Message) error {
	var failed cluster.ShardsError
	for k, sent := range l.sent {
		if !sent {
			continue
		}
		l.sent[k] = false
		err := cluster.ErrClosed
		if len(l.fs) > 0 {
			replies[k], err = cluster.Decode(l.fs[0])
			l.fs = l.fs[1:]
			if err == nil && replies[k].Err != "" {
				err = errors.New(replies[k].Err)
			}
		}
		if err != nil {
			failed.Shards, failed.Errs = append(failed.Shards, k), append(failed.Errs, err)
		}
	}
	if len(failed.Shards) > 0 {
		return &failed
	}
	return nil
}

func (l *feedConductor) Close() error { return nil }

// recorder records what a real conductor's end sends shard 0 and every
// reply it gathers, as frames.
type recorder struct {
	cluster.ConductorLink
	sent              []bool
	toShard0, replies []byte
}

func (l *recorder) Send(k int, m *cluster.Message) error {
	err := l.ConductorLink.Send(k, m)
	if err == nil {
		l.sent[k] = true
		if k == 0 {
			l.toShard0 = appendFrame(l.toShard0, m.Append(nil))
		}
	}
	return err
}

func (l *recorder) Gather(replies []cluster.Message) error {
	err := l.ConductorLink.Gather(replies)
	for k, sent := range l.sent {
		if sent {
			l.sent[k] = false
			l.replies = appendFrame(l.replies, replies[k].Append(nil))
		}
	}
	return err
}

// modelRun drives c: steps, a save loaded back, a move of agents between
// the shards, a checkpoint written by parts and restored, more steps, the
// finish and the stop; its first error.
func modelRun(c *cluster.Conductor) error {
	for s := uint64(1); s <= 4; s++ {
		if err := c.Step(s); err != nil {
			return err
		}
	}
	saves, err := c.Save(4)
	if err != nil {
		return err
	}
	if err := c.Load(4, saves); err != nil {
		return err
	}
	if err := c.MoveTo(4, cluster.Layout{Start: []int32{0, 3, fuzzAgents}}); err != nil {
		return err
	}
	parts, err := c.WriteParts(4, 1, "fuzz") // a checkpoint by parts, and its restore
	if err != nil {
		return err
	}
	if err := c.RestoreParts(4, 1, "fuzz", parts, nil); err != nil {
		return err
	}
	for s := uint64(5); s <= 7; s++ {
		if err := c.Step(s); err != nil {
			return err
		}
	}
	if err := c.Finish(7, 1); err != nil {
		return err
	}
	return c.Stop()
}

// modelSeeds runs modelRun on the model over cluster.NewLocal: what shard
// 0 was sent and what the conductor gathered, as frames.
func modelSeeds(tb testing.TB) (toShard0, replies []byte) {
	link, ends := cluster.NewLocal(fuzzShards)
	rec := &recorder{ConductorLink: link, sent: make([]bool, fuzzShards)}
	mc := model.Start(&model.World{N: fuzzAgents}, rec, ends)
	mc.C.Balance = &cluster.Balancer{Every: 2} // moves too, as the shards' costs say
	if err := modelRun(mc.C); err != nil {
		tb.Fatal(err)
	}
	mc.C = nil // stopped
	return rec.toShard0, rec.replies
}

// fuzzModelShard serves b's frames on a fresh model shard 0: Run's error.
func fuzzModelShard(b []byte) error {
	lo, hi := cluster.Cut(fuzzAgents, fuzzShards).Range(0)
	sh := &model.Shard{N: fuzzAgents, Agents: model.NewAgents(lo, hi), Lo: lo}
	return (&cluster.Shard{Host: sh, Link: &feedShard{fs: frames(b)}}).Run()
}

// fuzzModelConductor runs modelRun on a conductor of the model whose
// shards' replies are b's frames: its error.
func fuzzModelConductor(b []byte) error {
	c := &cluster.Conductor{Host: &model.World{N: fuzzAgents}, Link: &feedConductor{sent: make([]bool, fuzzShards), fs: frames(b)},
		Layout: cluster.Cut(fuzzAgents, fuzzShards), Balance: &cluster.Balancer{Every: 2}}
	return modelRun(c)
}

func FuzzShard(f *testing.F) {
	toShard0, _ := modelSeeds(f)
	f.Add(toShard0)
	fs := frames(toShard0)
	f.Add(appendFrame(appendFrame(nil, fs[0]), fs[0])) // a message twice
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = fuzzModelShard(b) // an error or not: no panic, no hang
	})
}

func FuzzConductor(f *testing.F) {
	_, replies := modelSeeds(f)
	f.Add(replies)
	fs := frames(replies)
	var swapped []byte // each pair of replies the other way round: another shard's
	for i := 0; i+1 < len(fs); i += 2 {
		swapped = appendFrame(appendFrame(swapped, fs[i+1]), fs[i])
	}
	f.Add(swapped)
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = fuzzModelConductor(b) // an error or not: no panic, no hang
	})
}

// TestFuzz_seedsGoAllTheWay: the fuzzers' seeds are a whole run: the
// model's shard 0 fed what it was sent serves every message, and a
// conductor fed what the shards replied runs modelRun to its end.
func TestFuzz_seedsGoAllTheWay(t *testing.T) {
	toShard0, replies := modelSeeds(t)
	if n := len(frames(toShard0)); n < 20 {
		t.Fatalf("shard 0 was sent %d messages", n)
	}
	if err := fuzzModelShard(toShard0); err != nil {
		t.Errorf("shard 0 fed what it was sent: %v", err)
	}
	if err := fuzzModelConductor(replies); err != nil {
		t.Errorf("the conductor fed what it gathered: %v", err)
	}
}
