/* rbmarshal--0.1.0--0.2.0.sql: from the 0.1.0 release to 0.2.0 (src/rbmarshal.sql) */

\echo Use "ALTER EXTENSION rbmarshal UPDATE" to load this file. \quit
