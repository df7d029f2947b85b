-- Hostile values through every function that expands shared references or
-- walks deeply: each ends in a clean ERROR with its SQLSTATE (or a correct
-- answer), promptly, and the connection stays usable.
\set VERBOSITY terse
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE q INTO r;
	RETURN coalesce('ok: ' || left(r, 60), 'NULL');
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- a Hash that contains itself, an Array, an object and a Struct that do
CREATE TABLE cyc (name text, v rbmarshal);
INSERT INTO cyc VALUES
	('hash', '\x04087b0649220973656c66063a0645544000'),
	('array', '\x04085b064000'),
	('object', '\x04086f3a0a4d6f6e6579073a0b4063656e747340003a0e4063757272656e637930'),
	('struct', '\x0408533a0a506f696e74073a067840003a06796906'),
	-- the cycle one level down: h = {"k" => [h]}
	('nested', '\x04087b064922066b063a0645545b064000');

-- a 170-byte "billion laughs": 40 levels of [a, a], 2^40 leaves expanded
INSERT INTO cyc SELECT 'laughs', ('\x0408' || repeat('5b07', 40) || '5b064922067806 3a064554' ||
	(SELECT string_agg('40' || lpad(to_hex(k + 5), 2, '0'), '' ORDER BY k DESC)
	   FROM generate_series(1, 40) k))::rbmarshal;
-- the same under a Hash key, for the path operators
INSERT INTO cyc SELECT 'laughs_in_hash', ('\x04087b064922066b063a064554' || repeat('5b07', 40) ||
	'5b064922067806 3b0054' ||
	(SELECT string_agg('40' || lpad(to_hex(k + 7), 2, '0'), '' ORDER BY k DESC)
	   FROM generate_series(1, 40) k))::rbmarshal;
SELECT name, length(v::bytea) FROM cyc ORDER BY name;

-- "promptly": a runaway expansion fails here, a minute on a loaded machine being
-- far more than the seconds this takes (not under valgrind, which sets
-- regress.slow = on: 20x slower)
SELECT set_config('statement_timeout',
				  CASE current_setting('regress.slow', true) WHEN 'on' THEN '0' ELSE '60s' END,
				  false) IS NOT NULL AS timeout_set;
SELECT name, f, pg_temp.try(format(q, quote_literal(v::text)))
FROM cyc, (VALUES
	('::jsonb', 'SELECT %s::rbmarshal::jsonb::text'),
	('::json', 'SELECT %s::rbmarshal::json::text'),
	('to_jsonb', 'SELECT rbmarshal_to_jsonb(%s::rbmarshal, 9, ''replace'')::text'),
	('inspect', 'SELECT rbmarshal_inspect(%s::rbmarshal)'),
	('->> k', 'SELECT %s::rbmarshal ->> ''k'''),
	('#>> {k,0}', 'SELECT %s::rbmarshal #>> ''{k,0}'''),
	('->> 0', 'SELECT %s::rbmarshal ->> 0'),
	('-> k (bytes)', 'SELECT md5((%s::rbmarshal -> ''k'')::bytea)'),
	('each_text', 'SELECT string_agg(value, '','') FROM rbmarshal_each_text(%s::rbmarshal)'),
	('elements_text', 'SELECT string_agg(e, '','') FROM rbmarshal_array_elements_text(%s::rbmarshal) e'),
	('keys', 'SELECT string_agg(k, '','') FROM rbmarshal_keys(%s::rbmarshal) k'),
	('typeof', 'SELECT rbmarshal_typeof(%s::rbmarshal)'),
	('class', 'SELECT rbmarshal_class(%s::rbmarshal)'),
	('= itself', 'SELECT (%1$s::rbmarshal = %1$s::rbmarshal)::text'),
	('hash', 'SELECT (rbmarshal_hash(%s::rbmarshal) IS NOT NULL)::text'),
	('error', 'SELECT coalesce(rbmarshal_error(%s::rbmarshal::bytea), ''valid'')')
) AS t(f, q)
ORDER BY name, f;
RESET statement_timeout;

-- 100,000 levels of nesting: refused by the depth limit (fixed: no one can
-- raise it past what the stack allows)
SELECT pg_temp.try(format('SELECT %L::rbmarshal::text',
	'\x0408' || repeat('5b06', 100000) || '30'));
SET rbmarshal.max_depth = 100000;

-- a count far larger than the input, a 2^31 length: refused before any allocation
SELECT pg_temp.try('SELECT ''\x04085b04ffffff7f''::rbmarshal::text');
SELECT pg_temp.try('SELECT ''\x0408220400000080''::rbmarshal::text');
SELECT pg_temp.try('SELECT ''\x04087b04ffffff7f''::rbmarshal::text');

-- invalid UTF-8 in a Symbol is refused; in a String it is kept, and the jsonb
-- view gives it as $binary, or refuses it (22021) when asked to
SELECT pg_temp.try('SELECT ''\x0408493a06ff063a064554''::rbmarshal::text');
SELECT pg_temp.try('SELECT ''\x040849220680063a064554''::rbmarshal::jsonb::text');
SELECT pg_temp.try('SELECT rbmarshal_to_jsonb(''\x040849220680063a064554''::rbmarshal, 3, ''error'')::text');
-- fuzzer findings, through the server: a chain of 5000 C wrappers and of
-- symbols whose ivar names have ivars (depth), a String whose :encoding ivar
-- links to itself (valid; the cursor must not recurse), stacked I wrappers
SELECT pg_temp.try(format('SELECT %L::rbmarshal::text',
	'\x0408433a0653' || repeat('433b00', 5000) || '2200'));
SELECT pg_temp.try(format('SELECT %L::rbmarshal::text',
	'\x0408' || repeat('493a066106', 3000) || '3a0662' || repeat('30', 3000)));
SELECT pg_temp.try(format('SELECT %L::rbmarshal::jsonb::text', '\x0408492200063a0d656e636f64696e674000')),
	   pg_temp.try(format('SELECT rbmarshal_inspect(%L::rbmarshal)', '\x0408492200063a0d656e636f64696e674000')),
	   pg_temp.try(format('SELECT %L::rbmarshal ->> 0', '\x0408492200063a0d656e636f64696e674000'));
SELECT pg_temp.try('SELECT ''\x040849493a000000''::rbmarshal::text');
SELECT 'still connected' AS status;
