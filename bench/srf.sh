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
# Then Arrays of BENCH_KIND_N elements (1M) of each kind whose jsonb view is
# converted, made by MRI's Marshal.dump (bench/srf_kinds.rb): Dates,
# DateTimes, TimeWithZones, ISO-8859-1 Strings, BigDecimals, Times, Floats
# and [i, "x"] pairs: both set-returning functions, ? with a miss, and ?,
# ?| and ?& with keys shaped like the kind's view (converted, all missing).
#
# Knobs: BENCH_SIZES ("200000 1000000 5000000"), BENCH_RUNS (5),
# BENCH_KINDS ("date datetime twz latin1 bigdecimal time float nested", or
# "" for none), BENCH_KIND_N (1000000).  The kinds' data is kept in
# bench/out/kinds/ (made again if missing).  Output also goes to
# bench/out/srf.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z ${BENCH_IN_CLUSTER:-} ]]; then
	make -s && make -s install >/dev/null
	BENCH_IN_CLUSTER=1 exec pg_virtualenv -v 15 bash "$0" "$@"
fi

SIZES=${BENCH_SIZES-200000 1000000 5000000}
RUNS=${BENCH_RUNS:-5}
KINDS=${BENCH_KINDS-date datetime twz latin1 bigdecimal time float nested}
KIND_N=${BENCH_KIND_N:-1000000}
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
	srf "$n" rbmarshal_array_elements jsonb_array_elements m
	srf "$n" rbmarshal_array_elements_text jsonb_array_elements_text m
	# a key that is not there: the whole value is searched
	op "$n" '?' "'nope'" h
	op "$n" '?' "'nope'" m
	op "$n" '?|' "ARRAY['nope', 'x', 'y']" m
	op "$n" '?&' "ARRAY['s1', 'nope']" m
done

# a key of each kind's shape that no element has (so every element whose
# view could be it is converted), and one shaped like nothing
shaped_key() {
	case $1 in
	date) echo "'2019-12-31'" ;;
	datetime) echo "'2019-12-31T00:00:00.000+00:00'" ;;
	twz) echo "'2019-12-31T00:00:00.000-05:00'" ;;
	time) echo "'2019-12-31T00:00:00.000Z'" ;;
	bigdecimal) echo "'-1.25'" ;;
	latin1) echo "'café -12'" ;;
	*) echo "'nope'" ;;
	esac
}
if [[ -n $KINDS ]]; then
	mkdir -p "$out/kinds"
	for k in $KINDS; do
		if [[ ! -s $out/kinds/$k.copy || $(cat "$out/kinds/n" 2>/dev/null) != "$KIND_N" ]]; then
			echo "making the $KIND_N-element Arrays with Ruby" >&2
			rm -f "$out"/kinds/*.copy
			ruby bench/srf_kinds.rb "$out/kinds" "$KIND_N"
			echo "$KIND_N" >"$out/kinds/n"
		fi
	done
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE IF NOT EXISTS srf_kinds (name text PRIMARY KEY, r rbmarshal, j jsonb)"
	for k in $KINDS; do
		psql -X -q -v ON_ERROR_STOP=1 -c "DELETE FROM srf_kinds WHERE name = '$k'" \
			-c "\\copy srf_kinds (name, r) FROM '$out/kinds/$k.copy'" \
			-c "UPDATE srf_kinds SET j = r::jsonb WHERE name = '$k'"
	done
	for k in $KINDS; do
		key=$(shaped_key "$k")
		for f in array_elements array_elements_text; do
			row "$KIND_N $k" "count(*) FROM srf_kinds, rbmarshal_$f(r) WHERE name = '$k'" \
				"count(*) FROM srf_kinds, jsonb_$f(j) WHERE name = '$k'" "rbmarshal_$f" "jsonb_$f"
		done
		for q in "? 'nope'" "? $key" "?| ARRAY[$key, 'nope']" "?& ARRAY[$key, 'nope']"; do
			label="$k ${q//|/\\|}"
			row "$KIND_N $k" "r $q FROM srf_kinds WHERE name = '$k'" \
				"j $q FROM srf_kinds WHERE name = '$k'" "$label" "$label"
		done
	done
fi
cat "$report"
