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
SELECT left(session_id, 20) || '...' AS session_id, left(data, 40) || '...' AS data FROM sessions ORDER BY id LIMIT 3;

\echo '== which rows hold valid Marshal, and why the others do not'
SELECT count(*) FILTER (WHERE rbmarshal_is_valid(decode(data, 'base64'))) AS valid,
       count(*) FILTER (WHERE NOT rbmarshal_is_valid(decode(data, 'base64'))) AS invalid
  FROM sessions;
SELECT session_id, rbmarshal_error(decode(data, 'base64')) AS error
  FROM sessions WHERE NOT rbmarshal_is_valid(decode(data, 'base64'));

\echo '== the Base64 text casts straight to rbmarshal (validated, stored byte for byte)'
ALTER TABLE sessions ADD COLUMN m rbmarshal;
UPDATE sessions SET m = data::rbmarshal WHERE rbmarshal_is_valid(decode(data, 'base64'));

\echo '== query it like jsonb: who is signed in, with what flash message'
SELECT m ->> 'session_id' AS session,
       (m #>> '{warden.user.user.key,0,0}')::int AS user_id,
       m #>> '{flash,flashes,notice}' AS notice,
       (m -> 'signed_in_at')::timestamptz AS signed_in_at
  FROM sessions WHERE m ? 'warden.user.user.key' ORDER BY id LIMIT 5;
SELECT rbmarshal_class(m -> 'signed_in_at') AS ruby_class, m ->> 'signed_in_at' AS as_rails_writes_it
  FROM sessions WHERE m ? 'signed_in_at' LIMIT 1;
SELECT rbmarshal_typeof(m -> 'cart_ids') AS typeof, m -> 'cart_ids' AS cart_ids_as_marshal,
       rbmarshal_array_length(m -> 'cart_ids') AS length
  FROM sessions WHERE m ? 'cart_ids' LIMIT 1;
SELECT key, value FROM sessions, rbmarshal_each_text(m) WHERE id = 1;

\echo '== index a key, and see the index used'
CREATE INDEX sessions_user ON sessions (((m #>> '{warden.user.user.key,0,0}')::int));
ANALYZE sessions;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sessions WHERE (m #>> '{warden.user.user.key,0,0}')::int = 42;
RESET enable_seqscan;

\echo '== migrate to jsonb in one statement: what Rails would have written with a JSON coder'
ALTER TABLE sessions ADD COLUMN j jsonb;
UPDATE sessions SET j = m::jsonb WHERE m IS NOT NULL;
SELECT jsonb_pretty(j) FROM sessions WHERE id = 1;
SELECT count(*) AS converted, bool_and(j ->> 'session_id' = m ->> 'session_id') AS same_answers
  FROM sessions WHERE m IS NOT NULL;

\echo '== and back: jsonb to the bytes Ruby would write for JSON.parse(j)'
SELECT '{"user_id": 42, "roles": ["admin"], "score": 1.5}'::jsonb::rbmarshal AS marshal,
       encode('{"user_id": 42}'::jsonb::rbmarshal::bytea, 'base64') AS base64_for_the_session_store;
