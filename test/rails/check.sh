#!/usr/bin/env bash
# The committed Rails fixtures must be exactly what test/rails/generate.rb makes
# with the installed Ruby (MRI + ActiveSupport/ActiveRecord 6.1 + sqlite3 are the
# oracle): regenerate into a temporary folder and compare.
# Prints "rails-fixtures: N passed, N failed".
cd "$(dirname "$0")/../.."
exec bash test/regenerate-check.sh \
	--hint "(needs ruby-activesupport, ruby-activerecord and ruby-sqlite3: test/setup-debian.sh)" \
	rails-fixtures test/rails/generate.rb -- \
	test/rails/cache_entries.tsv test/rails/bad_cache_entries.tsv \
	test/rails/records.tsv test/rails/bad_records.tsv
