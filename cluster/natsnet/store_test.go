package natsnet

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/btrun/btrun/cluster"
)

func storeOf(t *testing.T, url, run string) *Store {
	t.Helper()
	s, err := OpenStore(Options{URL: url, Run: run}, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestStore_checkpointsCommitPruneAndFence: a checkpoint's parts (one of
// 3 MB, past the server's 1 MB message limit) come back whole once
// committed; older checkpoints' parts are pruned; a second store of the
// run that read the record before the first committed again cannot commit
// over it (ErrFenced); and the store's file storage survives the server's
// restart.
func TestStore_checkpointsCommitPruneAndFence(t *testing.T) {
	dir := t.TempDir()
	srv, err := StartServer(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := storeOf(t, srv.URL(), "r1")
	if _, ok, err := a.Latest(); ok || err != nil {
		t.Fatalf("a new run has a checkpoint (%v)", err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<16)
	for seq := uint64(1); seq <= 3; seq++ {
		cp := cluster.Checkpoint{Seq: seq, Step: seq * 100, Until: 600, Trace: seq * 7, Parts: []string{"game"}}
		if err := cluster.TakeCheckpoint(a, cp, [][]byte{append([]byte{byte(seq)}, big...)}); err != nil {
			t.Fatal(err)
		}
	}
	b := storeOf(t, srv.URL(), "r1")
	cp, ok, err := b.Latest()
	if err != nil || !ok || cp.Seq != 3 || cp.Step != 300 || cp.Trace != 21 || cp.Until != 600 {
		t.Fatalf("latest: %+v %v %v", cp, ok, err)
	}
	got, err := b.Part(3, "game")
	if err != nil || got[0] != 3 || !bytes.Equal(got[1:], big) {
		t.Fatalf("part of %d bytes (%v)", len(got), err)
	}
	if _, err := b.Part(2, "game"); err == nil {
		t.Error("checkpoint 2's part is not pruned")
	}
	// b read revision 3; a commits 4; b's commit over 3 is fenced.
	if err := a.Commit(cluster.Checkpoint{Seq: 4, Step: 400}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(cluster.Checkpoint{Seq: 4, Step: 401}); !errors.Is(err, cluster.ErrFenced) {
		t.Fatalf("a stale commit: %v", err)
	}
	srv.Close()
	srv, err = StartServer(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := storeOf(t, srv.URL(), "r1")
	if cp, ok, err := c.Latest(); !ok || err != nil || cp.Step != 400 {
		t.Fatalf("after a restart: %+v %v %v", cp, ok, err)
	}
	if err := c.Forget(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Latest(); ok || err != nil {
		t.Fatalf("a forgotten checkpoint is still there (%v)", err)
	}
	if err := c.Commit(cluster.Checkpoint{Seq: 1, Step: 100}); err != nil {
		t.Fatalf("a new run's first commit after Forget: %v", err)
	}
}

// TestLease_oneConductorPerRun: while a lease has not run out, another
// holder is refused, naming the holder; once it ran out (the clock moved
// past it, unrenewed), another takes it, and the former holder's renewal
// fails with ErrStale; a released lease is taken at once.
func TestLease_oneConductorPerRun(t *testing.T) {
	srv := startServer(t)
	s := storeOf(t, srv.URL(), "r2")
	clock := time.Unix(1000, 0)
	now := func() time.Time { return clock }
	a, err := s.TakeLease("conductor A", 10*time.Second, now)
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(4 * time.Second)
	if !a.Due() {
		t.Error("a lease 4s into 10s is not due for renewal")
	}
	if err := a.Renew(); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(9 * time.Second) // 1s left of the renewal
	var held *LeaseHeldError
	if _, err := s.TakeLease("conductor B", 10*time.Second, now); !errors.As(err, &held) || held.Holder != "conductor A" || held.Left != time.Second {
		t.Fatalf("a second conductor: %v", err)
	}
	clock = clock.Add(2 * time.Second)
	b, err := s.TakeLease("conductor B", 10*time.Second, now)
	if err != nil {
		t.Fatalf("a lease run out is not taken: %v", err)
	}
	if err := a.Renew(); !errors.Is(err, ErrStale) {
		t.Fatalf("the stale conductor's renewal: %v", err)
	}
	if b.Revision() <= a.Revision() {
		t.Errorf("revisions %d then %d: not a fencing token", a.Revision(), b.Revision())
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeLease("conductor C", 10*time.Second, now); err != nil {
		t.Fatalf("a released lease: %v", err)
	}
}
