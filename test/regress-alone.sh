#!/usr/bin/env bash
# Run each pg_regress test of the Makefile's REGRESS list on its own, in a
# fresh database, so that no test silently depends on another having run
# first (tables several tests read come from sql/include/shared_tables.sql).
# Needs a running server, e.g.: pg_virtualenv -t bash test/regress-alone.sh
# The extension must be installed.  Last line "regress-alone: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

tests=$(make -pnq 2>/dev/null | sed -n 's/^REGRESS :\{0,1\}= //p' | tail -n 1)
passed=0
failed=0
for t in $tests; do
	rm -f regression.diffs
	if make -s installcheck REGRESS="$t" >/dev/null 2>&1; then
		echo "ok - $t"
		passed=$((passed + 1))
	else
		echo "not ok - $t"
		[[ -f regression.diffs ]] && head -n 40 regression.diffs
		failed=$((failed + 1))
	fi
done
((passed + failed > 0)) || { echo "no tests found in the Makefile's REGRESS"; failed=1; }
echo "regress-alone: $passed passed, $failed failed"
