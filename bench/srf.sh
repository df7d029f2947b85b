#!/usr/bin/env bash
# The set-returning functions and ?, ?|, ?& against jsonb's on the same data
# (issue 15): a Hash of N keys ("key1" => 1, ...), an Array of N Integers and
# an Array of N mixed elements (Integers, Strings, Floats, nil, Times and
# two-element Arrays in turn), stored once as rbmarshal and once as jsonb,
# for N = 200k, 1M and 5M.  Each query runs in a fresh session, ours and
# jsonb's in turn (BENCH_RUNS pairs), with the default work_mem; the table
# gives the medians of the wall time and of the backend's CPU time
# (/proc/PID/schedstat: on a shared machine it moves less than the wall
# time), their ratios and the backend's peak RSS growth (VmHWM).
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
DELETE FROM srf_data WHERE name IN ('h$n', 'a$n', 'm$n');
INSERT INTO srf_data SELECT 'h$n', j, j::rbmarshal
  FROM (SELECT jsonb_object_agg('key' || i, i) AS j FROM generate_series(1, $n) i) s;
INSERT INTO srf_data SELECT 'a$n', j, j::rbmarshal
  FROM (SELECT jsonb_agg(i) AS j FROM generate_series(1, $n) i) s;
INSERT INTO srf_data SELECT 'm$n', r::jsonb, r FROM (
  SELECT rbmarshal_agg(CASE i % 6
		   WHEN 0 THEN to_rbmarshal(i)
		   WHEN 1 THEN to_rbmarshal('s' || i)
		   WHEN 2 THEN to_rbmarshal(i / 7.0::float8)
		   WHEN 3 THEN to_rbmarshal('null'::jsonb)
		   WHEN 4 THEN to_rbmarshal(timestamptz '2024-01-01 00:00:00+00' + i * interval '1.5 second')
		   ELSE rbmarshal_build_array(to_rbmarshal(i), to_rbmarshal('n' || i)) END ORDER BY i) AS r
	FROM generate_series(1, $n) i) s;
SQL
done

# "ms cpu_ms kB" of one run of a query in a fresh session: wall time,
# the backend's CPU time and its VmHWM growth
run_once() {
	psql -X -q -At <<SQL 2>&1 | awk '
		/^H / {h[++nh] = $2} /^C / {c[++nc] = $2} /^Time:/ {t = $2}
		END {printf "%s %.1f %d\n", t, (c[2] - c[1]) / 1e6, h[2] - h[1]}'
SELECT pg_backend_pid() AS pid \\gset
\\setenv BPID :pid
\\! echo "H \$(grep VmHWM /proc/\$BPID/status | tr -s ' ' | cut -d' ' -f2)"; echo "C \$(cut -d' ' -f1 /proc/\$BPID/schedstat)"
\\timing on
SELECT $1 \\g /dev/null
\\timing off
\\! echo "H \$(grep VmHWM /proc/\$BPID/status | tr -s ' ' | cut -d' ' -f2)"; echo "C \$(cut -d' ' -f1 /proc/\$BPID/schedstat)"
SQL
}

# the median of a column of numbers
median() {
	sort -n | awk '{v[NR] = $1} END {printf "%.0f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'
}

report=$out/srf.md
{
	echo "# Set-returning functions and ?, ?|, ?& against jsonb"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')),"
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -At -c 'SELECT version()' | cut -d, -f1), work_mem $(psql -X -At -c 'SHOW work_mem'),"
	echo "rbmarshal $(git rev-parse --short HEAD 2>/dev/null || echo '?'); medians of $RUNS runs each, ours and jsonb's in turn, each in a fresh session."
	echo
	echo "| elements | rbmarshal | ms | CPU ms | peak RSS + kB | jsonb | ms | CPU ms | peak RSS + kB | ratio | CPU ratio |"
	echo "|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"
} >"$report"

# one row: $2 and $3 are our and jsonb's queries (after SELECT), $4 and $5
# what the table calls them
row() {
	local n=$1 ours=$2 theirs=$3 label_ours=$4 label_theirs=$5
	local a b i m mc mk j jc jk
	a=$(mktemp) b=$(mktemp)
	for ((i = 0; i < RUNS; i++)); do
		run_once "$ours" >>"$a"
		run_once "$theirs" >>"$b"
	done
	m=$(cut -d' ' -f1 "$a" | median) mc=$(cut -d' ' -f2 "$a" | median) mk=$(cut -d' ' -f3 "$a" | sort -n | tail -1)
	j=$(cut -d' ' -f1 "$b" | median) jc=$(cut -d' ' -f2 "$b" | median) jk=$(cut -d' ' -f3 "$b" | sort -n | tail -1)
	rm -f "$a" "$b"
	echo "| $n | \`$label_ours\` | $m | $mc | $mk | \`$label_theirs\` | $j | $jc | $jk |" \
		"$(awk -v a="$m" -v b="$j" 'BEGIN {printf "%.2f", a / b}') |" \
		"$(awk -v a="$mc" -v b="$jc" 'BEGIN {printf "%.2f", a / b}') |" >>"$report"
	echo "  $n: $label_ours $m ms ($mc CPU, +$mk kB), $label_theirs $j ms ($jc CPU, +$jk kB)" >&2
}

# a set-returning function of value $4$1, its rows counted
srf() {
	row "$1" "count(*) FROM srf_data, $2(r) WHERE name = '$4$1'" \
		"count(*) FROM srf_data, $3(j) WHERE name = '$4$1'" "$2" "$3"
}

# an operator with its right-hand side on value $4$1 (in the table: "m ?| ...")
op() {
	local label="$4 ${2//|/\\|} $3"

	row "$1" "r $2 $3 FROM srf_data WHERE name = '$4$1'" \
		"j $2 $3 FROM srf_data WHERE name = '$4$1'" "$label" "$label"
}

for n in $SIZES; do
	srf "$n" rbmarshal_keys jsonb_object_keys h
	srf "$n" rbmarshal_each jsonb_each h
	srf "$n" rbmarshal_each_text jsonb_each_text h
	srf "$n" rbmarshal_array_elements jsonb_array_elements a
	srf "$n" rbmarshal_array_elements_text jsonb_array_elements_text a
	# a key that is not there: the whole value is searched
	op "$n" '?' "'nope'" h
	op "$n" '?' "'nope'" m
	op "$n" '?|' "ARRAY['nope', 'x', 'y']" m
	op "$n" '?&' "ARRAY['s1', 'nope']" m
done
cat "$report"
