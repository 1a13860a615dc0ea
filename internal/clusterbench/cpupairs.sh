#!/bin/sh
# Measures the CPU time of a step, one process against 2 shards, in
# alternated pairs (for a quiet machine: CPU time read from /proc moves
# with the machine's load and from run to run, so one pair says little and
# the means of several say more). A pair is:
#   - one process on 2 workers: `btrun bench -agents A -workers 2 -steps S+1`
#     less `-steps 1` (its bench counts from its first step; the difference
#     leaves the first step out, as the cluster's bench does);
#   - the cluster: `btrun bench -agents A -steps S -shards 2` (one worker a
#     shard; it measures the S steps after a first one), every process:
#     the conductor and each shard.
# The pairs alternate which runs first. Plugins' processes are apart in
# both (the nav plugin's CPU time is not counted).
#
# Run from the repository's root:
#   sh internal/clusterbench/cpupairs.sh [PAIRS] [AGENTS] [STEPS]   (default 8 100000 30)
# It prints, per pair, the CPU ms a step of one process, of the cluster in
# all, of its conductor and of each shard, and the cluster against one
# process; then the means over the pairs.
set -eu
pairs=${1:-8}
agents=${2:-100000}
steps=${3:-30}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/btrun" ./cmd/btrun

# cpu FLAGS...: the "CPU time stepping" figures of one bench run: one
# process's ms a step, or the cluster's "ALL CONDUCTOR SHARD..." ms a step.
cpu() {
	"$dir/btrun" bench -config config.toml -agents "$agents" "$@" >"$dir/out" 2>"$dir/err" || {
		cat "$dir/err" >&2
		return 1
	}
	sed -n -e 's/^CPU time stepping: \([0-9.]*\) ms a step (this process.*/\1/p' \
		-e 's/^CPU time stepping: \([0-9.]*\) ms a step in all (the conductor \([0-9.]*\), the shard processes \([0-9., ]*\);.*/\1 \2 \3/p' "$dir/out" | tr -d ,
}

one() {
	first=$(cpu -workers 2 -steps 1)
	all=$(cpu -workers 2 -steps $((steps + 1)))
	awk -v f="$first" -v a="$all" -v s="$steps" 'BEGIN { printf "%.2f", (a * (s + 1) - f) / s }'
}

echo "$agents agents, $steps steps a run; CPU ms a step"
for i in $(seq "$pairs"); do
	if [ $((i % 2)) = 1 ]; then
		o=$(one)
		c=$(cpu -steps "$steps" -shards 2)
	else
		c=$(cpu -steps "$steps" -shards 2)
		o=$(one)
	fi
	echo "$i $o $c"
done | awk '{
	n++; o += $2; c += $3; co += $4
	printf "pair %d: one process %.2f; 2 shards %.2f in all (the conductor %.2f, the shards", $1, $2, $3, $4
	for (i = 5; i <= NF; i++) printf " %.2f", $i
	printf "): %+.1f%%, the conductor %.1f%% of one process\n", 100 * ($3 / $2 - 1), 100 * $4 / $2
}
END {
	printf "means of %d pairs: one process %.2f; 2 shards %.2f in all (%+.1f%%), of which the conductor %.2f (%.1f%% of one process)\n",
		n, o / n, c / n, 100 * (c / o - 1), co / n, 100 * co / o
}'
