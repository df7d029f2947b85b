-- A compressed Rails cache entry that inflates past rbmarshal.max_inflated_size
-- is refused with an error that names the setting and its value (issue 15:
-- every limit error names the setting that is the limit).  The entries are
-- real ActiveSupport's (test/rails/generate.rb): each compressed format,
-- inflating to 1,237-2,106 bytes.
CREATE TABLE il (name text, format text, hex text, value_hex text, expires_at text, version text);
\copy il FROM 'test/rails/cache_entries.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01', NULL 'NULL')
DELETE FROM il WHERE name NOT IN ('v61_compressed_hash', 'v70_compressed_hash',
	'v71_compressed_hash', 'v71_compressed_binary_string', 'gzip_big_hash');
CREATE FUNCTION pg_temp.entry(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
	hint text;
BEGIN
	RETURN (rbmarshal_cache_entry(b)).format;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RETURN SQLSTATE || ' ' || SQLERRM || ' / ' || detail || ' / ' || hint;
END $$;
SELECT name, pg_temp.entry(decode(hex, 'hex')) FROM il ORDER BY name;
SET rbmarshal.max_inflated_size = '1kB';
SELECT name, pg_temp.entry(decode(hex, 'hex')) FROM il ORDER BY name;
SELECT (rbmarshal_cache_entry(decode(hex, 'hex'))).format FROM il WHERE name = 'gzip_big_hash';
-- the limit is the size it may inflate to: 2 kB takes all but the 2,106 bytes
SET rbmarshal.max_inflated_size = '2kB';
SELECT name, pg_temp.entry(decode(hex, 'hex')) FROM il ORDER BY name;
RESET rbmarshal.max_inflated_size;
