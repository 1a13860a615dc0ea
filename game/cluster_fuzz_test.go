package game

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
)

// Fuzzing the cluster's hosts: a shard host fed, and a conductor fed,
// sequences of messages made from fuzzed bytes, through the real decoders
// (cluster.Decode, then the game's: gate parts, agents' saves and lists,
// inputs, deliveries, the gates' state of a load). Whatever the bytes, the
// host ends with an error or goes on: never a panic, a hang or unbounded
// memory. The seeds are what a real run of the gates fixture carries
// (fuzzRun: gates taken and released, signals with data from outside,
// agents added and removed, a save and its load), recorded on the
// conductor's end; the inputs the fuzzer found worth keeping are in
// testdata/fuzz.

// fuzzFrames cuts b into frames, each a uvarint length and its bytes: at
// most 256 frames of at most 1 MiB, the rest ignored.
func fuzzFrames(b []byte) [][]byte {
	var frames [][]byte
	for len(b) > 0 && len(frames) < 256 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > 1<<20 || n > uint64(len(b)-k) {
			break
		}
		frames = append(frames, b[k:k+int(n)])
		b = b[k+int(n):]
	}
	return frames
}

// appendFrame appends one frame (fuzzFrames).
func appendFrame(b, frame []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(frame))), frame...)
}

// fuzzShardEnd is a shard's end of a link fed by frames: each Recv decodes
// the next (a frame that does not decode ends the shard with its error);
// replies are encoded and dropped.
type fuzzShardEnd struct {
	frames [][]byte
}

func (l *fuzzShardEnd) Recv() (cluster.Message, error) {
	if len(l.frames) == 0 {
		return cluster.Message{}, cluster.ErrClosed
	}
	b := l.frames[0]
	l.frames = l.frames[1:]
	return cluster.Decode(b)
}

func (l *fuzzShardEnd) Reply(m *cluster.Message) error {
	m.Append(nil)
	return nil
}

func (l *fuzzShardEnd) Close() error { return nil }

// fuzzConductorEnd is the conductor's end of a link to shards whose
// replies are frames: Gather gives each shard sent to the next frame, in
// shard order (a frame that does not decode is that shard's error), and
// once they are used up, every shard is gone.
type fuzzConductorEnd struct {
	n      int
	sent   []bool
	frames [][]byte
}

func (l *fuzzConductorEnd) Shards() int { return l.n }

func (l *fuzzConductorEnd) Send(k int, m *cluster.Message) error {
	if k < 0 || k >= l.n {
		return errors.New("fuzz: no such shard")
	}
	m.Append(nil)
	l.sent[k] = true
	return nil
}

func (l *fuzzConductorEnd) Gather(replies []cluster.Message) error {
	var failed cluster.ShardsError
	for k, sent := range l.sent {
		if !sent {
			continue
		}
		l.sent[k] = false
		if len(l.frames) == 0 {
			failed.Shards, failed.Errs = append(failed.Shards, k), append(failed.Errs, cluster.ErrClosed)
			continue
		}
		r, err := cluster.Decode(l.frames[0])
		l.frames = l.frames[1:]
		if err == nil && r.Err != "" {
			err = errors.New(r.Err)
		}
		if err != nil {
			failed.Shards, failed.Errs = append(failed.Shards, k), append(failed.Errs, err)
			continue
		}
		replies[k] = r
	}
	if len(failed.Shards) > 0 {
		return &failed
	}
	return nil
}

func (l *fuzzConductorEnd) Close() error { return nil }

// recordingEnd is the conductor's end of a real link that records, as
// frames, the messages it sends to shard 0 and the replies it gathers.
type recordingEnd struct {
	cluster.ConductorLink
	toShard0, replies []byte
	sent              []bool
}

func (l *recordingEnd) Send(k int, m *cluster.Message) error {
	err := l.ConductorLink.Send(k, m)
	if err == nil {
		l.sent[k] = true
		if k == 0 {
			l.toShard0 = appendFrame(l.toShard0, m.Append(nil))
		}
	}
	return err
}

func (l *recordingEnd) Gather(replies []cluster.Message) error {
	err := l.ConductorLink.Gather(replies)
	for k, sent := range l.sent {
		if sent {
			l.sent[k] = false
			l.replies = appendFrame(l.replies, replies[k].Append(nil))
		}
	}
	return err
}

// fuzzShards is the number of shards of the fuzzed runs.
const fuzzShards = 2

// fuzzRun is the run the fuzzers' seeds record, driven through c: steps
// with gates, a signal with data, an agent added and one removed (holding
// a gate or not), a save loaded back. It stops at the first error, which
// it returns.
func fuzzRun(c *Conductor, save func() ([]byte, error), load func([]byte) error) error {
	inputs := map[uint64]func() error{
		2: func() error { return c.Signal("pair-1", "Alarm", runtime.Table("by", "fuzz", "at", 2)) },
		3: func() error { return c.AddAgent("late-1", "grunt", nil) },
		4: func() error { return c.RemoveAgent("grunt-2") },
		5: func() error { return c.Signal("all", "AllClear", runtime.List(1, "two")) },
		6: func() error { return c.RemoveAgent("pair-2") },
	}
	for c.Step() < 8 {
		if in := inputs[c.Step()]; in != nil {
			if err := in(); err != nil {
				var refused *InputError
				if !errors.As(err, &refused) {
					return err
				}
			}
		}
		if err := c.Run(1); err != nil {
			return err
		}
		if c.Step() == 5 {
			b, err := save()
			if err != nil {
				return err
			}
			if err := load(b); err != nil {
				return err
			}
		}
	}
	return c.Finish()
}

// fuzzSeeds runs fuzzRun on a real cluster of the gates fixture, on
// fuzzShards shards, and returns what shard 0 was sent and what the
// conductor gathered, as frames.
func fuzzSeeds(f testing.TB) (toShard0, replies []byte) {
	tc := openCluster(f, clusterSetup{name: "gates", shards: fuzzShards, fromSaves: true})
	rec := &recordingEnd{ConductorLink: tc.c.Link, sent: make([]bool, fuzzShards)}
	tc.c.Link = rec
	c := tc.conductor()
	c.SetJournal(&cluster.MemJournal{})
	save := func() ([]byte, error) { return tc.ch.save(tc.c) }
	load := func(b []byte) error { return tc.ch.load(tc.c, b) }
	if err := fuzzRun(c, save, load); err != nil {
		f.Fatal(err)
	}
	tc.stop()
	return rec.toShard0, rec.replies
}

// fuzzGame opens the gates fixture for the fuzzers: the conductor's game
// (shard nil) or shard k's.
func fuzzGame(tb testing.TB, shard *ShardOf) *Game {
	tb.Helper()
	cfg, err := LoadConfig(clusterConfig("gates"))
	if err != nil {
		tb.Fatal(err)
	}
	workers := 1
	g, err := Open(cfg, Options{Stdout: io.Discard, Stderr: io.Discard, Workers: &workers, Shard: shard, Conductor: shard == nil, AgentsFromSave: true})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// FuzzClusterShardHost feeds a gates fixture's shard 0 of fuzzShards the
// messages of fuzzed frames: an error, never a panic or a hang.
func FuzzClusterShardHost(f *testing.F) {
	toShard0, _ := fuzzSeeds(f)
	f.Add(toShard0)
	frames := fuzzFrames(toShard0)
	for _, cut := range []int{3, len(frames) / 2} { // a run cut short, then a message twice
		var b []byte
		for _, fr := range frames[:cut] {
			b = appendFrame(b, fr)
		}
		f.Add(appendFrame(b, frames[cut-1]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = fuzzShard(t, b) // an error or not: no panic, no hang
	})
}

// fuzzShard serves the messages of b's frames on a fresh shard 0 of the
// gates fixture: Shard.Run's error.
func fuzzShard(t testing.TB, b []byte) error {
	g := fuzzGame(t, &ShardOf{K: 0, N: fuzzShards})
	defer g.Close()
	lo, hi := cluster.Cut(len(g.agents), fuzzShards).Range(0)
	sh, err := newShard(g, lo, hi, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.start(); err != nil {
		t.Fatal(err)
	}
	s := &cluster.Shard{Host: sh, Link: &fuzzShardEnd{frames: fuzzFrames(b)}}
	return s.Run()
}

// FuzzClusterConductorHost runs fuzzRun on a gates fixture's conductor of
// fuzzShards shards whose replies are fuzzed frames: an error, never a
// panic or a hang.
func FuzzClusterConductorHost(f *testing.F) {
	_, replies := fuzzSeeds(f)
	f.Add(replies)
	frames := fuzzFrames(replies)
	var swapped []byte // every pair of replies the other way round: another shard's reply
	for i := 0; i+1 < len(frames); i += 2 {
		swapped = appendFrame(appendFrame(swapped, frames[i+1]), frames[i])
	}
	f.Add(swapped)
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = fuzzConductor(t, b) // an error or not: no panic, no hang
	})
}

// fuzzConductor runs fuzzRun on a fresh conductor of the gates fixture
// whose shards' replies are b's frames: its error.
func fuzzConductor(t testing.TB, b []byte) error {
	g := fuzzGame(t, nil)
	defer g.Close()
	var trace, out bytes.Buffer
	ch, err := newConductor(g, &trace, &out)
	if err != nil {
		t.Fatal(err)
	}
	link := &fuzzConductorEnd{n: fuzzShards, sent: make([]bool, fuzzShards), frames: fuzzFrames(b)}
	cc := &cluster.Conductor{Host: ch, Link: link, Layout: cluster.Cut(len(g.agents), fuzzShards)}
	if err := ch.start(cc); err != nil { // its start asks the shards for their start lines
		t.Fatal(err)
	}
	c := &Conductor{g: g, h: ch, c: cc}
	c.SetJournal(&cluster.MemJournal{})
	save := func() ([]byte, error) { return ch.save(cc) }
	load := func(b []byte) error { return ch.load(cc, b) }
	return fuzzRun(c, save, load)
}

// TestClusterFuzz_seedsGoAllTheWay: the fuzzers' seeds are a whole run:
// shard 0 fed what it was sent serves every message without an error, and
// the conductor fed what it gathered runs fuzzRun to its end.
func TestClusterFuzz_seedsGoAllTheWay(t *testing.T) {
	toShard0, replies := fuzzSeeds(t)
	if n := len(fuzzFrames(toShard0)); n < 20 {
		t.Fatalf("shard 0 was sent %d messages", n)
	}
	if err := fuzzShard(t, toShard0); err != nil {
		t.Errorf("shard 0 fed what it was sent: %v", err)
	}
	if err := fuzzConductor(t, replies); err != nil {
		t.Errorf("the conductor fed what it gathered: %v", err)
	}
}

// withItemData is the frames of b with the data of item i of message m
// (both taken modulo their counts) replaced by data, re-encoded: fuzzed
// bytes that reach the game's decoders of items (gate parts, agents'
// saves and lists, signals' data) behind a message that decodes.
func withItemData(b []byte, m, i uint16, data []byte) []byte {
	frames := fuzzFrames(b)
	var out []byte
	for k, fr := range frames {
		if k == int(m)%len(frames) {
			if msg, err := cluster.Decode(fr); err == nil && len(msg.Items) > 0 {
				msg.Items[int(i)%len(msg.Items)].Data = data
				fr = msg.Append(nil)
			}
		}
		out = appendFrame(out, fr)
	}
	return out
}

// FuzzClusterShardItems is FuzzClusterShardHost with the fuzzed bytes as
// the data of one item of one message of the recorded run.
func FuzzClusterShardItems(f *testing.F) {
	toShard0, _ := fuzzSeeds(f)
	for m, fr := range fuzzFrames(toShard0) {
		msg, err := cluster.Decode(fr)
		if err != nil {
			f.Fatal(err)
		}
		for i, it := range msg.Items {
			if len(it.Data) > 0 {
				f.Add(uint16(m), uint16(i), it.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, m, i uint16, data []byte) {
		_ = fuzzShard(t, withItemData(toShard0, m, i, data)) // an error or not: no panic, no hang
	})
}

// FuzzClusterConductorItems is FuzzClusterConductorHost with the fuzzed
// bytes as the data of one item of one reply of the recorded run.
func FuzzClusterConductorItems(f *testing.F) {
	_, replies := fuzzSeeds(f)
	for m, fr := range fuzzFrames(replies) {
		msg, err := cluster.Decode(fr)
		if err != nil {
			f.Fatal(err)
		}
		for i, it := range msg.Items {
			if len(it.Data) > 0 {
				f.Add(uint16(m), uint16(i), it.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, m, i uint16, data []byte) {
		_ = fuzzConductor(t, withItemData(replies, m, i, data)) // an error or not: no panic, no hang
	})
}
