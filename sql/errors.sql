-- Every error class, with its SQLSTATE, message and detail pinned.
\i sql/include/shared_tables.sql

-- SQLSTATE and message of casting text to rbmarshal
CREATE FUNCTION pg_temp.try(t text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM t::rbmarshal;
	RETURN 'ok';
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- 22P02: text that is neither hex, Base64 nor a Ruby literal, or bad digits
SELECT pg_temp.try('{"a" => foo}');
SELECT pg_temp.try('"#{system(1)}"');
SELECT pg_temp.try('[1, 2');
SELECT pg_temp.try('');
SELECT pg_temp.try('\x0408zz');
SELECT pg_temp.try('\x04083');
SELECT pg_temp.try('BAg*');
SELECT pg_temp.try('BAgw=');
SELECT '\x04 0830'::rbmarshal;
SELECT 'BAh!'::rbmarshal;
SELECT 'Kernel.exit'::rbmarshal;

-- 22P03: bytes that are not one Marshal stream
SELECT pg_temp.try('\x');
SELECT pg_temp.try('\x0408');
SELECT pg_temp.try('\x030830');
SELECT pg_temp.try('\x040930');
SELECT pg_temp.try('\x04083030');
SELECT pg_temp.try('\x04085b07');
SELECT pg_temp.try('\x04085b074000 4006');
SELECT pg_temp.try('\x04083b00');
SELECT pg_temp.try('\x04083f');
SELECT pg_temp.try('\x040866086162 63');
SELECT pg_temp.try('\x040822ffffff7f');
SELECT pg_temp.try('\x04085b04ffffff7f');
SELECT pg_temp.try('\x04084930063a07406154');
SELECT '\x04085b0740'::rbmarshal;
SELECT decode('04085b07', 'hex')::rbmarshal;
SELECT 'BAhb'::rbmarshal;

-- 54000: a declared length over the codec's limit (2^31 - 1)
SELECT pg_temp.try('\x04082204ffffffff');
SELECT '\x04082204ffffffff'::rbmarshal;

-- 54001: nesting over rbmarshal.max_depth (1000 levels, fixed) ...
SELECT pg_temp.try('\x0408' || repeat('5b06', 1000) || '30');
SELECT pg_temp.try('\x0408' || repeat('5b06', 999) || '30');
SELECT ('\x0408' || repeat('5b06', 1000) || '30')::rbmarshal;
SHOW rbmarshal.max_depth;
SET rbmarshal.max_depth = 2000;
SELECT pg_temp.try('\x0408' || repeat('5b06', 100000) || '30');
-- ... and over the server's stack, when a superuser lowers it
SET max_stack_depth = '100kB';
SELECT pg_temp.try('\x0408' || repeat('5b06', 999) || '30');
RESET max_stack_depth;

-- rbmarshal_is_valid and rbmarshal_error never raise for bad bytes
SELECT b, rbmarshal_is_valid(b), rbmarshal_error(b)
  FROM (VALUES ('\x040830'::bytea), ('\x'), ('\x0408'), ('\x04083030'),
               ('\x04085b074006'), ('\x04082204ffffffff'), ('\x0408660161')) t(b);
SELECT rbmarshal_is_valid(NULL), rbmarshal_error(NULL);
-- a limit's error names the setting that is the limit, in rbmarshal_error
-- too (the error's HINT), for bytes and for text alike
SELECT rbmarshal_error(b) AS from_bytes, rbmarshal_error(b::text) = rbmarshal_error(b) AS text_same
  FROM (SELECT ('\x0408' || repeat('5b06', 1001) || '30')::bytea AS b) t;

-- what MRI itself refuses, we refuse; but symbol bytes are checked for UTF-8
-- and US-ASCII only (the codec carries no Shift_JIS tables)
SELECT name, mri_error FROM bad WHERE rbmarshal_is_valid(decode(hex, 'hex'));

-- every proper prefix of every fixture is refused, never accepted or crashed
SELECT count(*) AS prefixes_tried,
       count(*) FILTER (WHERE rbmarshal_is_valid(substr(b, 1, cut))) AS accepted
  FROM (SELECT decode(hex, 'hex') AS b FROM fx WHERE length(hex) <= 8000) f,
       generate_series(0, length(b) - 1) cut;

-- random byte changes: every result is a clean verdict
SELECT setseed(0.5);
SELECT count(*) AS mutations, count(*) FILTER (WHERE ok) > 0 AS some_still_valid,
       count(*) FILTER (WHERE NOT ok AND err IS NULL) AS unexplained
  FROM (SELECT rbmarshal_is_valid(m) AS ok, rbmarshal_error(m) AS err
          FROM (SELECT set_byte(b, 2 + (random() * (length(b) - 3))::int,
                                (random() * 255)::int) AS m
                  FROM (SELECT decode(hex, 'hex') AS b FROM fx WHERE length(hex) > 6) f,
                       generate_series(1, 20)) s) t;

-- the connection is still fine
SELECT 'BAgw'::rbmarshal;
