#!/usr/bin/env bash
# The YAML reader (src/yaml_*.c) against MRI, without PostgreSQL:
#   1. every case of test/yaml/cases.tsv through test/yaml/yaml_check (built
#      plain and under ASan+UBSan): MRI's bytes, or the same class of error;
#   2. cases.tsv is exactly what test/yaml/generate.rb makes with the
#      installed Ruby (Psych 4, ActiveSupport and ActiveRecord 6.1).
# The last line is "yaml: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."

passed=0
failed=0
add() {
	local line
	line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed$" "$2" | tail -n 1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
	else
		failed=$((failed + 1))
	fi
}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

for bin in yaml_check yaml_check_asan; do
	if ! make -s "test/yaml/$bin" >"$log/build" 2>&1; then
		cat "$log/build"
		echo "$bin: 0 passed, 1 failed" >"$log/$bin"
	else
		"test/yaml/$bin" test/yaml/cases.tsv >"$log/$bin" 2>&1
		sed -i "s/^yaml-unit:/$bin:/" "$log/$bin"
	fi
	grep -E '^not ok|^ERROR|SUMMARY' "$log/$bin" | head -n 20
	grep -E "^$bin:" "$log/$bin"
	add "$bin" "$log/$bin"
done

bash test/regenerate-check.sh --hint "(needs ruby-activesupport, ruby-activerecord, ruby-actionpack and ruby-sqlite3: test/setup-debian.sh)" \
	yaml-fixtures test/yaml/generate.rb -- test/yaml/cases.tsv >"$log/fixtures" 2>&1
cat "$log/fixtures"
add yaml-fixtures "$log/fixtures"

echo "yaml: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
