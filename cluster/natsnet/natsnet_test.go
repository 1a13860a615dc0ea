package natsnet

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
	"github.com/nats-io/nats.go"
)

func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := StartServer(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// joinAll starts the conductor and shards joining run on s.
func joinAll(t *testing.T, o Options, shards int) (*ConductorLink, []cluster.ShardLink) {
	t.Helper()
	links := make([]*ShardLink, shards)
	errs := make([]error, shards)
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			so := o
			so.Name = "shard-test-" + string(rune('a'+i))
			links[i], errs[i] = Join(so)
		}()
	}
	c, err := Conduct(o, shards)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	// Shards are numbered as they joined: put each at its number.
	ends := make([]cluster.ShardLink, shards)
	for i, l := range links {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		ends[l.K()] = l
	}
	return c, ends
}

// The model game over NATS, on 1, 2 and 3 shards, is its single run.
func TestNATS_sameAsSingleRun(t *testing.T) {
	s := startServer(t)
	const agents = 23
	want, states, err := model.Run(agents, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, shards := range []int{1, 2, 3} {
		o := Options{URL: s.URL(), Run: "test-" + string(rune('0'+shards)), Version: "v1"}
		c, ends := joinAll(t, o, shards)
		w := &model.World{N: agents}
		mc := model.Start(w, c, ends)
		if err := mc.Steps(1, 40); err != nil {
			t.Fatal(err)
		}
		tr := c.Traffic()
		if err := mc.Stop(); err != nil {
			t.Fatal(err)
		}
		if got := w.Lines.String(); got != want {
			t.Errorf("%d shards: lines differ:\n%s", shards, model.FirstDiff(got, want))
		}
		if got := mc.States(); got != states {
			t.Errorf("%d shards: states differ", shards)
		}
		if tr.Sent == 0 || tr.Sent != tr.Received {
			t.Errorf("%d shards: traffic %+v", shards, tr)
		}
	}
}

// A message beyond the server's payload limit crosses in parts.
func TestNATS_largeMessageCrossesInParts(t *testing.T) {
	s := startServer(t)
	o := Options{URL: s.URL(), Run: "large", Version: "v1"}
	c, ends := joinAll(t, o, 1)
	defer c.Close()
	big := make([]byte, 3*int(c.nc.MaxPayload())+17)
	for i := range big {
		big[i] = byte(i * 7)
	}
	m := cluster.Message{Kind: cluster.Load, Step: 1, Items: []cluster.Item{{Order: 1, Kind: cluster.AgentSave, Data: big}}}
	if err := c.Send(0, &m); err != nil {
		t.Fatal(err)
	}
	got, err := ends[0].Recv()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || string(got.Items[0].Data) != string(big) {
		t.Fatalf("the message did not cross whole")
	}
	got.Items = nil
	if err := ends[0].Reply(&got); err != nil {
		t.Fatal(err)
	}
	if err := c.Gather(make([]cluster.Message, 1)); err != nil {
		t.Fatal(err)
	}
}

// A shard of another version is refused, naming both versions; the
// conductor waiting for it names what is missing.
func TestNATS_otherVersionIsRefused(t *testing.T) {
	s := startServer(t)
	o := Options{URL: s.URL(), Run: "versions", Version: "v1.2.0", JoinTimeout: 2 * time.Second}
	done := make(chan error, 1)
	go func() {
		so := o
		so.Version, so.Name = "v1.1.9", "old-shard"
		_, err := Join(so)
		done <- err
	}()
	_, err := Conduct(o, 1)
	if !errors.Is(err, ErrMissing) || !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "0 of 1 shards joined") {
		t.Errorf("conductor: %v", err)
	}
	serr := <-done
	if !errors.Is(serr, ErrVersion) || !strings.Contains(serr.Error(), "v1.2.0") || !strings.Contains(serr.Error(), "v1.1.9") || !strings.Contains(serr.Error(), "old-shard") {
		t.Errorf("shard: %v", serr)
	}
}

// Shards that do not join are named by count, those that did by name.
func TestNATS_missingShardIsNamed(t *testing.T) {
	s := startServer(t)
	o := Options{URL: s.URL(), Run: "missing", Version: "v1", JoinTimeout: time.Second}
	done := make(chan *ShardLink, 1)
	go func() {
		so := o
		so.Name = "only-one"
		l, _ := Join(so)
		done <- l
	}()
	_, err := Conduct(o, 2)
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "1 of 2 shards joined") || !strings.Contains(err.Error(), "only-one") {
		t.Errorf("got %v", err)
	}
	if l := <-done; l != nil {
		l.Close()
	}
}

// A shard that stops replying is named as missing once ReplyTimeout passes.
func TestNATS_silentShardIsNamed(t *testing.T) {
	s := startServer(t)
	o := Options{URL: s.URL(), Run: "silent", Version: "v1", ReplyTimeout: 500 * time.Millisecond}
	c, ends := joinAll(t, o, 2)
	defer c.Close()
	for k := range 2 {
		if err := c.Send(k, &cluster.Message{Kind: cluster.Report, Step: 1}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ends[0].Recv()
	if err != nil {
		t.Fatal(err)
	}
	if err := ends[0].Reply(&cluster.Message{Kind: m.Kind, Step: 1}); err != nil {
		t.Fatal(err)
	}
	err = c.Gather(make([]cluster.Message, 2))
	var se *cluster.ShardsError
	if !errors.As(err, &se) || len(se.Shards) != 1 || se.Shards[0] != 1 || !errors.Is(err, ErrMissing) {
		t.Errorf("got %v", err)
	}
}

func TestNATS_unreachable(t *testing.T) {
	_, err := Conduct(Options{URL: "nats://127.0.0.1:1", Run: "x", Version: "v1"}, 1)
	if err == nil || !strings.Contains(err.Error(), "cannot reach NATS at nats://127.0.0.1:1") {
		t.Errorf("got %v", err)
	}
}

func TestNATS_badRunName(t *testing.T) {
	for _, name := range []string{"", "a.b", "a*", "a b", "a>"} {
		if _, err := Conduct(Options{URL: "nats://127.0.0.1:1", Run: name}, 1); !errors.Is(err, ErrRunName) {
			t.Errorf("%q: %v", name, err)
		}
	}
}

// The game's files reach every shard through the object store, whole.
func TestNATS_filesReachTheShards(t *testing.T) {
	s := startServer(t)
	files := []File{{Path: "config.toml", Data: []byte("[run]\nsteps = 600\n")}, {Path: "scripts/ai/grunt.lua", Data: []byte("return {}\n")},
		{Path: "scripts/ai/empty.lua"}, {Path: "scripts/ai/same.lua", Data: []byte("return {}\n")}}
	o := Options{URL: s.URL(), Run: "files", Version: "v1", Files: files}
	c, ends := joinAll(t, o, 2)
	defer c.Close()
	for k, e := range ends {
		got := e.(*ShardLink).Files()
		if len(got) != len(files) {
			t.Fatalf("shard %d: %d files", k, len(got))
		}
		byPath := map[string]string{}
		for _, f := range got {
			byPath[f.Path] = string(f.Data)
		}
		for _, f := range files {
			if byPath[f.Path] != string(f.Data) {
				t.Errorf("shard %d: %s: %q", k, f.Path, byPath[f.Path])
			}
		}
	}
}

// A store too small for the game's files is an error naming the file.
func TestNATS_fullStoreIsAnError(t *testing.T) {
	s, err := StartServer(t.TempDir(), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := Options{URL: s.URL(), Run: "full", Version: "v1", Files: []File{{Path: "scripts/big.lua", Data: make([]byte, 1<<20)}}}
	_, err = Conduct(o, 1)
	if !errors.Is(err, ErrFiles) || !strings.Contains(err.Error(), "scripts/big.lua") {
		t.Errorf("got %v", err)
	}
}

// A shard hears that the run ended when the conductor closes its link,
// rather than waiting for a message that will not come.
func TestNATS_shardHearsTheEnd(t *testing.T) {
	s := startServer(t)
	o := Options{URL: s.URL(), Run: "end", Version: "v1"}
	c, ends := joinAll(t, o, 1)
	got := make(chan error, 1)
	go func() {
		_, err := ends[0].Recv()
		got <- err
	}()
	c.Close()
	if err := <-got; !errors.Is(err, cluster.ErrClosed) {
		t.Errorf("got %v", err)
	}
	ends[0].Close()
}

// Parts out of order, a part count that lies, or a whole message amid
// parts are refused.
func TestParts_badPartsAreRefused(t *testing.T) {
	msg := func(h string, data string) *nats.Msg {
		m := nats.NewMsg("x")
		if h != "" {
			m.Header.Set(hdrPart, h)
		}
		m.Data = []byte(data)
		return m
	}
	for _, seq := range [][]*nats.Msg{
		{msg("2/2", "b")},
		{msg("1/2", "a"), msg("1/2", "a")},
		{msg("1/1", "a")},
		{msg("1/2", "a"), msg("", "whole")},
		{msg("1/x", "a")},
		{msg("3/2", "a")},
	} {
		var p parts
		var err error
		for _, m := range seq {
			if _, _, err = p.add(m); err != nil {
				break
			}
		}
		if !errors.Is(err, cluster.ErrMessage) {
			t.Errorf("%v: got %v", seq[len(seq)-1].Header, err)
		}
	}
	var p parts
	if _, whole, err := p.add(msg("1/2", "a")); whole || err != nil {
		t.Fatal(whole, err)
	}
	if b, whole, err := p.add(msg("2/2", "b")); !whole || err != nil || string(b) != "ab" {
		t.Errorf("%q %v %v", b, whole, err)
	}
}
