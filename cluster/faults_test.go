package cluster_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/cluster/internal/model"
)

// failingShard fails its agents' first round with an error.
type failingShard struct{ model.Shard }

func (s *failingShard) Round(uint32, []cluster.Item, *cluster.Out) (int, error) {
	return 0, errors.New("model: the Lua state ran out of memory")
}

// A shard's error ends the step with that error, naming the shard.
func TestCluster_shardErrorEndsTheStep(t *testing.T) {
	link, ends := cluster.NewLocal(2)
	c := &cluster.Conductor{Host: &model.World{N: 4}, Link: link, Layout: cluster.Cut(4, 2)}
	done := make(chan error, 2)
	go func() {
		done <- (&cluster.Shard{Host: &model.Shard{N: 4, Agents: model.NewAgents(0, 2)}, Link: ends[0]}).Run()
	}()
	go func() {
		done <- (&cluster.Shard{Host: &failingShard{model.Shard{N: 4, Agents: model.NewAgents(2, 4), Lo: 2}}, Link: ends[1]}).Run()
	}()
	err := c.Step(1)
	var se *cluster.ShardsError
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
	link, ends := cluster.NewLocal(3)
	c := &cluster.Conductor{Host: &model.World{N: 6}, Link: link, Layout: cluster.Cut(6, 3)}
	done := make(chan error, 2)
	for k := range 2 {
		lo, hi := c.Layout.Range(k)
		go func() {
			done <- (&cluster.Shard{Host: &model.Shard{N: 6, Agents: model.NewAgents(lo, hi), Lo: lo}, Link: ends[k]}).Run()
		}()
	}
	ends[2].Close()
	err := c.Step(1)
	var se *cluster.ShardsError
	if !errors.As(err, &se) || len(se.Shards) != 1 || se.Shards[0] != 2 || !errors.Is(err, cluster.ErrClosed) {
		t.Fatalf("got %v", err)
	}
	link.Close()
	<-done
	<-done
}

func TestConductor_layoutMustMatchTheLink(t *testing.T) {
	link, _ := cluster.NewLocal(2)
	c := &cluster.Conductor{Host: &model.World{N: 4}, Link: link, Layout: cluster.Cut(4, 3)}
	if err := c.Step(1); !errors.Is(err, cluster.ErrLayout) {
		t.Errorf("got %v", err)
	}
}
