#!/usr/bin/env bash
# The committed differential test data must be exactly what its generators make
# with the installed Ruby (MRI + ActiveSupport + json are the oracle): regenerate
# into a temporary folder and compare.
#   test/diff/generate.rb            test/diff/*.tsv (ActiveSupport 6.1)
#   test/fidelity/shapes.rb          test/fidelity/as61_*.tsv (ActiveSupport 6.1)
#   test/fidelity/shapes72.rb        test/fidelity/as72_*.tsv (ActiveSupport 7.2 from the
#                                    Rails source): only where RAILS_GIT_DIR holds it,
#                                    else skipped with a note (CI has no Rails source)
# Prints "diff-fixtures: N passed, N failed".
cd "$(dirname "$0")/../.."
gens=(test/diff/generate.rb test/fidelity/shapes.rb)
files=(test/diff/to_json.tsv test/diff/from_json.tsv test/diff/paths.tsv test/fidelity/as61_*.tsv)
if bash test/fidelity/rails72.sh true 2>/dev/null; then
	gens+=(test/fidelity/shapes72.rb)
	files+=(test/fidelity/as72_*.tsv)
else
	echo "skip test/fidelity/as72_*.tsv: no Rails 7.2 source (set RAILS_GIT_DIR to a rails/rails git directory)"
fi
exec bash test/regenerate-check.sh diff-fixtures "${gens[@]}" -- "${files[@]}"
