-- Every function of the extension, called by a database owner without
-- superuser who installed it (test/security/run.sh checks that each member
-- function's name appears here: add a call with every new function).
-- Called through the type, operators, casts and aggregates: rbmarshal_in
-- rbmarshal_out rbmarshal_recv rbmarshal_send rbmarshal_subscript_handler
-- rbmarshal_eq rbmarshal_ne rbmarshal_lt rbmarshal_le rbmarshal_gt
-- rbmarshal_ge rbmarshal_cmp rbmarshal_sortsupport rbmarshal_hash
-- rbmarshal_hash_extended rbmarshal_agg_transfn rbmarshal_agg_finalfn
-- rbmarshal_object_agg_transfn rbmarshal_object_agg_finalfn
-- rbmarshal_object_field rbmarshal_object_field_text rbmarshal_array_element
-- rbmarshal_array_element_text rbmarshal_extract_path
-- rbmarshal_extract_path_text rbmarshal_exists rbmarshal_exists_any
-- rbmarshal_exists_all rbmarshal_jsonb rbmarshal_json rbmarshal_to_numeric
-- rbmarshal_to_int8 rbmarshal_to_int4 rbmarshal_to_float8 rbmarshal_to_bool
-- rbmarshal_to_timestamptz rbmarshal_to_date; by rbmarshal_migrate:
-- rbmarshal_migration_start rbmarshal_migration_batch
-- rbmarshal_migration_expr rbmarshal_migration_key_op
-- rbmarshal_migration_lock_key rbmarshal_migration_unlock
-- rbmarshal_migration_stopped.
\set ON_ERROR_STOP on
CREATE TABLE t (id int PRIMARY KEY, v rbmarshal, src text, dst jsonb, b bytea, m rbmarshal);
INSERT INTO t VALUES (1, '{"a" => [1, 2.5, "x"], :b => nil, "t" => true, "n" => 7}', 'BAh7BkkiBmsGOgZFVGkG', NULL, '\x04087b00', NULL),
	(2, '[1, 2]', 'not marshal', NULL, '\x0408ff', NULL);
CREATE INDEX ON t (v);
CREATE INDEX ON t USING hash (v);
SELECT v = v, v <> v, v < v, v <= v, v > v, v >= v FROM t ORDER BY v;
SELECT count(DISTINCT v) FROM t;
COPY (SELECT v FROM t) TO STDOUT WITH (FORMAT binary);
SELECT v -> 'a', v ->> 'b', v -> 0, v ->> 1, v #> '{a,0}', v #>> '{a,2}', v ? 'a', v ?| '{a,z}', v ?& '{a,b}', v['a'][2]
  FROM t ORDER BY id;
SELECT v::jsonb, v::json, rbmarshal_to_jsonb(v, 6, 'replace'), rbmarshal_typeof(v), rbmarshal_class(v), rbmarshal_inspect(v)
  FROM t ORDER BY id;
SELECT (v -> 'n')::numeric, (v -> 'n')::bigint, (v -> 'n')::integer, (v -> 'n')::float8, (v -> 't')::boolean FROM t WHERE id = 1;
SELECT rbmarshal_from_text('[1, :a]', 'literal'), rbmarshal_from_text('\x040830', 'hex'), rbmarshal_from_text('BAgw', 'base64');
SELECT to_rbmarshal(now())::timestamptz IS NOT NULL, to_rbmarshal(current_date)::date IS NOT NULL;
SELECT rbmarshal_keys(v) FROM t WHERE id = 1;
SELECT * FROM rbmarshal_each((SELECT v FROM t WHERE id = 1));
SELECT * FROM rbmarshal_each_text((SELECT v FROM t WHERE id = 1));
SELECT rbmarshal_array_elements(v), rbmarshal_array_elements_text(v), rbmarshal_array_length(v) FROM t WHERE id = 2;
SELECT jsonb_to_rbmarshal('{"a": 1}', true), '{"a": 1}'::jsonb::rbmarshal, rbmarshal('\x040830'::bytea), rbmarshal('[1]'::jsonb);
SELECT to_rbmarshal('x'::text), to_rbmarshal(1), to_rbmarshal(1::bigint), to_rbmarshal(1.5::numeric),
	   to_rbmarshal(1.5::float8), to_rbmarshal(true), to_rbmarshal('{"k": 1}'::jsonb);
SELECT rbmarshal_build_array('1', '2'), rbmarshal_build_hash('k', 1, 'n', NULL);
SELECT rbmarshal_agg(v ORDER BY id), rbmarshal_object_agg(id::text, v), rbmarshal_object_agg(v, v) FROM t;
SELECT rbmarshal_is_valid(b), rbmarshal_error(b), rbmarshal_is_valid(src), rbmarshal_error(src),
	   rbmarshal_from_text(src, 'auto') IS NULL FROM t WHERE id = 1;
SELECT * FROM rbmarshal_cache_entry('\x040830');
CALL rbmarshal_migrate('t', 'src', 'dst', batch_size => 1);
CALL rbmarshal_migrate('t', 'b', 'm', target_type => 'rbmarshal');
SELECT * FROM rbmarshal_migration_check('t', 'src', 'dst');
SELECT relation, run, rows_done, rows_bad FROM rbmarshal_migration_progress ORDER BY 1, 2;
SELECT relation, key FROM rbmarshal_migration_errors ORDER BY 1, 2;
-- changing values
SELECT rbmarshal_classes(v) FROM t WHERE id = 1;
SELECT rbmarshal_rename_class(v, 'Foo', 'Bar'), v - 'a', v - '{a,b}'::text[], v #- '{a,0}', v || v,
	   rbmarshal_set(v, '{n}', '8'), rbmarshal_insert(v, '{a,0}', '0'),
	   rbmarshal_delete(v, 'a'), rbmarshal_delete_path(v, '{a}'), rbmarshal_concat(v, v)
  FROM t WHERE id = 1;
SELECT CASE WHEN id = 2 THEN v - 0 END, v @> '{"n": 7}', v <@ '{"n": 7}', v @? '$.a', v @@ '$.n == 7',
	   rbmarshal_contains(v, '{}'), rbmarshal_contained(v, '{}'), rbmarshal_path_exists(v, '$.a'),
	   rbmarshal_path_match(v, '$.n == 7')
  FROM t ORDER BY id;
SELECT rbmarshal_path_query(v, '$.a[*]') FROM t WHERE id = 1;
-- YAML
SELECT rbmarshal_from_yaml(E'---\na: 1\n'), rbmarshal_from_yaml(E'--- :sym\n', '{Symbol}', false);
