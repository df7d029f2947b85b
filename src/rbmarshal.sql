/*
 * The rbmarshal install script.  Edit this file, never the built
 * rbmarshal--<version>.sql; every change to an SQL object also goes into the
 * upgrade script from the last release (docs/development.md, "Adding an SQL
 * object"): CI checks that an upgraded database equals a fresh install.
 */

\echo Use "CREATE EXTENSION rbmarshal" to load this file. \quit

-- rbmarshal type

CREATE TYPE rbmarshal;

CREATE FUNCTION rbmarshal_in(cstring) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION rbmarshal_out(rbmarshal) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION rbmarshal_recv(internal) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION rbmarshal_send(rbmarshal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION rbmarshal_subscript_handler(internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE rbmarshal (
	INPUT = rbmarshal_in,
	OUTPUT = rbmarshal_out,
	RECEIVE = rbmarshal_recv,
	SEND = rbmarshal_send,
	INTERNALLENGTH = VARIABLE,
	STORAGE = extended,
	SUBSCRIPT = rbmarshal_subscript_handler
);

COMMENT ON TYPE rbmarshal IS 'the exact bytes of one Ruby Marshal 4.8 stream, validated';

-- casts

CREATE FUNCTION rbmarshal(bytea) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'rbmarshal_from_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal(bytea) IS 'validating cast from bytea';

CREATE CAST (bytea AS rbmarshal) WITH FUNCTION rbmarshal(bytea);
CREATE CAST (rbmarshal AS bytea) WITHOUT FUNCTION AS ASSIGNMENT;

-- functions for migrations

CREATE FUNCTION rbmarshal_is_valid(bytea) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_is_valid(bytea) IS 'whether the bytes are one valid Marshal stream';

CREATE FUNCTION rbmarshal_error(bytea) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_error(bytea) IS 'why the bytes are not a valid Marshal stream, NULL if they are';

-- byte-order comparison: the stored bytes compare as bytea does (this is
-- not Ruby's ==), so these reuse PostgreSQL's own bytea functions

CREATE FUNCTION rbmarshal_eq(rbmarshal, rbmarshal) RETURNS boolean
	AS 'byteaeq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_ne(rbmarshal, rbmarshal) RETURNS boolean
	AS 'byteane' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_lt(rbmarshal, rbmarshal) RETURNS boolean
	AS 'bytealt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_le(rbmarshal, rbmarshal) RETURNS boolean
	AS 'byteale' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_gt(rbmarshal, rbmarshal) RETURNS boolean
	AS 'byteagt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_ge(rbmarshal, rbmarshal) RETURNS boolean
	AS 'byteage' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_cmp(rbmarshal, rbmarshal) RETURNS integer
	AS 'byteacmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_sortsupport(internal) RETURNS void
	AS 'bytea_sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_hash(rbmarshal) RETURNS integer
	AS 'hashvarlena' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rbmarshal_hash_extended(rbmarshal, bigint) RETURNS bigint
	AS 'hashvarlenaextended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
	LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
	LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
	LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = rbmarshal, RIGHTARG = rbmarshal, PROCEDURE = rbmarshal_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS rbmarshal_ops
	DEFAULT FOR TYPE rbmarshal USING btree AS
		OPERATOR 1 <,
		OPERATOR 2 <=,
		OPERATOR 3 =,
		OPERATOR 4 >=,
		OPERATOR 5 >,
		FUNCTION 1 rbmarshal_cmp(rbmarshal, rbmarshal),
		FUNCTION 2 rbmarshal_sortsupport(internal);

CREATE OPERATOR CLASS rbmarshal_ops
	DEFAULT FOR TYPE rbmarshal USING hash AS
		OPERATOR 1 =,
		FUNCTION 1 rbmarshal_hash(rbmarshal),
		FUNCTION 2 rbmarshal_hash_extended(rbmarshal, bigint);

-- the jsonb view: what Rails' ActiveSupport::JSON.encode would write

CREATE FUNCTION rbmarshal_to_jsonb(value rbmarshal, time_precision integer DEFAULT 3,
								   binary text DEFAULT 'base64') RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_to_jsonb(rbmarshal, integer, text) IS 'the value as Rails would write it in JSON; binary is base64, error or replace';

CREATE FUNCTION rbmarshal_jsonb(rbmarshal) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_jsonb(rbmarshal) IS 'rbmarshal -> jsonb cast: rbmarshal_to_jsonb with its defaults';

CREATE FUNCTION rbmarshal_json(rbmarshal) RETURNS json
	AS 'SELECT rbmarshal_jsonb($1)::json' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal_json(rbmarshal) IS 'rbmarshal -> json cast: the jsonb view as json text';

CREATE CAST (rbmarshal AS jsonb) WITH FUNCTION rbmarshal_jsonb(rbmarshal);
CREATE CAST (rbmarshal AS json) WITH FUNCTION rbmarshal_json(rbmarshal);

-- jsonb -> rbmarshal: Marshal.dump(JSON.parse(j::text)), byte for byte

CREATE FUNCTION jsonb_to_rbmarshal(j jsonb, symbolize_names boolean DEFAULT false)
	RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION jsonb_to_rbmarshal(jsonb, boolean) IS 'Marshal.dump(JSON.parse(j::text, symbolize_names:))';

CREATE FUNCTION rbmarshal(jsonb) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'rbmarshal_from_jsonb'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION rbmarshal(jsonb) IS 'jsonb -> rbmarshal cast: jsonb_to_rbmarshal without symbolize_names';

CREATE CAST (jsonb AS rbmarshal) WITH FUNCTION rbmarshal(jsonb);

-- navigation: the jsonb view's answers, found by walking the bytes

CREATE FUNCTION rbmarshal_object_field(rbmarshal, text) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_object_field_text(rbmarshal, text) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_array_element(rbmarshal, integer) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_array_element_text(rbmarshal, integer) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_extract_path(rbmarshal, text[]) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_extract_path_text(rbmarshal, text[]) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_exists(rbmarshal, text) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_exists_any(rbmarshal, text[]) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_exists_all(rbmarshal, text[]) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR -> (LEFTARG = rbmarshal, RIGHTARG = text, PROCEDURE = rbmarshal_object_field);
CREATE OPERATOR ->> (LEFTARG = rbmarshal, RIGHTARG = text, PROCEDURE = rbmarshal_object_field_text);
CREATE OPERATOR -> (LEFTARG = rbmarshal, RIGHTARG = integer, PROCEDURE = rbmarshal_array_element);
CREATE OPERATOR ->> (LEFTARG = rbmarshal, RIGHTARG = integer, PROCEDURE = rbmarshal_array_element_text);
CREATE OPERATOR #> (LEFTARG = rbmarshal, RIGHTARG = text[], PROCEDURE = rbmarshal_extract_path);
CREATE OPERATOR #>> (LEFTARG = rbmarshal, RIGHTARG = text[], PROCEDURE = rbmarshal_extract_path_text);
CREATE OPERATOR ? (LEFTARG = rbmarshal, RIGHTARG = text, PROCEDURE = rbmarshal_exists,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR ?| (LEFTARG = rbmarshal, RIGHTARG = text[], PROCEDURE = rbmarshal_exists_any,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR ?& (LEFTARG = rbmarshal, RIGHTARG = text[], PROCEDURE = rbmarshal_exists_all,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);

CREATE FUNCTION rbmarshal_typeof(rbmarshal) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_typeof(rbmarshal) IS 'jsonb_typeof of the jsonb view';
CREATE FUNCTION rbmarshal_class(rbmarshal) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_class(rbmarshal) IS 'the Ruby class name of the value';
CREATE FUNCTION rbmarshal_keys(rbmarshal) RETURNS SETOF text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_each(rbmarshal, OUT key text, OUT value rbmarshal) RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_each_text(rbmarshal, OUT key text, OUT value text) RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_array_elements(rbmarshal) RETURNS SETOF rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_array_elements_text(rbmarshal) RETURNS SETOF text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_array_length(rbmarshal) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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
	AS 'SELECT rbmarshal_jsonb($1) @> $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_contains(rbmarshal, jsonb) IS 'v::jsonb @> j';
CREATE FUNCTION rbmarshal_contained(rbmarshal, jsonb) RETURNS boolean
	AS 'SELECT rbmarshal_jsonb($1) <@ $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_contained(rbmarshal, jsonb) IS 'v::jsonb <@ j';
CREATE FUNCTION rbmarshal_path_exists(rbmarshal, jsonpath) RETURNS boolean
	AS 'SELECT rbmarshal_jsonb($1) @? $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_path_exists(rbmarshal, jsonpath) IS 'v::jsonb @? path';
CREATE FUNCTION rbmarshal_path_match(rbmarshal, jsonpath) RETURNS boolean
	AS 'SELECT rbmarshal_jsonb($1) @@ $2' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_path_match(rbmarshal, jsonpath) IS 'v::jsonb @@ path';
CREATE FUNCTION rbmarshal_path_query(rbmarshal, jsonpath) RETURNS SETOF jsonb
	AS 'SELECT jsonb_path_query(rbmarshal_jsonb($1), $2)' LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_path_query(rbmarshal, jsonpath) IS 'jsonb_path_query(v::jsonb, path)';

CREATE OPERATOR @> (LEFTARG = rbmarshal, RIGHTARG = jsonb, PROCEDURE = rbmarshal_contains,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR <@ (LEFTARG = rbmarshal, RIGHTARG = jsonb, PROCEDURE = rbmarshal_contained,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR @? (LEFTARG = rbmarshal, RIGHTARG = jsonpath, PROCEDURE = rbmarshal_path_exists,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);
CREATE OPERATOR @@ (LEFTARG = rbmarshal, RIGHTARG = jsonpath, PROCEDURE = rbmarshal_path_match,
	RESTRICT = matchingsel, JOIN = matchingjoinsel);

-- typed casts: the Ruby value as the PostgreSQL value of the same meaning

CREATE FUNCTION rbmarshal_to_numeric(rbmarshal) RETURNS numeric
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_to_int8(rbmarshal) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_to_int4(rbmarshal) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_to_float8(rbmarshal) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_to_bool(rbmarshal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_to_timestamptz(rbmarshal) RETURNS timestamptz
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_to_date(rbmarshal) RETURNS date
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (rbmarshal AS numeric) WITH FUNCTION rbmarshal_to_numeric(rbmarshal);
CREATE CAST (rbmarshal AS bigint) WITH FUNCTION rbmarshal_to_int8(rbmarshal);
CREATE CAST (rbmarshal AS integer) WITH FUNCTION rbmarshal_to_int4(rbmarshal);
CREATE CAST (rbmarshal AS double precision) WITH FUNCTION rbmarshal_to_float8(rbmarshal);
CREATE CAST (rbmarshal AS boolean) WITH FUNCTION rbmarshal_to_bool(rbmarshal);
CREATE CAST (rbmarshal AS timestamptz) WITH FUNCTION rbmarshal_to_timestamptz(rbmarshal);
CREATE CAST (rbmarshal AS date) WITH FUNCTION rbmarshal_to_date(rbmarshal);

-- Ruby's view

CREATE FUNCTION rbmarshal_inspect(rbmarshal) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_inspect(rbmarshal) IS 'the value as Ruby 4.0 inspect shows it, objects without addresses';

-- writing Marshal from SQL: each value as the Ruby value of the same meaning

CREATE FUNCTION to_rbmarshal(text) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(integer) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(bigint) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(numeric) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(double precision) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(boolean) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(timestamptz) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(date) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION to_rbmarshal(jsonb) RETURNS rbmarshal
	AS 'MODULE_PATHNAME', 'to_rbmarshal_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION rbmarshal_build_array(VARIADIC rbmarshal[]) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- not STRICT: NULL arguments are nil
CREATE FUNCTION rbmarshal_build_hash(VARIADIC "any") RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION rbmarshal_agg_transfn(internal, rbmarshal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION rbmarshal_agg_finalfn(internal) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE rbmarshal_agg(rbmarshal) (
	SFUNC = rbmarshal_agg_transfn, STYPE = internal, FINALFUNC = rbmarshal_agg_finalfn,
	PARALLEL = SAFE
);

CREATE FUNCTION rbmarshal_object_agg_transfn(internal, text, rbmarshal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION rbmarshal_object_agg_transfn(internal, rbmarshal, rbmarshal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION rbmarshal_object_agg_finalfn(internal) RETURNS rbmarshal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE rbmarshal_object_agg(text, rbmarshal) (
	SFUNC = rbmarshal_object_agg_transfn, STYPE = internal,
	FINALFUNC = rbmarshal_object_agg_finalfn, PARALLEL = SAFE
);
CREATE AGGREGATE rbmarshal_object_agg(rbmarshal, rbmarshal) (
	SFUNC = rbmarshal_object_agg_transfn, STYPE = internal,
	FINALFUNC = rbmarshal_object_agg_finalfn, PARALLEL = SAFE
);

-- Rails cache entries: 6.1 Entry objects, 7.0 and 7.1 envelopes, plain Marshal, gzip

CREATE FUNCTION rbmarshal_cache_entry(entry bytea, OUT value rbmarshal, OUT expires_at timestamptz,
									  OUT version text, OUT format text)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_cache_entry(bytea) IS 'the value, expiry, version and format of a Rails cache entry';

-- migration toolkit: find bad rows, convert in batches with progress, keep
-- bad rows aside with their error, verify (see the README's "Migrating")

CREATE FUNCTION rbmarshal_error(text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
	detail text;
BEGIN
	PERFORM $1::rbmarshal;
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	-- rbmarshal_error(bytea)'s format: "<message> at byte offset N: <detail>"
	IF detail ~ '^At byte offset [0-9]+: ' THEN
		RETURN SQLERRM || regexp_replace(detail, '^At byte offset ([0-9]+): (.*?)\.?$', ' at byte offset \1: \2');
	END IF;
	RETURN SQLERRM || coalesce(': ' || nullif(detail, ''), '');
END $$;
COMMENT ON FUNCTION rbmarshal_error(text) IS 'why text (hex, Base64 or a Ruby literal) is not a valid rbmarshal, NULL if it is';

CREATE FUNCTION rbmarshal_is_valid(text) RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS 'SELECT rbmarshal_error($1) IS NULL';
COMMENT ON FUNCTION rbmarshal_is_valid(text) IS 'whether text (hex, Base64 or a Ruby literal) is a valid rbmarshal';

CREATE TABLE rbmarshal_migration_progress (
	job text PRIMARY KEY,
	relation regclass NOT NULL,
	source_column name NOT NULL,
	target_column name NOT NULL,
	rows_total bigint NOT NULL DEFAULT 0,
	rows_done bigint NOT NULL DEFAULT 0,
	rows_bad bigint NOT NULL DEFAULT 0,
	started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
	updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
	finished_at timestamptz
);
COMMENT ON TABLE rbmarshal_migration_progress IS 'one row per rbmarshal_migrate job: how far it is';

CREATE TABLE rbmarshal_migration_errors (
	job text NOT NULL,
	key text NOT NULL,
	error text NOT NULL,
	noted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
	PRIMARY KEY (job, key)
);
COMMENT ON TABLE rbmarshal_migration_errors IS 'rows rbmarshal_migrate could not convert, with the error; the source row is left as it was';

SELECT pg_catalog.pg_extension_config_dump('rbmarshal_migration_progress', '');
SELECT pg_catalog.pg_extension_config_dump('rbmarshal_migration_errors', '');

-- The expression converting a source column (text: hex/Base64/literal;
-- bytea: Marshal bytes; source_format 'cache': a Rails cache entry).
CREATE FUNCTION rbmarshal_migration_expr(relation regclass, source_column name,
										 source_format text, target_type text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
	src text := format('%I', source_column);
	m text;
BEGIN
	IF source_format = 'cache' THEN
		m := format('(rbmarshal_cache_entry(%s)).value', src);
	ELSIF source_format IN ('auto', 'marshal', 'base64') THEN
		m := format('(%s)::rbmarshal', src);
	ELSE
		RAISE EXCEPTION 'source_format must be auto, marshal, base64 or cache, not %', source_format
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF target_type = 'jsonb' THEN
		RETURN format('(%s)::jsonb', m);
	ELSIF target_type = 'rbmarshal' THEN
		RETURN m;
	END IF;
	RAISE EXCEPTION 'target_type must be jsonb or rbmarshal, not %', target_type
		USING ERRCODE = 'invalid_parameter_value';
END $$;

CREATE PROCEDURE rbmarshal_migrate(relation regclass, source_column name, target_column name,
								   key_column name DEFAULT 'id', batch_size integer DEFAULT 10000,
								   source_format text DEFAULT 'auto', target_type text DEFAULT 'jsonb')
LANGUAGE plpgsql AS $$
DECLARE
	job_name text := format('%s.%s->%s', relation, source_column, target_column);
	conv text := rbmarshal_migration_expr(relation, source_column, source_format, target_type);
	keytype text;
	last_key text;
	total bigint;
	done bigint := 0;
	bad bigint := 0;
	n bigint;
	t0 timestamptz := clock_timestamp();
	rate numeric;
	keys text[];
	k text;
	detail text;
BEGIN
	SELECT format_type(a.atttypid, a.atttypmod) INTO keytype
	  FROM pg_attribute a WHERE a.attrelid = relation AND a.attname = key_column AND NOT a.attisdropped;
	IF keytype IS NULL THEN
		RAISE EXCEPTION 'column % does not exist in %', key_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL AND %I IS NULL',
				   relation, source_column, target_column) INTO total;
	INSERT INTO rbmarshal_migration_progress (job, relation, source_column, target_column, rows_total)
		VALUES (job_name, relation, source_column, target_column, total)
		ON CONFLICT ON CONSTRAINT rbmarshal_migration_progress_pkey DO UPDATE
			SET rows_total = EXCLUDED.rows_total, rows_done = 0, rows_bad = 0,
				started_at = clock_timestamp(), updated_at = clock_timestamp(), finished_at = NULL;
	COMMIT;
	LOOP
		-- the next batch of keys still to convert (bad rows stay behind: skip them)
		EXECUTE format('SELECT array_agg(k::text ORDER BY k) FROM (SELECT %1$I AS k FROM %2$s
						 WHERE %3$I IS NOT NULL AND %4$I IS NULL
						   AND ($1 IS NULL OR %1$I > $1::%5$s)
						 ORDER BY %1$I LIMIT $2) b',
					   key_column, relation, source_column, target_column, keytype)
			INTO keys USING last_key, batch_size;
		EXIT WHEN keys IS NULL;
		last_key := keys[array_length(keys, 1)];
		BEGIN
			-- the whole batch in one statement
			EXECUTE format('UPDATE %1$s SET %2$I = %3$s WHERE %4$I = ANY ($1::%5$s[])',
						   relation, target_column, conv, key_column, keytype) USING keys;
			GET DIAGNOSTICS n = ROW_COUNT;
			done := done + n;
			-- rows that failed on an earlier run and convert now
			DELETE FROM rbmarshal_migration_errors e WHERE e.job = job_name AND e.key = ANY (keys);
		EXCEPTION WHEN others THEN
			-- some row failed: convert one by one, keeping the bad ones aside
			FOREACH k IN ARRAY keys LOOP
				BEGIN
					EXECUTE format('UPDATE %1$s SET %2$I = %3$s WHERE %4$I = $1::%5$s',
								   relation, target_column, conv, key_column, keytype) USING k;
					done := done + 1;
					DELETE FROM rbmarshal_migration_errors e WHERE e.job = job_name AND e.key = k;
				EXCEPTION WHEN others THEN
					GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
					INSERT INTO rbmarshal_migration_errors (job, key, error)
						VALUES (job_name, k, SQLERRM || coalesce(': ' || nullif(detail, ''), ''))
						ON CONFLICT ON CONSTRAINT rbmarshal_migration_errors_pkey
						DO UPDATE SET error = EXCLUDED.error, noted_at = clock_timestamp();
					bad := bad + 1;
				END;
			END LOOP;
		END;
		UPDATE rbmarshal_migration_progress
		   SET rows_done = done, rows_bad = bad, updated_at = clock_timestamp()
		 WHERE rbmarshal_migration_progress.job = job_name;
		rate := round((done + bad) / greatest(extract(epoch FROM clock_timestamp() - t0), 0.001), 1);
		RAISE NOTICE 'rbmarshal_migrate %: % of % rows converted, % bad, % rows/s, about % s left',
			job_name, done, total, bad, rate, round(greatest(total - done - bad, 0) / greatest(rate, 0.001));
		COMMIT;
	END LOOP;
	UPDATE rbmarshal_migration_progress
	   SET rows_done = done, rows_bad = bad, updated_at = clock_timestamp(), finished_at = clock_timestamp()
	 WHERE rbmarshal_migration_progress.job = job_name;
	COMMIT;
END $$;
COMMENT ON PROCEDURE rbmarshal_migrate(regclass, name, name, name, integer, text, text) IS
	'convert a Marshal column into another column in committed batches, with progress and bad rows kept aside';

-- The reverse check: every converted row's target equals the conversion of
-- its source, every unconverted row is accounted for in the errors table.
CREATE FUNCTION rbmarshal_migration_check(relation regclass, source_column name, target_column name,
										  key_column name DEFAULT 'id', source_format text DEFAULT 'auto',
										  target_type text DEFAULT 'jsonb')
RETURNS TABLE (key text, problem text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
	job text := format('%s.%s->%s', relation, source_column, target_column);
	conv text := rbmarshal_migration_expr(relation, source_column, source_format, target_type);
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT %1$I::text, CASE WHEN %3$I IS NULL THEN ''not converted and not in rbmarshal_migration_errors''
								 ELSE ''target differs from the conversion of the source'' END
		   FROM %2$s t
		  WHERE %4$I IS NOT NULL
			AND CASE WHEN %3$I IS NULL
					 THEN NOT EXISTS (SELECT 1 FROM rbmarshal_migration_errors e WHERE e.job = $1 AND e.key = t.%1$I::text)
					 ELSE %3$I IS DISTINCT FROM %5$s END
		  ORDER BY t.%1$I',
		key_column, relation, target_column, source_column, conv) USING job;
END $$;
COMMENT ON FUNCTION rbmarshal_migration_check(regclass, name, name, name, text, text) IS
	'rows whose converted value does not match their source, or that were neither converted nor recorded as bad';
