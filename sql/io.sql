-- Text and binary I/O: every fixture (bytes MRI wrote) round-trips exactly.
\i sql/include/shared_tables.sql
\set VERBOSITY terse


-- hex in, hex out: byte for byte
SELECT name FROM fx WHERE (('\x' || hex)::rbmarshal)::text <> '\x' || hex;

-- Base64 in (PostgreSQL's encode() breaks lines every 76 characters)
SELECT name FROM fx
 WHERE encode(decode(hex, 'hex'), 'base64')::rbmarshal <> ('\x' || hex)::rbmarshal;

-- bytea -> rbmarshal -> bytea
SELECT name FROM fx WHERE decode(hex, 'hex')::rbmarshal::bytea <> decode(hex, 'hex');

-- a few values by hand: nil, "abc" in UTF-8, {a: 1}
SELECT '\x040830'::rbmarshal;
SELECT 'BAgw'::rbmarshal;
SELECT 'BAhJIghhYmMGOgZFVA=='::rbmarshal;
SELECT '  \x04 08 7b 06 3a 06 61 69 06  '::rbmarshal;
SELECT E'BAh7BjoG\nYWkG\n'::rbmarshal;
SELECT '\x04087B063A06616906'::rbmarshal AS upper_hex;

-- text columns cast directly (the automatic I/O cast)
SELECT ('BAgw'::text)::rbmarshal, ('\x040830'::varchar)::rbmarshal;

-- rbmarshal -> bytea is binary-coercible and allowed in assignment
CREATE TABLE b (v bytea);
INSERT INTO b SELECT '\x040830'::rbmarshal;
SELECT v FROM b;

-- Rails session rows: Base64 text with a newline every 60 characters
SELECT count(*) AS converted FROM sessions WHERE data::rbmarshal IS NOT NULL;
SELECT bool_and(data::rbmarshal::bytea = decode(data, 'base64')) AS same_bytes_as_decode
  FROM sessions;
SELECT bool_and(substr(data::rbmarshal::text, 1, 8) = '\x04087b') AS all_hashes
  FROM sessions;

-- the type keeps large values out of line (STORAGE extended)
SELECT typstorage FROM pg_type WHERE typname = 'rbmarshal';
CREATE TABLE big (v rbmarshal);
INSERT INTO big SELECT ('\x04085b' || '02' || 'e803' || '49220a68656c6c6f063a064554' || repeat('49220a68656c6c6f063b0054', 999))::rbmarshal;
SELECT length(v::bytea), pg_column_size(v) < length(v::bytea) AS compressed FROM big;

-- every function is IMMUTABLE and PARALLEL SAFE; STRICT where NULL in means
-- NULL out (so not rbmarshal_build_hash, where NULL is nil, nor the aggregates)
SELECT p.proname, p.provolatile, p.proparallel, p.proisstrict
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
  JOIN pg_extension e ON e.oid = d.refobjid
 WHERE e.extname = 'rbmarshal' AND (p.provolatile <> 'i' OR p.proparallel <> 's' OR NOT p.proisstrict)
 ORDER BY 1;
-- (the migration toolkit reads and writes tables: it is not IMMUTABLE)
