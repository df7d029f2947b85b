-- rbmarshal -> jsonb: what Rails (ActiveSupport::JSON.encode) would write.
\i sql/include/shared_tables.sql

CREATE FUNCTION pg_temp.try_jsonb(v rbmarshal) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN v::jsonb::text;
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- every fixture: converted, or refused with a SQLSTATE (cycles only)
SELECT count(*) AS fixtures, count(*) FILTER (WHERE r !~ '^[0-9A-Z]{5}: ') AS converted,
       string_agg(name || ' ' || left(r, 5), ', ' ORDER BY name) FILTER (WHERE r ~ '^[0-9A-Z]{5}: ') AS refused
  FROM (SELECT name, pg_temp.try_jsonb(('\x' || hex)::rbmarshal) AS r FROM fx) f;

\pset format unaligned
SELECT name, pg_temp.try_jsonb(('\x' || hex)::rbmarshal) AS jsonb
  FROM fx
 WHERE name ~ '^(type_|int_|float_|str_|sym_|rails_|time_|date|hash_|graph_|regexp_|class_|struct|object|userdef|usrmarshal|data_|uclass_|extended)'
 ORDER BY name;
\pset format aligned

-- the cast is rbmarshal_to_jsonb with its defaults
SELECT count(*) AS same_as_defaults
  FROM fx
 WHERE name NOT LIKE 'graph_self%' AND name NOT LIKE 'hash_key_%'
   AND ('\x' || hex)::rbmarshal::jsonb = rbmarshal_to_jsonb(('\x' || hex)::rbmarshal);

-- time precision (Rails' ActiveSupport::JSON::Encoding.time_precision)
SELECT p, rbmarshal_to_jsonb(('\x' || hex)::rbmarshal, p)
  FROM fx, (VALUES (0), (3), (6), (9)) t(p)
 WHERE name IN ('rails_time_nsec', 'rails_datetime', 'rails_time_with_zone')
 ORDER BY name, p;
SELECT rbmarshal_to_jsonb('\x040830', 10);

-- strings that are not text: kept as base64 (default), refused, or replaced
SELECT b, rbmarshal_to_jsonb(('\x' || hex)::rbmarshal, 3, b)
  FROM fx, (VALUES ('base64'), ('replace')) t(b)
 WHERE name IN ('str_binary_nul_high', 'str_utf8_invalid_bytes')
 ORDER BY name, b;
SELECT rbmarshal_to_jsonb(('\x' || hex)::rbmarshal, 3, 'error') FROM fx WHERE name = 'str_utf8_invalid_bytes';
SELECT rbmarshal_to_jsonb('\x040830', 3, 'ignore');

-- json too
SELECT 'BAh7BjoGYWkG'::rbmarshal::json;

-- scalars at the root, as jsonb allows
SELECT '\x040830'::rbmarshal::jsonb, jsonb_typeof('\x040830'::rbmarshal::jsonb),
       'BAhpBg=='::rbmarshal::jsonb, jsonb_typeof('BAhpBg=='::rbmarshal::jsonb);

-- a cycle is refused, naming where
\set VERBOSITY default
SELECT ('\x' || hex)::rbmarshal::jsonb FROM fx WHERE name = 'graph_self_hash';
\set VERBOSITY terse

-- a 170-byte "billion laughs" (40 levels of [a, a]) is refused promptly (54000)
CREATE TABLE laughs AS
SELECT ('\x0408' || repeat('5b07', 40) || '5b064922067806 3a064554' ||
        (SELECT string_agg('40' || lpad(to_hex(k + 5), 2, '0'), '' ORDER BY k DESC)
           FROM generate_series(1, 40) k))::rbmarshal AS v;
SELECT length(v::bytea) FROM laughs;
SELECT pg_temp.try_jsonb(v) FROM laughs;
-- while modest sharing expands fine
SELECT jsonb_array_length(('\x0408' || repeat('5b07', 3) || '5b064922067806 3a064554' || '400840074006')::rbmarshal::jsonb);

-- nesting to rbmarshal.max_depth converts; over the stack (54001) when a
-- superuser lowers it
CREATE TABLE deep AS SELECT ('\x0408' || repeat('5b06', 999) || '30')::rbmarshal AS v;
SELECT left(pg_temp.try_jsonb(v), 12), length(pg_temp.try_jsonb(v)) FROM deep;
SET max_stack_depth = '100kB';
SELECT pg_temp.try_jsonb(v) FROM deep;
RESET max_stack_depth;

-- sessions: the Base64 rows convert in one statement
SELECT count(*) AS sessions, count(DISTINCT data::rbmarshal::jsonb) AS distinct_json,
       bool_and(data::rbmarshal::jsonb ? 'session_id') AS all_have_session_id
  FROM sessions;

-- a key jsonb cannot take is reported at its Hash's path, not at the
-- previous pair's key nor through a key text that is gone; key bytes that
-- are not text show as \xNN
CREATE FUNCTION pg_temp.jsonb_error_detail(v rbmarshal) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	PERFORM v::jsonb;
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
	RETURN d;
END $$;
SELECT name, pg_temp.jsonb_error_detail(('\x' || hex)::rbmarshal) AS detail
  FROM fx WHERE name LIKE 'hash_key_%' ORDER BY name;
