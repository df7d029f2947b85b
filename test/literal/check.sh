#!/usr/bin/env bash
# The committed oracle data of test/literal must be exactly what the installed oracles make:
# regenerate into a temporary folder and compare.
#   literals.tsv, bad_literals.tsv   Debian's ruby (64-bit MRI 3.1): always
#   round trip                       ruby test/literal/roundtrip.rb on the committed files: always
#   inspect.tsv                      Ruby 4.0 under node: only when node and test/literal/node_modules
#                                    are there (cd test/literal && npm ci), else skipped with a note
# Prints "literal-fixtures: N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

if ! command -v ruby >/dev/null; then
	bad "ruby is not installed"
elif ruby test/literal/generate.rb "$out" >"$out/generate.log" 2>&1; then
	for f in literals.tsv bad_literals.tsv; do
		if cmp -s "$out/$f" "test/literal/$f"; then
			ok "test/literal/$f is what generate.rb makes"
		else
			bad "test/literal/$f differs from what generate.rb makes now"
		fi
	done
	if ruby test/literal/roundtrip.rb test/literal >"$out/roundtrip.log" 2>&1; then
		ok "$(tail -n 1 "$out/roundtrip.log")"
	else
		tail -n 20 "$out/roundtrip.log"
		bad "round trip of inspect.tsv's lit_* rows"
	fi
else
	cat "$out/generate.log"
	bad "generate.rb failed"
fi

if command -v node >/dev/null && [[ -d test/literal/node_modules/@ruby/4.0-wasm-wasi && -d test/literal/node_modules/@ruby/wasm-wasi ]]; then
	literals="$out/literals.tsv"
	[[ -f $literals ]] || literals=test/literal/literals.tsv
	if bash test/literal/make_inspect.sh "$out" "$literals" 2>"$out/inspect.log"; then
		if cmp -s "$out/inspect.tsv" test/literal/inspect.tsv; then
			ok "test/literal/inspect.tsv is what Ruby 4.0 makes"
		else
			bad "test/literal/inspect.tsv differs from what Ruby 4.0 makes now"
		fi
	else
		tail -n 20 "$out/inspect.log"
		bad "make_inspect.sh failed"
	fi
else
	echo "skip test/literal/inspect.tsv: needs node and test/literal/node_modules (cd test/literal && npm ci)"
fi

echo "literal-fixtures: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
