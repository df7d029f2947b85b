-- YAML text -> rbmarshal: MRI's bytes for every case test/yaml/generate.rb
-- took from Ruby (Psych 4), and ActiveSupport's jsonb of the loaded value.
CREATE TABLE yaml_cases (name text, yaml text, expected text, mode text, json text);
\copy yaml_cases FROM 'test/yaml/cases.tsv'
SELECT count(*) > 2000 AS many_cases FROM yaml_cases;

-- the bytes, or the class of the error as the generator names it
CREATE FUNCTION yaml_try(y text, mode text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	classes text[];
	v rbmarshal;
BEGIN
	IF mode = '-' THEN
		v := rbmarshal_from_yaml(y);
	ELSE
		classes := array_remove(string_to_array(split_part(substr(mode, 6), ';', 1), ','), '');
		v := rbmarshal_from_yaml(y, classes, mode NOT LIKE '%;noalias');
	END IF;
	RETURN encode(v::bytea, 'hex');
EXCEPTION
	WHEN invalid_text_representation THEN RETURN '!22P02';
	WHEN invalid_parameter_value THEN RETURN '!refused';
	WHEN statement_too_complex THEN RETURN '!depth';
	WHEN program_limit_exceeded THEN RETURN '!limit';
END $$;

-- every case: the same bytes, or the same kind of failure
SELECT name, expected, yaml_try(yaml, mode) AS got
  FROM yaml_cases
 WHERE yaml_try(yaml, mode) IS DISTINCT FROM
       CASE WHEN expected IN ('!syntax', '!unrepresentable') THEN '!22P02'
            WHEN expected LIKE '!refused:%' THEN '!refused' ELSE expected END;

-- the jsonb view of what was read is ActiveSupport's JSON of the loaded value
-- (the jsonb view refuses Hash keys whose to_s is an inspect text: 22023;
-- it names classes and modules where ActiveSupport 6.1 writes {}, and shows
-- an OpenStruct as its table without the "table"
-- key ActiveSupport's instance_values gives, a TimeZone as its name where
-- ActiveSupport dumps tzinfo's tables: the jsonb view's choices;
-- ActionController::Parameters is its @parameters, as its as_json; an
-- OrderedOptions is nil: Marshal does not write its pairs, its marshal_dump
-- is nil; Integers past jsonb's numeric (131072 digits) are not compared;
-- refused_keys also counts Rationals whose parts pass the buffer the view
-- writes their to_s in: 22023 as from Marshal)
CREATE FUNCTION yaml_jsonb(y text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
	RETURN rbmarshal_from_yaml(y)::jsonb;
EXCEPTION
	WHEN invalid_parameter_value THEN RETURN '"refused"';
END $$;
SELECT name, yaml_jsonb(yaml) AS got, json::jsonb AS expected
  FROM yaml_cases
 WHERE mode = '-' AND json <> '-' AND expected NOT LIKE '!%'
   AND yaml !~ '!ruby/(class|module|object:OpenStruct)'
   AND yaml !~ 'ActiveSupport::(Ordered|Inheritable)Options'
   AND json NOT LIKE '%"tzinfo":{"info":%' AND name !~ '^integer \d+ digits'
   AND yaml_jsonb(yaml) IS DISTINCT FROM json::jsonb AND yaml_jsonb(yaml) <> '"refused"';
SELECT count(*) FILTER (WHERE yaml LIKE '%ActionController::Parameters%') AS parameters_compared,
       count(*) FILTER (WHERE yaml LIKE '%!ruby/encoding%') AS encodings_compared,
       count(*) > 500 AS jsonb_compared,
       count(*) FILTER (WHERE yaml_jsonb(yaml) = '"refused"') AS refused_keys
  FROM yaml_cases WHERE mode = '-' AND json <> '-' AND expected NOT LIKE '!%' AND name !~ '^integer \d+ digits';

-- what the jsonb view and navigation see of a typical serialize column
SELECT rbmarshal_from_yaml(E'---\ntheme: dark\nlimits:\n- 1\n- 2\nsince: 2024-03-05\n:sym: x\n') -> 'limits' ->> 1 AS nav,
       rbmarshal_class(rbmarshal_from_yaml(E'--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: 1\n')) AS cls,
       rbmarshal_inspect(rbmarshal_from_yaml(E'a:\n- 1\n- 2.5\n- :b\n- ~\n')) AS inspect;

-- Psych's fallbacks: no document is false (unsafe) or nil (safe)
SELECT encode(rbmarshal_from_yaml('')::bytea, 'hex') AS unsafe_empty,
       encode(rbmarshal_from_yaml('# nothing', '{}', true)::bytea, 'hex') AS safe_empty;

-- errors: YAML Psych cannot parse names the line and column
\set VERBOSITY default
SELECT rbmarshal_from_yaml(E'a: 1\nb: [1, 2\n');
SELECT rbmarshal_from_yaml(E'- 1\n- *nope\n');
SELECT rbmarshal_from_yaml(E'--- !ruby/range nodots');
-- safe mode refuses what YAML.safe_load refuses, naming the class and line
SELECT rbmarshal_from_yaml(E'a: 1\nb: !ruby/object:User\n  name: x\n', '{Symbol}');
SELECT rbmarshal_from_yaml(E'a: :sym\n', '{}');
SELECT rbmarshal_from_yaml(E'a: &x 1\nb: *x\n', '{}', false);
SELECT rbmarshal_from_yaml(E'a: 2024-03-05\n', '{Symbol}');
SELECT encode(rbmarshal_from_yaml(E'a: 2024-03-05\n', '{Date}')::bytea, 'hex') AS date_permitted;
SELECT rbmarshal_from_yaml('a: 1', '{NULL}');
-- the refusal Psych reports first: Range is loaded before its ends
SELECT rbmarshal_from_yaml(E'--- !ruby/range\nbegin: 2024-01-01\nend: 2024-02-01\nexcl: false\n', '{}');
-- an alias to no anchor is Psych's BadAlias in either mode
SELECT rbmarshal_from_yaml(E'--- *unknown\n', '{}');
-- Integer() is given the text without its separators
SELECT rbmarshal_from_yaml(E'- 0x_\n');
-- OpenStruct's own to_sym needs no Symbol
SELECT encode(rbmarshal_from_yaml(E'--- !ruby/object:OpenStruct\na: 1\n', '{OpenStruct}')::bytea, 'hex') AS ostruct;
-- Integers of any length: 200,000 digits
SELECT length(rbmarshal_from_yaml('--- ' || repeat('7', 200000))::bytea) AS bignum_bytes;
-- ... but a JSON number holds 131,072 digits (jsonb's numeric): a longer one
-- is 54000 at once, a Marshal'd Bignum alike
SELECT rbmarshal_from_yaml('--- ' || repeat('7', 131072))::jsonb::text = repeat('7', 131072) AS longest_number;
SELECT rbmarshal_from_yaml('--- -' || repeat('7', 300000))::jsonb;
SELECT rbmarshal_from_yaml('--- 0x' || repeat('f', 200000))::bytea::rbmarshal::json;
-- NULL in, NULL out
SELECT rbmarshal_from_yaml(NULL) IS NULL AS null_in, rbmarshal_from_yaml(NULL, '{}') IS NULL AS null_safe;

-- limits: nesting, and aliases that would expand past the budget
SELECT rbmarshal_from_yaml(repeat('[', 2000) || repeat(']', 2000));
SELECT length(rbmarshal_from_yaml(repeat('[', 999) || repeat(']', 999))::bytea) AS depth_999;
-- a HashWithIndifferentAccess converting a cycle recurses until the limit,
-- as Ruby's does until its stack runs out
SELECT rbmarshal_from_yaml(E'--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: &a [*a]\n');
-- a billion laughs: shared references stay links (small bytes, fast) ...
CREATE TABLE yaml_laughs AS SELECT 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]' || string_agg(
	format(E'\n%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]', c, c, p, p, p, p, p, p, p, p, p), '')
	AS y FROM (SELECT chr(97 + i) AS c, chr(96 + i) AS p FROM generate_series(1, 9) i) s;
SELECT length(rbmarshal_from_yaml(y)::bytea) < 1000 AS small FROM yaml_laughs;
-- ... and their jsonb view stops at the expansion cap
SELECT rbmarshal_from_yaml(y)::jsonb FROM yaml_laughs;
-- nested merge keys over aliases: the merged pairs count against the
-- reader's budget, the values they share are links; the jsonb view stops at
-- its budget (100,000 + 16 per byte: about 15 MB of the builder's memory)
CREATE TABLE yaml_merges AS SELECT 'a0: &a0 {k: v, l: w}' || string_agg(
	format(E'\na%s: &a%s {<<: *a%s, m%s: *a%s}', i, i, i - 1, i, i - 1), '') AS y FROM generate_series(1, 24) i;
SELECT length(y) AS yaml_bytes, length(rbmarshal_from_yaml(y)::bytea) AS marshal_bytes FROM yaml_merges;
SELECT rbmarshal_from_yaml(y)::jsonb FROM yaml_merges;
-- where Ruby copies (HashWithIndifferentAccess converts nested hashes), the
-- reader's own budget stops the copying
SELECT rbmarshal_from_yaml(E'--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\n' ||
	'a: &a {x: 1, y: 2}' || string_agg(format(E'\n%s: &%s {p: *%s, q: *%s, r: *%s, s: *%s}',
	chr(97 + i), chr(97 + i), chr(96 + i), chr(96 + i), chr(96 + i), chr(96 + i)), '')) FROM generate_series(1, 20) i;

-- rbmarshal_migrate(..., source_format => 'yaml'): a YAML column to jsonb in
-- batches, the rows that cannot load recorded and left alone
CREATE TABLE yaml_users (id int PRIMARY KEY, settings text, settings_json jsonb);
INSERT INTO yaml_users VALUES
	(1, E'---\ntheme: dark\nsince: 2024-03-05\n', NULL),
	(2, E'--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\nlimits: [1, 2]\n:sym: x\n', NULL),
	(3, E'a: [', NULL),
	(4, E'--- !ruby/object:Money\ncents: 5\ncurrency: USD\n', NULL),
	-- no document: nil, as Rails 7.2's YAMLColumn loads it (unsafe_load gives
	-- false, which the app never sees); a false document stays false
	(5, '', NULL), (6, E'# a comment\n\n  # another\n', NULL), (7, E'--- false\n', NULL),
	(8, E'\t\n', NULL);
SET client_min_messages = warning;	-- the progress NOTICEs show timings
CALL rbmarshal_migrate('yaml_users', 'settings', 'settings_json', batch_size => 2, source_format => 'yaml');
RESET client_min_messages;
SELECT id, settings_json, settings_json IS NOT DISTINCT FROM
       CASE WHEN id IN (5, 6) THEN 'null' WHEN id NOT IN (3, 8) THEN rbmarshal_from_yaml(settings)::jsonb END AS same
  FROM yaml_users ORDER BY id;
SELECT key, error FROM rbmarshal_migration_errors WHERE relation = 'yaml_users'::regclass ORDER BY key;
SELECT * FROM rbmarshal_migration_check('yaml_users', 'settings', 'settings_json', 'id');
-- leave the extension's migration tables as the other tests expect them
DELETE FROM rbmarshal_migration_errors WHERE relation = 'yaml_users'::regclass;
DELETE FROM rbmarshal_migration_progress WHERE relation = 'yaml_users'::regclass;
