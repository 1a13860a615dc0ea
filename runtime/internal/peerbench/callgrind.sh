#!/bin/sh
# Counts the instructions of one agent-step of the peer workload with
# callgrind, in btrun, in btrun with the actions and conditions called
# through the runtime's interfaces as Lua's and plugins' are (-opaque), and
# in the hand-written switch, two ways:
#   toggled: only inside main.stepRounds, divided by agents x steps;
#   subtracted: the whole program minus a setup-only run (-steps 0).
# Run from the repository's root: sh runtime/internal/peerbench/callgrind.sh [agents] [steps]
set -eu
agents=${1:-1000}
steps=${2:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/peerbench" ./runtime/internal/peerbench
# Callgrind aborts on the signals of Go's asynchronous preemption, and
# valgrind 3.19 does not know RDTSCP, which Go's runtime uses when a lock
# is contended (a SIGILL now and then on a busy machine).
export GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off

# count IMPL STEPS [valgrind options...]: prints the run's instruction count
# (IMPL is btrun, btrun-funcs, btrun-opaque or switch).
count() {
	impl=$1 n=$2
	shift 2
	flags="-impl $impl"
	case $impl in
	btrun-opaque) flags="-impl btrun -opaque" ;;
	btrun-funcs) flags="-impl btrun -funcs" ;;
	esac
	valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$@" \
		"$dir/peerbench" $flags -agents "$agents" -steps "$n" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

for impl in btrun btrun-funcs btrun-opaque switch; do
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
