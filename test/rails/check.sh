#!/usr/bin/env bash
# The committed Rails fixtures must be exactly what test/rails/generate.rb makes
# with the installed Ruby (MRI + ActiveSupport/ActiveRecord 6.1 + sqlite3 are the
# oracle): regenerate into a temporary folder and compare.
# Prints "rails-fixtures: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! command -v ruby >/dev/null; then
	echo "ruby is not installed"
	echo "rails-fixtures: 0 passed, 1 failed"
	exit 1
fi
if ! ruby test/rails/generate.rb "$out" >"$out/log" 2>&1; then
	cat "$out/log"
	echo "(needs ruby-activesupport, ruby-activerecord and ruby-sqlite3: test/setup-debian.sh)"
	echo "rails-fixtures: 0 passed, 1 failed"
	exit 1
fi
passed=0
failed=0
for f in cache_entries.tsv bad_cache_entries.tsv records.tsv bad_records.tsv; do
	if cmp -s "$out/$f" "test/rails/$f"; then
		passed=$((passed + 1))
	else
		echo "test/rails/$f differs from what Ruby generates now"
		failed=$((failed + 1))
	fi
done
echo "rails-fixtures: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
