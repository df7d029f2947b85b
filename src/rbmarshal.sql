/*
 * The rbmarshal install script, first part: the objects the last release
 * (0.1.0) already had, as they are now.  `make` builds rbmarshal--<version>.sql
 * from this file followed by src/rbmarshal_added.sql; edit these, never the
 * built script.  A new object goes into src/rbmarshal_added.sql; a change to
 * an object here also goes into src/rbmarshal_upgrade.sql (docs/development.md,
 * "Adding an SQL object"): CI checks that an upgraded database equals a
 * fresh install.
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
-- not LEAKPROOF, as core's hashvarlena is not
CREATE FUNCTION rbmarshal_hash(rbmarshal) RETURNS integer
	AS 'hashvarlena' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rbmarshal_hash_extended(rbmarshal, bigint) RETURNS bigint
	AS 'hashvarlenaextended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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

-- migration toolkit (its functions: src/rbmarshal_added.sql): the text
-- checks and the tables of jobs and bad rows

CREATE FUNCTION rbmarshal_error(text) RETURNS text
	AS 'MODULE_PATHNAME', 'rbmarshal_text_error' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_error(text) IS 'why text (hex, Base64 or a Ruby literal) is not a valid rbmarshal, NULL if it is';

CREATE FUNCTION rbmarshal_is_valid(text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'rbmarshal_text_is_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rbmarshal_is_valid(text) IS 'whether text (hex, Base64 or a Ruby literal) is a valid rbmarshal';

-- Jobs belong to the role that runs them (row security: each role sees and
-- changes only its own rows) and are keyed by the relation's OID; job is a
-- label (and what 0.1.0 keyed them by: its dumps still restore).  Not in
-- pg_dump: a database owner's dump must not need other roles' rows.
CREATE TABLE rbmarshal_migration_progress (
	job text NOT NULL,
	relation regclass NOT NULL,
	source_column name NOT NULL,
	target_column name NOT NULL,
	rows_total bigint NOT NULL DEFAULT 0,
	rows_done bigint NOT NULL DEFAULT 0,
	rows_bad bigint NOT NULL DEFAULT 0,
	started_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	updated_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	finished_at timestamptz,
	run_by regrole NOT NULL DEFAULT pg_catalog.quote_ident(CURRENT_USER)::regrole,
	run integer NOT NULL DEFAULT 1,
	key_column name,
	source_format text,
	target_type text,
	batch_size integer,
	error text,
	PRIMARY KEY (run_by, relation, source_column, target_column, run)
);
COMMENT ON TABLE rbmarshal_migration_progress IS 'one row per run of rbmarshal_migrate: how far it got (each role sees its own)';

CREATE TABLE rbmarshal_migration_errors (
	job text NOT NULL,
	key text NOT NULL,
	error text NOT NULL,
	noted_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	run_by regrole NOT NULL DEFAULT pg_catalog.quote_ident(CURRENT_USER)::regrole,
	relation regclass,
	source_column name,
	target_column name,
	run integer,
	CONSTRAINT rbmarshal_migration_errors_key UNIQUE (run_by, relation, source_column, target_column, key)
);
COMMENT ON TABLE rbmarshal_migration_errors IS 'rows rbmarshal_migrate could not convert, with the error and the run that last tried (each role sees its own); the source row is left as it was';
