-- Equality is byte equality (not Ruby's ==), with btree and hash support.
\i sql/include/shared_tables.sql
\set VERBOSITY terse

-- one row per distinct stream (some fixtures share bytes)
CREATE TABLE v AS SELECT DISTINCT ON (hex) name, ('\x' || hex)::rbmarshal AS m FROM fx ORDER BY hex, name;

-- = and <> agree with the bytes
SELECT count(*) FROM v a JOIN v b ON a.m = b.m WHERE a.m::bytea <> b.m::bytea;
SELECT count(*) FROM v a JOIN v b ON a.m <> b.m WHERE a.m::bytea = b.m::bytea;

-- Ruby's 1 == 1.0, but the streams differ
SELECT '\x04086906'::rbmarshal = '\x040866 06 31'::rbmarshal AS int_vs_float;
-- the same Ruby value written differently (1 as 06 or as 01 01) is not equal either
SELECT '\x04086906'::rbmarshal = '\x0408690101'::rbmarshal AS noncanonical;
SELECT '\x040830'::rbmarshal = 'BAgw'::rbmarshal AS hex_vs_base64;

-- DISTINCT and GROUP BY through sort and hash
CREATE TABLE dup AS SELECT m FROM v UNION ALL SELECT m FROM v;
SET enable_hashagg = off;
SELECT count(DISTINCT m) = (SELECT count(*) FROM v) AS sort_distinct FROM dup;
SELECT count(*) = (SELECT count(*) FROM v) AS sort_groups FROM (SELECT m FROM dup GROUP BY m) g;
SET enable_hashagg = on;
SET enable_sort = off;
SELECT count(*) = (SELECT count(*) FROM v) AS hash_groups FROM (SELECT m FROM dup GROUP BY m) g;
RESET enable_sort;

-- ordering is bytea's
SELECT bool_and((a.m < b.m) = (a.m::bytea < b.m::bytea)) AS same_order
  FROM v a, v b WHERE a.name < b.name;
SELECT m FROM (VALUES ('\x04086907'::rbmarshal), ('\x040830'), ('\x04085b00')) t(m) ORDER BY m;

-- UNIQUE and btree index scans (btree entries are limited to ~2.7 kB, as for bytea)
CREATE TABLE u AS SELECT name, m FROM v WHERE length(m::bytea) < 2000;
CREATE UNIQUE INDEX u_m ON u (m);
INSERT INTO u SELECT 'again', m FROM u WHERE name = 'type_nil';
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT name FROM u WHERE m = '\x040830';
SELECT name FROM u WHERE m = '\x040830'::rbmarshal;
EXPLAIN (COSTS OFF) SELECT name FROM u WHERE m < '\x04085b00';
SELECT count(*) = (SELECT count(*) FROM u WHERE m::bytea < '\x04085b00') AS range_scan
  FROM u WHERE m < '\x04085b00';

-- hash indexes take any size
CREATE INDEX v_hash ON v USING hash (m);
EXPLAIN (COSTS OFF) SELECT name FROM v WHERE m = '\x040830';
SELECT name FROM v WHERE m = '\x040830'::rbmarshal;
RESET enable_seqscan;

-- hash joins
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM v a JOIN dup b ON a.m = b.m;
SELECT count(*) = 2 * (SELECT count(*) FROM v) AS hash_join FROM v a JOIN dup b ON a.m = b.m;
RESET enable_mergejoin;
RESET enable_nestloop;
