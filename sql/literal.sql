-- Ruby literals and Ruby 4.0's inspect, against the oracle data of
-- test/literal (generate.rb: MRI 3.1's Marshal.dump(eval(literal));
-- inspect.tsv: Ruby 4.0's inspect).  The files escape only \ TAB LF CR,
-- as COPY's text format does; 4 literals with a raw NUL cannot be SQL text.
CREATE TABLE lit (name text, literal text, hex text);
\copy lit FROM PROGRAM 'perl -ne "print unless /\\x00/" test/literal/literals.tsv'
CREATE TABLE badlit (name text, literal text);
\copy badlit FROM 'test/literal/bad_literals.tsv'
CREATE TABLE insp (name text, hex text, inspect text);
\copy insp FROM 'test/literal/inspect.tsv'
CREATE FUNCTION pg_temp.lit(t text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN encode(t::rbmarshal::bytea, 'hex');
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE;
END $$;

-- every literal gives MRI's bytes
SELECT count(*) AS literals, count(*) FILTER (WHERE pg_temp.lit(literal) = hex) AS same_bytes FROM lit;
SELECT name, literal, pg_temp.lit(literal) FROM lit WHERE pg_temp.lit(literal) IS DISTINCT FROM hex;

-- everything outside the grammar is refused with 22P02, evaluating nothing;
-- NaN, Infinity and -Infinity are accepted on purpose: inspect prints them
SELECT count(*) AS bad_literals,
	   count(*) FILTER (WHERE pg_temp.lit(literal) = 'ERROR 22P02') AS refused
FROM badlit;
SELECT name, literal, pg_temp.lit(literal) FROM badlit
WHERE pg_temp.lit(literal) <> 'ERROR 22P02' ORDER BY name;

-- inspect text reads back to the same bytes, for every literal value
SELECT count(*) AS literal_values,
	   count(*) FILTER (WHERE pg_temp.lit(inspect) = hex) AS round_trip
FROM insp WHERE name LIKE 'lit\_%';

-- rbmarshal_inspect is Ruby 4.0's inspect; the rows that differ are listed
-- (README: what the bytes cannot tell)
SELECT count(*) AS values,
	   count(*) FILTER (WHERE rbmarshal_inspect(decode(hex, 'hex')::rbmarshal) = inspect) AS same_text
FROM insp;
SELECT name FROM insp
WHERE rbmarshal_inspect(decode(hex, 'hex')::rbmarshal) IS DISTINCT FROM inspect ORDER BY name;

-- a float literal longer than any buffer (fuzzing found an overflow by one
-- at 511 characters); MRI 3.1 dumps 1.000...0005 (800 zeros) as 04 08 66 06 31
-- and -999...9.5e-600 (600 nines) as 04 08 66 07 2d 31
SELECT (('1.' || repeat('0', 800) || '5')::rbmarshal)::text AS long_float,
	   (('-' || repeat('9', 600) || '.5e-600')::rbmarshal)::text AS long_negative;
