#!/usr/bin/env bash
# Database-level benchmark (issue: SPEC section 8), one run, side by side:
# the same rows stored as rbmarshal, jsonb and JSON text in a throwaway
# cluster; v::jsonb vs t::jsonb, navigation vs jsonb's, and converting
# BENCH_UPDATE_ROWS sessions with one UPDATE vs a Ruby script (pg gem).
#
#   bash bench/db.sh                (as root on Debian: installs ruby-pg)
#
# Knobs: BENCH_ROWS (20000), BENCH_UPDATE_ROWS (100000), BENCH_RUNS (7).
# Each query runs BENCH_RUNS times in one session after a warm-up run;
# the table reports the median and the best (psql's \timing), and ratios
# of medians.  Output also goes to bench/out/db.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z ${BENCH_IN_CLUSTER:-} ]]; then
	if ! ruby -e 'require "pg"' 2>/dev/null; then
		apt-get install -y ruby-pg >/dev/null
	fi
	make -s && make -s install >/dev/null
	BENCH_IN_CLUSTER=1 exec pg_virtualenv -v 15 bash "$0" "$@"
fi

ROWS=${BENCH_ROWS:-20000}
UPD=${BENCH_UPDATE_ROWS:-100000}
RUNS=${BENCH_RUNS:-7}
out=bench/out
mkdir -p "$out"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
chmod 755 "$data"

echo "generating $UPD session and settings rows" >&2
ruby bench/db_rows.rb "$data" "$UPD"
chmod 644 "$data"/*.tsv

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION IF NOT EXISTS rbmarshal;
CREATE TABLE raw_sessions (id bigint, hex text);
CREATE TABLE raw_settings (id bigint, hex text);
\copy raw_sessions FROM '$data/sessions.tsv'
\copy raw_settings FROM '$data/settings.tsv'
CREATE TABLE sess_m AS SELECT id, decode(hex, 'hex')::rbmarshal AS v FROM raw_sessions WHERE id < $ROWS;
CREATE TABLE sess_j AS SELECT id, v::jsonb AS j FROM sess_m;
CREATE TABLE sess_t AS SELECT id, j::text AS t FROM sess_j;
CREATE TABLE set_m AS SELECT id, decode(hex, 'hex')::rbmarshal AS v FROM raw_settings WHERE id < $ROWS;
CREATE TABLE set_j AS SELECT id, v::jsonb AS j FROM set_m;
CREATE TABLE set_t AS SELECT id, j::text AS t FROM set_j;
CREATE TABLE upd (id bigint PRIMARY KEY, data bytea, j_sql jsonb, j_ruby jsonb);
INSERT INTO upd SELECT id, decode(hex, 'hex') FROM raw_sessions;
VACUUM ANALYZE;
SQL

# median and best of RUNS timings of one query, after a warm-up run
timeit() {
	local q=$1
	{
		echo '\timing on'
		for ((i = 0; i <= RUNS; i++)); do echo "SELECT $q;"; done
	} | psql -X -q 2>&1 | grep '^Time:' | tail -n +2 | awk '{print $2}' | sort -n |
		awk '{a[NR] = $1} END {printf "%.2f %.2f\n", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1]}'
}

report=$out/db.md
{
	echo "# Database benchmark"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')),"
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -At -c 'SELECT version()' | cut -d, -f1),"
	echo "rbmarshal $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $ROWS rows per table, $RUNS runs per query after a warm-up."
	echo
	echo "| data | query | median ms | best ms | compared with | ratio (medians) |"
	echo "|---|---|---:|---:|---|---:|"
} >"$report"

row() {
	local data=$1 label=$2 q=$3 base_label=${4:-} base_q=${5:-}
	local m b bm bb
	read -r m b < <(timeit "$q")
	if [[ -n $base_q ]]; then
		read -r bm bb < <(timeit "$base_q")
		echo "| $data | \`$label\` | $m | $b | \`$base_label\` ($bm ms) | $(awk -v a="$m" -v b="$bm" 'BEGIN {printf "%.2f", a / b}') |" >>"$report"
	else
		echo "| $data | \`$label\` | $m | $b | | |" >>"$report"
	fi
	echo "  $data: $label $m ms" >&2
}

for ds in sess set; do
	if [[ $ds == sess ]]; then
		name="sessions (~530 B)"
		k=locale
		path='{warden.user.user.key,0,0}'
	else
		name="settings (~1.8 KB)"
		k=theme
		path='{notifications,email,digest}'
	fi
	row "$name" "v::jsonb" "count(v::jsonb) FROM ${ds}_m" "t::jsonb" "count(t::jsonb) FROM ${ds}_t"
	row "$name" "v -> '$k'" "count(v -> '$k') FROM ${ds}_m" "j -> '$k'" "count(j -> '$k') FROM ${ds}_j"
	row "$name" "v::jsonb -> '$k'" "count(v::jsonb -> '$k') FROM ${ds}_m" "v -> '$k'" "count(v -> '$k') FROM ${ds}_m"
	row "$name" "v ->> '$k'" "count(v ->> '$k') FROM ${ds}_m" "j ->> '$k'" "count(j ->> '$k') FROM ${ds}_j"
	row "$name" "v #>> '$path'" "count(v #>> '$path') FROM ${ds}_m" "j #>> '$path'" "count(j #>> '$path') FROM ${ds}_j"
	row "$name" "rbmarshal_is_valid(v::bytea)" "count(*) FILTER (WHERE rbmarshal_is_valid(v::bytea)) FROM ${ds}_m"
	# the floor of any per-row function: the scan and a call that reads no byte of the value
	row "$name" "octet_length(v::bytea)" "count(octet_length(v::bytea)) FROM ${ds}_m"
done

# one UPDATE vs the Ruby script; backend peak memory (VmHWM) for the UPDATE
echo "converting $UPD rows" >&2
sql_ms=$({
	echo "SELECT pg_backend_pid() AS pid \\gset"
	echo '\timing on'
	echo "UPDATE upd SET j_sql = data::rbmarshal::jsonb;"
	echo '\timing off'
	echo "\\setenv BPID :pid"
	echo '\! grep VmHWM /proc/$BPID/status'
} | psql -X -q 2>&1)
upd_ms=$(grep '^Time:' <<<"$sql_ms" | awk '{print $2}')
upd_hwm=$(grep VmHWM <<<"$sql_ms" | awk '{print $2, $3}')
start=$(date +%s.%N)
ruby bench/db_ruby_convert.rb upd 1000
ruby_ms=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.0f", (e - s) * 1000}')
same=$(psql -X -At -c "SELECT count(*) FILTER (WHERE j_sql = j_ruby) || ' of ' || count(*) FROM upd")
# the floor: the same UPDATE writing the same jsonb, with nothing to convert
psql -X -q -c "VACUUM upd" >/dev/null
floor_ms=$({ echo '\timing on'; echo "UPDATE upd SET j_sql = j_ruby;"; } | psql -X -q 2>&1 | grep '^Time:' | awk '{print $2}')
{
	echo
	echo "Converting $UPD session rows (bytea Marshal to jsonb):"
	echo
	echo "| how | ms | ratio |"
	echo "|---|---:|---:|"
	echo "| \`UPDATE upd SET j_sql = data::rbmarshal::jsonb\` | $upd_ms | 1 |"
	echo "| Ruby 3.1, pg gem, batches of 1000: \`Marshal.load\` + \`ActiveSupport::JSON.encode\`, one UPDATE per batch | $ruby_ms | $(awk -v a="$ruby_ms" -v b="$upd_ms" 'BEGIN {printf "%.1f", a / b}') |"
	echo "| floor: \`UPDATE upd SET j_sql = j_ruby\` (the same rows written, nothing converted) | $floor_ms | $(awk -v a="$floor_ms" -v b="$upd_ms" 'BEGIN {printf "%.2f", a / b}') |"
	echo
	echo "Rows where both give the same jsonb: $same. Backend peak RSS (VmHWM) after the UPDATE, shared buffers included: $upd_hwm."
} >>"$report"
cat "$report"
