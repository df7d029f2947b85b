/*
 * The upgrade script from the last release (0.1.0), first part: what turns
 * that release's objects into the current ones (ALTER, CREATE OR REPLACE,
 * DROP of what src/rbmarshal_added.sql creates anew).  `make` builds
 * rbmarshal--0.1.0--<version>.sql from this file followed by
 * src/rbmarshal_added.sql.
 */

\echo Use "ALTER EXTENSION rbmarshal UPDATE" to load this file. \quit

-- core's hashvarlena is not LEAKPROOF, so neither are these
ALTER FUNCTION rbmarshal_hash(rbmarshal) NOT LEAKPROOF;
ALTER FUNCTION rbmarshal_hash_extended(rbmarshal, bigint) NOT LEAKPROOF;

-- C instead of SQL and PL/pgSQL bodies: nothing resolves through the
-- caller's search_path, and no subtransaction (parallel workers)
CREATE OR REPLACE FUNCTION rbmarshal_json(rbmarshal) RETURNS json
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION rbmarshal_error(text) RETURNS text
	AS 'MODULE_PATHNAME', 'rbmarshal_text_error' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION rbmarshal_is_valid(text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'rbmarshal_text_is_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- the migration toolkit, rebuilt: jobs per role and per run, keyed by OIDs
DROP PROCEDURE rbmarshal_migrate(regclass, name, name, name, integer, text, text);
DROP FUNCTION rbmarshal_migration_check(regclass, name, name, name, text, text);
DROP FUNCTION rbmarshal_migration_expr(regclass, name, text, text);
-- The tables keep 0.1.0's columns (its dumps restore into them) and gain the
-- new key; 0.1.0's jobs become run 1 of a job run by the table's owner.
-- Dropped from the extension and added back: off pg_dump's list.
ALTER EXTENSION rbmarshal DROP TABLE rbmarshal_migration_progress;
ALTER EXTENSION rbmarshal DROP TABLE rbmarshal_migration_errors;
ALTER EXTENSION rbmarshal ADD TABLE rbmarshal_migration_progress;
ALTER EXTENSION rbmarshal ADD TABLE rbmarshal_migration_errors;
ALTER TABLE rbmarshal_migration_progress
	DROP CONSTRAINT rbmarshal_migration_progress_pkey,
	ADD COLUMN run_by regrole,
	ADD COLUMN run integer,
	ADD COLUMN key_column name,
	ADD COLUMN source_format text,
	ADD COLUMN target_type text,
	ADD COLUMN batch_size integer,
	ADD COLUMN error text;
-- (no fast default for run: a fresh install has no "missing value")
UPDATE rbmarshal_migration_progress p
   SET run = 1, run_by = coalesce((SELECT c.relowner::regrole FROM pg_catalog.pg_class c
						   WHERE c.oid OPERATOR(pg_catalog.=) p.relation),
						  pg_catalog.quote_ident(CURRENT_USER)::regrole);
ALTER TABLE rbmarshal_migration_progress
	ALTER COLUMN run_by SET DEFAULT pg_catalog.quote_ident(CURRENT_USER)::regrole,
	ALTER COLUMN run_by SET NOT NULL,
	ALTER COLUMN run SET DEFAULT 1,
	ALTER COLUMN run SET NOT NULL,
	ADD PRIMARY KEY (run_by, relation, source_column, target_column, run);
ALTER TABLE rbmarshal_migration_errors
	DROP CONSTRAINT rbmarshal_migration_errors_pkey,
	ADD COLUMN run_by regrole,
	ADD COLUMN relation regclass,
	ADD COLUMN source_column name,
	ADD COLUMN target_column name,
	ADD COLUMN run integer;
UPDATE rbmarshal_migration_errors e
   SET run_by = p.run_by, relation = p.relation, source_column = p.source_column,
	   target_column = p.target_column, run = 1
  FROM rbmarshal_migration_progress p
 WHERE p.job OPERATOR(pg_catalog.=) e.job;
UPDATE rbmarshal_migration_errors SET run_by = pg_catalog.quote_ident(CURRENT_USER)::regrole
 WHERE run_by IS NULL;
ALTER TABLE rbmarshal_migration_errors
	ALTER COLUMN run_by SET DEFAULT pg_catalog.quote_ident(CURRENT_USER)::regrole,
	ALTER COLUMN run_by SET NOT NULL,
	ADD CONSTRAINT rbmarshal_migration_errors_key UNIQUE (run_by, relation, source_column, target_column, key);
COMMENT ON TABLE rbmarshal_migration_progress IS 'one row per run of rbmarshal_migrate: how far it got (each role sees its own)';
COMMENT ON TABLE rbmarshal_migration_errors IS 'rows rbmarshal_migrate could not convert, with the error and the run that last tried (each role sees its own); the source row is left as it was';
