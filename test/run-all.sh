#!/usr/bin/env bash
# Run every rbmarshal test on Debian 12 as root: install what is needed,
# build with warnings as errors, run the codec's unit tests (plain and under
# ASan/UBSan), check the committed fixtures still match what Ruby writes,
# install the extension and run the pg_regress suite in a throwaway cluster.
# The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash test/setup-debian.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
# A suite prints "<name>: N passed, N failed"; add its counts to the totals.
tally() {
	local line
	line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)
	if [[ -z $line ]]; then
		echo "== $2 printed no result line"
		failed=$((failed + 1))
		return
	fi
	local p f
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$line")
	passed=$((passed + p))
	failed=$((failed + f))
}
log=$(mktemp -d)

echo "== build"
if ! make -s clean >/dev/null 2>&1 || ! make -s 2>&1 | tee "$log/build"; then
	echo "build: 0 passed, 1 failed" >"$log/build.result"
else
	echo "build: 1 passed, 0 failed" >"$log/build.result"
fi
[[ -s $log/build ]] && grep -qiE 'error|warning' "$log/build" && echo "build: 0 passed, 1 failed" >"$log/build.result"
tally "$log/build.result" build

echo "== codec unit tests"
make -s unit 2>&1 | tee "$log/unit" | grep -vE '^(ok|#)' ; tally "$log/unit" unit
echo "== codec unit tests under ASan+UBSan"
make -s unit-asan 2>&1 | tee "$log/asan" | grep -vE '^(ok|#)' | sed 's/^unit:/unit-asan:/' ; sed -i 's/^unit:/unit-asan:/' "$log/asan"; tally "$log/asan" unit-asan

echo "== fixtures reproduce from Ruby"
bash test/check-fixtures.sh 2>&1 | tee "$log/fixtures"; tally "$log/fixtures" fixtures

echo "== regression suite (pg_regress in a throwaway cluster)"
make -s install >/dev/null
rm -rf results regression.diffs regression.out
pg_virtualenv -t make -s installcheck 2>&1 | tee "$log/regress"
total=$(grep -cE '^(ok|not ok|test) ' results/../regression.out 2>/dev/null || true)
bad=$(grep -cE '(FAILED|failed \(ignored\))' regression.out 2>/dev/null || true)
if [[ -f regression.out ]]; then
	good=$(grep -cE '^(ok|test ).* ok( |$)|\.\.\. ok' regression.out || true)
	echo "regress: ${good} passed, ${bad} failed" >"$log/regress.result"
else
	echo "regress: 0 passed, 1 failed" >"$log/regress.result"
fi
[[ -f regression.diffs ]] && head -n 200 regression.diffs
tally "$log/regress.result" regress
: "$total"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
