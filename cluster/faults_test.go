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

// deafWorld answers no request: the agents that wait would wait for ever.
type deafWorld struct{ model.World }

func (*deafWorld) Resolve(uint32, []cluster.Item) ([]cluster.Item, error) { return nil, nil }

func TestConductor_unansweredAgentsAreAnErrorNotAHang(t *testing.T) {
	link, ends := cluster.NewLocal(1)
	w := &deafWorld{model.World{N: 8}}
	mc := model.Start(&w.World, link, ends)
	mc.C.Host = w
	var err error
	for s := uint64(1); s <= 20 && err == nil; s++ {
		err = mc.C.Step(s)
	}
	if err == nil || !strings.Contains(err.Error(), "still wait after 65536 rounds") {
		t.Errorf("got %v", err)
	}
	mc.Stop()
}

// A host that adds one place's items apart (not together) makes two
// items at one place: an error, never a silent reorder.
func TestOut_itemsOfOnePlaceApartAreAnError(t *testing.T) {
	var out cluster.Out
	p := cluster.Place(cluster.PhaseRound, 1)
	out.Add(p, 0, cluster.Item{Kind: cluster.Record})
	out.Add(cluster.Place(cluster.PhaseRound, 2), 0, cluster.Item{Kind: cluster.Record})
	out.Add(p, 0, cluster.Item{Kind: cluster.Record})
	if _, err := cluster.Merge(nil, out.Items); !errors.Is(err, cluster.ErrOrder) {
		t.Errorf("got %v", err)
	}
}
