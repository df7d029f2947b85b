#!/usr/bin/env bash
# The committed fixtures must be exactly what test/fixtures/generate.rb makes
# with the installed Ruby (MRI is the oracle): regenerate into a temporary
# folder and compare.  Prints "fixtures: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! command -v ruby >/dev/null; then
	echo "ruby is not installed"
	echo "fixtures: 0 passed, 1 failed"
	exit 1
fi
if ! ruby test/fixtures/generate.rb "$out" >"$out/log" 2>&1; then
	cat "$out/log"
	echo "fixtures: 0 passed, 1 failed"
	exit 1
fi
if ! ruby test/builders/generate.rb "$out" >>"$out/log" 2>&1; then
	cat "$out/log"
	echo "fixtures: 0 passed, 1 failed"
	exit 1
fi
passed=0
failed=0
if cmp -s "$out/builders.tsv" test/builders/builders.tsv; then
	passed=$((passed + 1))
else
	echo "test/builders/builders.tsv differs from what Ruby generates now"
	failed=$((failed + 1))
fi
for f in valid.tsv invalid.tsv sessions.tsv big.tsv big_200k.bin; do
	if cmp -s "$out/$f" "test/fixtures/$f"; then
		passed=$((passed + 1))
	else
		echo "test/fixtures/$f differs from what Ruby generates now"
		failed=$((failed + 1))
	fi
done
echo "fixtures: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
