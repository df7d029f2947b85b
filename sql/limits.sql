-- Limits: the set-returning functions on big values and duplicate keys
-- (timings and memory are in test/ops/run.sh), and one depth limit.

-- a later duplicate key (as the jsonb view's text) keeps the first one's
-- place with the last one's value, as Ruby's load keeps a Hash
SELECT * FROM rbmarshal_each_text('{"a" => 1, :a => 2, "b" => nil, 1 => true, "1" => 2.5, :c => [1, {"x" => "y"}], "c" => :d, 2 => 3}'::rbmarshal);
SELECT * FROM rbmarshal_each('{"a" => 1, :a => 2, 1 => true, "1" => 2.5}'::rbmarshal);
SELECT * FROM rbmarshal_keys('{"a" => 1, :a => 2, 1 => true, "1" => 2.5, :b => 0}'::rbmarshal);
-- keys with one hash (hash_bytes, as hashtext shows) but other bytes stay apart
SELECT hashtext('k191518') = hashtext('k289282') AND hashtext('k8862') = hashtext('k212653') AS colliding;
SELECT * FROM rbmarshal_each_text('{"k191518" => 1, "k289282" => 2, :k191518 => 3, "k8862" => 4, "k212653" => 5, :k289282 => 6, :k212653 => 7}'::rbmarshal);
-- many duplicates: the same pairs as jsonb's (which keeps the last value)
CREATE TABLE limits_dup AS
SELECT ('{' || string_agg(format('"k%s" => %s, :k%s => %s, %s => %s', i % 5000, i, i % 5000, -i, i % 7000, i), ', ') || '}')::rbmarshal AS v
  FROM generate_series(1, 30000) i;
SELECT (SELECT count(*) FROM limits_dup, rbmarshal_keys(v)) AS keys,
       (SELECT count(*) FROM limits_dup, jsonb_object_keys(v::jsonb)) AS jsonb_keys;
SELECT count(*) AS differ FROM (
  (SELECT e.* FROM limits_dup, rbmarshal_each_text(v) e EXCEPT SELECT e.* FROM limits_dup, jsonb_each_text(v::jsonb) e)
  UNION ALL
  (SELECT e.* FROM limits_dup, jsonb_each_text(v::jsonb) e EXCEPT SELECT e.* FROM limits_dup, rbmarshal_each_text(v) e)) d;
WITH c AS MATERIALIZED (SELECT v, v::jsonb AS j FROM limits_dup)
SELECT count(*) AS differ FROM c, rbmarshal_each(c.v) e WHERE e.value::jsonb IS DISTINCT FROM c.j -> e.key;
-- elements: every kind of value as ->> gives it
SELECT * FROM rbmarshal_array_elements_text('[1, -1073741824, nil, true, false, "x", :y, 2.5, [1], {"a" => 1}, 2_000_000_000_000, "\xff", ""]'::rbmarshal) WITH ORDINALITY;
SELECT count(*), sum(x::int) FROM rbmarshal_array_elements_text(('[' || (SELECT string_agg(i::text, ', ') FROM generate_series(1, 100000) i) || ']')::rbmarshal) x;
-- ? on arrays: strings and symbols by their text, other values by their JSON
SELECT '[1, "a", :b, {"c" => 1}, 2.5]'::rbmarshal ? 'b', '[1, "a", :b]'::rbmarshal ? 'c',
       '[1, "a", :b]'::rbmarshal ?& '{a,b}', '[1, "a", :b]'::rbmarshal ?| '{x,1}';
DROP TABLE limits_dup;

-- One depth limit: rbmarshal.max_depth, 1000 levels, fixed.  Every value at
-- the limit is read by every reader under the default max_stack_depth (2MB).
SHOW rbmarshal.max_depth;
CREATE TABLE limits_deep (name text, v rbmarshal);
INSERT INTO limits_deep VALUES
  -- 999 one-element Arrays around an empty one
  ('arrays', ('\x0408' || repeat('5b06', 999) || '5b00')::rbmarshal),
  -- 999 one-pair Hashes {"a" => ...} around an Integer
  ('hashes', ('\x0408' || repeat('7b06220661', 999) || '6906')::rbmarshal),
  -- 998 Arrays around a UTF-8 String (its I wrapper is a level)
  ('string', ('\x0408' || repeat('5b06', 998) || '49220678063a064554')::rbmarshal),
  -- [{"a" => [{"a" => ... nil}]}]: 499 Arrays and 499 Hashes
  ('mixed', ('\x0408' || repeat('5b067b06220661', 499) || '30')::rbmarshal);
SELECT name, length(v::bytea) AS bytes,
       length(v::jsonb::text) AS jsonb, length(v::json::text) AS json,
       length(rbmarshal_to_jsonb(v, 3, 'error')::text) AS to_jsonb,
       length(rbmarshal_inspect(v)) AS inspect,
       length(v ->> 0) AS text0, length((v -> 0)::bytea) AS sub0, length(v #>> '{a}') AS path_a,
       length(v::text::rbmarshal::text) AS text_in,
       v::jsonb::rbmarshal::jsonb = v::jsonb AS jsonb_round_trip
  FROM limits_deep ORDER BY name;
SELECT name, (SELECT count(*) FROM rbmarshal_array_elements_text(v)) AS elements,
       (SELECT sum(length(e::text)) FROM rbmarshal_array_elements(v) e) AS element_bytes
  FROM limits_deep WHERE name <> 'hashes' ORDER BY name;
SELECT (SELECT sum(length(value)) FROM rbmarshal_each_text(v)) AS each_text,
       (SELECT sum(length(value::text)) FROM rbmarshal_each(v)) AS each
  FROM limits_deep WHERE name = 'hashes';

-- what the extension writes its own input reads back: one level more than
-- the limit is refused when written, with the setting that is the limit
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
	hint text;
BEGIN
	BEGIN
		EXECUTE q INTO r;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
		RETURN 'not written: ' || SQLSTATE || ': ' || SQLERRM || ' / ' || hint;
	END;
	BEGIN
		RETURN 'written, ' || CASE WHEN r::rbmarshal::text = r THEN 'reads back' ELSE 'differs' END;
	EXCEPTION WHEN OTHERS THEN
		RETURN 'written, then refused when read back: ' || SQLSTATE || ': ' || SQLERRM;
	END;
END $$;
SELECT q, pg_temp.try(q) FROM (VALUES
  ($$SELECT jsonb_to_rbmarshal((repeat('[', 1000) || repeat(']', 1000))::jsonb)::text$$),
  ($$SELECT jsonb_to_rbmarshal((repeat('[', 2000) || repeat(']', 2000))::jsonb)::text$$),
  ($$SELECT (repeat('{"a": ', 999) || '1' || repeat('}', 999))::jsonb::rbmarshal::text$$),
  ($$SELECT (repeat('{"a": ', 1000) || '1' || repeat('}', 1000))::jsonb::rbmarshal::text$$),
  ($$SELECT rbmarshal_build_array(v)::text FROM limits_deep WHERE name = 'arrays'$$),
  ($$SELECT rbmarshal_build_array(v -> 0)::text FROM limits_deep WHERE name = 'arrays'$$),
  ($$SELECT rbmarshal_build_hash('k', v)::text FROM limits_deep WHERE name = 'hashes'$$),
  ($$SELECT rbmarshal_agg(v)::text FROM limits_deep WHERE name = 'string'$$),
  ($$SELECT rbmarshal_agg(v -> 0)::text FROM limits_deep WHERE name = 'string'$$),
  ($$SELECT rbmarshal_object_agg('k', v)::text FROM limits_deep WHERE name = 'mixed'$$),
  ($$SELECT (repeat('[', 999) || '"x"' || repeat(']', 999))::rbmarshal::text$$),
  ($$SELECT (repeat('[', 998) || '"x"' || repeat(']', 998))::rbmarshal::text$$),
  ($$SELECT (repeat('{"a" => ', 1000) || '1' || repeat('}', 1000))::rbmarshal::text$$)
) t(q);
-- a sub-value re-encoded writes a linked object in full where it is linked:
-- here 900 levels deep, an object 600 deep (defined near the top) would
-- make a 1500-level value, refused as written rather than stored
SELECT rbmarshal_is_valid(('\x0408' || '5b07' || repeat('5b06', 599) || '30' || repeat('5b06', 899) || '4006')::bytea);
SELECT pg_temp.try($$SELECT (v -> 1)::text FROM (SELECT ('\x0408' || '5b07' || repeat('5b06', 599) || '30' || repeat('5b06', 899) || '4006')::rbmarshal AS v) s$$);

-- IMMUTABLE means one answer: no one can change the limit, so an
-- expression index and a scan agree whatever a user sets
CREATE ROLE limits_user;
CREATE TABLE limits_idx (b bytea);
GRANT SELECT ON limits_idx TO limits_user;
INSERT INTO limits_idx VALUES (decode('0408' || repeat('5b06', 10) || '30', 'hex')), (decode('04085b0630', 'hex'));
CREATE INDEX limits_idx_valid ON limits_idx (rbmarshal_is_valid(b));
ANALYZE limits_idx;
SET ROLE limits_user;
SET rbmarshal.max_depth = 5;
SET enable_seqscan = off;
SELECT count(*) AS by_index FROM limits_idx WHERE rbmarshal_is_valid(b);
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS by_scan FROM limits_idx WHERE rbmarshal_is_valid(b);
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET ROLE;
DROP TABLE limits_idx, limits_deep;
DROP ROLE limits_user;
