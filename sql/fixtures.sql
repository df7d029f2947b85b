-- The fixture tables (sql/include/shared_tables.sql) hold what MRI wrote.
\i sql/include/shared_tables.sql
SELECT count(*) > 100 AS many_fixtures FROM fx;
SELECT count(*) > 10 AS many FROM bad;
-- the session rows are Base64 text with a newline every 60 characters
SELECT count(*) AS rows, count(*) FILTER (WHERE data LIKE E'%\n%') AS multiline
  FROM sessions;
