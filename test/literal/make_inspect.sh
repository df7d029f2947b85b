#!/usr/bin/env bash
# Writes OUT_DIR/inspect.tsv with Ruby 4.0 (WebAssembly, under node): the values of
# test/diff/to_json.tsv (names kept) and of LITERALS (default test/literal/literals.tsv;
# names prefixed "lit_"), loaded from their 64-bit MRI 3.1 Marshal bytes and inspected.
#   bash test/literal/make_inspect.sh [OUT_DIR] [LITERALS]      (OUT_DIR defaults to test/literal)
# Needs node and test/literal/node_modules (cd test/literal && npm ci).  Rows Ruby 4.0
# cannot load (ActiveSupport, BigDecimal, OpenStruct) are left out and listed on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(cd "${1:-$here}" && pwd)
literals=$(cd "$(dirname "${2:-$here/literals.tsv}")" && pwd)/$(basename "${2:-$here/literals.tsv}")
if [[ ! -d "$here/node_modules/@ruby/4.0-wasm-wasi" ]]; then
	echo "make_inspect.sh: $here/node_modules is missing: cd test/literal && npm ci" >&2
	exit 2
fi
{
	cut -f1,2 "$root/test/diff/to_json.tsv"
	awk -F'\t' '{ print "lit_" $1 "\t" $3 }' "$literals"
} | node --no-warnings "$here/ruby4.mjs" -r "$root/test/fixtures/classes.rb" "$here/inspect4.rb" >"$out/inspect.tsv.tmp"
mv "$out/inspect.tsv.tmp" "$out/inspect.tsv"
