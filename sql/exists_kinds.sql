-- ?, ?| and ?& decide an Array element by its type before converting it
-- (issue 15: converting every element was 6-19x jsonb's time): the answer
-- must stay jsonb's for every kind of element Ruby writes.  The values are
-- MRI's (test/fixtures, test/diff, test/fidelity), each with Ruby's own JSON
-- where its generator wrote it (else v::jsonb), as the one element of an
-- Array and all together in one Array.
\i sql/include/shared_tables.sql
CREATE TABLE ek_src (name text, hex text, expected text);
\copy ek_src FROM 'test/fidelity/as61_to_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
\copy ek_src FROM 'test/fidelity/as72_to_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
INSERT INTO ek_src SELECT name, hex, expected FROM to_json;
INSERT INTO ek_src SELECT name, hex, NULL FROM fx;
CREATE FUNCTION pg_temp.view(v rbmarshal) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
	RETURN v::jsonb;
EXCEPTION WHEN others THEN
	RETURN NULL;				-- a cycle, a value nothing converts
END $$;
CREATE TABLE ek AS
SELECT row_number() OVER (ORDER BY name, hex) AS id, name, v,
	   coalesce(expected::jsonb, pg_temp.view(v)) AS j
  FROM (SELECT name, hex, decode(hex, 'hex')::rbmarshal AS v, expected FROM ek_src) s;
DELETE FROM ek WHERE j IS NULL;
-- each value as the one element of an Array: [v] and its view [j]
ALTER TABLE ek ADD a rbmarshal, ADD aj jsonb;
UPDATE ek SET a = rbmarshal_build_array(v), aj = jsonb_build_array(j);
SELECT count(*) FROM ek WHERE a::jsonb IS DISTINCT FROM aj;

-- keys: the element's own text when its view is a string, that text with
-- one more character and the jsonb text of the element (a number's digits,
-- a quoted string), a miss, and the empty string
CREATE TABLE ek_keys AS
SELECT DISTINCT id, k FROM ek,
	   LATERAL (VALUES (j ->> 0), (aj ->> 0), ((aj ->> 0) || 'x'), (j::text), ('nope'), ('')) x(k)
 WHERE k IS NOT NULL;
SELECT count(*) > 10000 AS many, count(*) FILTER (WHERE aj ? k) > 1000 AS many_found
  FROM ek JOIN ek_keys USING (id);
SELECT id, name, k, a ? k AS ours, aj ? k AS jsonb
  FROM ek JOIN ek_keys USING (id)
 WHERE (a ? k) IS DISTINCT FROM (aj ? k)
    OR (v ? k) IS DISTINCT FROM (j ? k)
 ORDER BY id, k;
-- the classes whose view is a string: each found as an element
SELECT DISTINCT rbmarshal_class(v) AS found_as_element
  FROM ek
 WHERE jsonb_typeof(j) = 'string' AND a ? (j ->> 0)
 ORDER BY 1;
SELECT rbmarshal_class(v) AS class, count(*) AS string_view_not_found
  FROM ek
 WHERE jsonb_typeof(j) = 'string' AND NOT a ? (j ->> 0)
 GROUP BY 1 ORDER BY 1;

-- all of them in one Array, searched for every 50th key, and for groups of
-- keys with ?| and ?& (NULL keys ignored, as jsonb ignores them)
CREATE TABLE ek_all AS
SELECT rbmarshal_agg(v ORDER BY id) AS a, jsonb_agg(j ORDER BY id) AS aj FROM ek;
SELECT a::jsonb = aj AS same_view, rbmarshal_array_length(a) > 3000 AS many FROM ek_all;
CREATE TABLE ek_all_keys AS
SELECT row_number() OVER (ORDER BY k) AS n, k
  FROM (SELECT DISTINCT k FROM ek_keys) s;
SELECT count(*) > 100 AS many_checked, count(*) FILTER (WHERE aj ? k) > 5 AS some_found
  FROM ek_all, ek_all_keys WHERE n % 50 = 0;
SELECT k, a ? k AS ours, aj ? k AS jsonb
  FROM ek_all, ek_all_keys
 WHERE n % 50 = 0 AND (a ? k) IS DISTINCT FROM (aj ? k);
CREATE TABLE ek_groups AS
SELECT n % 97 AS g, array_agg(k ORDER BY n) || ARRAY[NULL, 'nope'] AS ks
  FROM ek_all_keys WHERE n % 97 < 6 GROUP BY 1
UNION ALL
SELECT 100 + n % 5, array_agg(k ORDER BY n) || ARRAY[NULL, 'nope']
  FROM ek_all, ek_all_keys WHERE n % 3 = 0 AND aj ? k GROUP BY 1;
SELECT count(*) AS groups,
	   count(*) FILTER (WHERE aj ?| ks) AS any_found,
	   count(*) FILTER (WHERE aj ?& ks[1:array_length(ks, 1) - 1]) AS all_found
  FROM ek_all, ek_groups;
SELECT g FROM ek_all, ek_groups
 WHERE (a ?| ks) IS DISTINCT FROM (aj ?| ks)
    OR (a ?& ks) IS DISTINCT FROM (aj ?& ks)
    OR (a ?& ks[1:array_length(ks, 1) - 1]) IS DISTINCT FROM (aj ?& ks[1:array_length(ks, 1) - 1]);
-- the key of the last string element, one key twice, no keys
SELECT a ? k AS last, a ?& ARRAY[k, k] AS twice, a ?| ARRAY[NULL, 'nope', k] AS any_last,
	   a ?& ARRAY[NULL]::text[] AS all_of_null, a ?| ARRAY[NULL]::text[] AS any_of_null,
	   a ?& ARRAY[]::text[] AS all_of_none, a ?| ARRAY[]::text[] AS any_of_none
  FROM ek_all, (SELECT j ->> 0 AS k FROM ek WHERE jsonb_typeof(j) = 'string'
				ORDER BY id DESC LIMIT 1) l;
SELECT aj ?& ARRAY[NULL]::text[] AS all_of_null, aj ?| ARRAY[NULL]::text[] AS any_of_null,
	   aj ?& ARRAY[]::text[] AS all_of_none, aj ?| ARRAY[]::text[] AS any_of_none
  FROM ek_all;
