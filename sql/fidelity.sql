-- Every shape a Rails app leaves (issue #14): real Ruby 3.1 with ActiveSupport
-- and ActiveRecord 6.1 and 7.2 wrote the values and their answers
-- (test/fidelity/README.md).  as61 rows are regenerated in CI, as72 rows
-- where the Rails source is at hand; where they differ, 7.2 is the contract.
\i sql/include/shared_tables.sql
SET timezone = 'UTC';
-- a query's result, or its error: SQLSTATE, message and detail
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
	detail text;
BEGIN
	EXECUTE q INTO r;
	RETURN r;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' / ' || nullif(detail, ''), '');
END $$;
CREATE FUNCTION pg_temp.try_jsonb(v rbmarshal) RETURNS text LANGUAGE sql AS
$$ SELECT pg_temp.try(format('SELECT %L::bytea::rbmarshal::jsonb::text', v::bytea)) $$;
CREATE FUNCTION pg_temp.grp(name text) RETURNS text LANGUAGE sql AS
$$ SELECT substring(name FROM '^[a-z]+_[a-z0-9]+') $$;

-- v::jsonb = JSON.parse(ActiveSupport::JSON.encode(Marshal.load(v))): U with
-- every payload, keys of every kind, Ranges, ActiveSupport's as_json classes,
-- UTF-16/32, nested in each other with shared references
CREATE TABLE fid_json (name text, hex text, expected text, ver text DEFAULT 'as61');
\copy fid_json (name, hex, expected) FROM 'test/fidelity/as61_to_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_json ALTER ver SET DEFAULT 'as72';
\copy fid_json (name, hex, expected) FROM 'test/fidelity/as72_to_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_json ADD ours text;
UPDATE fid_json SET ours = pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal);
SELECT ver, count(*) AS rows, count(*) FILTER (WHERE ours IS DISTINCT FROM expected::jsonb::text) AS wrong
FROM fid_json GROUP BY ver ORDER BY ver;
SELECT ver, name, left(ours, 100) AS ours, left(expected::jsonb::text, 100) AS ruby
FROM fid_json WHERE ours IS DISTINCT FROM expected::jsonb::text ORDER BY name, ver;

-- (v -> k)::jsonb IS NOT DISTINCT FROM v::jsonb -> k for every key of every
-- object, and ->> gives its text
SELECT ver, name, k FROM fid_json, jsonb_object_keys(CASE WHEN jsonb_typeof(expected::jsonb) = 'object'
	THEN expected::jsonb ELSE '{}' END) k
WHERE ours = expected::jsonb::text
  AND ((decode(hex, 'hex')::rbmarshal -> k)::jsonb IS DISTINCT FROM expected::jsonb -> k
	   OR decode(hex, 'hex')::rbmarshal ->> k IS DISTINCT FROM expected::jsonb ->> k)
ORDER BY name, ver, k;
SELECT count(*) > 500 AS many_keys FROM fid_json, jsonb_object_keys(CASE WHEN jsonb_typeof(expected::jsonb) = 'object'
	THEN expected::jsonb ELSE '{}' END) k;

-- rbmarshal_typeof agrees with jsonb_typeof
SELECT ver, name FROM fid_json
WHERE ours = expected::jsonb::text
  AND rbmarshal_typeof(decode(hex, 'hex')::rbmarshal) <> jsonb_typeof(expected::jsonb)
ORDER BY name, ver;

-- v #> path is MRI's Marshal.dump of the sub-value at path (NULL: nothing there)
CREATE TABLE fid_paths (name text, hex text, path text[], expected text, ver text DEFAULT 'as61');
\copy fid_paths (name, hex, path, expected) FROM 'test/fidelity/as61_paths.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_paths ALTER ver SET DEFAULT 'as72';
\copy fid_paths (name, hex, path, expected) FROM 'test/fidelity/as72_paths.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_paths ADD ours text;
UPDATE fid_paths SET ours = pg_temp.try(format('SELECT encode((%L::bytea::rbmarshal #> %L::text[])::bytea, ''hex'')',
											  decode(hex, 'hex'), path));
SELECT ver, count(*) AS rows, count(*) FILTER (WHERE expected <> 'NULL') AS found,
	   count(*) FILTER (WHERE ours IS DISTINCT FROM nullif(expected, 'NULL')) AS wrong
FROM fid_paths GROUP BY ver ORDER BY ver;
SELECT ver, name, path, left(ours, 60) AS ours, left(expected, 60) AS ruby FROM fid_paths
WHERE ours IS DISTINCT FROM nullif(expected, 'NULL') ORDER BY name, ver;

-- keys whose to_s is an inspect text are refused, the error naming the class
CREATE TABLE fid_refused (name text, hex text, cls text, ver text DEFAULT 'as61');
\copy fid_refused (name, hex, cls) FROM 'test/fidelity/as61_refused.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_refused ALTER ver SET DEFAULT 'as72';
\copy fid_refused (name, hex, cls) FROM 'test/fidelity/as72_refused.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
SELECT name, cls, pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal) AS error
FROM fid_refused WHERE ver = 'as72' ORDER BY name;
SELECT ver, name FROM fid_refused
WHERE pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal) NOT LIKE '22023: % class ' || cls || ' %'
ORDER BY name, ver;

-- BigDecimal payloads: what BigDecimal._load refuses is an error in every
-- conversion, and no message shows the payload; what it reads is its number
CREATE TABLE fid_bigdecimal (name text, hex text, ruby text, ver text DEFAULT 'as61');
\copy fid_bigdecimal (name, hex, ruby) FROM 'test/fidelity/as61_bigdecimal.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_bigdecimal ALTER ver SET DEFAULT 'as72';
\copy fid_bigdecimal (name, hex, ruby) FROM 'test/fidelity/as72_bigdecimal.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
SELECT name, encode(substring(decode(hex, 'hex') FROM 17), 'escape') AS payload,
	   left(pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal), 48) AS jsonb,
	   left(pg_temp.try(format('SELECT %L::bytea::rbmarshal::numeric', decode(hex, 'hex'))), 48) AS numeric,
	   left(pg_temp.try(format('SELECT rbmarshal_inspect(%L::bytea::rbmarshal)', decode(hex, 'hex'))), 48) AS inspect
FROM fid_bigdecimal WHERE ver = 'as72' ORDER BY name;
-- what MRI refuses: an error everywhere (22P03), whose message shows no payload byte
SELECT ver, name FROM fid_bigdecimal, LATERAL (VALUES
	(pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal)),
	(pg_temp.try(format('SELECT %L::bytea::rbmarshal::numeric', decode(hex, 'hex')))),
	(pg_temp.try(format('SELECT rbmarshal_inspect(%L::bytea::rbmarshal)', decode(hex, 'hex'))))) r(answer)
WHERE ruby = 'error' AND (answer NOT LIKE '22P03: %BigDecimal._load refuses%'
						  OR (length(decode(hex, 'hex')) > 21 AND
							  answer LIKE '%' || encode(substring(decode(hex, 'hex') FROM 20), 'escape') || '%'))
ORDER BY name, ver;
SELECT ver, name FROM fid_bigdecimal
WHERE ruby <> 'error' AND (pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal) IS DISTINCT FROM ruby::jsonb::text
	   OR (jsonb_typeof(ruby::jsonb) = 'string' AND
		   pg_temp.try(format('SELECT %L::bytea::rbmarshal::numeric', decode(hex, 'hex')))::numeric <> (ruby::jsonb ->> 0)::numeric))
ORDER BY name, ver;

-- inspect as Ruby with ActiveSupport prints TimeWithZone, Duration,
-- OrderedOptions and Complex (negative zeros)
CREATE TABLE fid_inspect (name text, hex text, inspect text, ver text DEFAULT 'as61');
\copy fid_inspect (name, hex, inspect) FROM 'test/fidelity/as61_inspect.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_inspect ALTER ver SET DEFAULT 'as72';
\copy fid_inspect (name, hex, inspect) FROM 'test/fidelity/as72_inspect.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
SELECT ver, name, pg_temp.try(format('SELECT rbmarshal_inspect(%L::bytea::rbmarshal)', decode(hex, 'hex'))) AS ours,
	   inspect AS ruby
FROM fid_inspect
WHERE pg_temp.try(format('SELECT rbmarshal_inspect(%L::bytea::rbmarshal)', decode(hex, 'hex'))) IS DISTINCT FROM inspect
ORDER BY name, ver;

-- cache entries written by ActiveSupport 7.2's own 7.0 and 7.1 coders; the
-- expiry truncated to the microsecond as Time.at(float).usec
CREATE TABLE fid_cache (name text, format text, hex text, value_hex text, expires_at text, version text);
\copy fid_cache FROM 'test/fidelity/as72_cache.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01', NULL 'NULL')
SELECT count(*) AS entries FROM fid_cache;
SELECT name, e.format = c.format AS format_ok,
	   e.value::jsonb = decode(c.value_hex, 'hex')::rbmarshal::jsonb AS value_ok,
	   e.expires_at, c.expires_at AS ruby_expires_at, e.version IS NOT DISTINCT FROM c.version AS version_ok
FROM fid_cache c, rbmarshal_cache_entry(decode(c.hex, 'hex')) e
WHERE NOT (e.format = c.format AND e.value = decode(c.value_hex, 'hex')::rbmarshal
		   AND e.expires_at IS NOT DISTINCT FROM c.expires_at::timestamptz
		   AND e.version IS NOT DISTINCT FROM c.version)
ORDER BY name;

-- Active Record records of the postgresql (every OID type) and sqlite3
-- adapters, Rails 6.1 and 7.2, marshalling formats 6.1 and 7.1, serialized
-- columns with an object class: every attribute of every record (at the root,
-- in Arrays, in Hashes) against Rails' serializable_hash
CREATE TABLE fid_records (name text, hex text, expected text, ver text DEFAULT 'ar61');
\copy fid_records (name, hex, expected) FROM 'test/fidelity/ar61_records.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_records ALTER ver SET DEFAULT 'ar72';
\copy fid_records (name, hex, expected) FROM 'test/fidelity/ar72_records.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_records ADD ours text;
UPDATE fid_records SET ours = pg_temp.try_jsonb(decode(hex, 'hex')::rbmarshal);
SELECT ver, name, left(ours, 80) AS error FROM fid_records WHERE ours NOT LIKE '{%' AND ours NOT LIKE '[%'
ORDER BY name, ver;
-- the records in each value (objects with an id), in the same order in both;
-- each attribute either has (NULL: the record has no such attribute)
CREATE TABLE fid_attrs AS
SELECT r.ver, r.name, CASE WHEN r.name ~ '_f71_' THEN '7.1' ELSE '6.1' END AS fmt, o.n, k.key,
	   o.rec -> k.key AS ours, e.rec -> k.key AS rails
FROM fid_records r,
	jsonb_path_query(r.ours::jsonb, 'strict $.** ? (exists(@.id))') WITH ORDINALITY o(rec, n)
	LEFT JOIN LATERAL (SELECT x.rec FROM jsonb_path_query(r.expected::jsonb, 'strict $.** ? (exists(@.id))')
						  WITH ORDINALITY x(rec, n) WHERE x.n = o.n) e ON true,
	LATERAL (SELECT jsonb_object_keys(o.rec) UNION SELECT jsonb_object_keys(coalesce(e.rec, '{}'))) k(key);
SELECT ver, fmt, count(DISTINCT (name, n)) AS records, count(*) AS attributes,
	   count(*) FILTER (WHERE ours IS NOT DISTINCT FROM rails) AS as_rails
FROM fid_attrs GROUP BY ver, fmt ORDER BY ver, fmt;
-- where Rails differs, and why: what the bytes cannot say (README, Active
-- Record records), and where 6.1 differs from 7.2, the contract
CREATE TABLE fid_why (ord int, ver text, fmt text, keys text[], ours_type text, rails_type text, why text);
INSERT INTO fid_why VALUES
 (1, '%', '7.1', '{h,ip,net,jb,js,pt,span}', '%', '%', 'text of a type only the schema knows (hstore, inet, json, point, interval)'),
 (2, '%', '7.1', '{settings,mh}', '%', '%', 'a coder''s bytes in a binary column (the coder is in the model)'),
 (3, '%', '7.1', '{prefs,pobj,flags,list,hw,obj,jh,options,profile,extras}', '%', '%', 'a serialized column''s or store''s text or nil (the coder is in the model)'),
 (4, '%', '%', '{pobj}', 'object', 'object', 'nil is Prefs.new, whose ivars its initialize sets'),
 (5, 'ar61', '%', '{uid,uids}', '%', '%', '6.1 keeps a uuid''s case, 7.2 lower-cases it'),
 (6, 'ar61', '%', '{prefs,list,flags,obj}', '%', 'string', '6.1 keeps text not starting "---", 7.2 loads it'),
 (7, 'ar61', '%', '{prefs,obj}', 'string', '%', '6.1''s classes permitted app-wide (7.2: the column''s coder)'),
 (8, '%', '%', '{type}', '', '%', 'a "type" that is nil or the class''s name is taken for the inheritance column (STI off or another column: the model''s)'),
 (9, '%', '%', '{kind}', '%', '', 'an inheritance column other than "type" (the model''s) is kept'),
 (10, '%', '7.1', '{nums}', 'array', 'object', 'a query''s own array column: Rails keeps its Array::Data (no model''s type), the view casts it');
SELECT a.ver, a.fmt, a.key, w.why, count(*) AS attributes
FROM fid_attrs a LEFT JOIN LATERAL (
	SELECT why FROM fid_why w
	WHERE a.ver LIKE w.ver AND a.fmt LIKE w.fmt AND a.key = ANY (w.keys) AND
		  coalesce(jsonb_typeof(a.ours), '') LIKE w.ours_type AND coalesce(jsonb_typeof(a.rails), '') LIKE w.rails_type
	ORDER BY w.ord LIMIT 1) w ON true
WHERE a.ours IS DISTINCT FROM a.rails
GROUP BY a.ver, a.fmt, a.key, w.why ORDER BY a.ver, a.fmt, a.key, w.why;
-- v -> k agrees with the view on every attribute of a record at the root
SELECT r.ver, r.name, x.key FROM fid_records r, jsonb_each(r.ours::jsonb) x
WHERE r.ours LIKE '{%' AND
	(decode(r.hex, 'hex')::rbmarshal -> x.key)::jsonb IS DISTINCT FROM x.value
ORDER BY r.ver, r.name, x.key;

-- the same records as record.to_yaml writes them (concise_attributes), read by
-- rbmarshal_from_yaml: an attribute is what Rails loads where the YAML holds its
-- type or its cast value, else its value before type cast (to_yaml leaves out
-- the types that are the model's own)
CREATE TABLE fid_yaml_records (name text, hex text, expected text, raw text, ver text DEFAULT 'ar61');
\copy fid_yaml_records (name, hex, expected, raw) FROM 'test/fidelity/ar61_yaml_records.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_yaml_records ALTER ver SET DEFAULT 'ar72';
\copy fid_yaml_records (name, hex, expected, raw) FROM 'test/fidelity/ar72_yaml_records.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
ALTER TABLE fid_yaml_records ADD ours text;
UPDATE fid_yaml_records SET ours = pg_temp.try(format('SELECT rbmarshal_from_yaml(%L)::jsonb::text',
													  convert_from(decode(hex, 'hex'), 'UTF8')));
SELECT ver, name, left(ours, 80) AS error FROM fid_yaml_records WHERE ours NOT LIKE '{%' AND ours NOT LIKE '[%'
ORDER BY name, ver;
CREATE TABLE fid_yaml_attrs AS
SELECT r.ver, r.name, o.n, a.key, a.value AS ours,
	   (SELECT e.rec FROM jsonb_path_query(r.expected::jsonb, 'strict $.** ? (exists(@.id))')
			WITH ORDINALITY e(rec, n) WHERE e.n = o.n) -> a.key AS rails,
	   (SELECT e.rec FROM jsonb_path_query(r.raw::jsonb, 'strict $.** ? (exists(@.id))')
			WITH ORDINALITY e(rec, n) WHERE e.n = o.n) -> a.key AS before_cast
FROM fid_yaml_records r, jsonb_path_query(r.ours::jsonb, 'strict $.** ? (exists(@.id))') WITH ORDINALITY o(rec, n),
	jsonb_each(o.rec) a;
SELECT ver, count(DISTINCT (name, n)) AS records, count(*) AS attributes,
	   count(*) FILTER (WHERE ours IS NOT DISTINCT FROM rails) AS as_rails,
	   count(*) FILTER (WHERE ours IS DISTINCT FROM rails AND ours IS NOT DISTINCT FROM before_cast) AS before_type_cast,
	   count(*) FILTER (WHERE ours IS DISTINCT FROM rails AND ours IS DISTINCT FROM before_cast) AS neither
FROM fid_yaml_attrs GROUP BY ver ORDER BY ver;
SELECT ver, name, key, ours, rails, before_cast FROM fid_yaml_attrs
WHERE ours IS DISTINCT FROM rails AND ours IS DISTINCT FROM before_cast ORDER BY ver, name, key;
-- v -> k agrees with the view on every attribute of a record at the root
SELECT r.ver, r.name, x.key
FROM (SELECT ver, name, ours, rbmarshal_from_yaml(convert_from(decode(hex, 'hex'), 'UTF8')) AS v
	  FROM fid_yaml_records WHERE ours LIKE '{%') r, jsonb_each(r.ours::jsonb) x
WHERE (r.v -> x.key)::jsonb IS DISTINCT FROM x.value
ORDER BY r.ver, r.name, x.key;
-- every record in each value is found (as many as Rails has)
SELECT ver, name FROM fid_yaml_records
WHERE (SELECT count(*) FROM jsonb_path_query(ours::jsonb, 'strict $.** ? (exists(@.id))')) <>
	  (SELECT count(*) FROM jsonb_path_query(expected::jsonb, 'strict $.** ? (exists(@.id))'))
ORDER BY ver, name;

-- inspect of a marshal_dump (U) or _dump (u) class shows its class and its
-- data (Ruby's own inspect of them is in their code)
SELECT name, rbmarshal_inspect(decode(hex, 'hex')::rbmarshal) FROM fid_json
WHERE ver = 'as72' AND name IN ('u_root_nil', 'u_root_string', 'u_root_hash', 'u_currency_example', 'u_nested_deep')
ORDER BY name;
SELECT rbmarshal_inspect(decode(hex, 'hex')::rbmarshal) FROM fx WHERE name IN ('type_userdef', 'type_usermarshal')
ORDER BY name;
