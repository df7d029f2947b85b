#!/usr/bin/env bash
# Load test, run inside a throwaway cluster (pg_virtualenv sets PG*; the
# extension must be installed): pgbench, several clients for a fixed time,
# mixing navigation (->, ->>, #>>, ?), ::jsonb, typed casts, rbmarshal_inspect,
# builders writing rows (rbmarshal_build_hash/_array, to_rbmarshal,
# rbmarshal_agg) and updates of the same few rows.  It must end with no failed
# transaction, and every written row valid, as expected, and counted once.
# LOAD_SECONDS (default 20) and LOAD_CLIENTS (default 4) size the run.
# Last line: "load: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../tap.sh"
check() { # description, SQL giving 0 when all is well
	local n
	n=$(q -c "$2" 2>&1)
	if [[ $n == 0 ]]; then ok "$1"; else not_ok "$1: $n"; fi
}
db=rbmarshal_load
seconds=${LOAD_SECONDS:-20}
clients=${LOAD_CLIENTS:-4}
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d $db "$@"; }
scripts=$(mktemp -d)
trap 'rm -rf "$scripts"' EXIT

q <<'SQL'
CREATE EXTENSION rbmarshal;
-- 1,000 session-like values, from Ruby literals
CREATE TABLE src (id int PRIMARY KEY, v rbmarshal NOT NULL);
INSERT INTO src
SELECT i, ('{"user_id" => ' || i || ', "name" => "user ' || i || E' \u00e9", roles: [:admin, :user], '
           '"score" => ' || i || '.5, "tags" => ["a", "b", ' || i || '], "nested" => {"deep" => {"n" => ' || i || '}}}')::rbmarshal
  FROM generate_series(1, 1000) i;
-- what the writers make: built from a src row, or an aggregate of ten
CREATE TABLE written (id bigserial PRIMARY KEY, kind text NOT NULL, src_id int NOT NULL,
                      client int NOT NULL, v rbmarshal NOT NULL, j jsonb NOT NULL);
-- ten rows every client updates
CREATE TABLE counters (id int PRIMARY KEY, v rbmarshal NOT NULL);
INSERT INTO counters SELECT i, rbmarshal_build_hash('id', i, 'n', 0) FROM generate_series(1, 10) i;
SQL

cat >"$scripts/read.sql" <<'SQL'
\set id random(1, 1000)
SELECT v ->> 'name', (v -> 'user_id')::int, (v -> 'score')::float8, (v -> 'user_id')::numeric,
       v #>> '{nested,deep,n}', v -> 'roles' -> 0, v ? 'roles', rbmarshal_typeof(v -> 'tags')
  FROM src WHERE id = :id;
SQL
cat >"$scripts/convert.sql" <<'SQL'
\set id random(1, 1000)
SELECT v::jsonb, v::json, rbmarshal_inspect(v), v::jsonb::rbmarshal FROM src WHERE id = :id;
SQL
cat >"$scripts/build.sql" <<'SQL'
\set id random(1, 1000)
INSERT INTO written (kind, src_id, client, v, j)
SELECT 'build', id, :client_id,
       rbmarshal_build_hash('src', v, 'id', id, 'name', v ->> 'name', 'at', now(), 'ok', true,
                            'tags', rbmarshal_build_array(v -> 'tags', to_rbmarshal(:client_id::int), to_rbmarshal(1.5::float8))),
       v::jsonb
  FROM src WHERE id = :id;
SQL
cat >"$scripts/agg.sql" <<'SQL'
\set id random(1, 991)
INSERT INTO written (kind, src_id, client, v, j)
SELECT 'agg', :id, :client_id, a, a::jsonb
  FROM (SELECT rbmarshal_agg(v ORDER BY id) a FROM src WHERE id BETWEEN :id AND :id + 9) t;
SQL
cat >"$scripts/update.sql" <<'SQL'
\set c random(1, 10)
UPDATE counters SET v = rbmarshal_build_hash('id', id, 'n', (v -> 'n')::int + 1, 'at', now()) WHERE id = :c;
SQL

out=$(pgbench -n -M prepared -c "$clients" -j 2 -T "$seconds" -d "$db" \
	-f "$scripts/read.sql@4" -f "$scripts/convert.sql@2" -f "$scripts/build.sql@2" \
	-f "$scripts/agg.sql@1" -f "$scripts/update.sql@2" 2>&1)
status=$?
processed=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' <<<"$out")
failures=$(sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' <<<"$out")
# per script: "SQL script N: <path>" then " - T transactions (...)"
declare -A done_by
while read -r script n; do done_by[$script]=$n; done < <(awk '
	/^SQL script [0-9]+: / { name = $NF; sub(/.*\//, "", name); sub(/\.sql$/, "", name) }
	/^ - [0-9]+ transactions / { print name, $2 }' <<<"$out")
if ((status == 0)) && [[ $failures == 0 ]] && ((${processed:-0} > 0)); then
	ok "pgbench: $clients clients for ${seconds}s, $processed transactions, 0 failed ($(grep -E '^tps' <<<"$out" | head -n 1))"
else
	not_ok "pgbench (exit $status, ${failures:-?} failed of ${processed:-?}): $(grep -vE '^ - |^SQL script' <<<"$out" | tail -n 15)"
fi
for s in read convert build agg update; do
	((${done_by[$s]:-0} > 0)) || not_ok "script $s ran no transaction"
done

# pgbench -T stops counting when the time is up, but a transaction a client
# had already sent still commits: up to one uncounted transaction per client.
# An expression that is 0 when the rows exceed the count by 0..clients.
excess() { echo "CASE WHEN ($1) BETWEEN 0 AND $clients THEN 0 ELSE ($1) END"; }
check "every written row is valid Marshal" \
	"SELECT count(*) FROM (SELECT v FROM written UNION ALL SELECT v FROM counters) t WHERE NOT rbmarshal_is_valid(v::bytea)"
check "one built row per build transaction (${done_by[build]:-?})" \
	"SELECT $(excess "count(*) - ${done_by[build]:-0}") FROM written WHERE kind = 'build'"
check "one aggregate row per agg transaction (${done_by[agg]:-?})" \
	"SELECT $(excess "count(*) - ${done_by[agg]:-0}") FROM written WHERE kind = 'agg'"
check "built rows hold their source value, id, name and tags" \
	"SELECT count(*) FROM written w JOIN src s ON s.id = w.src_id
	  WHERE w.kind = 'build' AND NOT ((w.v -> 'src') = s.v AND (w.v -> 'id')::int = s.id
	        AND w.v ->> 'name' = s.v ->> 'name' AND (w.v -> 'ok')::boolean
	        AND (w.v -> 'tags') = rbmarshal_build_array(s.v -> 'tags', to_rbmarshal(w.client), to_rbmarshal(1.5::float8))
	        AND w.j = s.v::jsonb AND (w.v -> 'src')::jsonb = w.j)"
check "aggregate rows hold ten source values in order" \
	"SELECT count(*) FROM written w
	  WHERE w.kind = 'agg' AND w.v IS DISTINCT FROM (SELECT rbmarshal_agg(v ORDER BY id) FROM src
	                                                 WHERE id BETWEEN w.src_id AND w.src_id + 9)"
check "every written row converts: ::jsonb equals the stored jsonb, inspect works" \
	"SELECT count(*) FROM written WHERE kind = 'agg' AND (v::jsonb <> j OR rbmarshal_inspect(v) IS NULL)"
check "the counters add up to the update transactions (${done_by[update]:-?})" \
	"SELECT $(excess "sum((v -> 'n')::int) - ${done_by[update]:-0}") FROM counters"
check "the source rows are unchanged" \
	"SELECT count(*) FROM src WHERE (v -> 'user_id')::int <> id OR NOT rbmarshal_is_valid(v::bytea)"
psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
echo "load: $passed passed, $failed failed"
