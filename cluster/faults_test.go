package cluster

import (
	"errors"
	"strings"
	"testing"
)

// failingShard fails its agents' first round with an error.
type failingShard struct{ modelShard }

func (s *failingShard) Round(uint32, []Item, *Out) (int, error) {
	return 0, errors.New("model: the Lua state ran out of memory")
}

// A shard's error ends the step with that error, naming the shard.
func TestCluster_shardErrorEndsTheStep(t *testing.T) {
	link, ends := NewLocal(2)
	w := &modelWorld{n: 4}
	c := &Conductor{Host: w, Link: link, Layout: Cut(4, 2)}
	done := make(chan error, 2)
	go func() { done <- (&Shard{Host: &modelShard{n: 4, agents: newAgents(0, 2)}, Link: ends[0]}).Run() }()
	go func() {
		done <- (&Shard{Host: &failingShard{modelShard{n: 4, agents: newAgents(2, 4), lo: 2}}, Link: ends[1]}).Run()
	}()
	err := c.Step(1)
	var se *ShardsError
	if !errors.As(err, &se) || len(se.Shards) != 1 || se.Shards[0] != 1 || !strings.Contains(err.Error(), "ran out of memory") {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "step 1, round 1") {
		t.Errorf("%v: the step and round are not named", err)
	}
	link.Close()
	<-done
	<-done
}

// A shard gone (its process ended) is named by the conductor's next
// exchange, not waited for.
func TestCluster_goneShardIsNamed(t *testing.T) {
	link, ends := NewLocal(3)
	w := &modelWorld{n: 6}
	c := &Conductor{Host: w, Link: link, Layout: Cut(6, 3)}
	done := make(chan error, 2)
	for k := range 2 {
		lo, hi := c.Layout.Range(k)
		go func() {
			done <- (&Shard{Host: &modelShard{n: 6, agents: newAgents(lo, hi), lo: lo}, Link: ends[k]}).Run()
		}()
	}
	ends[2].Close()
	err := c.Step(1)
	var se *ShardsError
	if !errors.As(err, &se) || len(se.Shards) != 1 || se.Shards[0] != 2 || !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v", err)
	}
	link.Close()
	<-done
	<-done
}

func TestConductor_layoutMustMatchTheLink(t *testing.T) {
	link, _ := NewLocal(2)
	c := &Conductor{Host: &modelWorld{n: 4}, Link: link, Layout: Cut(4, 3)}
	if err := c.Step(1); !errors.Is(err, ErrLayout) {
		t.Errorf("got %v", err)
	}
}
