-- rbmarshal demo: Rails session rows (activerecord-session_store) as SQL values.
\pset pager off
\echo
\echo '== the sessions table as the gem creates it, with 20 sample rows'
CREATE EXTENSION rbmarshal;
CREATE TABLE sessions (
    id bigserial PRIMARY KEY,
    session_id varchar NOT NULL UNIQUE,
    data text,
    created_at timestamp(6) NOT NULL DEFAULT now(),
    updated_at timestamp(6) NOT NULL DEFAULT now()
);
\copy sessions (session_id, data) FROM 'test/fixtures/sessions.tsv'
-- one row a broken writer left behind
INSERT INTO sessions (session_id, data) VALUES ('2::broken', 'BAh7BkkiD3Nlc3Npb25faWQGOgZFVEkiJWQzYzVm');
SELECT session_id, left(data, 40) || '...' AS data FROM sessions ORDER BY id LIMIT 3;

\echo '== which rows hold valid Marshal, and why the others do not'
SELECT count(*) FILTER (WHERE rbmarshal_is_valid(decode(data, 'base64'))) AS valid,
       count(*) FILTER (WHERE NOT rbmarshal_is_valid(decode(data, 'base64'))) AS invalid
  FROM sessions;
SELECT session_id, rbmarshal_error(decode(data, 'base64')) AS error
  FROM sessions WHERE NOT rbmarshal_is_valid(decode(data, 'base64'));

\echo '== the Base64 text casts straight to rbmarshal (validated, stored byte for byte)'
ALTER TABLE sessions ADD COLUMN m rbmarshal;
UPDATE sessions SET m = data::rbmarshal WHERE rbmarshal_is_valid(decode(data, 'base64'));
SELECT session_id, length(m::bytea) AS bytes, left(m::text, 34) || '...' AS marshal
  FROM sessions WHERE m IS NOT NULL ORDER BY id LIMIT 5;

\echo '== rbmarshal is a real type: equality, DISTINCT, hash and btree indexes'
CREATE INDEX ON sessions USING hash (m);
SELECT count(DISTINCT m) AS distinct_values, count(m) AS rows FROM sessions;
SELECT 'BAgw'::rbmarshal = '\x040830'::rbmarshal AS base64_equals_hex;
