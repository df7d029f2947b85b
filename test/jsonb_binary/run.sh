#!/usr/bin/env bash
# test/jsonb_binary/run.sh -- v::jsonb, written in jsonb's binary format by
# src/rbmarshal_jsonb_binary.c, must be the very bytes jsonb_in makes of the
# same JSON text.  Run inside a throwaway cluster with the extension
# installed: pg_virtualenv -t bash test/jsonb_binary/run.sh
#
# Inputs: every Marshal stream the repository holds (each hex field of
# test/**/*.tsv, the .bin fixtures, the fuzz regression inputs and the local
# fuzz corpora), and Integers and Floats at the edges of numeric's base-10000
# digits, made by jsonb_to_rbmarshal.  For each valid one that converts, the
# datum's bytes (jsonb_raw, a helper built here) of v::jsonb must equal those
# of jsonb_in(v::jsonb::text) and of jsonb_in(v::json::text), and the same for
# rbmarshal_to_jsonb(v, 0, 'replace').  Last line: "jsonb-binary: N passed,
# N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
pgc=${PG_CONFIG:-pg_config}
${CC:-gcc} -O2 -fPIC -shared -Wall -Werror -I"$($pgc --includedir-server)" \
	-o "$tmp/jsonb_raw.so" test/jsonb_binary/jsonb_raw.c

tohex() { od -An -v -tx1 "$1" | tr -d ' \n'; echo; }
{
	find test -name '*.tsv' -print0 | xargs -0 cat |
		tr '\t' '\n' | grep -aE '^0408([0-9a-fA-F]{2})*$' || true
	for f in test/fixtures/*.bin test/fuzz/regressions/*/* \
		test/fuzz/corpus/fuzz_validate/* test/fuzz/corpus/fuzz_walk/*; do
		if [[ -f $f ]]; then tohex "$f"; fi
	done
} | sort -u >"$tmp/inputs"
chmod 644 "$tmp"/*

db=rbmarshal_jsonb_binary
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
psql -X -q -At -v ON_ERROR_STOP=1 -d $db <<SQL
SET client_min_messages = warning;
CREATE EXTENSION rbmarshal;
CREATE FUNCTION jsonb_raw(jsonb) RETURNS bytea AS '$tmp/jsonb_raw.so', 'jsonb_raw'
	LANGUAGE C STRICT IMMUTABLE;
CREATE TABLE input (n serial, hex text);
\copy input (hex) FROM '$tmp/inputs'
-- numbers around base-10000 digit, int64 and Fixnum edges, and Floats
INSERT INTO input (hex)
SELECT encode(jsonb_to_rbmarshal(x::jsonb)::bytea, 'hex')
  FROM (SELECT (s * m)::text AS x
          FROM generate_series(-3, 3) s,
               (SELECT 10::numeric ^ e + d AS m
                  FROM generate_series(0, 25) e, generate_series(-1, 1) d
                UNION SELECT 2::numeric ^ e + d
                  FROM generate_series(29, 66) e, generate_series(-1, 1) d) ms
        UNION SELECT x::text FROM generate_series(-20001, 20001, 37) x
        UNION SELECT unnest(ARRAY['0.5', '-0.25', '1e20', '1.5e-05', '123456.789',
                                  '1e-7', '-0', '0.1', '3.14159e300', '2.5e-300',
                                  '[1, -1, 10000, 1e300, "x", null, true, false, {}]',
                                  '{"b": 1, "a": [2, {"d": 3.5, "c": "é"}], "aa": null}'])) t;
CREATE FUNCTION check_one(hex text, OUT ok boolean, OUT note text) AS \$\$
DECLARE
	v rbmarshal;
	j jsonb;
	j0 jsonb;
BEGIN
	BEGIN
		v := decode(hex, 'hex')::rbmarshal;
		j := v::jsonb;
		j0 := rbmarshal_to_jsonb(v, 0, 'replace');
	EXCEPTION WHEN others THEN
		ok := NULL;				-- invalid or not convertible: not counted
		RETURN;
	END;
	IF jsonb_raw(j) IS DISTINCT FROM jsonb_raw(j::text::jsonb) THEN
		ok := false; note := 'v::jsonb differs from jsonb_in(v::jsonb::text)';
	ELSIF jsonb_raw(j) IS DISTINCT FROM jsonb_raw(v::json::text::jsonb) THEN
		ok := false; note := 'v::jsonb differs from jsonb_in(v::json::text)';
	ELSIF jsonb_raw(j0) IS DISTINCT FROM jsonb_raw(j0::text::jsonb) THEN
		ok := false; note := 'rbmarshal_to_jsonb(v, 0, replace) differs from jsonb_in of its text';
	ELSE
		ok := true;
	END IF;
END
\$\$ LANGUAGE plpgsql;
CREATE TABLE result AS SELECT n, hex, (check_one(hex)).* FROM input;
SELECT 'not ok ' || n || ' ' || note || ': ' || left(hex, 200) FROM result WHERE NOT ok ORDER BY n LIMIT 10;
SELECT 'inputs: ' || count(*) || ', converted: ' || count(ok) FROM result;
SELECT 'jsonb-binary: ' || count(*) FILTER (WHERE ok) || ' passed, ' ||
       count(*) FILTER (WHERE NOT ok) || ' failed' FROM result;
SQL
psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
