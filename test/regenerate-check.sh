#!/usr/bin/env bash
# Committed oracle data must be exactly what its Ruby generators make with the
# installed Ruby: run them into a temporary folder and compare file by file.
#
#   bash test/regenerate-check.sh [--hint TEXT] LABEL GENERATOR... -- FILE...
#
# Each GENERATOR runs as "ruby GENERATOR OUTDIR"; each FILE (a committed path)
# is compared with OUTDIR/<its name>.  TEXT is printed when a generator fails.
# Prints "LABEL: N passed, N failed" last; the exit status is 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."

hint=
if [[ ${1:-} == --hint ]]; then
	hint=$2
	shift 2
fi
label=$1
shift
gens=()
while [[ $# -gt 0 && $1 != -- ]]; do
	gens+=("$1")
	shift
done
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() {
	echo "$1"
	echo "$label: 0 passed, 1 failed"
	exit 1
}

command -v ruby >/dev/null || fail "ruby is not installed"
for g in "${gens[@]}"; do
	if ! ruby "$g" "$out" >>"$out/log" 2>&1; then
		cat "$out/log"
		fail "$g failed${hint:+ $hint}"
	fi
done
passed=0
failed=0
for f in "$@"; do
	if cmp -s "$out/$(basename "$f")" "$f"; then
		passed=$((passed + 1))
	else
		echo "$f differs from what Ruby generates now"
		failed=$((failed + 1))
	fi
done
echo "$label: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
