-- activerecord-session_store's table: Base64 text of Marshal.dump(session),
-- filled with the sessions Ruby wrote (test/fixtures).  The README's sample
-- tables (sample.sql) and the demo (demo/demo.sql) start from it.
CREATE TABLE sessions (
	id bigserial PRIMARY KEY,
	session_id varchar NOT NULL UNIQUE,
	data text,
	created_at timestamp(6) NOT NULL DEFAULT now(),
	updated_at timestamp(6) NOT NULL DEFAULT now()
);
\copy sessions (session_id, data) FROM 'test/fixtures/sessions.tsv'
