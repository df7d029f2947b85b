#!/usr/bin/env bash
# Checks the jsonb rendering that test/diff/generate.rb does in Ruby against a real
# PostgreSQL (throwaway cluster from pg_virtualenv; run as root on Debian):
#   - every raw document (duplicate keys, exponents, \u escapes, original key order)
#     becomes exactly the stored json_text:  raw::jsonb::text = json_text
#   - every json_text is a fixed point:      json_text::jsonb::text = json_text
#   - every expected_json of to_json.tsv is accepted by jsonb
# Prints "jsonb-canonical: N passed, N failed" (one test per row and check).
suite=jsonb-canonical
. "$(dirname "$0")/verify.sh"
verify_in_postgres total <<EOF
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
