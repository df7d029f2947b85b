#!/usr/bin/env bash
# Operational tests, run inside a throwaway cluster (pg_virtualenv sets PG*):
#   - converting a million rows in one query keeps backend memory flat;
#   - statement_timeout and pg_cancel_backend stop work on a ~100 MB value;
#   - pg_dump / pg_restore round-trip an rbmarshal column byte for byte.
# The extension must be installed.  Last line: "ops: N passed, N failed".
set -uo pipefail
passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
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
start=$(date +%s.%N)
out=$(psql -X -q -At -d $db -c "SET statement_timeout = '150ms'" -c "SELECT length(v::jsonb::text) FROM big" 2>&1)
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
if grep -q "statement timeout" <<<"$out" && (($(echo "$elapsed < 1" | bc))); then
	ok "statement_timeout stopped converting a $size-byte value after ${elapsed}s"
else
	not_ok "statement_timeout did not stop the conversion in time (${elapsed}s): $out"
fi
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

# pg_dump / pg_restore round trip, byte for byte
q -c "DROP TABLE big" -c "CREATE TABLE t (id int PRIMARY KEY, v rbmarshal)" \
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
