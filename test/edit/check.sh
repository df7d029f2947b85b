#!/usr/bin/env bash
# The committed edit cases (test/edit/edits.tsv) must be exactly what
# test/edit/generate.rb makes with the installed Ruby (MRI + ActiveSupport are
# the oracle).  Prints "edit-fixtures: N passed, N failed".
cd "$(dirname "$0")/../.."
exec bash test/regenerate-check.sh edit-fixtures test/edit/generate.rb -- test/edit/edits.tsv
