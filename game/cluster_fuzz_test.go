package game

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
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
	store  cluster.MemStore // the checkpoint store it opens, whatever its name: this run's own
}

// CheckpointStore is the run's own store (a cluster.StoreLink): a fuzzed
// run writes nothing another sees.
func (l *fuzzShardEnd) CheckpointStore(string) (cluster.CheckpointStore, error) { return &l.store, nil }

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

// fuzzEvery is how often the fuzzed runs' balancer decides (in steps):
// the seed run's shards report swingCost's costs, so agents move.
const fuzzEvery = 2

// fuzzRun is the run the fuzzers' seeds record, driven through c, so
// that every kind of message and item crosses: steps with gates (requests
// and answers), signals from Go whose handlers send signals, the live
// view's signal, jump and variable edit (replayed, as a resumed run
// replays them: they need no page), agents added and removed (a removal
// with gates takes an agent's close first), a checkpoint written by parts
// and restored, a save and the load of an older one (another list of
// agents; the restores' cancel hooks send signals the load carries into
// the next step), a reload, moves between the shards, the finish. It
// stops at the first error, which it returns.
func fuzzRun(c *Conductor, store cluster.CheckpointStore, run string, save func() ([]byte, error), load func([]byte) error) error {
	g := c.g
	value := func(v runtime.Value) []byte {
		b, err := g.cl.encodeValue(v)
		if err != nil {
			panic(err) // a constant's encoding
		}
		return b
	}
	flag := savecodec.NewEncoder()
	writeVarValue(flag, runtime.VarValue{Type: runtime.VarBoolean, Bool: true})
	if err := c.Replay([]cluster.Input{
		{Seq: 1, Step: 1, Kind: cluster.InputDebugSignal, To: "grunt-3", Name: "Poke", Data: value(runtime.String("the page"))},
		{Seq: 2, Step: 1, Kind: cluster.InputDebugJump, To: "grunt-4", Name: "hold"},
		{Seq: 3, Step: 2, Kind: cluster.InputDebugSetVar, To: "pair-3", Name: "Alarm", Data: flag.Bytes()},
	}); err != nil {
		return err
	}
	var early []byte // the save of step 2, before an agent is added and two removed
	inputs := map[uint64]func() error{
		2: func() error {
			var err error
			if early, err = save(); err != nil {
				return err
			}
			if err := c.Signal("pair-1", "Alarm", runtime.Table("by", "fuzz", "at", 2)); err != nil {
				return err
			}
			return c.Signal("all", "Poke", runtime.Number(2))
		},
		3: func() error {
			if err := c.AddAgent("late-1", "grunt", nil); err != nil {
				return err
			}
			cp := cluster.Checkpoint{Seq: 1, Until: 99}
			if _, err := c.WriteCheckpoint(store, run, cp); err != nil {
				return err
			}
			cp, _, err := store.Latest()
			if err != nil {
				return err
			}
			return c.RestoreCheckpoint(store, run, cp)
		},
		4: func() error { return c.RemoveAgent("grunt-2") },
		5: func() error {
			if err := c.Signal("all", "AllClear", runtime.List(1, "two")); err != nil {
				return err
			}
			if _, err := c.Reload(ReloadOptions{}); err != nil {
				return err
			}
			return c.RemoveAgent("pair-2")
		},
		7: func() error { return load(early) },
	}
	for c.Step() < 12 {
		if in := inputs[c.Step()]; in != nil {
			delete(inputs, c.Step()) // once: the load goes back to step 2
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
	}
	return c.Finish()
}

// fuzzSeed is what a recorded run of fuzzRun carried, and the game it ran.
type fuzzSeed struct {
	config            string // fuzzGameFiles, written for the test
	toShard0, replies []byte // what shard 0 was sent, what the conductor gathered: frames
}

var fuzzRuns atomic.Int64 // numbers the seed runs' checkpoint stores

// fuzzSeeds runs fuzzRun on a real cluster of fuzzGameFiles on fuzzShards
// shards, and returns what shard 0 was sent and what the conductor
// gathered, from the start to the stop.
func fuzzSeeds(tb testing.TB) fuzzSeed {
	config := writeFuzzGame(tb)
	var rec *recordingEnd
	tc := openCluster(tb, clusterSetup{name: config, shards: fuzzShards, fromSaves: true, every: fuzzEvery,
		link: func(l cluster.ConductorLink) cluster.ConductorLink {
			rec = &recordingEnd{ConductorLink: l, sent: make([]bool, fuzzShards)}
			return rec
		}})
	c := tc.conductor()
	c.SetJournal(&cluster.MemJournal{})
	run := fmt.Sprintf("fuzz-%d", fuzzRuns.Add(1))
	save := func() ([]byte, error) { return tc.ch.save(tc.c) }
	load := func(b []byte) error { return tc.ch.load(tc.c, b) }
	if err := fuzzRun(c, cluster.SharedMemStore(run), run, save, load); err != nil {
		tb.Fatal(err)
	}
	tc.stop()
	return fuzzSeed{config: config, toShard0: rec.toShard0, replies: rec.replies}
}

// fuzzGame opens the fuzzers' game for a fuzzed run: the conductor's
// (shard nil) or shard k's.
func fuzzGame(tb testing.TB, config string, shard *ShardOf) *Game {
	tb.Helper()
	cfg, err := LoadConfig(config)
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

// FuzzClusterShardHost feeds shard 0 of fuzzShards of the fuzzers' game
// the messages of fuzzed frames: an error, never a panic or a hang.
func FuzzClusterShardHost(f *testing.F) {
	seed := fuzzSeeds(f)
	f.Add(seed.toShard0)
	frames := fuzzFrames(seed.toShard0)
	for _, cut := range []int{3, len(frames) / 2} { // a run cut short, then a message twice
		var b []byte
		for _, fr := range frames[:cut] {
			b = appendFrame(b, fr)
		}
		f.Add(appendFrame(b, frames[cut-1]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = fuzzShard(t, seed.config, b) // an error or not: no panic, no hang
	})
}

// fuzzShard serves the messages of b's frames on a fresh shard 0 of the
// game of config: Shard.Run's error.
func fuzzShard(t testing.TB, config string, b []byte) error {
	g := fuzzGame(t, config, &ShardOf{K: 0, N: fuzzShards})
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

// FuzzClusterConductorHost runs fuzzRun on a conductor of the fuzzers'
// game with fuzzShards shards whose replies are fuzzed frames: an error,
// never a panic or a hang.
func FuzzClusterConductorHost(f *testing.F) {
	seed := fuzzSeeds(f)
	f.Add(seed.replies)
	frames := fuzzFrames(seed.replies)
	var swapped []byte // every pair of replies the other way round: another shard's reply
	for i := 0; i+1 < len(frames); i += 2 {
		swapped = appendFrame(appendFrame(swapped, frames[i+1]), frames[i])
	}
	f.Add(swapped)
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = fuzzConductor(t, seed.config, b) // an error or not: no panic, no hang
	})
}

// fuzzConductor runs fuzzRun on a fresh conductor of the game of config
// whose shards' replies are b's frames: its error.
func fuzzConductor(t testing.TB, config string, b []byte) error {
	g := fuzzGame(t, config, nil)
	defer g.Close()
	var trace, out bytes.Buffer
	ch, err := newConductor(g, &trace, &out)
	if err != nil {
		t.Fatal(err)
	}
	link := &fuzzConductorEnd{n: fuzzShards, sent: make([]bool, fuzzShards), frames: fuzzFrames(b)}
	cc := &cluster.Conductor{Host: ch, Link: link, Layout: cluster.Cut(len(g.agents), fuzzShards), Balance: &cluster.Balancer{Every: fuzzEvery}}
	c := &Conductor{g: g, h: ch, c: cc}
	if err := ch.start(cc); err != nil { // its start asks the shards for their start lines
		return err
	}
	c.SetJournal(&cluster.MemJournal{})
	save := func() ([]byte, error) { return ch.save(cc) }
	load := func(b []byte) error { return ch.load(cc, b) }
	return fuzzRun(c, &cluster.MemStore{}, "fuzz", save, load)
}

// TestClusterFuzz_seedsGoAllTheWay: the fuzzers' seeds are a whole run:
// shard 0 fed what it was sent serves every message without an error, and
// the conductor fed what it gathered runs fuzzRun to its end.
func TestClusterFuzz_seedsGoAllTheWay(t *testing.T) {
	seed := fuzzSeeds(t)
	if n := len(fuzzFrames(seed.toShard0)); n < 20 || n >= 256 {
		t.Fatalf("shard 0 was sent %d messages: want 20 to 255 (fuzzFrames reads 256)", n)
	}
	if err := fuzzShard(t, seed.config, seed.toShard0); err != nil {
		t.Errorf("shard 0 fed what it was sent: %v", err)
	}
	if err := fuzzConductor(t, seed.config, seed.replies); err != nil {
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
	seed := fuzzSeeds(f)
	addItemSeeds(f, seed.toShard0)
	f.Fuzz(func(t *testing.T, m, i uint16, data []byte) {
		_ = fuzzShard(t, seed.config, withItemData(seed.toShard0, m, i, data)) // an error or not: no panic, no hang
	})
}

// addItemSeeds adds to f, for every item with data of every message of the
// recorded frames b, the message's and the item's places and the data.
func addItemSeeds(f *testing.F, b []byte) {
	for m, fr := range fuzzFrames(b) {
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
}

// FuzzClusterConductorItems is FuzzClusterConductorHost with the fuzzed
// bytes as the data of one item of one reply of the recorded run.
func FuzzClusterConductorItems(f *testing.F) {
	seed := fuzzSeeds(f)
	addItemSeeds(f, seed.replies)
	f.Fuzz(func(t *testing.T, m, i uint16, data []byte) {
		_ = fuzzConductor(t, seed.config, withItemData(seed.replies, m, i, data)) // an error or not: no panic, no hang
	})
}

// TestClusterFuzz_seedsCarryEveryKind: the seeds carry every kind of
// message (and every round of those whose rounds differ) to shard 0 and
// back, and every kind of item one way or the other; a kind added to the
// protocol fails this test until fuzzRun makes it cross.
func TestClusterFuzz_seedsCarryEveryKind(t *testing.T) {
	seed := fuzzSeeds(t)
	type asked struct {
		kind  cluster.Kind
		round uint32
	}
	sent, replied := map[asked]bool{}, map[asked]bool{}
	items := map[cluster.ItemKind]bool{}
	tally := func(frames []byte, seen map[asked]bool) {
		for i, fr := range fuzzFrames(frames) {
			m, err := cluster.Decode(fr)
			if err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
			seen[asked{m.Kind, 0}] = true
			seen[asked{m.Kind, m.Round}] = true
			for _, it := range m.Items {
				items[it.Kind] = true
			}
		}
	}
	tally(seed.toShard0, sent)
	tally(seed.replies, replied)
	want := []asked{{cluster.Save, cluster.SavePart}, {cluster.CheckpointParts, cluster.CheckpointWrite},
		{cluster.CheckpointParts, cluster.CheckpointRestore}, {cluster.Move, 1}, {cluster.Move, 2}, {cluster.Finish, 1}, {cluster.Finish, 2}}
	for k := cluster.Kind(1); !strings.HasPrefix(k.String(), "kind "); k++ {
		want = append(want, asked{k, 0})
	}
	for _, w := range want {
		if !sent[w] {
			t.Errorf("shard 0 was sent no %s message of round %d", w.kind, w.round)
		}
		if !replied[w] {
			t.Errorf("the conductor gathered no %s reply of round %d", w.kind, w.round)
		}
	}
	for k := cluster.ItemKind(1); !strings.HasPrefix(k.String(), "item kind "); k++ {
		if !items[k] {
			t.Errorf("no %s item crossed", k)
		}
	}
}

// withItemFields is the frames of b with item i of message m (both taken
// modulo their counts) placed at agent and peer, and the message of round
// round, re-encoded: fuzzed places and ranges (a move's, a delivery's
// receiver, a save's agent) behind items whose bytes are right.
func withItemFields(b []byte, m, i uint16, agent, peer int32, round uint32) []byte {
	frames := fuzzFrames(b)
	var out []byte
	for k, fr := range frames {
		if k == int(m)%len(frames) {
			if msg, err := cluster.Decode(fr); err == nil && len(msg.Items) > 0 {
				it := &msg.Items[int(i)%len(msg.Items)]
				it.Agent, it.Peer = agent, peer
				msg.Round = round
				fr = msg.Append(nil)
			}
		}
		out = appendFrame(out, fr)
	}
	return out
}

// fieldSeeds adds, for every item of every message of frames, its own
// places and round (the recorded run), and the places next to them.
func fieldSeeds(f *testing.F, frames []byte) {
	for m, fr := range fuzzFrames(frames) {
		msg, err := cluster.Decode(fr)
		if err != nil {
			f.Fatal(err)
		}
		for i, it := range msg.Items {
			f.Add(uint16(m), uint16(i), it.Agent, it.Peer, msg.Round)
			f.Add(uint16(m), uint16(i), it.Agent+1, it.Peer+1, msg.Round)
		}
	}
}

// FuzzClusterShardFields is FuzzClusterShardHost with the fuzzed places
// and round of one item of one message of the recorded run.
func FuzzClusterShardFields(f *testing.F) {
	seed := fuzzSeeds(f)
	fieldSeeds(f, seed.toShard0)
	f.Fuzz(func(t *testing.T, m, i uint16, agent, peer int32, round uint32) {
		_ = fuzzShard(t, seed.config, withItemFields(seed.toShard0, m, i, agent, peer, round)) // an error or not: no panic, no hang
	})
}

// FuzzClusterConductorFields is FuzzClusterConductorHost with the fuzzed
// places and round of one item of one reply of the recorded run.
func FuzzClusterConductorFields(f *testing.F) {
	seed := fuzzSeeds(f)
	fieldSeeds(f, seed.replies)
	f.Fuzz(func(t *testing.T, m, i uint16, agent, peer int32, round uint32) {
		_ = fuzzConductor(t, seed.config, withItemFields(seed.replies, m, i, agent, peer, round)) // an error or not: no panic, no hang
	})
}
