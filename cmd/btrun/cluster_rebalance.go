package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/game"
)

// Moving agents between shards ([cluster] rebalance, docs/cluster.md
// "Moving agents"): what a shard process measures, and two knobs for tests
// and benchmarks, read from the environment of the shard processes (the
// conductor's children inherit it):
//
//   - BTRUN_TEST_COST="K:F" makes every shard report its agents as its
//     cost of a step, shard K's F times each, instead of the time it
//     measured: moves that follow from the config alone, so that a test
//     can kill a shard at a chosen move (BTRUN_TEST_FAULT="shardK:move:STEP").
//   - BTRUN_TEST_SLOW="K:N" makes shard K do N rounds of busy work per
//     agent at each step's start: a shard slowed on purpose, whose time is
//     measured as any other (btrun bench -rebalance).
const (
	costEnv = "BTRUN_TEST_COST"
	slowEnv = "BTRUN_TEST_SLOW"
)

// shardAndNumber reads env's "K:N"; ok false when it is unset or malformed.
func shardAndNumber(env string) (k int, n float64, ok bool) {
	s, v, found := strings.Cut(os.Getenv(env), ":")
	if !found {
		return 0, 0, false
	}
	k, err := strconv.Atoi(s)
	if err != nil {
		return 0, 0, false
	}
	n, err = strconv.ParseFloat(v, 64)
	return k, n, err == nil && n >= 0
}

// shardMoves are shard k's settings of moves, from the environment.
func shardMoves(k int) game.ShardMoves {
	var m game.ShardMoves
	if slow, n, ok := shardAndNumber(slowEnv); ok && slow == k {
		rounds := int(n)
		m.Burn = func(agents int) { burn(agents * rounds) }
	}
	if costly, f, ok := shardAndNumber(costEnv); ok {
		if costly != k {
			f = 1
		}
		m.Cost = func(_ uint64, agents int, _ time.Duration) float64 { return f * float64(agents) }
	}
	return m
}

// burnSink keeps burn's work from being optimized away.
var burnSink uint64

// burn does n rounds of arithmetic no compiler skips.
func burn(n int) {
	x := burnSink | 1
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	burnSink = x
}

// moved is what the run's summary says of moves ("" none).
func moved(st cluster.MoveStats) string {
	if st.Moves == 0 {
		return ""
	}
	plural := func(n uint64, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	return "; " + plural(st.Moves, "move") + " of " + plural(st.Agents, "agent")
}

// addMoves adds b's moves (none when b is nil) to st.
func addMoves(st cluster.MoveStats, b *cluster.Balancer) cluster.MoveStats {
	if b != nil {
		m := b.Stats()
		st.Moves, st.Agents, st.Bytes, st.Took = st.Moves+m.Moves, st.Agents+m.Agents, st.Bytes+m.Bytes, st.Took+m.Took
	}
	return st
}

// balanceReport keeps a bench's windows of moves: each shard's measured
// cost of a window and its agents, the first and the last.
type balanceReport struct {
	windows int
	first   []float64 // costs per step of the first window, per shard
	last    []float64
	every   uint64
}

// watch makes b's decisions reported to r.
func (r *balanceReport) watch(b *cluster.Balancer) {
	if b == nil {
		return
	}
	r.every = b.Every
	if r.every == 0 {
		r.every = cluster.DefaultEvery
	}
	b.Decide = func(_ uint64, costs []float64, _, _ cluster.Layout) {
		r.windows++
		if r.first == nil {
			r.first = costs
		}
		r.last = costs
	}
}

// print writes the moves and how the shards' step times evened out.
func (r *balanceReport) print(w io.Writer, b *cluster.Balancer, layout cluster.Layout) {
	if b == nil {
		return
	}
	ms := func(costs []float64) string {
		var each []string
		for _, c := range costs {
			each = append(each, fmt.Sprintf("%.2f", c*1e3/float64(r.every)))
		}
		return strings.Join(each, ", ")
	}
	st := b.Stats()
	var sizes []string
	for k := range layout.Shards() {
		lo, hi := layout.Range(k)
		sizes = append(sizes, strconv.Itoa(int(hi-lo)))
	}
	per := float64(max(st.Agents, 1))
	fmt.Fprintf(w, "moves: %d moves of %d agents over %d windows of %d steps, %d bytes of saves (%.0f an agent), %.1f ms (%.1f µs an agent); the shards now hold %s agents\n",
		st.Moves, st.Agents, r.windows, r.every, st.Bytes, float64(st.Bytes)/per, st.Took.Seconds()*1e3, float64(st.Took.Microseconds())/per, strings.Join(sizes, ", "))
	if r.first != nil {
		fmt.Fprintf(w, "measured step time per shard: %s ms in the first window, %s ms in the last\n", ms(r.first), ms(r.last))
	}
}
