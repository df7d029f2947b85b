/* rbmarshal--0.1.0.sql */

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

CREATE TYPE rbmarshal (
	INPUT = rbmarshal_in,
	OUTPUT = rbmarshal_out,
	RECEIVE = rbmarshal_recv,
	SEND = rbmarshal_send,
	INTERNALLENGTH = VARIABLE,
	STORAGE = extended
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
