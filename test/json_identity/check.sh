#!/usr/bin/env bash
# test/json_identity/check.sh [BASE]
#   marshal_to_json_text() of this tree against BASE's (a git ref; default
#   main), byte for byte, over every Marshal stream the repository holds:
#   each hex field of test/**/*.tsv, the .bin fixtures, the fuzz regression
#   inputs, and the local fuzz corpora and bench/out workloads when present.
#   For changes to the JSON emitter that must not change its output.
#   Prints "json-identity: N passed, N failed" (N inputs x 3 option sets).
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
differ=$(paste -d '\n' "$tmp/out_base" "$tmp/out_new" | paste - - -d '\t' |
	awk -F '\t' '$1 != $2' | wc -l)
if ((differ > 0)); then
	# the first few differing inputs, with both outputs
	paste "$tmp/out_base" "$tmp/out_new" | awk -F '\t' '$1 != $2 { print NR; if (++n == 5) exit }' |
		while read -r i; do
			k=$(((i - 1) / 3 + 1))
			echo "input: $(sed -n "${k}p" "$tmp/inputs" | cut -c1-200)"
			echo "  base: $(sed -n "${i}p" "$tmp/out_base" | cut -c1-300)"
			echo "  new:  $(sed -n "${i}p" "$tmp/out_new" | cut -c1-300)"
		done
fi
echo "inputs: $(wc -l <"$tmp/inputs"), outputs: $total"
echo "json-identity: $((total - differ)) passed, $differ failed"
((differ == 0))
