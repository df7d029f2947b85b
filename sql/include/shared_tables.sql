\set ECHO none
-- The tables several regression tests read, each loaded once per database:
-- fx, bad and sessions (what test/fixtures/generate.rb took from MRI) and
-- to_json (test/diff/generate.rb's values and Ruby's JSON of them).  A test
-- that reads them starts with "\i sql/include/shared_tables.sql" (paths are
-- relative to the repository, where pg_regress runs), so it runs alone
-- (make installcheck REGRESS=navigation) as in the full suite; its output
-- shows the \i line and the line above, whichever test loaded the tables.
SELECT to_regclass('fx') IS NULL AS rbm_load \gset
\if :rbm_load
-- valid streams: name, MRI's object and symbol table sizes, the bytes
CREATE TABLE fx (name text PRIMARY KEY, objects int, symbols int, hex text);
\copy fx FROM 'test/fixtures/valid.tsv'
-- streams MRI refuses, with MRI's error
CREATE TABLE bad (name text PRIMARY KEY, hex text, mri_error text);
-- CSV mode with a quote character that never occurs: MRI's messages hold backslashes
\copy bad FROM 'test/fixtures/invalid.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
-- activerecord-session_store rows: Base64 text with a newline every 60 characters
CREATE TABLE sessions (session_id text PRIMARY KEY, data text);
\copy sessions FROM 'test/fixtures/sessions.tsv'
\endif
SELECT to_regclass('to_json') IS NULL AS rbm_load \gset
\if :rbm_load
CREATE TABLE to_json (name text PRIMARY KEY, hex text, expected text);
\copy to_json FROM 'test/diff/to_json.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
\endif
\unset rbm_load
\set ECHO all
