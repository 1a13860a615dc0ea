package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// ErrOrder is two items claiming one place of the single run's order: two
// shards stepping one agent, or a shard numbering its items twice.
var ErrOrder = errors.New("cluster: two items at one place")

// Merge appends to dst the items of every shard's list (lists[k] is shard
// k's, gathered by shard, not by arrival) put in the single run's order, by
// (Item.Order, Item.Sub). It is the one place where a cluster's results are made equal
// to one process's: every phase of a step merges with it. Two items at the
// same place are an error (ErrOrder).
func Merge(dst []Item, lists ...[]Item) ([]Item, error) {
	start := len(dst)
	for _, l := range lists {
		dst = append(dst, l...)
	}
	part := dst[start:]
	slices.SortStableFunc(part, compareItems)
	for i := 1; i < len(part); i++ {
		if compareItems(part[i-1], part[i]) == 0 {
			return dst, fmt.Errorf("%w: phase %d place %d rank %d (agent %d, %s and %s)", ErrOrder,
				part[i].Order>>56, part[i].Order&(1<<56-1), part[i].Sub, part[i].Agent, part[i-1].Kind, part[i].Kind)
		}
	}
	return dst, nil
}

var itemKindNames = [numItemKinds]string{"", "request", "answer", "signal", "delivery", "record", "agent save", "debug note", "agent add", "agent remove", "agent range", "agent list", "move range", "checkpoint part", "agent close"}

func (k ItemKind) String() string {
	if k > 0 && k < numItemKinds {
		return itemKindNames[k]
	}
	return fmt.Sprintf("item kind %d", uint8(k))
}

func compareItems(a, b Item) int {
	if c := cmp.Compare(a.Order, b.Order); c != 0 {
		return c
	}
	return cmp.Compare(a.Sub, b.Sub)
}

// Out collects a shard's items of a reply, numbering them: the items of one
// place must be added together (an agent's during its step, a delivery's
// while it is delivered), as a shard makes them.
type Out struct {
	Items []Item
	last  uint64 // the last item's Order and Sub's high half
	hi    uint64
	n     uint64
	kept  []byte // Keep's copies (out_keep.go)
}

// Add adds it at place (Order) order, rank hi (the receiver of a
// delivery's results; 0 otherwise), after the items already there.
func (o *Out) Add(order, hi uint64, it Item) {
	if len(o.Items) == 0 || order != o.last || hi != o.hi {
		o.last, o.hi, o.n = order, hi, 0
	}
	it.Order, it.Sub = order, hi<<32|o.n
	o.n++
	o.Items = append(o.Items, it)
}

// Reset empties o for the next reply.
func (o *Out) Reset() {
	clear(o.Items)
	o.Items = o.Items[:0]
	o.kept = o.kept[:0]
}
