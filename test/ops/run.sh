#!/usr/bin/env bash
# Operational tests, run inside a throwaway cluster (pg_virtualenv sets PG*):
#   - converting a million rows in one query keeps backend memory flat;
#   - statement_timeout and pg_cancel_backend stop work on a ~100 MB value;
#   - the set-returning functions are linear, keep memory flat and stop at
#     a statement_timeout on a 1M-key Hash and a 5M-element Array;
#   - pg_dump / pg_restore round-trip an rbmarshal column byte for byte.
# The extension must be installed.  Last line: "ops: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../tap.sh"
db=rbmarshal_ops
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "DROP DATABASE IF EXISTS ${db}_restored" -c "CREATE DATABASE $db" >/dev/null
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d $db "$@"; }
q -c "CREATE EXTENSION rbmarshal"

# memory: a backend's peak RSS after converting 1M rows in one query stays
# close to its peak after 10k (each row's work is freed with the row)
peak_after() {
	psql -X -q -At -d $db <<SQL
SELECT count($1) FROM (SELECT ('{"a" => [' || i || ', "x' || i || '", 1.5], b: {c: :d}}')::rbmarshal AS v
                         FROM generate_series(1, $2) i) t \\g /dev/null
SELECT pg_backend_pid() AS pid \\gset
\\setenv RBMARSHAL_PID :pid
\\! grep VmHWM /proc/\$RBMARSHAL_PID/status | tr -s ' ' | cut -d' ' -f2
SQL
}
for expr in "v::jsonb" "v -> 'a'" "rbmarshal_inspect(v)" "v::jsonb::rbmarshal"; do
	small=$(peak_after "$expr" 10000)
	big=$(peak_after "$expr" 1000000)
	if [[ -n $small && -n $big ]] && ((big < small + 10000)); then
		ok "$expr over 1M rows in one query: flat memory (peak RSS ${small} kB after 10k rows, ${big} kB after 1M)"
	else
		not_ok "$expr: memory grew (peak RSS ${small:-?} kB after 10k rows, ${big:-?} kB after 1M)"
	fi
done

# a ~100 MB value: an Array of 8M short strings
q -c "CREATE TABLE big AS SELECT ('\\x04085b0400127a00' || repeat('49220a68656c6c6f063a064554', 1) || repeat('49220a68656c6c6f063b0054', 7999999))::rbmarshal AS v"
size=$(q -c "SELECT length(v::bytea) FROM big")
# statement_timeout $1 must stop "SELECT $3" within $2 seconds
stops_at_timeout() {
	local start out elapsed
	start=$(date +%s.%N)
	out=$(psql -X -q -At -d $db -c "SET statement_timeout = '$1'" -c "SELECT $3" 2>&1)
	elapsed=$(echo "$(date +%s.%N) - $start" | bc)
	if grep -q "statement timeout" <<<"$out" && (($(echo "$elapsed < $2" | bc))); then
		ok "a $1 statement_timeout stopped SELECT $3 ($4) after ${elapsed}s"
	else
		not_ok "a $1 statement_timeout did not stop SELECT $3 ($4) in time (${elapsed}s): $out"
	fi
}
stops_at_timeout 150ms 1 "length(v::jsonb::text) FROM big" "a $size-byte value"
psql -X -q -At -d $db -c "SELECT length(v::jsonb::text) FROM big" >/tmp/rbmarshal_ops_cancel.out 2>&1 &
victim=$!
sleep 0.2
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%v::jsonb::text%' AND pid <> pg_backend_pid()" >/dev/null
start=$(date +%s.%N)
wait $victim
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
if grep -q "canceling statement due to user request" /tmp/rbmarshal_ops_cancel.out && (($(echo "$elapsed < 2" | bc))); then
	ok "pg_cancel_backend stopped converting the big value within ${elapsed}s"
else
	not_ok "cancel did not stop the conversion in time (${elapsed}s): $(cat /tmp/rbmarshal_ops_cancel.out)"
fi
# the connection and server are fine afterwards
if [[ $(q -c "SELECT 'BAgw'::rbmarshal::text") == '\x040830' ]]; then
	ok "server still answers after cancels"
else
	not_ok "server does not answer after cancels"
fi

# the set-returning functions on big values: linear time (a 1M-key Hash
# took minutes when each key rescanned the ones before), memory that does
# not grow with the elements, and cancels honoured while they run
q -c "DROP TABLE big" \
  -c "CREATE TABLE hash1m AS SELECT jsonb_object_agg('key' || i, i)::rbmarshal AS v FROM generate_series(1, 1000000) i" \
  -c "CREATE TABLE arr5m AS SELECT jsonb_agg(i)::rbmarshal AS v FROM generate_series(1, 5000000) i" \
  -c "CREATE TABLE hashes AS SELECT jsonb_agg(jsonb_build_object('a', i))::rbmarshal AS v FROM generate_series(1, 500000) i" \
  -c "CREATE TABLE dates AS SELECT rbmarshal_agg(to_rbmarshal(date '2000-01-01' + i)) AS v FROM generate_series(1, 500000) i" \
  -c "CREATE TABLE times AS SELECT rbmarshal_agg(to_rbmarshal(timestamptz '2000-01-01 00:00:00+00' + i * interval '10 ms')) AS v FROM generate_series(1, 1000000) i"
# peak RSS growth (kB) of one backend running $1 (the answer must be $2)
srf_run() {
	psql -X -q -At -d $db <<SQL 2>&1
SET statement_timeout = '60s';
SELECT pg_backend_pid() AS pid \\gset
\\setenv RBMARSHAL_PID :pid
\\! grep VmHWM /proc/\$RBMARSHAL_PID/status | tr -s ' ' | cut -d' ' -f2
$1;
\\! grep VmHWM /proc/\$RBMARSHAL_PID/status | tr -s ' ' | cut -d' ' -f2
SQL
}
for srf in "count(*) FROM hash1m, rbmarshal_keys(v)|1000000" \
	"count(value) FROM hash1m, rbmarshal_each(v)|1000000" \
	"sum(value::int) FROM hash1m, rbmarshal_each_text(v)|500000500000" \
	"count(*) FROM arr5m, rbmarshal_array_elements(v)|5000000" \
	"sum(x::bigint) FROM arr5m, rbmarshal_array_elements_text(v) x|12500002500000" \
	"v ?| ARRAY['x', 'y'] FROM hashes|f" \
	"v ?| ARRAY['x', 'y'] FROM dates|f"; do
	sql="SELECT ${srf%|*}"
	start=$(date +%s.%N)
	out=$(srf_run "$sql")
	elapsed=$(echo "$(date +%s.%N) - $start" | bc)
	mapfile -t lines <<<"$out"
	grown=$((${lines[2]:-0} - ${lines[0]:-0}))
	if [[ ${lines[1]} == "${srf##*|}" ]] && ((grown < 300000)); then
		ok "$sql: ${elapsed}s, peak RSS +${grown} kB"
	else
		not_ok "$sql: ${elapsed}s, peak RSS +${grown} kB: $out"
	fi
done
# (?| on an Array of Times of one day with keys of that day: each element's
# day passes the key's, so each is converted; Dates with keys no Date's
# view can be, or Hash elements, are ruled out too fast for a timeout)
for srf in "count(*) FROM hash1m, rbmarshal_each_text(v)" \
	"count(*) FROM arr5m, rbmarshal_array_elements_text(v)" \
	"count(*) FROM arr5m, rbmarshal_array_elements(v)" \
	"v ?| ARRAY['2000-01-01T23:59:59.999Z', '2000-01-01T23:59:59.998Z'] FROM times" \
	"v ?| ARRAY(SELECT 'x' || i FROM generate_series(1, 64) i) FROM hash1m"; do
	stops_at_timeout 100ms 1.5 "$srf" "a big value"
done
q -c "DROP TABLE hash1m, arr5m, hashes, dates, times"

# pg_dump / pg_restore round trip, byte for byte
q -c "CREATE TABLE t (id int PRIMARY KEY, v rbmarshal)" \
  -c "INSERT INTO t SELECT i, ('[' || i || ', \"é\", :s, 1.5, {\"k\" => nil}]')::rbmarshal FROM generate_series(1, 1000) i"
before=$(q -c "SELECT md5(string_agg(v::bytea::text, ',' ORDER BY id)) FROM t")
pg_dump -Fc -d $db -f /tmp/rbmarshal_ops.dump
psql -X -q -d postgres -c "CREATE DATABASE ${db}_restored" >/dev/null
pg_restore -d ${db}_restored /tmp/rbmarshal_ops.dump
after=$(psql -X -q -At -d ${db}_restored -c "SELECT md5(string_agg(v::bytea::text, ',' ORDER BY id)) FROM t")
if [[ -n $before && $before == "$after" ]]; then
	ok "pg_dump/pg_restore round-trips 1000 values byte for byte"
else
	not_ok "pg_dump/pg_restore changed the values ($before vs $after)"
fi
psql -X -q -d postgres -c "DROP DATABASE $db" -c "DROP DATABASE ${db}_restored" >/dev/null
rm -f /tmp/rbmarshal_ops.dump /tmp/rbmarshal_ops_cancel.out
echo "ops: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
