package natsnet

import (
	"errors"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestInputs_journalPruneFenceAndRestart: inputs come back in the order
// journaled, from a step on; pruning forgets those of earlier steps; a
// second journal of the run that read it before the first appended again
// cannot append (ErrFenced); the journal survives the server's restart;
// Drop deletes it.
func TestInputs_journalPruneFenceAndRestart(t *testing.T) {
	dir := t.TempDir()
	srv, err := StartServer(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := storeOf(t, srv.URL(), "r1")
	a, err := s.Inputs(StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, step := range []uint64{3, 3, 10, 25} {
		seq, err := a.Append(cluster.Input{Step: step, Kind: cluster.InputSignal, To: "all", Name: "Orders", Data: []byte{byte(i)}})
		if err != nil || seq != uint64(i+1) {
			t.Fatalf("append %d: seq %d, %v", i, seq, err)
		}
	}
	steps := func(j *Inputs, from uint64) []uint64 {
		t.Helper()
		ins, err := j.From(from)
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, in := range ins {
			out = append(out, in.Step*10+uint64(in.Data[0]))
		}
		return out
	}
	if got := steps(a, 3); len(got) != 4 || got[0] != 30 || got[1] != 31 || got[3] != 253 {
		t.Fatalf("from 3: %v", got)
	}
	if err := a.Prune(10); err != nil {
		t.Fatal(err)
	}
	if got := steps(a, 0); len(got) != 2 || got[0] != 102 {
		t.Fatalf("after pruning before step 10: %v", got)
	}
	b, err := storeOf(t, srv.URL(), "r1").Inputs(StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(cluster.Input{Step: 30, Kind: cluster.InputSignal, To: "x", Name: "y", Data: []byte{9}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(cluster.Input{Step: 31, Kind: cluster.InputSignal, To: "x", Name: "stale", Data: []byte{9}}); !errors.Is(err, cluster.ErrFenced) {
		t.Fatalf("a stale journal's append: %v", err)
	}
	srv.Close()
	if srv, err = StartServer(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	s = storeOf(t, srv.URL(), "r1")
	c, err := s.Inputs(StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := steps(c, 0); len(got) != 3 {
		t.Fatalf("after a restart: %v", got)
	}
	if err := c.Prune(^uint64(0)); err != nil {
		t.Fatal(err)
	}
	if got := steps(c, 0); len(got) != 0 {
		t.Fatalf("after pruning all: %v", got)
	}
	if seq, err := c.Append(cluster.Input{Step: 40, Kind: cluster.InputSignal, To: "x", Name: "y", Data: []byte{9}}); err != nil || seq != 6 {
		t.Fatalf("append after pruning all: %d %v", seq, err)
	}
	if err := s.Drop(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.From(0); err == nil {
		t.Error("the journal is still there after Drop")
	}
}
