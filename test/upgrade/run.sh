#!/usr/bin/env bash
# Upgrade test, run inside a throwaway cluster (pg_virtualenv sets PG*):
#   - the released rbmarshal--0.1.0.sql is unchanged, byte for byte;
#   - a database made with 0.1.0 and filled, then ALTER EXTENSION rbmarshal
#     UPDATE, has the same catalog as a fresh install of the current version
#     (every member object with its markings, owners, grants, comments,
#     policies; compared as a normalized binary-upgrade schema dump, the one
#     pg_dump mode that writes an extension's member objects);
#   - the values stored under 0.1.0 read the same afterwards;
#   - a pg_dump made under 0.1.0 restores into the current version (pg_dump
#     writes CREATE EXTENSION without a version: the restore gets the default)
#     with the same values, its config tables' rows (the migration's) too.
# The extension must be installed (make install).  Last line:
# "upgrade: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/tap.sh
old=rbmarshal_upgrade_old
new=rbmarshal_upgrade_new
restored=rbmarshal_upgrade_restored
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
current=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" rbmarshal.control)

# released scripts are frozen: an upgrade test against an edited 0.1.0 proves nothing
released_sha256=4242dadc9497a2a54709994aac061e704ed1a42b28149cdf4c6e6f88a5be10d3
if [[ $(sha256sum rbmarshal--0.1.0.sql | cut -d' ' -f1) == "$released_sha256" ]]; then
	ok "rbmarshal--0.1.0.sql is the released script"
else
	not_ok "rbmarshal--0.1.0.sql was edited: released scripts are frozen (docs/development.md)"
fi

# the release's version is one number: control file, META.json (PGXN), CHANGELOG's newest heading
meta_versions=$(ruby -rjson -e 'm = JSON.parse(File.read("META.json")); puts [m["version"], *m["provides"].values.map { |p| p["version"] }].uniq')
changelog_version=$(sed -n 's/^## \([0-9][0-9.]*\).*/\1/p' CHANGELOG.md | head -1)
if [[ $meta_versions == "$current" && $changelog_version == "$current" ]]; then
	ok "META.json and CHANGELOG.md say version $current"
else
	not_ok "versions differ: control $current, META.json $(echo $meta_versions), CHANGELOG.md $changelog_version"
fi

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $old" -c "DROP DATABASE IF EXISTS $new" \
	-c "DROP DATABASE IF EXISTS $restored" -c "CREATE DATABASE $old" -c "CREATE DATABASE $new" \
	-c "CREATE DATABASE $restored" >/dev/null
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# 0.1.0 with data: values of every kind, an index, a migration job with a bad row
q -d $old >/dev/null <<'SQL'
CREATE EXTENSION rbmarshal VERSION '0.1.0';
CREATE SCHEMA app;
SET search_path = app, public;
CREATE TABLE t (id int PRIMARY KEY, v rbmarshal, j jsonb);
INSERT INTO t (id, v) VALUES
	(1, '{"user" => {"id" => 7, "roles" => [:admin, "ops"]}, :at => 1.5}'),
	(2, '[1, 2.5, nil, true, "é", 12345678901234567890]'),
	(3, '"plain"'), (4, '42'), (5, 'BAh7BkkiBmsGOgZFVGkG');
CREATE INDEX t_v ON t (v);
CREATE TABLE src (id int PRIMARY KEY, data text, target jsonb);
INSERT INTO src VALUES (1, 'BAh7BkkiBmsGOgZFVGkG', NULL), (2, 'not marshal', NULL);
SQL
q -d $old -c "CALL rbmarshal_migrate('app.src', 'data', 'target')" >/dev/null 2>&1
read_values="SELECT id, v::text, v::jsonb, v -> 'user', rbmarshal_inspect(v), rbmarshal_class(v)
	FROM app.t ORDER BY id"
q -d $old -c "$read_values" >"$work/before"
migration_rows="SELECT job, rows_done, rows_bad FROM rbmarshal_migration_progress ORDER BY job"
q -d $old -c "$migration_rows" >"$work/migration.before"
pg_dump -Fc -d $old -f "$work/old.dump"

if q -d $old -c "ALTER EXTENSION rbmarshal UPDATE" &&
	[[ $(q -d $old -c "SELECT extversion FROM pg_extension WHERE extname = 'rbmarshal'") == "$current" ]]; then
	ok "ALTER EXTENSION rbmarshal UPDATE from 0.1.0 to $current"
else
	not_ok "ALTER EXTENSION rbmarshal UPDATE from 0.1.0 to $current failed"
fi
q -d $new -c "CREATE EXTENSION rbmarshal"

# the extension's catalog (not the test's schema app): OIDs, LSNs and the like
# differ between any two databases and are dropped; the config tables are
# compared by name
catalog() {
	pg_dump --schema-only --binary-upgrade --exclude-schema=app -d "$1" |
		grep -vE '^SELECT pg_catalog\.binary_upgrade_set_next_|^--|^$|^\\(un)?restrict ' |
		sed -E -e "s/relfrozenxid = '[0-9]+', relminmxid = '[0-9]+'/relfrozenxid = X, relminmxid = X/" \
			-e "s/^WHERE oid = '[0-9]+';/WHERE oid = N;/" \
			-e "s/(binary_upgrade_create_empty_extension\('rbmarshal', '[^']*', [a-z]+, '[^']*', )'\{[0-9,]*\}'/\1'{config}'/"
	q -d "$1" -c "SELECT 'config tables: ' || extconfig::regclass[]::text || ' ' || extcondition::text
		FROM pg_extension WHERE extname = 'rbmarshal'"
}
catalog $old >"$work/old.catalog"
catalog $new >"$work/new.catalog"
if [[ -s $work/new.catalog ]] && diff -u "$work/new.catalog" "$work/old.catalog" >"$work/catalog.diff"; then
	ok "the upgraded catalog equals a fresh $current install ($(wc -l <"$work/new.catalog") lines compared)"
else
	not_ok "the upgraded catalog differs from a fresh $current install (- fresh, + upgraded):"
	head -n 60 "$work/catalog.diff"
fi

q -d $old -c "$read_values" >"$work/after"
jobs="SELECT relation, source_column, target_column, rows_total, rows_done, rows_bad, run_by::text = 'postgres'
	FROM rbmarshal_migration_progress"
bad="SELECT relation, key, error FROM rbmarshal_migration_errors"
if [[ $(q -d $old -c "$jobs") == "app.src|data|target|2|1|1|t" &&
	$(q -d $old -c "$bad") == "app.src|2|"* ]]; then
	ok "0.1.0's migration job and its bad row carried over to the new tables"
else
	not_ok "0.1.0's migration job did not carry over: $(q -d $old -c "$jobs") / $(q -d $old -c "$bad")"
fi
if [[ -s $work/before ]] && cmp -s "$work/before" "$work/after" &&
	[[ $(q -d $old -c "SET enable_seqscan = off" -c "SELECT id FROM app.t WHERE v = '42'") == 4 ]]; then
	ok "values stored under 0.1.0 read the same after the update (and through their index)"
else
	not_ok "values stored under 0.1.0 read differently after the update"
	diff "$work/before" "$work/after" | head -n 20
fi

# the dump made under 0.1.0, restored where the default version is current
if pg_restore --exit-on-error -d $restored "$work/old.dump" 2>"$work/restore.log" &&
	[[ $(q -d $restored -c "SELECT extversion FROM pg_extension WHERE extname = 'rbmarshal'") == "$current" ]] &&
	q -d $restored -c "$read_values" >"$work/restored" && cmp -s "$work/before" "$work/restored" &&
	q -d $restored -c "$migration_rows" >"$work/migration.restored" &&
	[[ -s $work/migration.before ]] && cmp -s "$work/migration.before" "$work/migration.restored"; then
	ok "a pg_dump made under 0.1.0 restores into $current with the same values"
else
	not_ok "a pg_dump made under 0.1.0 does not restore into $current as it was"
	head -n 20 "$work/restore.log"
	diff "$work/before" "$work/restored" 2>&1 | head -n 20
fi

psql -X -q -d postgres -c "DROP DATABASE $old" -c "DROP DATABASE $new" -c "DROP DATABASE $restored" >/dev/null
echo "upgrade: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
