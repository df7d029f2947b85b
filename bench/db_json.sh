#!/usr/bin/env bash
# bench/db_json.sh -- the JSON conversion goals at database level (issue 19):
# v::jsonb against jsonb_in of the same JSON text, v::json against v::jsonb,
# and v -> 'k' / v ->> 'k' against jsonb's, on BENCH_ROWS (20000) sessions of
# bench/db_rows.rb and on the 1.8 MB value of 200k entries
# (test/fixtures/big_200k.bin).  Each pair of queries runs in turn, BENCH_RUNS
# (9) times each after a warm-up, in one session; medians of psql's \timing.
#
#   bash bench/db_json.sh [BUILD_LABEL]   (builds and installs this tree first)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z ${BENCH_IN_CLUSTER:-} ]]; then
	make -s && make -s install >/dev/null
	BENCH_IN_CLUSTER=1 exec pg_virtualenv bash "$0" "$@"
fi

ROWS=${BENCH_ROWS:-20000}
RUNS=${BENCH_RUNS:-9}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
chmod 755 "$data"
ruby bench/db_rows.rb "$data" "$ROWS" >/dev/null
cp test/fixtures/big_200k.bin "$data/"
chmod 644 "$data"/*

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION IF NOT EXISTS rbmarshal;
CREATE TABLE raw_sessions (id bigint, hex text);
\copy raw_sessions FROM '$data/sessions.tsv'
CREATE TABLE sess_m AS SELECT id, decode(hex, 'hex')::rbmarshal AS v FROM raw_sessions;
CREATE TABLE sess_j AS SELECT id, v::jsonb AS j FROM sess_m;
CREATE TABLE sess_t AS SELECT id, j::text AS t FROM sess_j;
CREATE TABLE big_m AS SELECT pg_read_binary_file('$data/big_200k.bin')::rbmarshal AS v;
CREATE TABLE big_t AS SELECT v::jsonb::text AS t FROM big_m;
VACUUM ANALYZE;
SQL

# medians of RUNS timings of two queries run in turn, after a warm-up each
pair() {
	local qa=$1 qb=$2
	{
		echo '\timing on'
		echo "SELECT $qa;"
		echo "SELECT $qb;"
		for ((i = 0; i < RUNS; i++)); do
			echo "SELECT $qa;"
			echo "SELECT $qb;"
		done
	} | psql -X -q 2>&1 | grep '^Time:' | awk '{print $2}' | tail -n +3 |
		awk -v n="$RUNS" '{ if (NR % 2) a[++i] = $1; else b[++j] = $1 }
		function med(x, k,    t, p, q) {
			for (p = 1; p <= k; p++) for (q = p + 1; q <= k; q++)
				if (x[q] < x[p]) { t = x[p]; x[p] = x[q]; x[q] = t }
			return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
		}
		END { ma = med(a, i); mb = med(b, j); printf "%.2f %.2f %.2f\n", ma, mb, ma / mb }'
}

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), ${1:-$(git rev-parse --short HEAD)}, load $(cut -d' ' -f1-3 /proc/loadavg), $ROWS sessions, $RUNS runs"
echo "| data | query | ms | against | ms | ratio |"
echo "|---|---|---:|---|---:|---:|"
row() {
	local data=$1 la=$2 qa=$3 lb=$4 qb=$5 r
	r=$(pair "$qa" "$qb")
	read -r ma mb ratio <<<"$r"
	echo "| $data | \`$la\` | $ma | \`$lb\` | $mb | $ratio |"
}
row "1.8 MB, 200k entries" "v::jsonb" "count(v::jsonb) FROM big_m" "t::jsonb (jsonb_in)" "count(t::jsonb) FROM big_t"
row "1.8 MB, 200k entries" "v::json" "count(v::json) FROM big_m" "v::jsonb" "count(v::jsonb) FROM big_m"
row "sessions" "v::jsonb" "count(v::jsonb) FROM sess_m" "t::jsonb (jsonb_in)" "count(t::jsonb) FROM sess_t"
row "sessions" "v::json" "count(v::json) FROM sess_m" "v::jsonb" "count(v::jsonb) FROM sess_m"
row "sessions" "v -> 'locale'" "count(v -> 'locale') FROM sess_m" "j -> 'locale'" "count(j -> 'locale') FROM sess_j"
row "sessions" "v ->> 'locale'" "count(v ->> 'locale') FROM sess_m" "j ->> 'locale'" "count(j ->> 'locale') FROM sess_j"
