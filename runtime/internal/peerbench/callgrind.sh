#!/bin/sh
# Counts the instructions of one agent-step of the peer workload with
# callgrind, in btrun and in the hand-written switch, two ways:
#   toggled: only inside main.stepRounds, divided by agents x steps;
#   subtracted: the whole program minus a setup-only run (-steps 0).
# Run from the repository's root: sh runtime/internal/peerbench/callgrind.sh [agents] [steps]
set -eu
agents=${1:-1000}
steps=${2:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/peerbench" ./runtime/internal/peerbench
# Callgrind aborts on the signals of Go's asynchronous preemption.
export GODEBUG=asyncpreemptoff=1

# count IMPL STEPS [valgrind options...]: prints the run's instruction count.
count() {
	impl=$1 n=$2
	shift 2
	valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$@" \
		"$dir/peerbench" -impl "$impl" -agents "$agents" -steps "$n" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

for impl in btrun switch; do
	toggled=$(count "$impl" "$steps" --toggle-collect=main.stepRounds)
	full=$(count "$impl" "$steps")
	setup=$(count "$impl" 0)
	if [ -z "$toggled" ] || [ "$toggled" -eq 0 ]; then
		echo "callgrind counted nothing inside main.stepRounds" >&2
		exit 1
	fi
	awk -v impl="$impl" -v a="$agents" -v s="$steps" -v t="$toggled" -v f="$full" -v z="$setup" 'BEGIN {
		printf "%s: %d agents x %d steps: toggled %.1f instructions/agent-step, subtracted %.1f\n", impl, a, s, t / (a * s), (f - z) / (a * s)
	}'
done
