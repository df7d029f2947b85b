-- Differential tests against Ruby: test/diff/generate.rb recorded what Ruby
-- 3.1 + ActiveSupport wrote for thousands of values (see test/diff/README.md).
\i sql/include/shared_tables.sql
CREATE TABLE from_json (name text PRIMARY KEY, json text, hex text, hex_symbolized text);
\copy from_json FROM 'test/diff/from_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
SELECT count(*) > 2000 AS many_to_json FROM to_json;
SELECT count(*) > 1000 AS many_from_json FROM from_json;

CREATE FUNCTION pg_temp.jsonb_text(v rbmarshal) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN v::jsonb::text;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- v::jsonb equals JSON.parse(ActiveSupport::JSON.encode(Marshal.load(v))),
-- compared as jsonb text (not just =)
SELECT name, pg_temp.jsonb_text(('\x' || hex)::rbmarshal) AS ours, expected::jsonb::text AS ruby
  FROM to_json
 WHERE pg_temp.jsonb_text(('\x' || hex)::rbmarshal) IS DISTINCT FROM expected::jsonb::text
 ORDER BY name;

-- j::rbmarshal equals Marshal.dump(JSON.parse(j::text)) byte for byte
SELECT name, json FROM from_json
 WHERE json::jsonb::rbmarshal::bytea <> decode(hex, 'hex')
 ORDER BY name;
SELECT name, json FROM from_json
 WHERE jsonb_to_rbmarshal(json::jsonb, true)::bytea <> decode(hex_symbolized, 'hex')
 ORDER BY name;
-- and back: the jsonb of what was written is the document itself
SELECT name FROM from_json
 WHERE json::jsonb::rbmarshal::jsonb <> json::jsonb
 ORDER BY name;
