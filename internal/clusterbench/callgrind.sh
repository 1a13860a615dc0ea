#!/bin/sh
# Counts what a cluster costs over one process, in instructions (callgrind,
# exact whatever the machine's load): `btrun bench` of the example game with
# A agents in one process on 2 workers, and on 2 shard processes of one
# worker each with their conductor, each process counted on its own
# (valgrind --trace-children), step by step: callgrind dumps its counts as
# each step starts (game.stepMark, a leaf called once as a step starts in
# one process, on a shard and on the conductor: a function that calls
# others is "entered" again, for callgrind, each time its goroutine resumes
# in it, and dumping at runStep or Conductor.Step cut steps at every
# barrier wait and preemption, which mixed steps), and the parts of steps 3
# to N-1 are summed, so that neither the start nor the end counts. Both
# layouts run N steps (a cluster's bench runs one before those it
# measures).
#
# Run from the repository's root:
#   sh internal/clusterbench/callgrind.sh [N] [agents...]     (default 12 2000 10000)
# It prints, per agent count, the instructions per agent-step of one process,
# of the shards together, of the conductor, and the cluster's total against
# one process's; then, by function (self cost, summed over the same steps'
# dumps), the coordination and the game's work:
#   - coordination: every instruction of the conductor's process, and the
#     shards' instructions in functions of packages cluster and
#     cluster/natsnet, of nats.go and nats-server (github.com/nats-io/...),
#     and game's shard side (shardHost's methods, take, takeSome, reports,
#     clusterRole's methods, the gate parts' and values' encoding); its
#     share is of the whole cluster's instructions. Functions these call in
#     Go's runtime (allocation, the scheduler, system calls) are not
#     counted, so the difference of the totals (the cluster's against one
#     process's) is the bound from above.
#   - the game's work: the functions of btrun's runtime, luabind and
#     gopher-lua, in one process and in the shards together, which must
#     agree within 1% (the shards do the same work); but for runtime's
#     Workers and roundFilters, the dispatch of one process's 2 workers,
#     which a shard of one worker does not use (its own loop is counted
#     with the protocol). Callgrind's names of recursive calls (f'2) are
#     summed with f's.
# With CLUSTERBENCH_KEEP=DIR the sums by function are kept in DIR/functions.A
# ("ROLE INSTRUCTIONS FUNCTION", over the steps counted).
#
#   sh internal/clusterbench/callgrind.sh -conductor [N] [agents...]
# counts the conductor alone: its shards run natively, so that it waits for
# them as long as it would without valgrind, and its work that follows the
# wall time (Lua's watchdog, the scheduler's idle turns, NATS's timers) is
# not stretched with theirs. It prints the conductor's instructions per
# agent-step and per step (DIR/conductor.A with CLUSTERBENCH_KEEP).
#
# How (docs/performance.md, "A cluster: what coordination costs"):
#   - GOGC=off: a collection falls in one step and not in another as the
#     heap happens to grow, which moves the figures by thousands; the
#     garbage a cluster adds is counted apart (game's
#     TestClusterCoord_allocs).
#   - lua_call_timeout and plugin_call_timeout "1h", as the figures in the
#     docs were taken: no call comes near them under valgrind's slowness.
#     Lua's watchdog still ticks every 10 ms of wall time in every process
#     (its look at the heap), which valgrind stretches: that work, the
#     scheduler's while a shard waits, and the NATS goroutines' follow the
#     wall time, not the game, and move the counts from run to run.
#   - the nav plugin is built once and started through a two-line script
#     that valgrind does not follow (its own process, apart in both
#     layouts); callgrind 3.19 aborts at the SIGCHLD of a child's exit,
#     which comes after the steps.
#   - the link's timeouts (10 s a file operation, 60 s a reply) are raised
#     in a copy of the sources: under valgrind on a loaded machine a shard
#     can take longer to fetch the game's files or to step.
set -eu
children=yes
if [ "${1:-}" = -conductor ]; then
	children=no
	shift
fi
n=${1:-12}
shift 2>/dev/null || true
agents=${*:-2000 10000}
root=$(pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src" "$dir/game"
tar --exclude=.git -cf - . | tar -x -C "$dir/src"
sed -i 's/^const opTimeout = 10 \* time.Second/const opTimeout = 10 * time.Minute/' "$dir/src/cluster/natsnet/files.go"
sed -i 's/o.ReplyTimeout = 60 \* time.Second/o.ReplyTimeout = 60 * time.Minute/' "$dir/src/cluster/natsnet/link.go"
(cd "$dir/src" && go build -o "$dir/btrun" ./cmd/btrun && go build -o "$dir/navbin" ./plugins/nav)
cp -r "$root/scripts" "$dir/game/"
sed -e 's#^path = "plugins/nav".*#path = "nav"#' -e 's/^lua_call_timeout = .*/lua_call_timeout = "1h"/' \
	-e 's/^plugin_call_timeout = .*/plugin_call_timeout = "1h"/' "$root/config.toml" >"$dir/game/config.toml"
printf '#!/bin/sh\nexec %s "$@"\n' "$dir/navbin" >"$dir/game/nav"
chmod +x "$dir/game/nav"
export GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off

# count A FLAGS...: runs btrun bench under callgrind; prints "ROLE
# INSTRUCTIONS STEPS" per process of the run, of steps 3 to N-1: the parts
# that end at the 4th to the Nth step's start.
count() {
	a=$1
	shift
	out="$dir/run"
	rm -rf "$out" && mkdir -p "$out"
	(cd "$dir" && valgrind --tool=callgrind --trace-children=$children --trace-children-skip='*/nav' \
		--dump-before='github.com/btrun/btrun/game.stepMark' \
		--callgrind-out-file="$out/cg.%p" ./btrun bench -config game/config.toml -agents "$a" "$@" \
		>"$out/stdout" 2>"$out/stderr") || true
	dumps >"$out/dumps" || return 1
	awk '{ print $1, $2 }' "$out/dumps" | sort -u | while read -r role p; do
		total=0
		for f in $(awk -v p="$p" '$2 == p { print $3 }' "$out/dumps"); do
			total=$((total + $(sed -n 's/^summary: //p' "$f")))
		done
		echo "$role $total $((n - 3))"
	done
}

# dumps: the dump files of steps 3 to N-1 of the last run, one per line as
# "ROLE PID FILE"; fails when a process dumped fewer than N steps.
dumps() {
	out="$dir/run"
	for p in $(ls "$out" | sed -n 's/^cg\.\([0-9]*\)\.[0-9]*$/\1/p' | sort -u); do
		cmd=$(sed -n 's/^cmd: *//p' "$out/cg.$p.1")
		case $cmd in
		*" shard "*) role=shard ;;
		*-shards*) role=conductor ;;
		*) role=one ;;
		esac
		j=0
		for f in $(ls "$out"/cg.$p.* | sort -t. -k3 -n); do
			grep -q '^desc: Trigger: .*stepMark' "$f" || continue
			j=$((j + 1))
			if [ $j -ge 4 ] && [ $j -le "$n" ]; then
				echo "$role $p $f"
			fi
		done
		[ $j -ge "$n" ] || { echo "$role: $j steps dumped, want $n" >&2; return 1; }
	done
}

# functions: reads "ROLE PID FILE" lines and prints "ROLE INSTRUCTIONS FUNCTION",
# each function's self cost summed over the role's files, read from the
# callgrind format itself (callgrind_annotate's sums of Go programs count
# some functions many times over): "fn=(id) name" names a function (by its
# id alone once named in that file), a cost line that follows "calls=" is
# the call's inclusive cost and is skipped, every other cost line is the
# function's own.
functions() {
	while read -r role _ f; do
		awk -v r="$role" '
		/^fn=/ { s = substr($0, 4); if (match(s, /^\([0-9]+\)/)) { id = substr(s, 1, RLENGTH); if (length(s) > RLENGTH) name[id] = substr(s, RLENGTH + 2); fn = name[id] } else fn = s; next }
		/^cfn=/ { s = substr($0, 5); if (match(s, /^\([0-9]+\)/) && length(s) > RLENGTH) name[substr(s, 1, RLENGTH)] = substr(s, RLENGTH + 2); next }
		/^calls=/ { skip = 1; next }
		/^[0-9+*-]/ { if (skip) { skip = 0; next } c[fn] += $2 }
		END { for (k in c) print r, c[k], k }' "$f"
	done | awk '{ sub(/\047[0-9]+$/, "", $3); s[$1 " " $3] += $2 } END { for (k in s) { split(k, p, " "); print p[1], s[k], p[2] } }'
}

# counted A FLAGS...: count, again when callgrind aborted the run (callgrind
# 3.19 asserts now and then on a signal in a Go program), three times at
# most; the last failure's stderr is kept in $TMPDIR/clusterbench.stderr.
counted() {
	for try in 1 2 3; do
		if r=$(count "$@"); then
			echo "$r"
			functions <"$dir/run/dumps" >>"$dir/functions.$1"
			return 0
		fi
		cp "$dir/run/stderr" "${TMPDIR:-/tmp}/clusterbench.stderr"
		echo "callgrind's run failed (try $try of 3)" >&2
	done
	return 1
}

# per ROLE AGENTS: the role's instructions per agent-step.
per() { awk -v r="$1" -v a="$2" '$1 == r { s += $2 / ($3 * a) } END { printf "%.1f", s }'; }

if [ $children = no ]; then
	for a in $agents; do
		c=$(counted "$a" -steps $((n - 1)) -shards 2)
		awk -v a="$a" -v n="$n" -v co="$(echo "$c" | per conductor "$a")" 'BEGIN {
			printf "%d agents: the conductor alone (its shards not under valgrind), steps 3-%d: %.1f instructions per agent-step, %.0f a step\n", a, n - 1, co, co * a
		}'
		if [ -n "${CLUSTERBENCH_KEEP:-}" ]; then
			sort -k1,1 -k2,2nr "$dir/functions.$a" >"$CLUSTERBENCH_KEEP/conductor.$a"
		fi
	done
	exit 0
fi
for a in $agents; do
	o=$(counted "$a" -steps "$n" -workers 2 | per one "$a")
	c=$(counted "$a" -steps $((n - 1)) -shards 2)
	sh=$(echo "$c" | per shard "$a") co=$(echo "$c" | per conductor "$a")
	awk -v a="$a" -v n="$n" -v o="$o" -v sh="$sh" -v co="$co" 'BEGIN {
		printf "%d agents: instructions per agent-step (steps 3-%d): one process %d; 2 shards %d + the conductor %d = %d (%+.1f%%)\n",
			a, n - 1, o, sh, co, sh + co, 100 * ((sh + co) / o - 1)
	}'
	# By function: $dir/functions.A holds one process's (one) and the
	# cluster's (shard, conductor) self costs.
	awk -v a="$a" -v n="$n" '
	function game(f) {
		return (f ~ /^github\.com\/btrun\/btrun\/(runtime|luabind)\./ || f ~ /^github\.com\/yuin\/gopher-lua/) && !workers(f)
	}
	function workers(f) { return f ~ /^github\.com\/btrun\/btrun\/runtime\.\(\*(Workers|roundFilters)\)/ }
	function protocol(f) {
		return f ~ /^github\.com\/btrun\/btrun\/cluster[.\/]/ || f ~ /^github\.com\/nats-io\// ||
			f ~ /^github\.com\/btrun\/btrun\/game\.(\(\*shardHost\)|\(\*clusterRole\)|\(\*Game\)\.(take|takeSome|reports)$|(encode|decode)GateParts|appendGatePart|readGatePart|decodeValue)/
	}
	$1 == "one" { one += $2; if (game($3)) gone += $2; if (workers($3)) wone += $2 }
	$1 == "shard" { sh += $2; if (game($3)) gsh += $2; if (protocol($3)) psh += $2 }
	$1 == "conductor" { co += $2; if ($3 ~ /^github\.com\/btrun\//) cown += $2; if ($3 ~ /^github\.com\/nats-io\//) cnats += $2 }
	$1 == "shard" && ($3 ~ /^github\.com\/btrun\/btrun\/cluster[.\/]/ || $3 ~ /^github\.com\/nats-io\//) { pproper += $2 }
	END {
		s1 = (n - 3) * a; s2 = (n - 3) * a; sc = (n - 3) * a
		coord = co / sc + psh / s2; all = co / sc + sh / s2
		printf "%d agents: coordination %.0f instructions per agent-step (the conductor %.0f, the shards protocol %.0f) = %.2f%% of the cluster'"'"'s %.0f; one process %.0f\n",
			a, coord, co / sc, psh / s2, 100 * coord / all, all, one / s1
		printf "%d agents: of which the conductor'"'"'s btrun code %.1f, NATS %.1f, the rest (Go'"'"'s runtime: waits, timers, the watchdog) %.1f; the shards'"'"' cluster, natsnet and NATS functions %.1f\n",
			a, cown / sc, cnats / sc, (co - cown - cnats) / sc, pproper / s2
		printf "%d agents: the game'"'"'s work (runtime, luabind, gopher-lua; not the workers'"'"' dispatch, %.0f in one process): one process %.0f, the shards %.0f per agent-step (%+.2f%%)\n",
			a, wone / s1, gone / s1, gsh / s2, 100 * (gsh / gone - 1)
	}' "$dir/functions.$a"
	if [ -n "${CLUSTERBENCH_KEEP:-}" ]; then
		sort -k1,1 -k2,2nr "$dir/functions.$a" >"$CLUSTERBENCH_KEEP/functions.$a"
	fi
done
