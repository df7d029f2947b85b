#!/usr/bin/env bash
# Write the seed corpora of the fuzz targets from the committed fixtures:
#   test/fuzz/corpus/fuzz_validate/  Marshal bytes of valid.tsv, invalid.tsv,
#                                    the decoded sessions.tsv and the Active
#                                    Record records of test/rails/
#   test/fuzz/corpus/fuzz_text/      the same as text: hex (as committed, with
#                                    spaces, in capitals) and Base64 (sessions
#                                    as Rails stores them, fixtures as
#                                    encode64 writes them), plus edge cases
# The corpus directories are gitignored and may hold more files (the
# fuzzers add to them); seed files are rewritten, nothing else is touched.
# Needs only bash and coreutils (base64, sed, tr).
set -euo pipefail
cd "$(dirname "$0")/../.."

fixtures=test/fixtures
vdir=test/fuzz/corpus/fuzz_validate
tdir=test/fuzz/corpus/fuzz_text
mkdir -p "$vdir" "$tdir"

# hex digits (no whitespace) to bytes on stdout
unhex() {
	printf '%b' "$(printf '%s' "$1" | sed 's/../\\x&/g')"
}

# a TSV file with its tabs as \037, so that empty fields survive "read"
# (a tab in IFS is whitespace, and runs of it count as one separator)
fields() {
	tr '\t' '\037' <"$1"
}

nv=0
nt=0

# valid.tsv: name, objects, symbols, hex
while IFS=$'\037' read -r name _ _ hex; do
	[[ -n $name ]] || continue
	unhex "$hex" >"$vdir/seed-valid-$name"
	printf '%s' "$hex" >"$tdir/seed-hex-valid-$name"
	unhex "$hex" | base64 -w 60 >"$tdir/seed-b64-valid-$name"
	nv=$((nv + 1))
	nt=$((nt + 2))
done < <(fields "$fixtures/valid.tsv")

# invalid.tsv: name, hex, MRI's error
while IFS=$'\037' read -r name hex _; do
	[[ -n $name ]] || continue
	unhex "$hex" >"$vdir/seed-invalid-$name"
	printf '%s' "$hex" >"$tdir/seed-hex-invalid-$name"
	nv=$((nv + 1))
	nt=$((nt + 1))
done < <(fields "$fixtures/invalid.tsv")

# sessions.tsv: session id, Base64 with newlines written as the two chars \n
i=0
while IFS=$'\037' read -r id b64; do
	[[ -n $id ]] || continue
	i=$((i + 1))
	printf '%s' "$b64" | sed 's/\\n/\n/g' >"$tdir/seed-b64-session-$i"
	base64 -d <"$tdir/seed-b64-session-$i" >"$vdir/seed-session-$i"
	nv=$((nv + 1))
	nt=$((nt + 1))
done < <(fields "$fixtures/sessions.tsv")

# Rails records (test/rails/): name, hex, ... -- the walkers' casts of
# Active Record attributes start from real records
for f in test/rails/records.tsv test/rails/bad_records.tsv; do
	[[ -f $f ]] || continue
	while IFS=$'\037' read -r name hex _; do
		[[ -n $name ]] || continue
		unhex "$hex" >"$vdir/seed-rails-$name"
		nv=$((nv + 1))
	done < <(fields "$f")
done

# a few hex variants: spaces between pairs, capitals, CRLF lines
for name in type_object str_utf8_nonascii rails_time_utc hash_compare_by_identity; do
	hex=$(cut -f4 <(grep "^$name"$'\t' "$fixtures/valid.tsv"))
	printf '%s' "$hex" | sed 's/../& /g' >"$tdir/seed-hex-spaced-$name"
	printf '%s' "$hex" | tr 'a-f' 'A-F' >"$tdir/seed-hex-upper-$name"
	printf '%s' "$hex" | sed 's/.\{16\}/&\r\n/g' >"$tdir/seed-hex-crlf-$name"
	nt=$((nt + 3))
done

# edge cases of the text forms
edge() {
	printf '%b' "$2" >"$tdir/seed-edge-$1"
	nt=$((nt + 1))
}
edge empty ''
edge hex-odd '040'
edge hex-split-pair '04 0 8'
edge hex-tab-nl '04\t08\n30\n'
edge hex-bad-digit '04g8'
edge b64-pad1 'BAgw'
edge b64-pad2 'BAhU\nBA=='
edge b64-pad-only '===='
edge b64-unpadded 'BAhpBg'
edge b64-pad-mid 'BA==BAgw'
edge b64-stray 'BAgwB'
edge b64-url '-_-_'
edge b64-spaces ' B A g w \r\n'

echo "seeds: $nv in $vdir, $nt in $tdir"
