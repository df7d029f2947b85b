# Sourced by verify-jsonb.sh and verify-paths.sh, after they set $suite (the
# name of their result line): generates the raw data (generate.rb --raw) into
# $out, and verify_in_postgres runs their checks in a throwaway UTF8 cluster
# (pg_virtualenv; as root on Debian).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"
export LC_ALL=C.UTF-8 LANG=C.UTF-8 # a UTF8 cluster
# CSV with a quote character that never occurs, so every byte is taken as is
opts="(FORMAT csv, DELIMITER E'\\t', QUOTE E'\\x01')"

# print the reason, count the whole suite as one failure
verify_fail() {
	echo "$1"
	echo "$suite: 0 passed, 1 failed"
	exit 1
}

if ! ruby test/diff/generate.rb "$out" --raw >"$out/log" 2>&1; then
	verify_fail "$(cat "$out/log")"
fi

# Runs the SQL on stdin, which prints a line "FAIL ..." per failed test and a
# line "$1 N" with the number of tests, and prints the suite's result line.
verify_in_postgres() {
	local total_prefix=$1 total failed
	{
		echo '\set ON_ERROR_STOP 1'
		echo '\pset format unaligned'
		echo '\pset tuples_only on'
		echo "SELECT 'server_encoding ' || current_setting('server_encoding');"
		cat
	} >"$out/check.sql"
	if ! pg_virtualenv -t psql -X -f "$out/check.sql" >"$out/psql.log" 2>&1; then
		verify_fail "$(tail -n 20 "$out/psql.log")"
	fi
	grep -E '^(server_encoding|rows) ' "$out/psql.log"
	grep -E '^FAIL ' "$out/psql.log" | head -n 50
	grep -qx 'server_encoding UTF8' "$out/psql.log" || verify_fail "the cluster is not UTF8"
	total=$(sed -n "s/^$total_prefix //p" "$out/psql.log")
	failed=$(grep -cE '^FAIL ' "$out/psql.log")
	echo "$suite: $((total - failed)) passed, $failed failed"
	[[ $failed -eq 0 ]]
}
