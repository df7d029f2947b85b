#!/usr/bin/env bash
# The committed Rails fixtures must be exactly what their generators make with the
# installed Ruby (MRI + ActiveSupport/ActiveRecord + sqlite3 + pg are the oracle):
# regenerate into a temporary folder and compare.
#   test/rails/generate.rb           test/rails/*.tsv (Active Record 6.1, sqlite3)
#   test/fidelity/records.rb         test/fidelity/ar61_records.tsv, ar61_yaml_records.tsv (Active
#                                    Record 6.1, postgresql: starts a throwaway cluster with pg_virtualenv)
#   test/fidelity/records72.rb       test/fidelity/ar72_records.tsv, ar72_yaml_records.tsv (Active Record 7.2 from
#                                    the Rails source): only where RAILS_GIT_DIR holds it,
#                                    else skipped with a note (CI has no Rails source)
# Prints "rails-fixtures: N passed, N failed".
cd "$(dirname "$0")/../.."
gens=(test/rails/generate.rb test/fidelity/records.rb)
files=(test/rails/cache_entries.tsv test/rails/bad_cache_entries.tsv
	test/rails/records.tsv test/rails/bad_records.tsv test/fidelity/ar61_records.tsv
	test/fidelity/ar61_yaml_records.tsv)
if bash test/fidelity/rails72.sh true 2>/dev/null; then
	gens+=(test/fidelity/records72.rb)
	files+=(test/fidelity/ar72_records.tsv test/fidelity/ar72_yaml_records.tsv)
else
	echo "skip test/fidelity/ar72_records.tsv and ar72_yaml_records.tsv: no Rails 7.2 source (set RAILS_GIT_DIR to a rails/rails git directory)"
fi
exec bash test/regenerate-check.sh \
	--hint "(needs ruby-activesupport, ruby-activerecord, ruby-sqlite3, ruby-pg and postgresql-common: test/setup-debian.sh)" \
	rails-fixtures "${gens[@]}" -- "${files[@]}"
