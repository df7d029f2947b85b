-- What one role can do to another through the extension (docs/security.md).
-- Two roles without superuser: alice plants objects and reads, bob uses the
-- extension.  Each part failed on 0.1.0.
CREATE ROLE regress_rbm_alice;
CREATE ROLE regress_rbm_bob;
CREATE SCHEMA rbm_alice AUTHORIZATION regress_rbm_alice;
CREATE SCHEMA rbm_bob AUTHORIZATION regress_rbm_bob;
CREATE SCHEMA rbm_bob2 AUTHORIZATION regress_rbm_bob;
GRANT USAGE ON SCHEMA rbm_alice TO PUBLIC;

-- 1. search_path capture: alice's better-matching overloads on bob's path
-- record who called them; nothing of the extension may call them
SET ROLE regress_rbm_alice;
CREATE TABLE rbm_alice.loot (who text, what text);
GRANT INSERT ON rbm_alice.loot TO PUBLIC;
CREATE FUNCTION rbm_alice.format(text, regclass, name, name) RETURNS text LANGUAGE sql AS $$
	INSERT INTO rbm_alice.loot VALUES (current_user, 'format');
	SELECT pg_catalog.format($1, $2, $3, $4) $$;
CREATE FUNCTION rbm_alice.array_length(text[], integer) RETURNS integer LANGUAGE sql AS $$
	INSERT INTO rbm_alice.loot VALUES (current_user, 'array_length');
	SELECT pg_catalog.array_length($1, $2) $$;
CREATE FUNCTION rbm_alice.oid_eq_regclass(oid, regclass) RETURNS boolean LANGUAGE sql AS $$
	INSERT INTO rbm_alice.loot VALUES (current_user, '=');
	SELECT $1 OPERATOR(pg_catalog.=) $2::oid $$;
CREATE OPERATOR rbm_alice.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = rbm_alice.oid_eq_regclass);
-- a type the procedure's own variables would take when pg_catalog comes later
CREATE FUNCTION rbm_alice.spy(pg_catalog.text) RETURNS boolean LANGUAGE sql AS $$
	INSERT INTO rbm_alice.loot VALUES (current_user, 'text domain');
	SELECT true $$;
CREATE DOMAIN rbm_alice.text AS pg_catalog.text CHECK (rbm_alice.spy(VALUE));
CREATE FUNCTION rbm_alice.rbmarshal_jsonb(public.rbmarshal) RETURNS jsonb LANGUAGE sql AS $$
	INSERT INTO rbm_alice.loot VALUES (current_user, 'rbmarshal_jsonb');
	SELECT '"captured"'::jsonb $$;

SET ROLE regress_rbm_bob;
SET search_path = public, rbm_alice;
CREATE TABLE rbm_bob.secrets (id int PRIMARY KEY, data text, data_json jsonb);
INSERT INTO rbm_bob.secrets VALUES (1, 'BAh7BkkiBmsGOgZFVGkG', NULL), (2, 'not marshal', NULL);
SET client_min_messages = warning;
CALL rbmarshal_migrate('rbm_bob.secrets', 'data', 'data_json');
SET search_path = rbm_alice, pg_catalog, public;
CALL rbmarshal_migrate('rbm_bob.secrets', 'data', 'data_json');
SET search_path = public, rbm_alice;
RESET client_min_messages;
SELECT id, data_json FROM rbm_bob.secrets ORDER BY id;
SELECT * FROM rbmarshal_migration_check('rbm_bob.secrets', 'data', 'data_json');
SELECT 'BAh7BkkiBmsGOgZFVGkG'::rbmarshal::json;
-- the SQL-language functions name what they call by its schema
SET search_path = rbm_alice, public;
SELECT v @> '{"k": 1}', v <@ '{"k": 1}', v @? '$.k', v @@ '$.k == 1', rbmarshal_path_query(v, '$.k')
  FROM (SELECT 'BAh7BkkiBmsGOgZFVGkG'::rbmarshal AS v) s;
-- the extension's functions work whatever the caller's path
SET search_path = rbm_alice;
SELECT public.rbmarshal_error('not marshal'), public.rbmarshal_is_valid('BAgw');
SELECT 'BAgw'::public.rbmarshal::json;
RESET search_path;
RESET ROLE;
SELECT * FROM rbm_alice.loot;

-- 2. row security: a subscript is not leakproof, so it never runs on a row
-- the policy hides (this record's serialized attribute is broken, and
-- reading it raises an error describing it)
CREATE TABLE rbm_bad_records (name text, hex text, rails text, extension text);
\copy rbm_bad_records FROM 'test/rails/bad_records.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01', NULL 'NULL')
SET ROLE regress_rbm_alice;
CREATE FUNCTION rbm_alice.visible(owner name) RETURNS boolean LANGUAGE plpgsql STABLE COST 10000
	AS $$ BEGIN RETURN owner = current_user; END $$;
CREATE TABLE rbm_alice.records (owner name, v rbmarshal);
ALTER TABLE rbm_alice.records ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON rbm_alice.records USING (rbm_alice.visible(owner));
GRANT SELECT ON rbm_alice.records TO PUBLIC;
RESET ROLE;
INSERT INTO rbm_alice.records SELECT 'regress_rbm_alice', decode(hex, 'hex')::rbmarshal
  FROM rbm_bad_records WHERE name = 'bad_marshal_truncated';
SET ROLE regress_rbm_bob;
SELECT count(*) FROM rbm_alice.records WHERE v['settings'] IS NOT NULL;
SELECT count(*) FROM rbm_alice.records WHERE v['settings']['x'] IS NOT NULL;
RESET ROLE;
-- every LEAKPROOF function of the extension is one of core's leakproof
-- bytea comparisons
SELECT p.oid::regprocedure, p.prosrc
  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
 WHERE d.deptype = 'e' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'rbmarshal')
   AND p.proleakproof
   AND NOT EXISTS (SELECT 1 FROM pg_proc c WHERE c.proname = p.prosrc AND c.proleakproof
					  AND c.pronamespace = 'pg_catalog'::regnamespace);

-- 3. parallel safety: the PARALLEL SAFE text checks run in a worker
CREATE TABLE rbm_texts (t text);
INSERT INTO rbm_texts VALUES ('BAgw'), ('not marshal'), ('\x0408'), ('[1, :a]');
SET force_parallel_mode = on;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
EXPLAIN (COSTS OFF) SELECT t, rbmarshal_is_valid(t), rbmarshal_error(t) FROM rbm_texts;
SELECT t, rbmarshal_is_valid(t), rbmarshal_error(t) FROM rbm_texts ORDER BY t;
RESET force_parallel_mode;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;

-- 4. the migration's tables: bob's job is bob's.  Alice sees none of it,
-- and can neither change it nor hide bob's bad rows
SET ROLE regress_rbm_bob;
SELECT relation, run, rows_total, rows_done, rows_bad FROM rbmarshal_migration_progress;
SELECT relation, key, run FROM rbmarshal_migration_errors;
SET ROLE regress_rbm_alice;
SELECT count(*) FROM rbmarshal_migration_progress;
UPDATE rbmarshal_migration_progress SET rows_bad = 0;
DELETE FROM rbmarshal_migration_errors;
INSERT INTO rbmarshal_migration_errors (run_by, relation, source_column, target_column, key, run, error)
	VALUES ('regress_rbm_bob', 'rbm_alice.loot', 'data', 'data_json', '3', 1, 'planted');
SET ROLE regress_rbm_bob;
SELECT * FROM rbmarshal_migration_check('rbm_bob.secrets', 'data', 'data_json');
-- jobs are keyed by the relation, not its name: two tables both shown as
-- "items" on their own path are two jobs
CREATE TABLE rbm_bob.items (id int PRIMARY KEY, data bytea, v rbmarshal);
CREATE TABLE rbm_bob2.items (id int PRIMARY KEY, data bytea, v rbmarshal);
INSERT INTO rbm_bob.items VALUES (1, '\x040830');
INSERT INTO rbm_bob2.items VALUES (1, '\x0408ff'), (2, '\x040830');
SET client_min_messages = warning;
SET search_path = rbm_bob, public;
CALL rbmarshal_migrate('items', 'data', 'v');
SET search_path = rbm_bob2, public;
CALL rbmarshal_migrate('items', 'data', 'v');
RESET search_path;
RESET client_min_messages;
SELECT relation, run, rows_total, rows_done, rows_bad FROM rbmarshal_migration_progress
 WHERE source_column = 'data' AND target_column = 'v' ORDER BY relation::text;
SELECT relation, key FROM rbmarshal_migration_errors WHERE target_column = 'v';
-- a batch with a bad row finds it without one transaction ID per row
CREATE TABLE rbm_bob.many (id int PRIMARY KEY, data text, data_json jsonb);
INSERT INTO rbm_bob.many SELECT i, CASE WHEN i = 150 THEN 'BAh7' ELSE 'BAgw' END FROM generate_series(1, 300) i;
SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xid_before \gset
SET client_min_messages = warning;
CALL rbmarshal_migrate('rbm_bob.many', 'data', 'data_json', batch_size => 300);
RESET client_min_messages;
SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint - :xid_before < 50 AS few_transaction_ids,
	   count(data_json) AS converted FROM rbm_bob.many;
RESET ROLE;

-- 5. Rails cache entries: a version that is not UTF-8 text and an expiry
-- beyond timestamptz are errors, not values nothing can read back
-- (test/security/generate.rb, real ActiveSupport 6.1)
CREATE TABLE rbm_entries (name text, hex text);
\copy rbm_entries FROM 'test/security/cache_entries.tsv'
CREATE FUNCTION pg_temp.entry(name text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	e record;
BEGIN
	SELECT (rbmarshal_cache_entry(decode(hex, 'hex'))).* INTO e FROM rbm_entries WHERE rbm_entries.name = entry.name;
	RETURN format('%s | %s | %s', e.expires_at, e.version, e.format);
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
SET timezone = 'UTC';
SELECT name, pg_temp.entry(name) FROM rbm_entries ORDER BY name;
RESET timezone;

-- 6. aggregates: a compressed key and its plain twin are one Hash key
CREATE TABLE rbm_keys (k text, v rbmarshal);
INSERT INTO rbm_keys VALUES (repeat('k', 10000), '1');
SELECT pg_column_compression(k) IS NOT NULL AS compressed FROM rbm_keys;
SELECT rbmarshal_array_length(rbmarshal_agg(to_rbmarshal(x))) AS entries,
	   (SELECT count(*) FROM rbmarshal_keys(rbmarshal_object_agg(k, v))) AS distinct_keys
  FROM (SELECT k, v, k AS x FROM rbm_keys UNION ALL SELECT repeat('k', 10000), '2', 'plain') s;
SELECT rbmarshal_object_agg(k, v ORDER BY o) ->> repeat('k', 10000) AS later_value_wins
  FROM (SELECT 1 AS o, k, v FROM rbm_keys UNION ALL SELECT 2, repeat('k', 10000), '2') s;

-- 7. the cache-entry size limit changes what an IMMUTABLE function answers:
-- only a superuser may set it
SET ROLE regress_rbm_bob;
SET rbmarshal.max_inflated_size = 1;
RESET ROLE;
SET rbmarshal.max_inflated_size = '128MB';
RESET rbmarshal.max_inflated_size;

DROP SCHEMA rbm_alice, rbm_bob, rbm_bob2 CASCADE;
DELETE FROM rbmarshal_migration_progress;
DELETE FROM rbmarshal_migration_errors;
DROP ROLE regress_rbm_alice;
DROP ROLE regress_rbm_bob;
