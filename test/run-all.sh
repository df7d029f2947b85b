#!/usr/bin/env bash
# Run every rbmarshal test on Debian 12 as root:
#   install what is needed, build with warnings as errors, run the codec's
#   unit tests (plain and under ASan+UBSan), check the committed fixtures are
#   what Ruby writes, install the extension and run the pg_regress suite in a
#   throwaway cluster (pg_virtualenv), then each of its tests alone.
# Each suite adds to the totals; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# add a suite's "<suite>: N passed, N failed" line to the totals
tally() {
	local suite=$1 file=$2 line
	line=$(grep -E "^$suite: [0-9]+ passed, [0-9]+ failed$" "$file" | tail -n 1)
	if [[ -z $line ]]; then
		echo "!! $suite reported no result"
		failed=$((failed + 1))
		return
	fi
	[[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]
	passed=$((passed + BASH_REMATCH[1]))
	failed=$((failed + BASH_REMATCH[2]))
}

# a step that either works or not counts as one test
step() {
	local suite=$1
	shift
	if "$@" >"$log/$suite" 2>&1; then
		echo "$suite: 1 passed, 0 failed" >>"$log/$suite"
	else
		tail -n 40 "$log/$suite"
		echo "$suite: 0 passed, 1 failed" >>"$log/$suite"
	fi
	tally "$suite" "$log/$suite"
}

echo "== install build and test dependencies"
step setup bash test/setup-debian.sh

echo "== build (warnings are errors)"
step build bash -c 'make -s clean && make -s'

echo "== codec unit tests"
make -s unit >"$log/unit" 2>&1
grep -vE '^#' "$log/unit"
tally unit "$log/unit"

echo "== codec unit tests under ASan+UBSan"
make -s unit-asan >"$log/asan" 2>&1
sed -i 's/^unit:/unit-asan:/' "$log/asan"
grep -vE '^#' "$log/asan"
tally unit-asan "$log/asan"

echo "== codec unit tests under valgrind"
vg_ok=1
make -s unit-valgrind >"$log/valgrind" 2>&1 || vg_ok=0
sed -i 's/^unit:/unit-valgrind:/' "$log/valgrind"
((vg_ok)) || printf "valgrind reported errors\nunit-valgrind: 0 passed, 1 failed\n" >>"$log/valgrind"
grep -vE '^#' "$log/valgrind"
tally unit-valgrind "$log/valgrind"

echo "== fuzzing: replay regressions, short bounded runs (libFuzzer, ASan+UBSan)"
bash test/fuzz/run-ci.sh >"$log/fuzz" 2>&1
grep -E '^(ok|not ok|fuzz:)' "$log/fuzz"
tally fuzz "$log/fuzz"

echo "== fixtures reproduce from Ruby"
bash test/check-fixtures.sh >"$log/fixtures" 2>&1
cat "$log/fixtures"
tally fixtures "$log/fixtures"

echo "== differential data reproduces from Ruby"
bash test/diff/check.sh >"$log/diff" 2>&1
cat "$log/diff"
tally diff-fixtures "$log/diff"

echo "== literal data reproduces from Ruby (inspect.tsv too when node is set up)"
bash test/literal/check.sh >"$log/literal" 2>&1
grep -E '^(ok|FAIL|skip|literal-fixtures:)' "$log/literal"
tally literal-fixtures "$log/literal"

echo "== YAML reader against MRI (Psych 4), fixtures reproduce from Ruby"
bash test/yaml/check.sh >"$log/yaml" 2>&1
grep -E '^(not ok|yaml_check|yaml_check_asan|yaml-fixtures|yaml:)' "$log/yaml"
tally yaml "$log/yaml"

echo "== Rails fixtures reproduce from ActiveSupport/ActiveRecord"
bash test/rails/check.sh >"$log/rails" 2>&1
cat "$log/rails"
tally rails-fixtures "$log/rails"

echo "== edit cases reproduce from Ruby"
bash test/edit/check.sh >"$log/edit" 2>&1
cat "$log/edit"
tally edit-fixtures "$log/edit"

echo "== security fixtures reproduce from ActiveSupport"
bash test/regenerate-check.sh --hint "(needs ruby-activesupport: test/setup-debian.sh)" \
	security-fixtures test/security/generate.rb -- test/security/cache_entries.tsv >"$log/secfx" 2>&1
cat "$log/secfx"
tally security-fixtures "$log/secfx"

echo "== regression suite (pg_regress in a throwaway cluster)"
step install make -s install
rm -rf results regression.diffs regression.out
pg_virtualenv -t make -s installcheck >"$log/regress.raw" 2>&1
# pg_regress prints "test NAME ... ok|FAILED" (and removes regression.out on success)
grep -E '\.\.\. +(ok|FAILED)' "$log/regress.raw"
ok=$(grep -cE '\.\.\. +ok' "$log/regress.raw")
bad=$(grep -cE '\.\.\. +FAILED' "$log/regress.raw")
if ((ok + bad == 0)); then
	tail -n 40 "$log/regress.raw"
	bad=1
fi
[[ -f regression.diffs ]] && head -n 300 regression.diffs
echo "regress: $ok passed, $bad failed" >"$log/regress"
tally regress "$log/regress"

echo "== each regression test alone, in a fresh database"
pg_virtualenv -t bash test/regress-alone.sh >"$log/alone" 2>&1
grep -vE 'PostgreSQL cluster|^Dropping cluster|^regress-alone: ' "$log/alone"
tally regress-alone "$log/alone"

echo "== README: the reference tables equal the catalog, every sql block runs"
pg_virtualenv -t bash test/readme/run.sh >"$log/readme.raw" 2>&1
grep -E '^(ok|not ok|    )' "$log/readme.raw"
grep -E '^readme: ' "$log/readme.raw" >"$log/readme" || tail -n 30 "$log/readme.raw"
tally readme "$log/readme"

echo "== operational tests (memory, cancel, dump/restore) in a throwaway cluster"
pg_virtualenv -t bash test/ops/run.sh >"$log/ops.raw" 2>&1
grep -E '^(ok|not ok) ' "$log/ops.raw"
grep -E '^ops: ' "$log/ops.raw" >"$log/ops" || tail -n 30 "$log/ops.raw"
tally ops "$log/ops"

echo "== upgrade from the released 0.1.0: the catalog equals a fresh install"
pg_virtualenv -t bash test/upgrade/run.sh >"$log/upgrade.raw" 2>&1
grep -E '^(ok|not ok) ' "$log/upgrade.raw"
grep -E '^upgrade: ' "$log/upgrade.raw" >"$log/upgrade" || tail -n 60 "$log/upgrade.raw"
tally upgrade "$log/upgrade"

echo "== security: a database owner installs it and uses every function; dump/restore"
pg_virtualenv -t bash test/security/run.sh >"$log/security.raw" 2>&1
grep -E '^(ok|not ok) ' "$log/security.raw"
grep -E '^security: ' "$log/security.raw" >"$log/security" || tail -n 60 "$log/security.raw"
tally security "$log/security"

echo "== Rails app on rbmarshal columns (contrib/rails, ActiveRecord + pg) in a throwaway cluster"
pg_virtualenv -t bash test/rails_app/run.sh >"$log/rails-app.raw" 2>&1
grep -E '^(ok|not ok) ' "$log/rails-app.raw"
grep -E '^rails-app: ' "$log/rails-app.raw" >"$log/rails-app" || tail -n 30 "$log/rails-app.raw"
tally rails-app "$log/rails-app"

echo "== load: pgbench, several clients for a fixed time, in a throwaway cluster"
pg_virtualenv -t bash test/ops/load.sh >"$log/load.raw" 2>&1
grep -E '^(ok|not ok) ' "$log/load.raw"
grep -E '^load: ' "$log/load.raw" >"$log/load" || tail -n 30 "$log/load.raw"
tally load "$log/load"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
