-- Load the fixtures that test/fixtures/generate.rb took from MRI; the other
-- tests read these tables.
CREATE TABLE fx (name text PRIMARY KEY, objects int, symbols int, hex text);
\copy fx FROM 'test/fixtures/valid.tsv'
SELECT count(*) > 100 AS many_fixtures FROM fx;

-- streams MRI refuses, with MRI's error
CREATE TABLE bad (name text PRIMARY KEY, hex text, mri_error text);
-- CSV mode with a quote character that never occurs: MRI's messages hold backslashes
\copy bad FROM 'test/fixtures/invalid.tsv' WITH (FORMAT csv, DELIMITER E'\t', QUOTE E'\x01')
SELECT count(*) > 10 AS many FROM bad;

-- activerecord-session_store rows: Base64 text with a newline every 60 characters
CREATE TABLE sessions (session_id text PRIMARY KEY, data text);
\copy sessions FROM 'test/fixtures/sessions.tsv'
SELECT count(*) AS rows, count(*) FILTER (WHERE data LIKE E'%\n%') AS multiline
  FROM sessions;
