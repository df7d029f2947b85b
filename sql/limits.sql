-- Limits: the set-returning functions on big values and duplicate keys
-- (timings and memory are in test/ops/run.sh), and one depth limit.

-- a later duplicate key (as the jsonb view's text) keeps the first one's
-- place with the last one's value, as Ruby's load keeps a Hash
SELECT * FROM rbmarshal_each_text('{"a" => 1, :a => 2, "b" => nil, 1 => true, "1" => 2.5, :c => [1, {"x" => "y"}], "c" => :d, 2 => 3}'::rbmarshal);
SELECT * FROM rbmarshal_each('{"a" => 1, :a => 2, 1 => true, "1" => 2.5}'::rbmarshal);
SELECT * FROM rbmarshal_keys('{"a" => 1, :a => 2, 1 => true, "1" => 2.5, :b => 0}'::rbmarshal);
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
SELECT count(*) AS differ FROM limits_dup, rbmarshal_each(v) e WHERE e.value::jsonb IS DISTINCT FROM v::jsonb -> e.key;
-- elements: every kind of value as ->> gives it
SELECT * FROM rbmarshal_array_elements_text('[1, -1073741824, nil, true, false, "x", :y, 2.5, [1], {"a" => 1}, 2_000_000_000_000, "\xff", ""]'::rbmarshal) WITH ORDINALITY;
SELECT count(*), sum(x::int) FROM rbmarshal_array_elements_text(('[' || (SELECT string_agg(i::text, ', ') FROM generate_series(1, 100000) i) || ']')::rbmarshal) x;
-- ? on arrays: strings and symbols by their text, other values by their JSON
SELECT '[1, "a", :b, {"c" => 1}, 2.5]'::rbmarshal ? 'b', '[1, "a", :b]'::rbmarshal ? 'c',
       '[1, "a", :b]'::rbmarshal ?& '{a,b}', '[1, "a", :b]'::rbmarshal ?| '{x,1}';
DROP TABLE limits_dup;
