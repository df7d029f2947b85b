#!/usr/bin/env bash
# test/json_identity/check.sh [BASE]
#   marshal_to_json_text() of this tree against BASE's (a git ref; default
#   main), byte for byte, over every Marshal stream the repository holds:
#   each hex field of test/**/*.tsv, the .bin fixtures, the fuzz regression
#   inputs, and the local fuzz corpora and bench/out workloads when present.
#   For changes to the JSON emitter that must not change its output.
#   Prints "json-identity: N passed, N failed" (N inputs x 3 option sets),
#   then the same for this tree's one-pass text against its own indexed
#   walk ("json-self"), which holds whatever else changed since BASE.
set -euo pipefail
cd "$(dirname "$0")/../.."

base=${1:-main}
CC=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

codec_src() {
	sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' "$1/Makefile"
}

# the base's sources, then both builds of the same dump.c
mkdir -p "$tmp/base"
git archive "$base" Makefile src | tar -x -C "$tmp/base"
flags="-std=c11 -O2 -D_GNU_SOURCE -w"
# shellcheck disable=SC2046
(cd "$tmp/base" && $CC $flags -Isrc -o "$tmp/dump_base" \
	"$OLDPWD/test/json_identity/dump.c" $(codec_src .) -lz -lm)
# shellcheck disable=SC2046
$CC $flags -Isrc -o "$tmp/dump_new" test/json_identity/dump.c $(codec_src .) -lz -lm

# every input as one hex line
tohex() { od -An -v -tx1 "$1" | tr -d ' \n'; echo; }
{
	find test -name '*.tsv' -print0 | xargs -0 cat |
		tr '\t' '\n' | grep -aE '^0408([0-9a-fA-F]{2})*$' || true
	for f in test/fixtures/*.bin bench/out/*.bin test/fuzz/regressions/*/* \
		test/fuzz/corpus/fuzz_validate/* test/fuzz/corpus/fuzz_walk/*; do
		if [[ -f $f ]]; then tohex "$f"; fi
	done
} | sort -u >"$tmp/inputs"

"$tmp/dump_base" <"$tmp/inputs" >"$tmp/out_base"
"$tmp/dump_new" <"$tmp/inputs" >"$tmp/out_new"
total=$(wc -l <"$tmp/out_base")

# how many lines of two outputs differ; the first few, with their inputs
compare() {
	local a=$1 b=$2 la=$3 lb=$4
	paste -d '\t' "$a" "$b" | awk -F '\t' '$1 != $2 { print NR; if (++n == 5) exit }' |
		while read -r i; do
			k=$(((i - 1) / 3 + 1))
			echo "input: $(sed -n "${k}p" "$tmp/inputs" | cut -c1-200)" >&2
			echo "  $la: $(sed -n "${i}p" "$a" | cut -c1-300)" >&2
			echo "  $lb: $(sed -n "${i}p" "$b" | cut -c1-300)" >&2
		done
	paste -d '\t' "$a" "$b" | awk -F '\t' '$1 != $2' | wc -l
}

differ=$(compare "$tmp/out_base" "$tmp/out_new" base new)
echo "inputs: $(wc -l <"$tmp/inputs"), outputs: $total"
echo "json-identity: $((total - differ)) passed, $differ failed"

# the one-pass text against the indexed walk of the same tree
"$tmp/dump_new" indexed <"$tmp/inputs" >"$tmp/out_indexed"
self=$(compare "$tmp/out_new" "$tmp/out_indexed" "one pass" indexed)
echo "json-self: $((total - self)) passed, $self failed"
((differ == 0 && self == 0))
