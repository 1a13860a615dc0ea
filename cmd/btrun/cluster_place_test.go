package main

import (
	"bytes"
	"testing"

	"github.com/btrun/btrun/cluster"
)

// A resumed run whose first link loses a shard before its restore put the
// writers at the checkpoint's counts must still place them on the next
// link: the writers of the new process never wrote what the checkpoint
// counts, so a rewind there would refuse ("0 bytes were written, fewer
// than the checkpoint's ...").
func TestPlace_resumedWritersPlacedOnTheLinkThatRestores(t *testing.T) {
	var trace, out bytes.Buffer
	s := &clusterSession{r: clusterRun{resume: true}, trace: newStreamWriter(&trace), out: newStreamWriter(&out)}
	s.links = 2 // the first link was lost before its restore
	from := &cluster.Checkpoint{Seq: 3, Step: 200, Trace: 13057, Out: 812}
	if err := s.place(from); err != nil {
		t.Fatalf("placing a resumed run's writers on its second link: %v", err)
	}
	if s.trace.n != from.Trace || s.out.n != from.Out {
		t.Fatalf("writers at %d and %d bytes, want the checkpoint's %d and %d", s.trace.n, s.out.n, from.Trace, from.Out)
	}
	// Once placed, a later recovery rewinds what this process wrote.
	s.out.Write(make([]byte, 100))
	if err := s.place(&cluster.Checkpoint{Seq: 4, Step: 300, Trace: from.Trace, Out: from.Out + 50}); err != nil {
		t.Fatal(err)
	}
	if s.out.n != from.Out+50 {
		t.Fatalf("output at %d bytes after the rewind, want %d", s.out.n, from.Out+50)
	}
	if err := s.place(&cluster.Checkpoint{Seq: 5, Trace: from.Trace, Out: from.Out + 500}); err == nil {
		t.Fatal("a rewind past what this process wrote was taken")
	}
}
