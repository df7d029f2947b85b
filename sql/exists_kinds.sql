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

-- Keys shaped like a kind's view (issue 15: a Date, Time, DateTime,
-- TimeWithZone, BigDecimal or ISO-8859-1 String is converted only when a key
-- could equal its text): for every element whose view is a string, its own
-- text, the same text one character longer and shorter, one digit changed,
-- and its length in other shapes; each asked alone (?), with a miss (?|) and
-- with its own text (?&), against jsonb
CREATE TABLE ek_shaped AS
SELECT DISTINCT id, k FROM ek,
	   LATERAL (VALUES (j ->> 0), ((j ->> 0) || '0'), (left(j ->> 0, -1)),
					   (translate(j ->> 0, '0123456789', '1234567890')),
					   (repeat('9', length(j ->> 0))), (repeat('x', length(j ->> 0))),
					   ('2020-01-01'), ('2020-09-13T12:26:40.000Z'), ('0.25'), ('café 0')) x(k)
 WHERE jsonb_typeof(j) = 'string' AND k IS NOT NULL;
SELECT count(*) > 1000 AS many, count(*) FILTER (WHERE aj ? k) > 100 AS many_found
  FROM ek JOIN ek_shaped USING (id);
SELECT id, name, k, a ? k AS ours, aj ? k AS jsonb
  FROM ek JOIN ek_shaped USING (id)
 WHERE (a ? k) IS DISTINCT FROM (aj ? k)
    OR (a ?| ARRAY['nope', k]) IS DISTINCT FROM (aj ?| ARRAY['nope', k])
    OR (a ?& ARRAY[j ->> 0, k]) IS DISTINCT FROM (aj ?& ARRAY[j ->> 0, k])
 ORDER BY id, k;
SELECT count(*) > 100 AS many_checked, count(*) FILTER (WHERE aj ? k) > 50 AS some_found
  FROM ek_all, (SELECT DISTINCT k FROM ek_shaped) s;
SELECT k, a ? k AS ours, aj ? k AS jsonb
  FROM ek_all, (SELECT DISTINCT k FROM ek_shaped) s
 WHERE (a ? k) IS DISTINCT FROM (aj ? k);

-- The set-returning functions on an Array of every kind: each element's
-- text and value as jsonb's functions give them from the jsonb view (the
-- text of Dates, Times, Floats and nested Arrays is written without a
-- JsonbValue)
SELECT count(*) AS elements,
	   count(*) FILTER (WHERE o.t IS DISTINCT FROM jt.t) AS text_differs,
	   count(*) FILTER (WHERE o.v::jsonb IS DISTINCT FROM jv.v) AS value_differs
  FROM ek_all,
	   LATERAL rbmarshal_array_elements_text(a) WITH ORDINALITY o1(t, n)
	   JOIN LATERAL jsonb_array_elements_text(aj) WITH ORDINALITY jt(t, n) USING (n)
	   JOIN LATERAL rbmarshal_array_elements(a) WITH ORDINALITY o2(v, n) USING (n)
	   JOIN LATERAL jsonb_array_elements(aj) WITH ORDINALITY jv(v, n) USING (n),
	   LATERAL (SELECT o1.t, o2.v) o
 WHERE rbmarshal_array_length(a) > 0;
SELECT n, o.t AS ours, jt.t AS jsonb
  FROM ek_all,
	   LATERAL rbmarshal_array_elements_text(a) WITH ORDINALITY o(t, n)
	   JOIN LATERAL jsonb_array_elements_text(aj) WITH ORDINALITY jt(t, n) USING (n)
 WHERE o.t IS DISTINCT FROM jt.t
 ORDER BY n LIMIT 20;
-- each element's bytes (Marshal.dump of it), as before Floats were written
-- without the re-encoder
SELECT md5(string_agg(encode(v::bytea, 'hex'), ',' ORDER BY n)) AS elements_md5
  FROM ek_all, LATERAL rbmarshal_array_elements(a) WITH ORDINALITY e(v, n);
-- nested Arrays of scalars, Floats of every layout, and Hashes inside
SELECT o.t AS ours, jt.t AS jsonb, o.t IS NOT DISTINCT FROM jt.t AS same
  FROM (SELECT rbmarshal_build_array(
				 rbmarshal_build_array(to_rbmarshal(1), to_rbmarshal('a"b\'), to_rbmarshal('null'::jsonb),
									   to_rbmarshal(true), to_rbmarshal(1.5::float8),
									   to_rbmarshal('[]'::jsonb), rbmarshal_build_array(to_rbmarshal(-0.0::float8))),
				 to_rbmarshal(1e20::float8), to_rbmarshal(-0.0::float8), to_rbmarshal(1e-5::float8),
				 to_rbmarshal(123456789012345680000::float8), to_rbmarshal(0.1::float8),
				 to_rbmarshal('Infinity'::float8),
				 rbmarshal_build_array(to_rbmarshal('{"b": 1, "a": [2.50]}'::jsonb))) AS a) s,
	   LATERAL rbmarshal_array_elements_text(a) WITH ORDINALITY o(t, n)
	   JOIN LATERAL jsonb_array_elements_text(a::jsonb) WITH ORDINALITY jt(t, n) USING (n)
 ORDER BY n;
