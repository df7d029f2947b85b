#!/usr/bin/env bash
# Security tests pg_regress cannot run (the rest is sql/security.sql; what
# is guaranteed is in docs/security.md), inside a throwaway cluster
# (pg_virtualenv sets PG*); the extension must be installed:
#   - a database owner without superuser installs the trusted extension and
#     calls every function, the migration procedure included; the released
#     0.1.0, which resolves names through the caller's path, stays
#     superuser-only;
#   - the owner's pg_dump of the database restores, a table with a
#     GENERATED ALWAYS AS (v::json) STORED column included (pg_restore runs
#     with an empty search_path);
#   - a cancel stops inflating a compressed cache entry.
# Last line: "security: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/tap.sh
owner=rbmarshal_sec_owner
db=rbmarshal_sec
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "DROP DATABASE IF EXISTS ${db}_restored" \
	-c "DROP ROLE IF EXISTS $owner" -c "CREATE ROLE $owner LOGIN PASSWORD '${PGPASSWORD:-unused}'" \
	-c "CREATE DATABASE $db OWNER $owner" -c "CREATE DATABASE ${db}_restored OWNER $owner" >/dev/null
as_owner() { psql -X -q -At -v ON_ERROR_STOP=1 -U $owner "$@"; }

if as_owner -d $db -c "CREATE EXTENSION rbmarshal VERSION '0.1.0'" >"$work/old" 2>&1; then
	not_ok "a database owner without superuser installed 0.1.0"
elif grep -q "permission denied to create extension" "$work/old"; then
	ok "0.1.0 stays superuser-only"
else
	not_ok "installing 0.1.0 as the owner failed for another reason: $(cat "$work/old")"
fi

if as_owner -d $db -c "CREATE EXTENSION rbmarshal" >"$work/create" 2>&1 &&
	[[ $(as_owner -d $db -c "SELECT rolsuper FROM pg_roles WHERE rolname = current_user") == f ]]; then
	ok "a database owner without superuser installs the extension"
else
	not_ok "a database owner without superuser cannot install the extension: $(cat "$work/create")"
fi

if as_owner -d $db -f test/security/every_function.sql >"$work/every" 2>&1; then
	ok "the owner calls every function, the migration procedure included"
else
	not_ok "the owner cannot call every function:"
	tail -n 5 "$work/every"
fi
missing=$(as_owner -d $db -c "SELECT DISTINCT p.proname FROM pg_proc p
		JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'rbmarshal' ORDER BY 1" |
	while read -r f; do grep -qw -- "$f" test/security/every_function.sql || echo "$f"; done)
if [[ -z $missing ]]; then
	ok "test/security/every_function.sql names every function of the extension"
else
	not_ok "functions test/security/every_function.sql does not call (add them): $(echo $missing)"
fi

# a generated column through the json cast, dumped and restored by the owner
as_owner -d $db >/dev/null <<'SQL'
CREATE TABLE g (id int PRIMARY KEY, v rbmarshal, j json GENERATED ALWAYS AS (v::json) STORED);
INSERT INTO g (id, v) VALUES (1, '{"a" => [1, :b]}'), (2, '"x"');
SQL
if pg_dump -U $owner -Fc -d $db -f "$work/dump" 2>"$work/dump.err" &&
	pg_restore -U $owner -d ${db}_restored "$work/dump" 2>"$work/restore.err" &&
	[[ $(as_owner -d ${db}_restored -c "SELECT string_agg(j::text, ' ' ORDER BY id) FROM g") == '{"a": [1, "b"]} "x"' ]]; then
	ok "the owner's pg_dump restores, with a GENERATED (v::json) STORED column"
else
	not_ok "the owner's dump does not restore: $(cat "$work/dump.err" "$work/restore.err" | head -n 5)"
fi

# a gzip cache entry of 1 GB of zeros: a cancel stops the inflating within
# a megabyte (zlib's state, allocated in the statement's memory, goes with it)
head -c 1G /dev/zero | gzip -1 | base64 -w0 >"$work/bomb.b64"
psql -X -q -d $db -c "CREATE TABLE bomb (b64 text)" -c "\copy bomb FROM '$work/bomb.b64'"
start=$(date +%s.%N)
out=$(psql -X -q -At -d $db -c "SET rbmarshal.max_inflated_size = '1GB'" -c "SET statement_timeout = '50ms'" \
	-c "SELECT (rbmarshal_cache_entry(decode(b64, 'base64'))).format FROM bomb" 2>&1)
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
if grep -q "statement timeout" <<<"$out" && (($(echo "$elapsed < 0.5" | bc))); then
	ok "a cancel stops inflating a 1 GB gzip cache entry (${elapsed}s)"
else
	not_ok "inflating a 1 GB gzip cache entry did not stop at the timeout (${elapsed}s): $out"
fi

# a LATIN1 database: a Ruby literal's text is converted to UTF-8 as every
# other writer's is (Ruby source is UTF-8), so "é" is c3a9, not e9
psql -X -q -d postgres -c "CREATE DATABASE ${db}_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" >/dev/null
got=$(PGCLIENTENCODING=UTF8 psql -X -q -At -d ${db}_latin1 -c "CREATE EXTENSION rbmarshal" \
	-c "SELECT '\"café\"'::rbmarshal::bytea = to_rbmarshal('café'::text)::bytea, rbmarshal_from_text('{\"café\" => 1}', 'literal') ->> 'café'" 2>&1)
if [[ $got == "t|1" ]]; then
	ok "a Ruby literal in a LATIN1 database stores UTF-8 text"
else
	not_ok "a Ruby literal in a LATIN1 database: $got"
fi
psql -X -q -d postgres -c "DROP DATABASE ${db}_latin1" >/dev/null

psql -X -q -d postgres -c "DROP DATABASE $db" -c "DROP DATABASE ${db}_restored" -c "DROP ROLE $owner" >/dev/null
echo "security: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
