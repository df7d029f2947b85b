#!/usr/bin/env bash
# bench/run.sh -- the library-level benchmark in one command (no PostgreSQL):
#   1. writes the workloads into bench/out/ (bench/workloads.rb, deterministic),
#   2. builds bench/bench_codec.c with the codec at -O2, again at
#      -O3 -march=native, and with `pg_config --cflags` (what PGXS builds
#      the extension with) when pg_config exists: separately labelled rows,
#   3. for each workload, back to back: the codec (validate, index,
#      skip-scan floor) in each build, then MRI (bench/bench_mri.rb, a fresh
#      ruby process per workload),
#   4. prints the machine facts and one table per workload with the ratios.
# Every number printed is measured in this run; the raw lines are kept in
# bench/out/results.tsv.
#
# Environment: CC (default gcc), RUBY (default ruby), CODEC_SRC (default
# the Makefile's CODEC_SRC without marshal_rails_cache.c), BENCH_PASSES (25), BENCH_WARMUP
# (3), BENCH_TARGET_MS (20), BENCH_CPU (CPU to pin both sides to with
# taskset; default the last CPU; "none" to not pin), BENCH_WORKLOADS (names
# without .bin; default all five), BENCH_NICE (a nice level for both sides,
# e.g. -10 on a busy shared machine; unset by default), BENCH_SOURCE (what
# to print as the source version when this is not a git checkout).
set -euo pipefail
cd "$(dirname "$0")/.."

CC=${CC:-gcc}
RUBY=${RUBY:-ruby}
PASSES=${BENCH_PASSES:-25}
WARMUP=${BENCH_WARMUP:-3}
TARGET_MS=${BENCH_TARGET_MS:-20}
OUT=bench/out
WORKLOADS=${BENCH_WORKLOADS:-"mixed_214 session_500 settings_2k as_values_1k big_200k"}
# the codec's C files (bench.mk passes the top-level Makefile's CODEC_SRC;
# alone, read that line, so that the tojson op's walker is linked too)
if [[ -z ${CODEC_SRC:-} ]]; then
	CODEC_SRC=$(sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' Makefile | sed 's|src/marshal_rails_cache\.c||')
fi
# not -Werror: a new warning in src/ should not stop the benchmark
BASE_CFLAGS="-std=c11 -g -Wall -Wextra -Isrc"

mkdir -p "$OUT"
results=$OUT/results.tsv
: >"$results"

# pin both sides to one CPU so neither migrates mid-pass
ncpu=$(nproc)
cpu=${BENCH_CPU:-$((ncpu - 1))}
pin=()
if [[ $cpu != none ]] && command -v taskset >/dev/null; then
	pin=(taskset -c "$cpu")
fi
# on a shared machine, BENCH_NICE=-10 (as root) gives both sides the same
# larger share of the CPU against other work; off by default
if [[ -n ${BENCH_NICE:-} ]]; then
	pin=(nice -n "$BENCH_NICE" "${pin[@]}")
fi

ccname=$($CC --version | head -n 1)
rubyv=$($RUBY -v)

echo "=== machine"
echo "date (UTC):     $(date -u '+%Y-%m-%d %H:%M:%S')"
echo "kernel:         $(uname -srm)"
echo "nproc:          $ncpu"
echo "CPU model:      $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')"
mhz=$(grep -m1 '^cpu MHz' /proc/cpuinfo | sed 's/^[^:]*: *//' || true)
[[ -n $mhz ]] && echo "cpu MHz:        $mhz (as /proc/cpuinfo reports it now)"
gov=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
[[ -r $gov ]] && echo "governor:       $(cat $gov)"
# share of all CPUs idle over one second: other work on the machine skews
# every number below (the report marks rows whose median strays from best)
cpu_idle() {
	local a b
	read -r -a a < <(grep '^cpu ' /proc/stat)
	sleep 1
	read -r -a b < <(grep '^cpu ' /proc/stat)
	local total=0 idle=$(((b[4] + b[5]) - (a[4] + a[5])))
	for k in 1 2 3 4 5 6 7 8; do total=$((total + b[k] - a[k])); done
	echo "$((100 * idle / (total > 0 ? total : 1)))%"
}
echo "load average:   $(cut -d' ' -f1-3 /proc/loadavg); CPU idle over 1 s before the run: $(cpu_idle)"
echo "compiler:       $ccname ($CC)"
echo "ruby:           $rubyv"
echo "ruby json:      $($RUBY -rjson -e 'print JSON::VERSION')"
echo "activesupport:  $($RUBY -ractive_support -e 'print ActiveSupport::VERSION::STRING' 2>/dev/null || echo none)"
if [[ -n ${BENCH_SOURCE:-} ]]; then
	echo "source:         $BENCH_SOURCE"
elif git rev-parse --git-dir >/dev/null 2>&1; then
	echo "source:         $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' (src/ has uncommitted changes)')"
fi
echo "codec sources:  $CODEC_SRC"
if ((${#pin[@]})); then
	echo "pinning:        both sides run under: ${pin[*]}"
else
	echo "pinning:        none"
fi
echo "protocol:       calibrate reps so one pass >= ${TARGET_MS} ms; ${WARMUP} warm-up + ${PASSES} timed passes;"
echo "                ns/op = pass time / reps (CLOCK_MONOTONIC); best and median over the timed passes;"
echo "                MB/s = stream bytes (header included) / time, MB = 10^6 bytes"

echo
echo "=== workloads"
$RUBY bench/workloads.rb "$OUT"

echo
echo "=== build"
# the brief's -O2 row, a clearly separate -O3 -march=native row, and, when
# pg_config is there, the flags PGXS builds the extension with
labels=("${CC##*/} -O2" "${CC##*/} -O3 -march=native")
bins=("$OUT/bench_codec_O2" "$OUT/bench_codec_O3native")
flags=("-O2" "-O3 -march=native")
if command -v pg_config >/dev/null; then
	labels+=("${CC##*/} PGXS flags")
	bins+=("$OUT/bench_codec_pgxs")
	flags+=("$(pg_config --cflags) $(pg_config --cflags_sl)")
fi
for i in "${!bins[@]}"; do
	cmd="$CC $BASE_CFLAGS ${flags[$i]} -o ${bins[$i]} bench/bench_codec.c $CODEC_SRC -lm"
	echo "[${labels[$i]}] $cmd"
	# shellcheck disable=SC2086
	$CC $BASE_CFLAGS ${flags[$i]} -o "${bins[$i]}" bench/bench_codec.c $CODEC_SRC -lm
done

echo
echo "=== running (progress on stderr)"
# the JSON text op needs the codec's JSON walker among the sources
case " $CODEC_SRC " in
*marshal_json.c*) export BENCH_JSON=1 ;;
esac
for w in $WORKLOADS; do
	f=$OUT/$w.bin
	for i in "${!bins[@]}"; do
		echo "  codec ${labels[$i]}: $w" >&2
		"${pin[@]}" "${bins[$i]}" -w "$WARMUP" -p "$PASSES" -t "$TARGET_MS" "${labels[$i]}" "$f" >>"$results"
	done
	echo "  MRI: $w" >&2
	"${pin[@]}" $RUBY bench/bench_mri.rb -w "$WARMUP" -p "$PASSES" -t "$TARGET_MS" "$f" >>"$results"
done

BENCH_RUBY_LABEL="ruby $($RUBY -e 'print RUBY_VERSION')" $RUBY bench/report.rb "$results"
echo
echo "after the run: load average $(cut -d' ' -f1-3 /proc/loadavg); CPU idle over 1 s: $(cpu_idle)"
echo "(raw lines: $results)"
