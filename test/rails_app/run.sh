#!/usr/bin/env bash
# A Rails app on rbmarshal columns (contrib/rails/rbmarshal.rb), run inside a
# throwaway cluster (pg_virtualenv sets PG*; the extension must be installed):
# app_test.rb once with prepared statements (binary parameters) and once
# without (bytea \x literals in the SQL), each in a fresh database.
# Debian's ActiveRecord 6.1 by default; RAILS_SRC=/dir with activesupport/,
# activemodel/ and activerecord/ source trees runs that version instead.
# Last line: "rails-app: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")"
passed=0
failed=0
includes=()
if [[ -n ${RAILS_SRC:-} ]]; then
	for lib in activesupport activemodel activerecord; do includes+=(-I "$RAILS_SRC/$lib/lib"); done
fi
for prepared in 1 0; do
	db=rbmarshal_rails_app_$prepared
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
	out=$(RBM_DATABASE=$db RBM_PREPARED=$prepared ruby "${includes[@]}" app_test.rb -v 2>&1)
	# "RbmarshalAppTest#test_01_... = 0.01 s = ." per test (F failure, E error)
	while read -r name result; do
		if [[ $result == . ]]; then
			echo "ok - $name (prepared_statements=$prepared)"
			passed=$((passed + 1))
		else
			echo "not ok - $name (prepared_statements=$prepared)"
			failed=$((failed + 1))
		fi
	done < <(sed -nE 's/^RbmarshalAppTest#(test_[a-z0-9_]+) = [0-9.]+ s = ([.FES])$/\1 \2/p' <<<"$out")
	summary=$(grep -E '^[0-9]+ runs, ' <<<"$out")
	if [[ -z $summary ]] || ! grep -q ' 0 failures, 0 errors' <<<"$summary"; then
		[[ -n $summary ]] || failed=$((failed + 1))
		echo "$out" | grep -vE "^RbmarshalAppTest#" | cut -c1-400 | tail -n 60
	fi
done
echo "rails-app: $passed passed, $failed failed"
