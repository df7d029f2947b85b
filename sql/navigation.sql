-- Navigation agrees with the jsonb view: for every value v, key k and index i,
-- (v -> k)::jsonb IS NOT DISTINCT FROM v::jsonb -> k, and the same for ->>, #>, #>>.
\i sql/include/shared_tables.sql

CREATE TABLE nav AS
SELECT name, ('\x' || hex)::rbmarshal AS v, expected::jsonb AS j FROM to_json;

-- every top-level key (and one missing key) of every object
CREATE TABLE nav_keys AS
SELECT name, k FROM nav, LATERAL jsonb_object_keys(j) k WHERE jsonb_typeof(j) = 'object'
UNION ALL
SELECT name, 'no such key' FROM nav;
SELECT count(*) > 2000 AS many_keys FROM nav_keys;
SELECT n.name, k.k FROM nav n JOIN nav_keys k USING (name)
 WHERE (n.v -> k.k)::jsonb IS DISTINCT FROM n.j -> k.k
    OR (n.v ->> k.k) IS DISTINCT FROM (n.j ->> k.k)
    OR (n.v ? k.k) IS DISTINCT FROM (n.j ? k.k);

-- every index, negative ones and one past the end, of every array
CREATE TABLE nav_idx AS
SELECT name, i FROM nav, LATERAL generate_series(-jsonb_array_length(j) - 1, jsonb_array_length(j)) i
 WHERE jsonb_typeof(j) = 'array';
SELECT count(*) > 1000 AS many_indexes FROM nav_idx;
SELECT n.name, x.i FROM nav n JOIN nav_idx x USING (name)
 WHERE (n.v -> x.i)::jsonb IS DISTINCT FROM n.j -> x.i
    OR (n.v ->> x.i) IS DISTINCT FROM (n.j ->> x.i);

-- two-level paths: every key or index below every top-level entry
CREATE TABLE nav_paths AS
SELECT name, ARRAY[k1, k2] AS p FROM nav,
       LATERAL (SELECT key AS k1, value AS c FROM jsonb_each(j) WHERE jsonb_typeof(j) = 'object'
                UNION ALL
                SELECT (ord - 1)::text, e FROM jsonb_array_elements(j) WITH ORDINALITY a(e, ord)
                 WHERE jsonb_typeof(j) = 'array') l1,
       LATERAL (SELECT key AS k2 FROM jsonb_each(c) WHERE jsonb_typeof(c) = 'object'
                UNION ALL
                SELECT i::text FROM generate_series(-1, jsonb_array_length(c)) i
                 WHERE jsonb_typeof(c) = 'array') l2;
SELECT count(*) > 1000 AS many_paths FROM nav_paths;
SELECT n.name, x.p FROM nav n JOIN nav_paths x USING (name)
 WHERE (n.v #> x.p)::jsonb IS DISTINCT FROM n.j #> x.p
    OR (n.v #>> x.p) IS DISTINCT FROM (n.j #>> x.p)
    OR (n.v)[x.p[1]][x.p[2]]::jsonb IS DISTINCT FROM n.j #> x.p;

-- wrong kinds and missing keys are NULL, as in jsonb
SELECT '\x04085b0769066907'::rbmarshal -> 'a' AS key_on_array,
       'BAh7BjoGYWkG'::rbmarshal -> 0 AS index_on_hash,
       'BAh7BjoGYWkG'::rbmarshal -> 'b' AS missing,
       'BAh7BjoGYWkG'::rbmarshal #> '{a,b}' AS through_scalar,
       '\x040830'::rbmarshal -> 'a' AS on_nil;
SELECT 'BAh7BjoGYWkG'::rbmarshal #> '{}' AS empty_path, 'BAh7BjoGYWkG'::rbmarshal #> '{NULL}' AS null_step;

-- -> gives a stream of its own, equal to MRI's Marshal.dump(sub_value)
SELECT v -> 'b' AS b FROM (SELECT ('{"a": "x", "b": {"c": 1.5, "d": [1.5, "y"]}}'::jsonb)::rbmarshal AS v) t;

-- the Rails shapes: Time, HWIA, Struct, objects, Set, OpenStruct
SELECT name, rbmarshal_typeof(v) AS typeof, rbmarshal_class(v) AS class
  FROM nav WHERE name IN ('fx_rails_time_utc', 'fx_rails_hwia', 'fx_type_struct', 'fx_type_object',
                          'fx_rails_set', 'fx_rails_openstruct', 'fx_rails_date', 'fx_type_nil',
                          'fx_type_bignum', 'fx_type_float', 'fx_type_symbol', 'fx_rails_safe_buffer',
                          'fx_rails_bigdecimal', 'fx_type_regexp', 'fx_type_class', 'fx_rails_duration',
                          'fx_type_true', 'fx_rails_time_with_zone', 'fx_type_array', 'fx_type_hash')
 ORDER BY name;

-- a link to a symbol defined with an encoding gives that symbol with it:
-- [s, s, "x"] for a Shift_JIS Symbol s, so v -> 1 is Marshal.dump(s) as v -> 0
SELECT (v -> 1)::bytea = (v -> 0)::bytea AS link_same_as_definition, (v -> 1)::bytea AS dump
  FROM (SELECT ('\x' || hex)::rbmarshal AS v FROM fx WHERE name = 'sym_shift_jis_repeated') t;
-- and past the first 16 symbols: (0...16).map { :"s#{i}" } + [s, s]
SELECT (v -> -1)::bytea = (v -> -2)::bytea AS late_link_same_as_definition
  FROM (SELECT ('\x' || hex)::rbmarshal AS v FROM fx WHERE name = 'sym_shift_jis_repeated_late') t;

-- a crafted class name that is not UTF-8 text comes out escaped, never as
-- an invalid text value (o :"\xff" with no ivars; C :"A\x00B" around a String)
SELECT rbmarshal_class('\x04086f3a06ff00'::rbmarshal) AS not_utf8,
       octet_length(rbmarshal_class('\x04086f3a06ff00'::rbmarshal)) AS bytes,
       rbmarshal_class('\x0408433a084100422200'::rbmarshal) AS with_nul;
SELECT '\x04086f3a06ff00'::rbmarshal::numeric;

-- typeof and the set-returning functions agree with jsonb's
SELECT name FROM nav WHERE rbmarshal_typeof(v) IS DISTINCT FROM jsonb_typeof(j);
SELECT name FROM nav WHERE jsonb_typeof(j) = 'object'
   AND ARRAY(SELECT rbmarshal_keys(v) ORDER BY 1) IS DISTINCT FROM ARRAY(SELECT jsonb_object_keys(j) ORDER BY 1);
SELECT name FROM nav WHERE jsonb_typeof(j) = 'object'
   AND ARRAY(SELECT (key, value::jsonb)::text FROM rbmarshal_each(v) ORDER BY 1)
       IS DISTINCT FROM ARRAY(SELECT (key, value)::text FROM jsonb_each(j) ORDER BY 1);
SELECT name FROM nav WHERE jsonb_typeof(j) = 'object'
   AND ARRAY(SELECT (key, value)::text FROM rbmarshal_each_text(v) ORDER BY 1)
       IS DISTINCT FROM ARRAY(SELECT (key, value)::text FROM jsonb_each_text(j) ORDER BY 1);
SELECT name FROM nav WHERE jsonb_typeof(j) = 'array'
   AND (ARRAY(SELECT e::jsonb FROM rbmarshal_array_elements(v) e) IS DISTINCT FROM ARRAY(SELECT jsonb_array_elements(j))
        OR ARRAY(SELECT rbmarshal_array_elements_text(v)) IS DISTINCT FROM ARRAY(SELECT jsonb_array_elements_text(j))
        OR rbmarshal_array_length(v) <> jsonb_array_length(j));
-- keys keep Ruby's order (jsonb sorts them)
SELECT rbmarshal_keys('BAh7CDoGYmkGOgZhaQc6BmNpCA=='::rbmarshal);
SELECT rbmarshal_array_length('BAh7BjoGYWkG'::rbmarshal);
SELECT rbmarshal_keys('\x04085b00'::rbmarshal);

-- typed casts
SET timezone = 'UTC';
SET datestyle = 'ISO';
SELECT name, v::numeric AS numeric FROM nav
 WHERE name IN ('fx_type_fixnum', 'fx_type_bignum', 'fx_type_float', 'fx_rails_bigdecimal',
                'fx_rails_bigdecimal_small_negative', 'fx_float_nan', 'fx_float_inf')
 ORDER BY name;
SELECT '\x040869fa'::rbmarshal::bigint, ('\x04086c2b0900000000000000 40')::rbmarshal::numeric,
       '\x04086608312e35'::rbmarshal::double precision, '\x04086608312e35'::rbmarshal::integer,
       '\x040854'::rbmarshal::boolean;
SELECT name, v::timestamptz FROM nav
 WHERE name IN ('fx_rails_time_utc', 'fx_rails_time_nsec', 'fx_rails_time_offset_0530',
                'fx_rails_time_with_zone', 'fx_rails_datetime', 'fx_rails_time_year_1800')
 ORDER BY name;
SELECT name, v::date FROM nav WHERE name IN ('fx_rails_date') ORDER BY name;
SET timezone = 'America/New_York';
SELECT v::timestamptz FROM nav WHERE name = 'fx_rails_time_utc';
RESET timezone;
RESET datestyle;
\set VERBOSITY terse
SELECT 'BAh7BjoGYWkG'::rbmarshal::numeric;
SELECT '\x04084922066106 3a064554'::rbmarshal::boolean;
SELECT v::timestamptz FROM nav WHERE name = 'fx_rails_date';
SELECT v::date FROM nav WHERE name = 'fx_rails_time_utc';
SELECT ('\x04086c2b0900000000000000 40')::rbmarshal::integer;
SELECT (v)['a'] FROM (SELECT 'BAh7BjoGYWkG'::rbmarshal AS v) t;
UPDATE nav SET v['a'] = v WHERE false;

-- v #> path equals MRI's Marshal.dump of Ruby's own navigation of the loaded
-- value (test/diff/paths.tsv), NULL where the path leads nowhere.  Listed
-- below are the only differences: Ruby's Exception gains bt_locations and
-- BigDecimal's _dump changes its precision once loaded (class behaviour a
-- byte decoder cannot know).
CREATE TABLE paths (name text PRIMARY KEY, hex text, path text[], expected text);
\copy paths FROM 'test/diff/paths.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
SELECT count(*) > 1000 AS many_paths, count(*) FILTER (WHERE expected = 'NULL') > 100 AS many_missing FROM paths;
SELECT name, path FROM paths
 WHERE (('\x' || hex)::rbmarshal #> path)::bytea IS DISTINCT FROM
       CASE WHEN expected = 'NULL' THEN NULL ELSE decode(expected, 'hex') END
 ORDER BY name;
