-- The sample tables README.md's sql blocks run against (test/readme/run.sh
-- loads this once into a template database; each block gets a fresh copy).
-- Shaped as Rails creates them, filled from the fixtures Ruby wrote.

CREATE EXTENSION rbmarshal;

\i test/readme/sessions.sql

-- Solid Cache's table, holding every cache entry format ActiveSupport writes
CREATE TABLE solid_cache_entries (
	id bigserial PRIMARY KEY,
	key bytea NOT NULL,
	value bytea NOT NULL,
	created_at timestamp(6) NOT NULL DEFAULT now(),
	key_hash bigint NOT NULL UNIQUE,
	byte_size integer NOT NULL
);
CREATE TEMP TABLE entries (name text, format text, hex text, value_hex text, expires_at text, version text);
\copy entries FROM 'test/rails/cache_entries.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01', NULL 'NULL')
INSERT INTO solid_cache_entries (key, value, key_hash, byte_size)
SELECT convert_to(name, 'UTF8'), decode(hex, 'hex'), hashtextextended(name, 0), length(hex) / 2
  FROM entries ORDER BY name;

-- a key-value table of plain Marshal.dump bytes (Rails values of many classes)
CREATE TABLE cache (key text PRIMARY KEY, value bytea NOT NULL);
CREATE TEMP TABLE fx (name text, objects int, symbols int, hex text);
\copy fx FROM 'test/fixtures/valid.tsv'
INSERT INTO cache SELECT name, decode(hex, 'hex') FROM fx
 WHERE name ~ '^(rails_(hwia|time_utc|date|datetime|bigdecimal|set|time_with_zone|duration|range_inclusive)|hash_nested|array_nested)$';

-- a model with a custom-serialized bytea column (Marshal coder) and a YAML
-- serialize column (the default coder; the text is Ruby's
-- {"theme" => "dark", "columns" => [1, 2]}.to_yaml)
CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL, prefs bytea, settings text);
INSERT INTO users (email, prefs, settings)
SELECT 'user' || i || '@example.com', decode(hex, 'hex'), E'---\ntheme: dark\ncolumns:\n- 1\n- 2\n'
  FROM fx, generate_series(1, 3) i WHERE name = 'settings_2kb';
INSERT INTO users (email, prefs, settings) VALUES ('nil@example.com', NULL, NULL);
