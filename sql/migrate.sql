-- The migration toolkit: find bad rows first, convert in committed batches
-- with progress, keep bad rows aside with their error, check the result.
\i sql/include/shared_tables.sql

-- an activerecord-session_store table, with three rows that cannot convert
CREATE TABLE sessions_m (id bigserial PRIMARY KEY, session_id text, data text, data_json jsonb);
INSERT INTO sessions_m (session_id, data) SELECT session_id, data FROM sessions ORDER BY session_id;
INSERT INTO sessions_m (session_id, data) VALUES
	('bad-base64', 'BAh7!!!'),
	('truncated', 'BAh7BkkiD3Nlc3Npb25faWQGOgZFVEkiJWQzYzVm'),
	('cycle', encode(('\x' || (SELECT hex FROM fx WHERE name = 'graph_self_hash'))::bytea, 'base64')),
	('nil', NULL);

-- 1. find the bad rows first
SELECT session_id, rbmarshal_error(data) FROM sessions_m WHERE NOT rbmarshal_is_valid(data) ORDER BY id;

-- 2. convert in batches of 7, committing each (NOTICEs report rate and time left)
SET client_min_messages = warning;
CALL rbmarshal_migrate('sessions_m', 'data', 'data_json', 'id', 7);
RESET client_min_messages;
SELECT relation, source_column, target_column, run, key_column, source_format, target_type,
	   rows_total, rows_done, rows_bad, finished_at IS NOT NULL AS finished
  FROM rbmarshal_migration_progress;
SELECT s.session_id, e.error FROM rbmarshal_migration_errors e JOIN sessions_m s ON s.id::text = e.key
 ORDER BY s.id;
-- no row was lost: every source is either converted or recorded as bad
SELECT count(*) AS sources, count(data_json) AS converted,
       (SELECT count(*) FROM rbmarshal_migration_errors) AS recorded_bad
  FROM sessions_m WHERE data IS NOT NULL;

-- 3. the reverse check finds nothing ... until a converted value is changed
SELECT * FROM rbmarshal_migration_check('sessions_m', 'data', 'data_json');
UPDATE sessions_m SET data_json = '{}' WHERE id = 3;
UPDATE sessions_m SET data = 'BAgw' WHERE session_id = 'truncated';
SELECT * FROM rbmarshal_migration_check('sessions_m', 'data', 'data_json');

-- running again converts what is left (the fixed row) and nothing twice;
-- each run keeps its own counts
SET client_min_messages = warning;
CALL rbmarshal_migrate('sessions_m', 'data', 'data_json', 'id', 7);
RESET client_min_messages;
SELECT run, rows_total, rows_done, rows_bad FROM rbmarshal_migration_progress ORDER BY run;
SELECT key, run FROM rbmarshal_migration_errors ORDER BY key::int;
SELECT data_json FROM sessions_m WHERE session_id = 'truncated';
SELECT count(*) AS still_bad FROM rbmarshal_migration_errors;

-- a bytea column of Marshal.dump output, converted to rbmarshal in place
CREATE TABLE prefs (user_id int PRIMARY KEY, settings bytea, settings_m rbmarshal);
INSERT INTO prefs SELECT i, ('\x' || hex)::bytea FROM fx, generate_series(1, 1) i WHERE name = 'settings_2kb';
INSERT INTO prefs VALUES (2, '\x04087b00'), (3, '\x0408ff');
SET client_min_messages = warning;
CALL rbmarshal_migrate('prefs', 'settings', 'settings_m', 'user_id', 100, 'auto', 'rbmarshal');
RESET client_min_messages;
SELECT user_id, settings_m IS NOT NULL AS converted, rbmarshal_class(settings_m) FROM prefs ORDER BY 1;
SELECT * FROM rbmarshal_migration_check('prefs', 'settings', 'settings_m', 'user_id', 'auto', 'rbmarshal');

-- 'auto' is Marshal only (hex, Base64, bytea): text another serializer
-- wrote is a bad row, not half-converted; Ruby literals when asked for
CREATE TABLE other_m (id int PRIMARY KEY, data text, v rbmarshal);
INSERT INTO other_m VALUES (1, '{"session_id":"abc","user_id":1}'), (2, '42'), (3, 'BAhpBg=='),
	(4, '\x04083a0661');
SET client_min_messages = warning;
CALL rbmarshal_migrate('other_m', 'data', 'v');
RESET client_min_messages;
SELECT id, rbmarshal_inspect(v) FROM other_m ORDER BY id;
SELECT key, error FROM rbmarshal_migration_errors WHERE relation = 'other_m'::regclass ORDER BY key;
SET client_min_messages = warning;
CALL rbmarshal_migrate('other_m', 'data', 'v', source_format => 'literal');
RESET client_min_messages;
SELECT id, rbmarshal_inspect(v) FROM other_m ORDER BY id;
SELECT key, error FROM rbmarshal_migration_errors WHERE relation = 'other_m'::regclass ORDER BY key;
-- the check of a job read in two formats (auto, then literal): each row is
-- compared as a format the job used reads it, none is raised
SELECT * FROM rbmarshal_migration_check('other_m', 'data', 'v');
-- a source no format of the job reads, and a target that differs, are listed
UPDATE other_m SET data = 'not marshal' WHERE id = 2;
UPDATE other_m SET v = to_rbmarshal(7) WHERE id = 3;
SELECT * FROM rbmarshal_migration_check('other_m', 'data', 'v');
-- one format named: rows it cannot read are listed too
SELECT * FROM rbmarshal_migration_check('other_m', 'data', 'v', source_format => 'auto');

-- a run without source_format reads what the job's last run read (not
-- 'auto'): run 2 converts the literal row added after run 1
CREATE TABLE lit_m (id int PRIMARY KEY, data text, v rbmarshal);
INSERT INTO lit_m VALUES (1, ':a'), (2, '[1, "b"]');
SET client_min_messages = warning;
CALL rbmarshal_migrate('lit_m', 'data', 'v', source_format => 'literal');
INSERT INTO lit_m VALUES (3, '{c: 2.5}');
CALL rbmarshal_migrate('lit_m', 'data', 'v');
RESET client_min_messages;
SELECT run, source_format, rows_total, rows_done, rows_bad FROM rbmarshal_migration_progress
 WHERE relation = 'lit_m'::regclass ORDER BY run;
SELECT id, rbmarshal_inspect(v) FROM lit_m ORDER BY id;
SELECT count(*) AS bad FROM rbmarshal_migration_errors WHERE relation = 'lit_m'::regclass;
-- and the check reads it too
SELECT * FROM rbmarshal_migration_check('lit_m', 'data', 'v');

-- an rbmarshal source column: nothing to convert but to jsonb
CREATE TABLE rbm_m (id int PRIMARY KEY, v rbmarshal, j jsonb, copy rbmarshal);
INSERT INTO rbm_m SELECT i, ('\x' || hex)::bytea::rbmarshal FROM fx, generate_series(1, 2) i
 WHERE name = 'settings_2kb';
INSERT INTO rbm_m SELECT 3, ('\x' || hex)::bytea::rbmarshal FROM fx WHERE name = 'graph_self_hash';
SET client_min_messages = warning;
CALL rbmarshal_migrate('rbm_m', 'v', 'j', batch_size => 2);
CALL rbmarshal_migrate('rbm_m', 'v', 'copy');
RESET client_min_messages;
-- (the cycle cannot be jsonb: a bad row)
SELECT id, CASE WHEN j IS NOT NULL THEN j = v::jsonb END AS same_view,
	   copy::bytea = v::bytea AS same_bytes
  FROM rbm_m ORDER BY id;
SELECT key, error FROM rbmarshal_migration_errors WHERE relation = 'rbm_m'::regclass;
SELECT * FROM rbmarshal_migration_check('rbm_m', 'v', 'j');
SELECT * FROM rbmarshal_migration_check('rbm_m', 'v', 'copy');
\set VERBOSITY terse
CALL rbmarshal_migrate('rbm_m', 'v', 'j', source_format => 'hex');
\set VERBOSITY default

-- one run of a job at a time: while another session runs it (holds its
-- lock), a second call is refused at once, before any work; the lock is
-- the job's, whoever runs it, and every run lets go of it
CREATE EXTENSION dblink;
SELECT dblink_connect('other', format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1),
	current_setting('port'), current_database()));
SELECT * FROM dblink('other', format('SELECT pg_advisory_lock(%s)',
	rbmarshal_migration_lock_key('rbm_m', 'v', 'j'))) AS t(locked text);
UPDATE rbm_m SET j = NULL;
\set VERBOSITY terse
CALL rbmarshal_migrate('rbm_m', 'v', 'j');
\set VERBOSITY default
SELECT count(*) AS runs, count(j) AS written
  FROM rbm_m, rbmarshal_migration_progress p
 WHERE p.relation = 'rbm_m'::regclass AND p.target_column = 'j' AND rbm_m.id = 1;
SELECT * FROM dblink('other', format('SELECT pg_advisory_unlock(%s)',
	rbmarshal_migration_lock_key('rbm_m', 'v', 'j'))) AS t(unlocked text);
SET client_min_messages = warning;
CALL rbmarshal_migrate('rbm_m', 'v', 'j');
RESET client_min_messages;
SELECT count(j) AS written, count(*) FILTER (WHERE j IS NULL) AS bad FROM rbm_m;
SELECT count(*) AS locks_left FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
-- a call refused by its checks takes no lock either
\set VERBOSITY terse
CALL rbmarshal_migrate('rbm_m', 'v', 'j', batch_size => 0);
\set VERBOSITY default
SELECT count(*) AS locks_left FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
SELECT dblink_disconnect('other');
DROP EXTENSION dblink;

-- wrong arguments are refused before any work, with what was wrong
\set VERBOSITY terse
CREATE TABLE wrong_m (id int PRIMARY KEY, n int, data text, t varchar NOT NULL DEFAULT '', j jsonb,
					  g jsonb GENERATED ALWAYS AS (CASE WHEN n > 0 THEN '{}'::jsonb END) STORED);
INSERT INTO wrong_m (id, n, data) VALUES (1, 1, 'BAgw');
CREATE VIEW wrong_v AS SELECT * FROM wrong_m;
CALL rbmarshal_migrate('prefs', 'settings', 'settings_m', 'no_such_column');
CALL rbmarshal_migrate('prefs', 'settings', 'settings_m', 'user_id', 10, 'yaml');
CALL rbmarshal_migrate('prefs', 'settings', 'settings_m', 'user_id', 10, 'base64');
CALL rbmarshal_migrate('wrong_m', 'data', 't');
CALL rbmarshal_migrate('wrong_m', 'data', 'j', batch_size => 0);
CALL rbmarshal_migrate('wrong_m', 'data', 'j', batch_size => NULL);
CALL rbmarshal_migrate('wrong_m', 'data', 'j', target_type => 'rbmarshal');
CALL rbmarshal_migrate('wrong_m', 'data', 'j', target_type => 'yaml');
CALL rbmarshal_migrate('wrong_m', 'data', 'j', source_format => 'cache');
CALL rbmarshal_migrate('wrong_m', 'data', 'g');
CALL rbmarshal_migrate('wrong_m', 'n', 'j');
CALL rbmarshal_migrate('wrong_m', 'data', 'data');
CALL rbmarshal_migrate('wrong_m', 'data', 'j', key_column => 'n');
CALL rbmarshal_migrate('wrong_v', 'data', 'j');
CALL rbmarshal_migrate('no_such_table', 'data', 'j');
-- none of them started a run or wrote a row
SELECT count(*) AS runs FROM rbmarshal_migration_progress WHERE relation = 'wrong_m'::regclass;
SELECT count(j) AS written FROM wrong_m;
\set VERBOSITY default

-- a CALL inside a transaction block cannot COMMIT its batches: it fails
-- before it takes the job's lock or opens a run, and a CALL after it works
BEGIN;
\set VERBOSITY terse
CALL rbmarshal_migrate('wrong_m', 'data', 'j');
\set VERBOSITY default
ROLLBACK;
SELECT count(*) AS locks_left FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
SELECT count(*) AS runs FROM rbmarshal_migration_progress WHERE relation = 'wrong_m'::regclass;

-- a run stopped by an error (here the target's CHECK refuses the batch's
-- UPDATE) is finished, with the error, and lets go of the lock; the error
-- reaches the caller as it was raised
CREATE TABLE stop_m (id int PRIMARY KEY, data text, j jsonb CHECK (j IS NULL OR j <> '0'));
INSERT INTO stop_m VALUES (1, 'BAhpAA==', NULL), (2, 'BAgw', NULL);
SET client_min_messages = warning;
CALL rbmarshal_migrate('stop_m', 'data', 'j');
RESET client_min_messages;
SELECT run, rows_done, rows_bad, finished_at IS NOT NULL AS finished, error
  FROM rbmarshal_migration_progress WHERE relation = 'stop_m'::regclass;
SELECT count(*) AS locks_left FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
SELECT count(j) AS written FROM stop_m;
DROP TABLE stop_m;

-- everything is PARALLEL SAFE: a parallel scan can use it
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sessions WHERE data::rbmarshal ? 'warden.user.user.key';
SELECT count(*) FROM sessions WHERE data::rbmarshal ? 'warden.user.user.key';
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
