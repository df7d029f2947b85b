-- Writing Marshal from SQL: every builder's bytes equal what Ruby's
-- Marshal.dump writes for the Ruby value of the same meaning
-- (test/builders/generate.rb puts the SQL and the Ruby side by side).

CREATE TABLE builders (name text PRIMARY KEY, sql text, hex text);
\copy builders FROM 'test/builders/builders.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
CREATE FUNCTION pg_temp.build(expr text) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
	result bytea;
BEGIN
	EXECUTE 'SELECT (' || expr || ')::bytea' INTO result;
	RETURN result;
END $$;
SELECT count(*) AS cases FROM builders;
SELECT name, pg_temp.build(sql) AS ours, hex AS ruby FROM builders
 WHERE pg_temp.build(sql) <> decode(hex, 'hex') ORDER BY name;

-- a PStore file built in SQL, read back
SELECT rbmarshal_inspect(pg_temp.build(sql)::rbmarshal) FROM builders WHERE name = 'pstore';

-- a session row written from SQL, as activerecord-session_store stores it
SELECT encode(rbmarshal_build_hash('session_id', 'd3c5f2ab', 'user_id', 42,
                                   'flash', '{"discard" => [], "flashes" => {}}'::rbmarshal)::bytea,
              'base64') AS session_data;
SELECT rbmarshal_inspect(encode(rbmarshal_build_hash('session_id', 'd3c5f2ab', 'user_id', 42)::bytea,
                                'base64')::rbmarshal);

-- NULLs are nil; other SQL types are refused with a hint
SELECT rbmarshal_inspect(rbmarshal_build_hash('a', NULL::text, 'b', NULL::int));
SELECT rbmarshal_build_array();
\set VERBOSITY terse
SELECT rbmarshal_build_hash('a');
SELECT rbmarshal_build_hash('a', '1 day'::interval);
SELECT to_rbmarshal('infinity'::timestamptz);
SELECT to_rbmarshal('NaN'::numeric);
SELECT rbmarshal_object_agg(NULL::text, 'nil'::rbmarshal);
