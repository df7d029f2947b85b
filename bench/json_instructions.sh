#!/usr/bin/env bash
# bench/json_instructions.sh [BASE] -- instructions per marshal_to_json_text
# on each workload of bench/workloads.rb, for BASE (a git ref; default main)
# and this tree, counted by cachegrind (bench/json_count.c: REPS calls minus
# 0 calls, divided by REPS).  Load on the machine does not change the count,
# so it compares two versions of the emitter where wall times cannot.
# Builds with -O2, and with PGXS's flags when pg_config is there.
#
# Environment: CC (gcc), REPS (200; 3 for big_200k), BENCH_WORKLOADS.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:-main}
CC=${CC:-gcc}
REPS=${REPS:-200}
WORKLOADS=${BENCH_WORKLOADS:-"mixed_214 session_500 settings_2k as_values_1k big_200k"}
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

codec_src() {
	sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' "$1/Makefile" | sed 's|src/marshal_rails_cache\.c||'
}
ruby bench/workloads.rb "$tmp" >/dev/null
mkdir -p "$tmp/base"
git archive "$base" Makefile src | tar -x -C "$tmp/base"
builds=("-O2")
if command -v pg_config >/dev/null; then
	builds+=("$(pg_config --cflags) $(pg_config --cflags_sl)")
fi

# instructions of one run
irefs() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 |
		sed -n 's/.*I *refs: *//p' | tr -d ,
}

printf "| workload | flags | %s | this tree | change |\n|---|---|---:|---:|---:|\n" "$base ($(git rev-parse --short "$base"))"
for i in "${!builds[@]}"; do
	fl=${builds[$i]}
	# shellcheck disable=SC2046,SC2086
	(cd "$tmp/base" && $CC -std=c11 -w -Isrc $fl -o "$tmp/count_base" "$OLDPWD/bench/json_count.c" $(codec_src .) -lm)
	# shellcheck disable=SC2046,SC2086
	$CC -std=c11 -w -Isrc $fl -o "$tmp/count_new" bench/json_count.c $(codec_src .) -lm
	label=$([[ $i == 0 ]] && echo "-O2" || echo "PGXS")
	for w in $WORKLOADS; do
		n=$REPS
		[[ $w == big_200k ]] && n=3
		for side in base new; do
			a=$(irefs "$tmp/count_$side" "$n" "$tmp/$w.bin")
			z=$(irefs "$tmp/count_$side" 0 "$tmp/$w.bin")
			eval "per_$side=$(((a - z) / n))"
		done
		# shellcheck disable=SC2154
		awk -v w="$w" -v l="$label" -v b="$per_base" -v n="$per_new" \
			'BEGIN { printf "| %s | %s | %d | %d | %+.1f%% |\n", w, l, b, n, (n / b - 1) * 100 }'
	done
done
