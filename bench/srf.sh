#!/usr/bin/env bash
# The set-returning functions against jsonb's on the same data (issue 15):
# a Hash of N keys ("key1" => 1, ...) and an Array of N Integers, stored
# once as rbmarshal and once as jsonb, for N = 200k, 1M and 5M.  Each
# query runs in a fresh session (BENCH_RUNS times, median) with the
# default work_mem; the table gives the medians, their ratio and the
# backend's peak RSS growth (VmHWM) over the query.
#
#   bash bench/srf.sh           (as root on Debian; builds and installs)
#
# Knobs: BENCH_SIZES ("200000 1000000 5000000"), BENCH_RUNS (5).
# Output also goes to bench/out/srf.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z ${BENCH_IN_CLUSTER:-} ]]; then
	make -s && make -s install >/dev/null
	BENCH_IN_CLUSTER=1 exec pg_virtualenv -v 15 bash "$0" "$@"
fi

SIZES=${BENCH_SIZES:-200000 1000000 5000000}
RUNS=${BENCH_RUNS:-5}
out=bench/out
mkdir -p "$out"

# (a cluster where the type exists already keeps the one it has)
psql -X -q -v ON_ERROR_STOP=1 \
	-c "DO \$\$ BEGIN IF to_regtype('rbmarshal') IS NULL THEN CREATE EXTENSION rbmarshal; END IF; END \$\$" \
	-c "CREATE TABLE IF NOT EXISTS srf_data (name text PRIMARY KEY, j jsonb, r rbmarshal)"
for n in $SIZES; do
	echo "building the $n-element values" >&2
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
DELETE FROM srf_data WHERE name IN ('h$n', 'a$n');
INSERT INTO srf_data SELECT 'h$n', j, j::rbmarshal
  FROM (SELECT jsonb_object_agg('key' || i, i) AS j FROM generate_series(1, $n) i) s;
INSERT INTO srf_data SELECT 'a$n', j, j::rbmarshal
  FROM (SELECT jsonb_agg(i) AS j FROM generate_series(1, $n) i) s;
SQL
done

# "ms kB" of one run of a query in a fresh session: time and VmHWM growth
run_once() {
	psql -X -q -At <<SQL 2>&1 | awk '/^Time:/ {t = $2} /^[0-9]+$/ {h[++n] = $1} END {printf "%s %d\n", t, h[2] - h[1]}'
SELECT pg_backend_pid() AS pid \\gset
\\setenv BPID :pid
\\! grep VmHWM /proc/\$BPID/status | tr -s ' ' | cut -d' ' -f2
\\timing on
SELECT $1 \\g /dev/null
\\timing off
\\! grep VmHWM /proc/\$BPID/status | tr -s ' ' | cut -d' ' -f2
SQL
}

# "median_ms max_kB" over RUNS runs
measure() {
	for ((i = 0; i < RUNS; i++)); do run_once "$1"; done | sort -n |
		awk '{t[NR] = $1; if ($2 > k) k = $2} END {printf "%.0f %d\n", (NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2), k}'
}

report=$out/srf.md
{
	echo "# Set-returning functions against jsonb"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')),"
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -At -c 'SELECT version()' | cut -d, -f1), work_mem $(psql -X -At -c 'SHOW work_mem'),"
	echo "rbmarshal $(git rev-parse --short HEAD 2>/dev/null || echo '?'); median of $RUNS runs, each in a fresh session."
	echo
	echo "| elements | rbmarshal | ms | peak RSS + kB | jsonb | ms | peak RSS + kB | ratio |"
	echo "|---:|---|---:|---:|---|---:|---:|---:|"
} >"$report"

row() {
	local n=$1 ours=$2 theirs=$3 src=$4
	local m mk b bk
	read -r m mk < <(measure "count(*) FROM srf_data, $ours(r) WHERE name = '$src$n'")
	read -r b bk < <(measure "count(*) FROM srf_data, $theirs(j) WHERE name = '$src$n'")
	echo "| $n | \`$ours\` | $m | $mk | \`$theirs\` | $b | $bk | $(awk -v a="$m" -v b="$b" 'BEGIN {printf "%.2f", a / b}') |" >>"$report"
	echo "  $n: $ours $m ms (+$mk kB), $theirs $b ms (+$bk kB)" >&2
}

for n in $SIZES; do
	row "$n" rbmarshal_keys jsonb_object_keys h
	row "$n" rbmarshal_each jsonb_each h
	row "$n" rbmarshal_each_text jsonb_each_text h
	row "$n" rbmarshal_array_elements jsonb_array_elements a
	row "$n" rbmarshal_array_elements_text jsonb_array_elements_text a
done
cat "$report"
