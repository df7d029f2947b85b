#!/usr/bin/env bash
# Checks the navigation that test/diff/generate.rb does in Ruby (json_view.rb) against
# PostgreSQL's own jsonb #> (throwaway cluster from pg_virtualenv; run as root on Debian):
# for every row of paths.tsv, the JSON of the whole value #> path::text[] is the JSON of
# the expected sub-value, or NULL when expected_hex is NULL.  This also checks that each
# path literal reads as the steps Ruby used (quoting, NULL elements, "+1", " 1"...).
# Prints "paths-jsonb: N passed, N failed" (one test per row).
suite=paths-jsonb
. "$(dirname "$0")/verify.sh"
cmp -s "$out/paths.tsv" test/diff/paths.tsv ||
	verify_fail "test/diff/paths.tsv differs from what Ruby generates now (run generate.rb)"
verify_in_postgres rows <<EOF
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
