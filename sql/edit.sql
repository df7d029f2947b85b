-- Changing values: every result equals the bytes MRI writes for
-- Marshal.dump(x) after the same change is made in Ruby to
-- x = Marshal.load(v) (test/edit/generate.rb makes the cases and Ruby's
-- answers: random values, random edits at random paths, renames of the same
-- graph built with each name, the classes each value references).

CREATE TABLE edits (name text PRIMARY KEY, sql text, expected text);
\copy edits FROM 'test/edit/edits.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
CREATE FUNCTION pg_temp.run(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	result text;
BEGIN
	EXECUTE 'SELECT ' || expr INTO result;
	RETURN result;
EXCEPTION WHEN others THEN
	RETURN 'ERROR: ' || SQLERRM;
END $$;
SELECT split_part(name, '_', 1) AS kind, count(*) AS cases FROM edits GROUP BY 1 ORDER BY 1;
-- the cases whose result differs from Ruby's (none)
SELECT name, pg_temp.run(sql) AS ours, expected AS ruby FROM edits
 WHERE pg_temp.run(sql) IS DISTINCT FROM coalesce(expected, '') ORDER BY name;

-- Literals and builders compose with the changes
SELECT rbmarshal_inspect(rbmarshal_set('{user: {id: 1, roles: []}}', '{user,roles}', '[:admin]'));
SELECT rbmarshal_inspect(rbmarshal_set('{user: {id: 1}}', '{user,name}', to_rbmarshal('Ann'::text)));
SELECT rbmarshal_inspect(rbmarshal_set('{"a" => 1}', '{b}', '2'));
SELECT rbmarshal_inspect(rbmarshal_set('{}', '{b}', '2'));
SELECT rbmarshal_inspect(rbmarshal_set('[1, 2]', '{5}', '3')),
       rbmarshal_inspect(rbmarshal_set('[1, 2]', '{-5}', '0')),
       rbmarshal_inspect(rbmarshal_set('[1, 2]', '{-1}', '9'));
-- nothing to change: the value as it is
SELECT rbmarshal_set('{a: 1}', '{b}', '2', false) = '{a: 1}'::rbmarshal AS unchanged,
       rbmarshal_set('{a: 1}', '{x,y}', '2') = '{a: 1}'::rbmarshal AS missing_step,
       rbmarshal_set('{a: 1}', '{}', '2') = '{a: 1}'::rbmarshal AS empty_path,
       ('{a: 1}'::rbmarshal - 'b') = '{a: 1}'::rbmarshal AS no_key,
       ('[1]'::rbmarshal - 3) = '[1]'::rbmarshal AS no_index;
SELECT rbmarshal_inspect(rbmarshal_insert('[1, 2]', '{1}', '9')),
       rbmarshal_inspect(rbmarshal_insert('[1, 2]', '{1}', '9', true)),
       rbmarshal_inspect(rbmarshal_insert('{a: 1}', '{b}', '2'));
SELECT rbmarshal_inspect('{a: 1, b: 2, "c" => 3}'::rbmarshal - '{a,c}'::text[]),
       rbmarshal_inspect('["a", :a, "b", 1]'::rbmarshal - 'a'),
       rbmarshal_inspect('{a: {b: 1, c: 2}}'::rbmarshal #- '{a,b}');
SELECT rbmarshal_inspect('{a: 1, b: 2}'::rbmarshal || '{b: 3, c: 4}'),
       rbmarshal_inspect('[1]'::rbmarshal || '[2, [3]]');

-- a shared Hash changes at both places; a replaced shared value stays at the other
-- (h = {a: 1}; [h, h] is 04085b077b063a066169064006)
SELECT rbmarshal_inspect(rbmarshal_set(v, '{0,a}', '2')) AS both_changed,
       rbmarshal_inspect(rbmarshal_set(v, '{0}', '2')) AS other_kept,
       rbmarshal_inspect(v - 0) AS other_kept_too
  FROM (SELECT '\x04085b077b063a066169064006'::bytea::rbmarshal AS v) s;

-- the classes a value references, in the order the stream names them
SELECT rbmarshal_classes('\x04085b0a6f3a08466f6f00653a064d6f3b000049433a0653220661063a0645547b063a06616906533a075374063b096906'::bytea::rbmarshal);
SELECT count(*) FROM rbmarshal_classes('[1, "a", {b: 2}]');

-- Containment and jsonpath on the type: the jsonb view's answers, by
-- inlined SQL functions, so an expression index on (v::jsonb) serves them
CREATE TABLE edit_cache (key text, value rbmarshal);
INSERT INTO edit_cache
SELECT 'k' || i, rbmarshal_build_hash('user_id', i, 'roles',
       CASE WHEN i % 100 = 0 THEN '[:admin]'::rbmarshal ELSE '[:user]'::rbmarshal END)
  FROM generate_series(1, 2000) i;
CREATE INDEX edit_cache_jsonb ON edit_cache USING gin ((value::jsonb) jsonb_path_ops);
ANALYZE edit_cache;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT key FROM edit_cache WHERE value @> '{"roles": ["admin"]}';
EXPLAIN (COSTS OFF) SELECT key FROM edit_cache WHERE value @? '$.roles[*] ? (@ == "admin")';
EXPLAIN (COSTS OFF) SELECT key FROM edit_cache WHERE value @@ '$.user_id == 42';
SELECT count(*) FILTER (WHERE value @> '{"roles": ["admin"]}') AS contains,
       count(*) FILTER (WHERE value @? '$.roles[*] ? (@ == "admin")') AS path_exists,
       count(*) FILTER (WHERE value @@ '$.user_id < 10') AS path_match
  FROM edit_cache;
RESET enable_seqscan;
SELECT count(*) FILTER (WHERE value <@ '{"roles": ["user"], "user_id": 1, "x": 2}') AS contained
  FROM edit_cache;
SELECT rbmarshal_path_query('{a: [1, 2, {b: :c}]}', '$.a[*]');
-- the same answers as jsonb's operators on the view, for every fixture value
\i sql/include/shared_tables.sql
SELECT count(*) AS values,
       count(*) FILTER (WHERE (v @> j) IS DISTINCT FROM (v::jsonb @> j)
                         OR (v <@ j) IS DISTINCT FROM (v::jsonb <@ j)
                         OR (v @? '$.**') IS DISTINCT FROM (v::jsonb @? '$.**')
                         OR (v @@ 'exists($.a)') IS DISTINCT FROM (v::jsonb @@ 'exists($.a)')) AS differ
  FROM (SELECT decode(hex, 'hex')::rbmarshal AS v, '{"a": 1}'::jsonb AS j
          FROM to_json WHERE expected NOT LIKE 'ERROR%') t;

-- refusals
\set VERBOSITY terse
SELECT '1'::rbmarshal - 'a';
SELECT '{a: 1}'::rbmarshal - 1;
SELECT rbmarshal_set('[1]', '{x}', '2');
SELECT rbmarshal_insert('{a: 1}', '{a}', '2');
SELECT '{a: 1}'::rbmarshal || '[1]';
SELECT '"a"'::rbmarshal || '"b"';
SELECT rbmarshal_rename_class('[]', 'Foo', 'not a name');
SELECT rbmarshal_rename_class('[]', '::Foo', 'Bar');
SELECT rbmarshal_set('[1]', ARRAY[NULL]::text[], '2');
\set VERBOSITY default

-- every changing function is IMMUTABLE STRICT PARALLEL SAFE
SELECT p.oid::regprocedure, p.provolatile, p.proisstrict, p.proparallel
  FROM pg_proc p
 WHERE p.proname IN ('rbmarshal_classes', 'rbmarshal_rename_class', 'rbmarshal_delete',
                     'rbmarshal_delete_path', 'rbmarshal_set', 'rbmarshal_insert', 'rbmarshal_concat')
   AND (p.provolatile <> 'i' OR NOT p.proisstrict OR p.proparallel <> 's');

-- #- whose last step is an Array position deletes at it, as jsonb's #- and
-- Ruby's delete_at (expected bytes from Ruby 3.1)
SELECT encode((decode(v, 'hex')::rbmarshal #- p)::bytea, 'hex') = want AS deletes_at
  FROM (VALUES ('04085b0769066907', '{0}'::text[], '04085b066907'),
			   ('04087b063a06615b08690669076908', '{a,-1}', '04087b063a06615b0769066907'),
			   ('04087b0649220661063a0645545b0769065b0769076908', '{a,1,0}',
				'04087b0649220661063a0645545b0769065b066908')) t(v, p, want);
SELECT '[1, 2]'::rbmarshal #- '{x}';
