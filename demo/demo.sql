-- rbmarshal demo: Rails session rows (activerecord-session_store) as SQL values.
\pset pager off
\echo
\echo '== the sessions table as the gem creates it, with 20 sample rows'
CREATE EXTENSION rbmarshal;
\i test/readme/sessions.sql
-- rows a broken writer left behind: a truncated stream, and text that is not Base64
INSERT INTO sessions (session_id, data) VALUES ('2::broken', 'BAh7BkkiD3Nlc3Npb25faWQGOgZFVEkiJWQzYzVm'),
                                             ('2::not-base64', 'BAh7!!!');
SELECT left(session_id, 20) || '...' AS session_id, left(data, 40) || '...' AS data FROM sessions ORDER BY id LIMIT 3;

\echo '== which rows hold valid Marshal, and why the others do not'
SELECT count(*) FILTER (WHERE rbmarshal_is_valid(data)) AS valid,
       count(*) FILTER (WHERE NOT rbmarshal_is_valid(data)) AS invalid
  FROM sessions;
SELECT session_id, rbmarshal_error(data) AS error
  FROM sessions WHERE NOT rbmarshal_is_valid(data);

\echo '== the Base64 text casts straight to rbmarshal (validated, stored byte for byte)'
ALTER TABLE sessions ADD COLUMN m rbmarshal;
UPDATE sessions SET m = data::rbmarshal WHERE rbmarshal_is_valid(data);

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

\echo '== a Solid Cache table: Rails 7.1 and 6.1 entries side by side'
CREATE TABLE solid_cache_entries (id bigserial PRIMARY KEY, key bytea NOT NULL, value bytea NOT NULL,
                                  created_at timestamp(6) NOT NULL DEFAULT now(), key_hash bigint NOT NULL DEFAULT 0,
                                  byte_size integer NOT NULL DEFAULT 0);
INSERT INTO solid_cache_entries (key, value) VALUES
  ('production:views/products/1', '\x0011010000 60c3c979d941 14000000 3230323430333035313430373039313233343536 04087b0749220769 64063a0645546906492209 6e616d65063b0054492208416e6e063b0054'),
  ('production:greeting', '\x0011020000000000 00f0bf ffffffff 68c3a96c6c6f2077c3b6726c64'),
  ('production:legacy', ('\x' || (SELECT encode(to_rbmarshal(42)::bytea, 'hex')))::bytea);
SELECT convert_from(key, 'UTF8') AS key, e.format, e.expires_at, e.version, e.value::jsonb AS value
  FROM solid_cache_entries, rbmarshal_cache_entry(value) e ORDER BY id;

\echo '== a custom serialize coder (bytea of Marshal.dump): convert in committed batches, bad rows kept aside'
CREATE TABLE users (id int PRIMARY KEY, prefs bytea);
INSERT INTO users SELECT i, rbmarshal_build_hash('theme', CASE WHEN i % 2 = 0 THEN 'dark' ELSE 'light' END,
                                                   'limits', rbmarshal_build_array(to_rbmarshal(i), to_rbmarshal(10 * i)))::bytea
  FROM generate_series(1, 50) i;
UPDATE users SET prefs = '\x0408ff' WHERE id = 7;
ALTER TABLE users ADD COLUMN prefs_json jsonb;
CALL rbmarshal_migrate('users', 'prefs', 'prefs_json', batch_size => 20);
SELECT job, rows_total, rows_done, rows_bad FROM rbmarshal_migration_progress;
SELECT key, error FROM rbmarshal_migration_errors;
SELECT count(*) AS mismatches FROM rbmarshal_migration_check('users', 'prefs', 'prefs_json');
SELECT prefs_json ->> 'theme' AS theme, count(*) FROM users GROUP BY 1 ORDER BY 1;

\echo '== Ruby literals in, Ruby inspect out'
SELECT rbmarshal_inspect('{"user_id" => 42, roles: [:admin], score: 1.5}'::rbmarshal) AS inspect,
       rbmarshal_inspect(m) AS a_session FROM sessions WHERE id = 2;

\echo '== and back: jsonb to the bytes Ruby would write for JSON.parse(j)'
SELECT '{"user_id": 42, "roles": ["admin"], "score": 1.5}'::jsonb::rbmarshal AS marshal,
       encode('{"user_id": 42}'::jsonb::rbmarshal::bytea, 'base64') AS base64_for_the_session_store;
