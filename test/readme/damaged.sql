-- Rows a broken writer left in the sessions table, for README blocks marked
-- <!-- readme-test: with damaged.sql -->: text that is not Base64, a
-- truncated stream, a Hash that contains itself (valid Marshal, no jsonb),
-- and NULL.
INSERT INTO sessions (session_id, data) VALUES
	('2::not-base64', 'BAh7!!!'),
	('2::truncated', 'BAh7BkkiD3Nlc3Npb25faWQGOgZFVEkiJWQzYzVm'),
	('2::cycle', 'BAh7BkkiCXNlbGYGOgZFVEAA'),   -- Ruby: h = {}; h["self"] = h; Marshal.dump(h)
	('2::null', NULL);
