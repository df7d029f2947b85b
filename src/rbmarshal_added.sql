/*
 * The rbmarshal install script, second part, and the end of the upgrade
 * script from the last release (0.1.0): what both scripts create.  These are
 * the objects the last release did not have (or that the upgrade drops and
 * creates anew) and settings both scripts write alike.  A new SQL object goes
 * here, in the section of its topic (docs/development.md, "Adding an SQL
 * object").  Runs after src/rbmarshal.sql or src/rbmarshal_upgrade.sql.
 */

-- YAML -> rbmarshal: Marshal.dump(YAML.unsafe_load(yaml)) (Psych 4), or of
-- YAML.safe_load(yaml, permitted_classes:, aliases:)

CREATE FUNCTION rbmarshal_from_yaml(yaml text) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_from_yaml(text) IS 'Marshal.dump(YAML.unsafe_load(yaml)), nothing instantiated';

CREATE FUNCTION rbmarshal_from_yaml(yaml text, permitted_classes text[], aliases boolean DEFAULT true)
	RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'rbmarshal_from_yaml_safe'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_from_yaml(text, text[], boolean) IS 'Marshal.dump(YAML.safe_load(yaml, permitted_classes:, aliases:)): refuses what it refuses';

-- changing values: the bytes Marshal.dump writes after the same change is
-- made in Ruby to Marshal.load(v)

CREATE FUNCTION rbmarshal_classes(rbmarshal) RETURNS SETOF text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_classes(rbmarshal) IS 'every class and module name the value references, each once';
CREATE FUNCTION rbmarshal_rename_class(value rbmarshal, "from" text, "to" text) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_rename_class(rbmarshal, text, text) IS 'every reference to class "from" (and constants in it) made to "to"';
CREATE FUNCTION rbmarshal_delete(rbmarshal, text) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_delete(rbmarshal, text[]) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'rbmarshal_delete_keys' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_delete(rbmarshal, integer) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'rbmarshal_delete_index' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_delete_path(rbmarshal, text[]) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_set(target rbmarshal, path text[], new_value rbmarshal,
							  create_if_missing boolean DEFAULT true) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_set(rbmarshal, text[], rbmarshal, boolean) IS 'target.dig(*path[0..-2])[path[-1]] = new_value, as jsonb_set';
CREATE FUNCTION rbmarshal_insert(target rbmarshal, path text[], new_value rbmarshal,
								 insert_after boolean DEFAULT false) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_insert(rbmarshal, text[], rbmarshal, boolean) IS 'new_value inserted into an Array, or under a new Hash key, as jsonb_insert';
CREATE FUNCTION rbmarshal_concat(rbmarshal, rbmarshal) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR - (LEFTARG = rbmarshal, RIGHTARG = text, PROCEDURE = rbmarshal_delete);
CREATE OPERATOR - (LEFTARG = rbmarshal, RIGHTARG = text[], PROCEDURE = rbmarshal_delete);
CREATE OPERATOR - (LEFTARG = rbmarshal, RIGHTARG = integer, PROCEDURE = rbmarshal_delete);
CREATE OPERATOR #- (LEFTARG = rbmarshal, RIGHTARG = text[], PROCEDURE = rbmarshal_delete_path);
CREATE OPERATOR || (LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_concat);

-- containment and jsonpath on the jsonb view: inlined, so an expression
-- index on (v::jsonb) serves them
CREATE FUNCTION rbmarshal_contains(rbmarshal, jsonb) RETURNS boolean
	AS 'SELECT @extschema@.rbmarshal_jsonb($1) OPERATOR(pg_catalog.@>) $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_contains(rbmarshal, jsonb) IS 'v::jsonb @> j';
CREATE FUNCTION rbmarshal_contained(rbmarshal, jsonb) RETURNS boolean
	AS 'SELECT @extschema@.rbmarshal_jsonb($1) OPERATOR(pg_catalog.<@) $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_contained(rbmarshal, jsonb) IS 'v::jsonb <@ j';
CREATE FUNCTION rbmarshal_path_exists(rbmarshal, jsonpath) RETURNS boolean
	AS 'SELECT @extschema@.rbmarshal_jsonb($1) OPERATOR(pg_catalog.@?) $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_path_exists(rbmarshal, jsonpath) IS 'v::jsonb @? path';
CREATE FUNCTION rbmarshal_path_match(rbmarshal, jsonpath) RETURNS boolean
	AS 'SELECT @extschema@.rbmarshal_jsonb($1) OPERATOR(pg_catalog.@@) $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_path_match(rbmarshal, jsonpath) IS 'v::jsonb @@ path';
CREATE FUNCTION rbmarshal_path_query(rbmarshal, jsonpath) RETURNS SETOF jsonb
	AS 'SELECT pg_catalog.jsonb_path_query(@extschema@.rbmarshal_jsonb($1), $2)' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_path_query(rbmarshal, jsonpath) IS 'jsonb_path_query(v::jsonb, path)';

CREATE OPERATOR @> (LEFTARG = rbmarshal, RIGHTARG = jsonb, PROCEDURE = rbmarshal_contains,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR <@ (LEFTARG = rbmarshal, RIGHTARG = jsonb, PROCEDURE = rbmarshal_contained,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR @? (LEFTARG = rbmarshal, RIGHTARG = jsonpath, PROCEDURE = rbmarshal_path_exists,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR @@ (LEFTARG = rbmarshal, RIGHTARG = jsonpath, PROCEDURE = rbmarshal_path_match,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);

-- migration toolkit: find bad rows, convert in batches with progress, keep
-- bad rows aside with their error, verify (see the README's "Migrating").
-- Function bodies run with search_path = pg_catalog, pg_temp and name the
-- extension's own objects by @extschema@, so that nothing another user
-- created runs in them (docs/security.md).

CREATE FUNCTION rbmarshal_from_text(value text, form text) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_from_text(text, text) IS 'text in the form named: auto (hex or Base64, never a Ruby literal), hex, base64 or literal';

ALTER TABLE rbmarshal_migration_progress ENABLE ROW LEVEL SECURITY;
ALTER TABLE rbmarshal_migration_errors ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_jobs ON rbmarshal_migration_progress
	USING (run_by OPERATOR(pg_catalog.=) pg_catalog.quote_ident(CURRENT_USER)::regrole);
CREATE POLICY own_jobs ON rbmarshal_migration_errors
	USING (run_by OPERATOR(pg_catalog.=) pg_catalog.quote_ident(CURRENT_USER)::regrole);
GRANT SELECT, INSERT, UPDATE, DELETE ON rbmarshal_migration_progress, rbmarshal_migration_errors TO PUBLIC;

-- The expression converting source_column of relation, and the target type
-- (given, or NULL for the target column's type), after checking that the
-- columns exist and that the source format fits the source column:
--   bytea: auto or marshal (Marshal bytes), cache (a Rails cache entry);
--   text:  auto (hex or Base64), hex, base64, literal (a Ruby literal),
--          yaml (a YAML serialize column, as rbmarshal_from_yaml reads it,
--          but a text without a document is nil, as Rails 7.2 loads it);
--   rbmarshal: auto or marshal (the value itself, nothing to convert).
CREATE FUNCTION rbmarshal_migration_expr(relation regclass, source_column name, target_column name,
										 source_format text, INOUT target_type text,
										 OUT conversion text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	ext constant text := '@extschema@';
	src text := format('%I', source_column);
	source_type regtype;
	target_coltype regtype;
	source_kind text;
	formats text;
	m text;
BEGIN
	SELECT a.atttypid INTO source_type FROM pg_attribute a
	 WHERE a.attrelid = relation AND a.attname = source_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF source_type IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation % does not exist', source_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	SELECT a.atttypid INTO target_coltype FROM pg_attribute a
	 WHERE a.attrelid = relation AND a.attname = target_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF target_coltype IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation % does not exist', target_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	IF target_type IS NULL THEN
		target_type := CASE target_coltype WHEN 'jsonb'::regtype THEN 'jsonb'
						   WHEN (ext || '.rbmarshal')::regtype THEN 'rbmarshal' END;
	END IF;
	IF target_type NOT IN ('jsonb', 'rbmarshal') THEN
		RAISE EXCEPTION 'target_type must be jsonb or rbmarshal, not %', target_type
			USING ERRCODE = 'invalid_parameter_value';
	ELSIF target_type IS NULL THEN
		RAISE EXCEPTION 'target column "%" of % must be jsonb or rbmarshal, not %', target_column, relation, target_coltype
			USING ERRCODE = 'datatype_mismatch';
	ELSIF target_coltype <> (CASE target_type WHEN 'jsonb' THEN 'jsonb'::regtype
											ELSE (ext || '.rbmarshal')::regtype END) THEN
		RAISE EXCEPTION 'target column "%" of % is %, not %', target_column, relation, target_coltype, target_type
			USING ERRCODE = 'datatype_mismatch';
	END IF;

	-- the source type's formats, and the conversion the format given names
	IF source_type = 'bytea'::regtype THEN
		source_kind := 'bytea';
		formats := 'auto, marshal or cache';
		m := CASE WHEN source_format IN ('auto', 'marshal') THEN format('%s.rbmarshal(%s)', ext, src)
				  WHEN source_format = 'cache' THEN format('(%s.rbmarshal_cache_entry(%s)).value', ext, src) END;
	ELSIF source_type = (ext || '.rbmarshal')::regtype THEN
		source_kind := 'rbmarshal';
		formats := 'auto or marshal';
		m := CASE WHEN source_format IN ('auto', 'marshal') THEN src END;
	ELSIF source_type IN ('text'::regtype, 'character varying'::regtype, 'character'::regtype) THEN
		source_kind := 'text';
		formats := 'auto, hex, base64, literal or yaml';
		m := CASE WHEN source_format IN ('auto', 'hex', 'base64', 'literal')
				  THEN format('%s.rbmarshal_from_text(%s::pg_catalog.text, %L)', ext, src, source_format)
				  -- a text without a document (blank, comments) is nil, as Rails 7.2's
				  -- YAMLColumn loads it (safe_load's fallback), not unsafe_load's false
				  WHEN source_format = 'yaml' THEN format(
					'(SELECT CASE WHEN y::pg_catalog.bytea OPERATOR(pg_catalog.=) ''\x040846''::pg_catalog.bytea'
					' AND %2$s::pg_catalog.text OPERATOR(pg_catalog.~) %3$L'
					' THEN %1$s.rbmarshal(''\x040830''::pg_catalog.bytea) ELSE y END'
					' FROM (SELECT %1$s.rbmarshal_from_yaml(%2$s::pg_catalog.text) AS y) AS yaml)',
					ext, src, CASE WHEN pg_catalog.getdatabaseencoding() = 'UTF8' THEN '^\uFEFF?' ELSE '^' END
							  || '([ \r\n]|#[^\r\n]*)*$') END;
	ELSE
		RAISE EXCEPTION 'source column "%" of % must be text, bytea or rbmarshal, not %', source_column, relation, source_type
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	IF m IS NULL THEN
		RAISE EXCEPTION 'source_format for the % column "%" must be %, not %',
			source_kind, source_column, formats, coalesce(source_format, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	conversion := CASE target_type WHEN 'jsonb' THEN format('%s.rbmarshal_jsonb(%s)', ext, m) ELSE m END;
END $$;

-- The operator strategy (3 =, 5 >) of key_type's default btree class, as
-- OPERATOR(schema.op): batches follow the key's own order, whatever the path.
CREATE FUNCTION rbmarshal_migration_key_op(key_type regtype, strategy integer)
RETURNS text LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT format('OPERATOR(%I.%s)', n.nspname, o.oprname)
	  FROM pg_opclass c
	  JOIN pg_amop a ON a.amopfamily = c.opcfamily AND a.amoplefttype = c.opcintype
					AND a.amoprighttype = c.opcintype AND a.amopstrategy = strategy
	  JOIN pg_operator o ON o.oid = a.amopopr
	  JOIN pg_namespace n ON n.oid = o.oprnamespace
	 WHERE c.opcmethod = (SELECT m.oid FROM pg_am m WHERE m.amname = 'btree') AND c.opcdefault
	   AND (c.opcintype = key_type
			OR c.opcintype IN (SELECT k.casttarget FROM pg_cast k
								WHERE k.castsource = key_type AND k.castmethod = 'b'))
	 ORDER BY c.opcintype = key_type DESC
	 LIMIT 1
$$;

-- The advisory lock a run of rbmarshal_migrate holds on its job (relation,
-- source and target columns, whoever runs it) for the whole run, across its
-- COMMITs: a session-level lock, so that a second call on the same job,
-- from any session and any role, is refused while the first runs.
CREATE FUNCTION rbmarshal_migration_lock_key(relation regclass, source_column name, target_column name)
RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
	SELECT hashtextextended(format('rbmarshal_migrate %s %s %s', relation::oid, source_column,
								   target_column), 0)
$$;

-- Let go of the job's lock, however many times this session holds it (a
-- run stopped between its checks and its first batch may have left it).
CREATE FUNCTION rbmarshal_migration_unlock(relation regclass, source_column name, target_column name)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	lock_key constant bigint := @extschema@.rbmarshal_migration_lock_key(relation, source_column,
																	 target_column);
BEGIN
	WHILE EXISTS (SELECT 1 FROM pg_locks l
				   WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.objsubid = 1
					 AND l.classid = ((lock_key >> 32) & 4294967295)::oid
					 AND l.objid = (lock_key & 4294967295)::oid) LOOP
		PERFORM pg_advisory_unlock(lock_key);
	END LOOP;
END $$;

-- Check every argument before any work, take the job's lock and open a new
-- run.  source_format NULL: the format the job's last run read (its rows
-- were checked in it), 'auto' for the first run.
CREATE FUNCTION rbmarshal_migration_start(relation regclass, source_column name, target_column name,
										  key_column name, batch_size integer, source_format text,
										  target_type text)
RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	me constant regrole := quote_ident(CURRENT_USER)::regrole;
	relkind "char";
	key_attnum smallint;
	key_type regtype;
	generated "char";
	next_run integer;
	total bigint;
	lock_key bigint;
	holder integer;
BEGIN
	IF relation IS NULL OR source_column IS NULL OR target_column IS NULL OR key_column IS NULL THEN
		RAISE EXCEPTION 'relation, source_column, target_column and key_column must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF batch_size IS NULL OR batch_size < 1 THEN
		RAISE EXCEPTION 'batch_size must be at least 1, not %', coalesce(batch_size::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT c.relkind INTO relkind FROM pg_class c WHERE c.oid = relation;
	IF relkind NOT IN ('r', 'p') THEN
		RAISE EXCEPTION '% is not a table', relation USING ERRCODE = 'wrong_object_type';
	END IF;
	IF source_column = target_column THEN
		RAISE EXCEPTION 'the source and the target must be two columns, not both "%"', source_column
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF source_format IS NULL THEN
		SELECT p.source_format INTO source_format FROM @extschema@.rbmarshal_migration_progress p
		 WHERE p.run_by = me AND p.relation = relation
		   AND p.source_column = source_column AND p.target_column = target_column
		 ORDER BY p.run DESC LIMIT 1;
		source_format := coalesce(source_format, 'auto');
	END IF;
	-- source and target types, source_format and target_type
	SELECT x.target_type INTO target_type
	  FROM @extschema@.rbmarshal_migration_expr(relation, source_column, target_column,
												source_format, target_type) x;
	SELECT a.attgenerated INTO generated FROM pg_attribute a
	 WHERE a.attrelid = relation AND a.attname = target_column;
	IF generated <> '' THEN
		RAISE EXCEPTION 'target column "%" of % is a generated column', target_column, relation
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT a.attnum, a.atttypid INTO key_attnum, key_type FROM pg_attribute a
	 WHERE a.attrelid = relation AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF key_attnum IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation % does not exist', key_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_index i
					WHERE i.indrelid = relation AND i.indisunique AND i.indnkeyatts = 1
					  AND i.indkey[0] = key_attnum AND i.indpred IS NULL AND i.indexprs IS NULL)
	   OR @extschema@.rbmarshal_migration_key_op(key_type, 5) IS NULL THEN
		RAISE EXCEPTION 'key column "%" of % is not a unique, ordered key', key_column, relation
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Batches follow the key''s order: name a primary key or a column with a unique btree index.';
	END IF;
	IF NOT has_column_privilege(relation, target_column, 'UPDATE')
	   OR NOT has_column_privilege(relation, source_column, 'SELECT')
	   OR NOT has_column_privilege(relation, key_column, 'SELECT') THEN
		RAISE EXCEPTION 'permission denied to read "%" and "%" and update "%" of %',
			key_column, source_column, target_column, relation
			USING ERRCODE = 'insufficient_privilege';
	END IF;

	-- one run of a job at a time: a second one would convert the same rows
	-- and count them twice
	lock_key := @extschema@.rbmarshal_migration_lock_key(relation, source_column, target_column);
	IF NOT pg_try_advisory_lock(lock_key) THEN
		SELECT l.pid INTO holder FROM pg_locks l
		 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		   AND l.classid = ((lock_key >> 32) & 4294967295)::oid
		   AND l.objid = (lock_key & 4294967295)::oid
		 LIMIT 1;
		RAISE EXCEPTION 'rbmarshal_migrate of %.%->% is already running', relation,
			quote_ident(source_column), quote_ident(target_column)
			USING ERRCODE = 'lock_not_available',
				  DETAIL = coalesce(format('Process %s holds the job''s lock.', holder),
									'Another session holds the job''s lock.'),
				  HINT = 'Wait for it to finish, or stop it with pg_cancel_backend(); the job''s lock is its session''s until the run ends.';
	END IF;
	BEGIN
		EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL AND %I IS NULL',
					   relation, source_column, target_column) INTO total;
		SELECT coalesce(max(p.run), 0) + 1 INTO next_run FROM @extschema@.rbmarshal_migration_progress p
		 WHERE p.run_by = me AND p.relation = relation
		   AND p.source_column = source_column AND p.target_column = target_column;
		INSERT INTO @extschema@.rbmarshal_migration_progress
			(job, relation, source_column, target_column, run, key_column, source_format, target_type,
			 batch_size, rows_total)
			VALUES (format('%s.%I->%I', relation, source_column, target_column), relation, source_column,
					target_column, next_run, key_column, source_format, target_type, batch_size, total);
	EXCEPTION WHEN others OR query_canceled THEN
		PERFORM @extschema@.rbmarshal_migration_unlock(relation, source_column, target_column);
		RAISE;
	END;
	RETURN next_run;
END $$;

-- One batch of a run: the next batch_size keys after after_key.  Returns
-- the last key done, NULL when nothing is left (the run is then finished).
CREATE FUNCTION rbmarshal_migration_batch(relation regclass, source_column name, target_column name,
										  run integer, after_key text)
RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	me constant regrole := quote_ident(CURRENT_USER)::regrole;
	job @extschema@.rbmarshal_migration_progress;
	key_type regtype;
	key_gt text;
	key_eq text;
	conv text;
	keys text[];
	bad_keys text[] := '{}';
	bad_errors text[] := '{}';
	k text;
	n bigint;
	detail text;
	rate numeric;
BEGIN
	SELECT * INTO STRICT job FROM @extschema@.rbmarshal_migration_progress p
	 WHERE p.run_by = me AND p.relation = relation AND p.source_column = source_column
	   AND p.target_column = target_column AND p.run = run;
	SELECT a.atttypid INTO key_type FROM pg_attribute a
	 WHERE a.attrelid = relation AND a.attname = job.key_column AND NOT a.attisdropped;
	key_gt := @extschema@.rbmarshal_migration_key_op(key_type, 5);
	key_eq := @extschema@.rbmarshal_migration_key_op(key_type, 3);
	SELECT x.conversion INTO conv
	  FROM @extschema@.rbmarshal_migration_expr(relation, source_column, target_column,
												job.source_format, job.target_type) x;

	-- the next keys still to convert (bad rows stay behind: skip them)
	EXECUTE format('SELECT array_agg(k::text ORDER BY k) FROM (SELECT %1$I AS k FROM %2$s
					 WHERE %3$I IS NOT NULL AND %4$I IS NULL AND ($1 IS NULL OR %1$I %6$s $1::%5$s)
					 ORDER BY %1$I LIMIT $2) b',
				   job.key_column, relation, source_column, target_column, key_type, key_gt)
		INTO keys USING after_key, job.batch_size;
	IF keys IS NULL THEN
		UPDATE @extschema@.rbmarshal_migration_progress p
		   SET updated_at = clock_timestamp(), finished_at = clock_timestamp()
		 WHERE p.run_by = me AND p.relation = relation AND p.source_column = source_column
		   AND p.target_column = target_column AND p.run = run;
		RETURN NULL;
	END IF;

	BEGIN
		-- the whole batch in one statement
		EXECUTE format('UPDATE %1$s SET %2$I = %3$s WHERE %4$I %6$s ANY ($1::%5$s[])',
					   relation, target_column, conv, job.key_column, key_type, key_eq) USING keys;
		GET DIAGNOSTICS n = ROW_COUNT;
	EXCEPTION WHEN others THEN
		-- some row failed: find which by converting each without writing (a
		-- subtransaction that writes nothing takes no transaction ID), then
		-- write the others in one statement
		FOREACH k IN ARRAY keys LOOP
			BEGIN
				EXECUTE format('SELECT %1$s FROM %2$s WHERE %3$I %5$s $1::%4$s',
							   conv, relation, job.key_column, key_type, key_eq) USING k;
			EXCEPTION WHEN others THEN
				GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
				bad_keys := bad_keys || k;
				bad_errors := bad_errors || (SQLERRM || coalesce(': ' || nullif(detail, ''), ''));
			END;
		END LOOP;
		EXECUTE format('UPDATE %1$s SET %2$I = %3$s WHERE %4$I %6$s ANY ($1::%5$s[])',
					   relation, target_column, conv, job.key_column, key_type, key_eq)
			USING ARRAY(SELECT g FROM unnest(keys) g WHERE g <> ALL (bad_keys));
		GET DIAGNOSTICS n = ROW_COUNT;
	END;

	-- rows that failed on an earlier run and convert now leave the errors
	DELETE FROM @extschema@.rbmarshal_migration_errors e
	 WHERE e.run_by = me AND e.relation = relation AND e.source_column = source_column
	   AND e.target_column = target_column AND e.key = ANY (keys) AND e.key <> ALL (bad_keys);
	INSERT INTO @extschema@.rbmarshal_migration_errors
		(job, relation, source_column, target_column, key, run, error)
		SELECT job.job, relation, source_column, target_column, b.key, run, b.error
		  FROM unnest(bad_keys, bad_errors) AS b(key, error)
		ON CONFLICT ON CONSTRAINT rbmarshal_migration_errors_key
		DO UPDATE SET run = EXCLUDED.run, error = EXCLUDED.error, noted_at = clock_timestamp();
	UPDATE @extschema@.rbmarshal_migration_progress p
	   SET rows_done = p.rows_done + n, rows_bad = p.rows_bad + cardinality(bad_keys),
		   updated_at = clock_timestamp()
	 WHERE p.run_by = me AND p.relation = relation AND p.source_column = source_column
	   AND p.target_column = target_column AND p.run = run
	RETURNING * INTO job;
	rate := round((job.rows_done + job.rows_bad)
				  / greatest(extract(epoch FROM job.updated_at - job.started_at), 0.001), 1);
	RAISE NOTICE 'rbmarshal_migrate %.%->% run %: % of % rows converted, % bad, % rows/s, about % s left',
		relation, quote_ident(source_column), quote_ident(target_column), run,
		job.rows_done, job.rows_total, job.rows_bad, rate,
		round(greatest(job.rows_total - job.rows_done - job.rows_bad, 0) / greatest(rate, 0.001));
	RETURN keys[cardinality(keys)];
END $$;

-- A run stopped by an error or a cancel: finished, with why.
CREATE FUNCTION rbmarshal_migration_stopped(relation regclass, source_column name, target_column name,
											run integer, error text)
RETURNS void LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
	UPDATE @extschema@.rbmarshal_migration_progress p
	   SET updated_at = clock_timestamp(), finished_at = clock_timestamp(), error = $5
	 WHERE p.run_by = quote_ident(CURRENT_USER)::regrole AND p.relation = $1
	   AND p.source_column = $2 AND p.target_column = $3 AND p.run = $4
$$;

-- COMMITs between batches, so it cannot carry SET search_path: its body
-- only calls the functions above, by their schema.
-- The job's lock (taken by rbmarshal_migration_start) is let go when the
-- run ends, finished or stopped by an error or a cancel; a stopped run's
-- row gets finished_at and the error, committed before the error is raised
-- again (as it was, less its CONTEXT).  The first COMMIT comes before the
-- lock: a CALL inside a transaction block fails there and holds nothing.
CREATE PROCEDURE rbmarshal_migrate(relation regclass, source_column name, target_column name,
								   key_column name DEFAULT 'id', batch_size integer DEFAULT 10000,
								   source_format text DEFAULT NULL, target_type text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
	run pg_catalog.int4;	-- no SET search_path here (it COMMITs): types qualified
	last_key pg_catalog.text;
	state pg_catalog.text;
	msg pg_catalog.text;
	detail pg_catalog.text;
	hint pg_catalog.text;
BEGIN
	COMMIT;
	run := @extschema@.rbmarshal_migration_start(relation, source_column, target_column, key_column,
												 batch_size, source_format, target_type);
	COMMIT;
	LOOP
		BEGIN
			last_key := @extschema@.rbmarshal_migration_batch(relation, source_column, target_column,
															  run, last_key);
		EXCEPTION WHEN others OR query_canceled THEN
			GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
									detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
		END;
		EXIT WHEN state IS NOT NULL;
		COMMIT;
		EXIT WHEN last_key IS NULL;
	END LOOP;
	IF state IS NOT NULL THEN
		BEGIN
			PERFORM @extschema@.rbmarshal_migration_stopped(relation, source_column, target_column, run,
															msg || coalesce(': ' || nullif(detail, ''), ''));
		EXCEPTION WHEN others OR query_canceled THEN
			NULL;	-- the lock still goes, the first error is the one raised
		END;
	END IF;
	PERFORM @extschema@.rbmarshal_migration_unlock(relation, source_column, target_column);
	IF state IS NULL THEN
		RETURN;
	END IF;
	COMMIT;
	IF detail <> '' AND hint <> '' THEN
		RAISE EXCEPTION USING ERRCODE = state, MESSAGE = msg, DETAIL = detail, HINT = hint;
	ELSIF detail <> '' THEN
		RAISE EXCEPTION USING ERRCODE = state, MESSAGE = msg, DETAIL = detail;
	ELSIF hint <> '' THEN
		RAISE EXCEPTION USING ERRCODE = state, MESSAGE = msg, HINT = hint;
	END IF;
	RAISE EXCEPTION USING ERRCODE = state, MESSAGE = msg;
END $$;
COMMENT ON PROCEDURE rbmarshal_migrate(regclass, name, name, name, integer, text, text) IS
	'convert a Marshal column into another column in committed batches, with progress and bad rows kept aside';

-- The reverse check: every converted row's target equals the conversion of
-- its source, every unconverted row is accounted for in the errors table.
-- A job may have read its rows in several formats (auto, then literal for
-- the rows auto left aside): a converted row passes when one of the formats
-- the job's runs used, tried in the order they were first used, reads its
-- source as its target.  A row no format reads is listed, not raised.  Rows
-- go in batches, one statement per format; a batch that fails on a row one
-- format cannot read is redone row by row for that format.
CREATE FUNCTION rbmarshal_migration_check(relation regclass, source_column name, target_column name,
										  key_column name DEFAULT 'id', source_format text DEFAULT NULL,
										  target_type text DEFAULT NULL)
RETURNS TABLE (key text, problem text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	me constant regrole := quote_ident(CURRENT_USER)::regrole;
	batch_size constant integer := 10000;
	formats text[];
	convs text[];
	conv text;
	target text := format('t.%I', target_column);
	key_type regtype;
	key_eq text;
	all_keys text[];
	keys text[];
	pending text[];
	differ text[];
	readable text[];
	bad_keys text[] := '{}';
	bad_problems text[] := '{}';
	k text;
	same boolean;
	i integer;
	f integer;
BEGIN
	IF source_format IS NULL THEN
		-- the formats the job's runs read, in the order they were first used
		SELECT array_agg(x.source_format ORDER BY x.first_run) INTO formats
		  FROM (SELECT p.source_format, min(p.run) AS first_run
				  FROM @extschema@.rbmarshal_migration_progress p
				 WHERE p.run_by = me AND p.relation = relation AND p.source_column = source_column
				   AND p.target_column = target_column AND p.source_format IS NOT NULL
				 GROUP BY p.source_format) x;
		formats := coalesce(formats, '{auto}');
	ELSE
		formats := ARRAY[source_format];
	END IF;
	FOREACH k IN ARRAY formats LOOP
		SELECT x.conversion, x.target_type INTO conv, target_type
		  FROM @extschema@.rbmarshal_migration_expr(relation, source_column, target_column,
													k, target_type) x;
		IF target_type = 'rbmarshal' THEN
			-- rbmarshal compares as its bytes (its = is not on this path)
			conv := format('(%s)::pg_catalog.bytea', conv);
		END IF;
		convs := convs || conv;
	END LOOP;
	IF target_type = 'rbmarshal' THEN
		target := target || '::pg_catalog.bytea';
	END IF;
	SELECT a.atttypid INTO key_type FROM pg_attribute a
	 WHERE a.attrelid = relation AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF key_type IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation % does not exist', key_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	key_eq := coalesce(@extschema@.rbmarshal_migration_key_op(key_type, 3), 'OPERATOR(pg_catalog.=)');

	-- rows neither converted nor recorded as bad
	EXECUTE format(
		'SELECT array_agg(t.%1$I::text) FROM %2$s t
		  WHERE t.%4$I IS NOT NULL AND t.%3$I IS NULL
			AND NOT EXISTS (SELECT 1 FROM %5$s.rbmarshal_migration_errors e
							 WHERE e.run_by = $1 AND e.relation = $2 AND e.source_column = $3
							   AND e.target_column = $4 AND e.key = t.%1$I::text)',
		key_column, relation, target_column, source_column, '@extschema@')
		INTO keys USING me, relation, source_column, target_column;
	bad_keys := coalesce(keys, '{}');
	bad_problems := array_fill('not converted and not in rbmarshal_migration_errors'::text,
							   ARRAY[cardinality(bad_keys)]);

	-- converted rows, batch by batch
	EXECUTE format('SELECT array_agg(t.%1$I::text) FROM %2$s t WHERE t.%4$I IS NOT NULL AND t.%3$I IS NOT NULL',
				   key_column, relation, target_column, source_column)
		INTO all_keys;
	all_keys := coalesce(all_keys, '{}');
	i := 1;
	WHILE i <= cardinality(all_keys) LOOP
		pending := all_keys[i:i + batch_size - 1];
		readable := '{}';
		FOR f IN 1 .. cardinality(convs) LOOP
			EXIT WHEN cardinality(pending) = 0;
			BEGIN
				EXECUTE format('SELECT coalesce(array_agg(t.%1$I::text), ''{}'') FROM %2$s t
								 WHERE t.%1$I %6$s ANY ($1::%5$s[]) AND %3$s IS DISTINCT FROM %4$s',
							   key_column, relation, target, convs[f], key_type, key_eq)
					INTO differ USING pending;
				readable := readable || pending;
			EXCEPTION WHEN others THEN
				-- a row this format cannot read: the batch row by row
				differ := '{}';
				FOREACH k IN ARRAY pending LOOP
					BEGIN
						EXECUTE format('SELECT %1$s IS NOT DISTINCT FROM %2$s FROM %3$s t
										 WHERE t.%4$I %6$s $1::%5$s',
									   target, convs[f], relation, key_column, key_type, key_eq)
							INTO same USING k;
						readable := readable || k;
						IF NOT same THEN
							differ := differ || k;
						END IF;
					EXCEPTION WHEN others THEN
						differ := differ || k;
					END;
				END LOOP;
			END;
			pending := differ;
		END LOOP;
		FOREACH k IN ARRAY pending LOOP
			bad_keys := bad_keys || k;
			bad_problems := bad_problems ||
				CASE WHEN k = ANY (readable) THEN 'target differs from the conversion of the source'
					 ELSE format('source unreadable as %s', array_to_string(formats, ' or ')) END;
		END LOOP;
		i := i + batch_size;
	END LOOP;

	RETURN QUERY EXECUTE format('SELECT b.k, b.problem FROM unnest($1, $2) AS b(k, problem) ORDER BY b.k::%s',
								key_type)
		USING bad_keys, bad_problems;
END $$;
COMMENT ON FUNCTION rbmarshal_migration_check(regclass, name, name, name, text, text) IS
	'rows whose converted value does not match their source, or that were neither converted nor recorded as bad';
