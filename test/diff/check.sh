#!/usr/bin/env bash
# The committed differential test data must be exactly what test/diff/generate.rb
# makes with the installed Ruby (MRI + ActiveSupport + json are the oracle):
# regenerate into a temporary folder and compare.
# Prints "diff-fixtures: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! command -v ruby >/dev/null; then
	echo "ruby is not installed"
	echo "diff-fixtures: 0 passed, 1 failed"
	exit 1
fi
if ! ruby test/diff/generate.rb "$out" >"$out/log" 2>&1; then
	cat "$out/log"
	echo "diff-fixtures: 0 passed, 1 failed"
	exit 1
fi
passed=0
failed=0
for f in to_json.tsv from_json.tsv paths.tsv; do
	if cmp -s "$out/$f" "test/diff/$f"; then
		passed=$((passed + 1))
	else
		echo "test/diff/$f differs from what Ruby generates now"
		failed=$((failed + 1))
	fi
done
echo "diff-fixtures: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
