#!/usr/bin/env bash
# Checks the navigation that test/diff/generate.rb does in Ruby (json_view.rb) against
# PostgreSQL's own jsonb #> (throwaway cluster from pg_virtualenv; run as root on Debian):
# for every row of paths.tsv, the JSON of the whole value #> path::text[] is the JSON of
# the expected sub-value, or NULL when expected_hex is NULL.  This also checks that each
# path literal reads as the steps Ruby used (quoting, NULL elements, "+1", " 1"...).
# Prints "paths-jsonb: N passed, N failed" (one test per row).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"
export LC_ALL=C.UTF-8 LANG=C.UTF-8 # a UTF8 cluster
if ! ruby test/diff/generate.rb "$out" --raw >"$out/log" 2>&1; then
	cat "$out/log"
	echo "paths-jsonb: 0 passed, 1 failed"
	exit 1
fi
if ! cmp -s "$out/paths.tsv" test/diff/paths.tsv; then
	echo "test/diff/paths.tsv differs from what Ruby generates now (run generate.rb)"
	echo "paths-jsonb: 0 passed, 1 failed"
	exit 1
fi
# CSV with a quote character that never occurs, so every byte is taken as is
opts="(FORMAT csv, DELIMITER E'\\t', QUOTE E'\\x01')"
cat >"$out/check.sql" <<EOF
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
SELECT 'server_encoding ' || current_setting('server_encoding');
CREATE TEMP TABLE paths (name text, doc text, path text, expected text);
\copy paths FROM '$out/paths_json.tsv' WITH $opts
SELECT 'rows ' || count(*) FROM paths;
SELECT 'FAIL ' || name || ' ' || path || ': jsonb gives '
       || coalesce(left((doc::jsonb #> path::text[])::text, 200), 'NULL')
       || ', Ruby ' || left(expected, 200)
  FROM paths
 WHERE (doc::jsonb #> path::text[]) IS DISTINCT FROM
       (CASE WHEN expected = 'NULL' THEN NULL ELSE expected::jsonb END);
EOF
if ! pg_virtualenv -t psql -X -f "$out/check.sql" >"$out/psql.log" 2>&1; then
	tail -n 20 "$out/psql.log"
	echo "paths-jsonb: 0 passed, 1 failed"
	exit 1
fi
grep -E '^(server_encoding|rows) ' "$out/psql.log"
grep -E '^FAIL ' "$out/psql.log" | head -n 50
if ! grep -qx 'server_encoding UTF8' "$out/psql.log"; then
	echo "the cluster is not UTF8"
	echo "paths-jsonb: 0 passed, 1 failed"
	exit 1
fi
total=$(sed -n 's/^rows //p' "$out/psql.log")
failed=$(grep -cE '^FAIL ' "$out/psql.log")
echo "paths-jsonb: $((total - failed)) passed, $failed failed"
[[ $failed -eq 0 ]]
