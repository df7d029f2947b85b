-- The rbmarshal -> json cast writes jsonb's text in one pass where the codec
-- can (src/marshal_json_fast.c): it must be v::jsonb::text, byte for byte,
-- on every stored value and on the shapes that text depends on (key order
-- and equal keys, escapes, Floats as numeric prints them).
\i sql/include/shared_tables.sql
CREATE TABLE fid (name text, hex text, expected text);
\copy fid FROM 'test/fidelity/as72_to_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')

CREATE FUNCTION pg_temp.differs(v rbmarshal) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
BEGIN
	BEGIN
		a := v::json::text;
	EXCEPTION WHEN others THEN
		a := SQLSTATE;
	END;
	BEGIN
		b := v::jsonb::text;
	EXCEPTION WHEN others THEN
		b := SQLSTATE;
	END;
	RETURN a IS DISTINCT FROM b;
END $$;

SELECT name FROM fx WHERE pg_temp.differs(('\x' || hex)::rbmarshal) ORDER BY name;
SELECT name FROM to_json WHERE pg_temp.differs(('\x' || hex)::rbmarshal) ORDER BY name;
SELECT name FROM fid WHERE pg_temp.differs(('\x' || hex)::rbmarshal) ORDER BY name;
SELECT session_id FROM sessions
 WHERE pg_temp.differs(decode(data, 'base64')::rbmarshal) ORDER BY session_id;

-- shapes: each literal's text, and whether the two differ
CREATE TABLE shapes (lit text);
INSERT INTO shapes VALUES
	('[1.0e20, 1.5e-05, 1.0e-05, -0.0, 0.0, 2.5, 100.0, 0.001, 0.0001, 1.2345678901234567e+16]'),
	('[0.30000000000000004, 5.0e-324, 1.7976931348623157e+308, -1.5e-300, 123456789.123]'),
	('["\b\f\r\t\n\x01\x1f\x7f\"\\", :sym, "é🎉"]'),
	('{"b" => 1, "a" => 2, "a" => 3, :a => 4, "" => 5, "aa" => {"y" => [], "x" => {}}}'),
	('[{}, [], [[{}]], 1180591620717411303424, -18446744073709551616, 4611686018427387904, nil, true, false]'),
	('{:zeta => {:beta => 1.5, :alpha => [1, {:k => "v", :j => nil}]}, :eta => "x"}');
SELECT lit, left(v::json::text, 100) AS json, pg_temp.differs(v) AS differs
  FROM (SELECT lit, rbmarshal_from_text(lit, 'literal') AS v FROM shapes) s;

-- a Hash of more than 256 keys, not in order and with keys twice
SELECT pg_temp.differs(rbmarshal_from_text(
		'{' || string_agg(format('"k%s" => %s', i * 7919 % 3001, i), ', ') || '}',
		'literal')) AS differs,
	   json_typeof(rbmarshal_from_text(
		'{' || string_agg(format('"k%s" => %s', i * 7919 % 3001, i), ', ') || '}',
		'literal')::json) AS type
  FROM generate_series(1, 4000) i;
