#!/usr/bin/env bash
# Run every rbmarshal test on Debian 12 as root:
#   install what is needed, build with warnings as errors, run the codec's
#   unit tests (plain and under ASan+UBSan), check the committed fixtures are
#   what Ruby writes, install the extension and run the pg_regress suite in a
#   throwaway cluster (pg_virtualenv), then each of its tests alone.
# Each suite adds to the totals; the last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

# The expected outputs are psql's and Ruby's in UTF-8 (psql aligns columns by
# the client encoding; Ruby's inspect escapes non-ASCII in a C locale, and a
# cluster made in one is SQL_ASCII): where the environment's locale is not a
# UTF-8 one, run in C.UTF-8, which every Debian has.
if [[ $(locale charmap 2>/dev/null) != UTF-8 ]]; then
	export LANG=C.UTF-8 LC_ALL=C.UTF-8
fi

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

# Run a suite's command, show its output (the lines matching $2; '': all)
# and tally its "<suite>: ..." line.
tool_suite() {
	local suite=$1 show=$2
	shift 2
	"$@" >"$log/$suite" 2>&1
	grep -E "$show" "$log/$suite"
	tally "$suite" "$log/$suite"
}

# Run a suite's script in a throwaway cluster, show its result lines (those
# matching $4, by default ok/not ok) and tally its "<suite>: ..." line (or
# show the script's last $3 lines when it printed none).
cluster_suite() {
	local suite=$1 script=$2 context=$3 show=${4:-'^(ok|not ok) '}
	pg_virtualenv -t bash "$script" >"$log/$suite.raw" 2>&1
	grep -E "$show" "$log/$suite.raw"
	grep -E "^$suite: " "$log/$suite.raw" >"$log/$suite" || tail -n "$context" "$log/$suite.raw"
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
tool_suite fuzz '^(ok|not ok|fuzz:)' bash test/fuzz/run-ci.sh

echo "== fixtures reproduce from Ruby"
tool_suite fixtures '' bash test/check-fixtures.sh

echo "== differential data reproduces from Ruby"
tool_suite diff-fixtures '' bash test/diff/check.sh

echo "== literal data reproduces from Ruby (inspect.tsv too when node is set up)"
tool_suite literal-fixtures '^(ok|FAIL|skip|literal-fixtures:)' bash test/literal/check.sh

echo "== YAML reader against MRI (Psych 4), fixtures reproduce from Ruby"
tool_suite yaml '^(not ok|yaml_check|yaml_check_asan|yaml-fixtures|yaml:)' bash test/yaml/check.sh

echo "== Rails fixtures reproduce from ActiveSupport/ActiveRecord"
tool_suite rails-fixtures '' bash test/rails/check.sh

echo "== edit cases reproduce from Ruby"
tool_suite edit-fixtures '' bash test/edit/check.sh

echo "== security fixtures reproduce from ActiveSupport"
tool_suite security-fixtures '' bash test/regenerate-check.sh --hint "(needs ruby-activesupport: test/setup-debian.sh)" \
	security-fixtures test/security/generate.rb -- test/security/cache_entries.tsv

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

echo "== v::jsonb's binary format: the bytes jsonb_in makes of the same text, every stored input"
cluster_suite jsonb-binary test/jsonb_binary/run.sh 30 '^(not ok|inputs:)'

echo "== README: the reference tables equal the catalog, every sql block runs"
cluster_suite readme test/readme/run.sh 30 '^(ok|not ok|    )'

echo "== operational tests (memory, cancel, dump/restore) in a throwaway cluster"
cluster_suite ops test/ops/run.sh 30

echo "== upgrade from the released 0.1.0: the catalog equals a fresh install"
cluster_suite upgrade test/upgrade/run.sh 60

echo "== security: a database owner installs it and uses every function; dump/restore"
cluster_suite security test/security/run.sh 60

echo "== Rails app on rbmarshal columns (contrib/rails, ActiveRecord + pg) in a throwaway cluster"
cluster_suite rails-app test/rails_app/run.sh 30

echo "== load: pgbench, several clients for a fixed time, in a throwaway cluster"
cluster_suite load test/ops/load.sh 30

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
