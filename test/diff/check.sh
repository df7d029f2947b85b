#!/usr/bin/env bash
# The committed differential test data must be exactly what test/diff/generate.rb
# makes with the installed Ruby (MRI + ActiveSupport + json are the oracle):
# regenerate into a temporary folder and compare.
# Prints "diff-fixtures: N passed, N failed".
cd "$(dirname "$0")/../.."
exec bash test/regenerate-check.sh diff-fixtures test/diff/generate.rb -- \
	test/diff/to_json.tsv test/diff/from_json.tsv test/diff/paths.tsv
