-- Binary COPY goes through send/recv: raw Marshal bytes, validated on the way in.
\i sql/include/shared_tables.sql
\set VERBOSITY terse

CREATE TABLE src AS SELECT name, ('\x' || hex)::rbmarshal AS m FROM fx;

\copy src TO 'results/rbmarshal.bin' WITH (FORMAT binary)
CREATE TABLE dst (name text, m rbmarshal);
\copy dst FROM 'results/rbmarshal.bin' WITH (FORMAT binary)
SELECT count(*) = (SELECT count(*) FROM src) AS all_rows FROM dst;
SELECT s.name FROM src s FULL JOIN dst d USING (name)
 WHERE d.m IS NULL OR s.m IS NULL OR s.m::bytea <> d.m::bytea;

-- text COPY round trip too
\copy src TO 'results/rbmarshal.txt'
TRUNCATE dst;
\copy dst FROM 'results/rbmarshal.txt'
SELECT s.name FROM src s FULL JOIN dst d USING (name)
 WHERE d.m IS NULL OR s.m IS NULL OR s.m::bytea <> d.m::bytea;

-- send gives the bytes themselves
SELECT rbmarshal_send('\x04087b063a066169 06'::rbmarshal);

-- recv validates: binary bytes that are not Marshal are refused
\set VERBOSITY default
CREATE TABLE raw (name text, m bytea);
INSERT INTO raw VALUES ('truncated', '\x04085b07'), ('trailing', '\x04083030');
\copy (SELECT name, m FROM raw WHERE name = 'truncated') TO 'results/bad.bin' WITH (FORMAT binary)
\copy dst FROM 'results/bad.bin' WITH (FORMAT binary)
\copy (SELECT name, m FROM raw WHERE name = 'trailing') TO 'results/bad.bin' WITH (FORMAT binary)
\copy dst FROM 'results/bad.bin' WITH (FORMAT binary)
