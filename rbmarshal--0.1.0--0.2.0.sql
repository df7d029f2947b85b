/* rbmarshal--0.1.0--0.2.0.sql: from the 0.1.0 release to 0.2.0 (src/rbmarshal.sql) */

\echo Use "ALTER EXTENSION rbmarshal UPDATE" to load this file. \quit

-- rbmarshal_error(text) reports as rbmarshal_error(bytea) does
CREATE OR REPLACE FUNCTION rbmarshal_error(text) RETURNS text
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
