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
