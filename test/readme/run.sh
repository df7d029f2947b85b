#!/usr/bin/env bash
# README.md is checked, in two ways, against a running server with the
# extension installed (pg_virtualenv -t bash test/readme/run.sh):
#
# 1. Its reference tables (tables whose first header cell is "SQL") list
#    exactly the extension's objects: each code span in their first column is
#    one object, written as test/readme/catalog.sql prints it from pg_depend
#    and pg_settings.  An object without a row, or a row without an object,
#    fails.
# 2. Every ```sql block runs without error, in a fresh copy of the sample
#    tables (test/readme/sample.sql), each in a new session.  An HTML comment
#    on the line before a block changes what is expected:
#      <!-- readme-test: with FILE.sql -->  run test/readme/FILE.sql first
#      <!-- readme-test: error SQLSTATE --> the block must fail with SQLSTATE
#
# README_VERBOSE=1 shows each block's output.  Last line "readme: N passed,
# N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."

. test/tap.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql=(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -P pager=off)

dropdb --if-exists readme_sample >/dev/null 2>&1
createdb readme_sample || { echo "readme: 0 passed, 1 failed"; exit 1; }
if ! "${psql[@]}" -d readme_sample -f test/readme/sample.sql >"$work/sample.log" 2>&1; then
	cat "$work/sample.log"
	echo "readme: 0 passed, 1 failed"
	exit 1
fi

# --- 1. the reference tables against the catalog ---------------------------

perl -ne '
	if (/^\|((?:\\\||[^|])*)\|/) {
		my $first = $1;
		if (!$in) {                      # a header row: is this a reference table?
			$in = 1;
			$ref = ($first =~ /^\s*SQL\s*$/);
			next;
		}
		next if !$ref || $first =~ /^-+$/;
		$first =~ s/\\\|/|/g;
		print "$_\n" for $first =~ /`([^`]+)`/g;
	} else {
		$in = 0;
	}' README.md | sort >"$work/readme-objects"
"${psql[@]}" -At -d readme_sample -c "LOAD 'rbmarshal'" -f test/readme/catalog.sql 2>&1 \
	| grep -v '^LOAD$' | sort >"$work/catalog-objects"

documented=0
while IFS= read -r o; do
	if grep -qxF -- "$o" "$work/readme-objects"; then
		documented=$((documented + 1))
		passed=$((passed + 1))
	else
		not_ok "README has no reference row for: $o"
	fi
done <"$work/catalog-objects"
echo "ok - the reference tables document $documented objects of the catalog"
while IFS= read -r o; do
	not_ok "README documents what the extension does not have: $o"
done < <(comm -13 "$work/catalog-objects" "$work/readme-objects")

# --- 2. every sql block -----------------------------------------------------

# one file per block: NNNN.sql, with NNNN.meta holding "line directive..."
perl -e '
	my ($dir) = @ARGV; my ($n, $out, @dir, $prev) = (0);
	open my $in, "<", "README.md" or die;
	while (<$in>) {
		if ($out) {
			if (/^```\s*$/) { close $out; undef $out; next; }
			print $out $_; next;
		}
		if (/^```sql\s*$/) {
			$n++;
			my $name = sprintf("%s/%04d", $dir, $n);
			open my $m, ">", "$name.meta" or die;
			my @d = ($prev // "") =~ /<!--\s*readme-test:\s*(.*?)\s*-->/ ? split(/\s*;\s*/, $1) : ();
			print $m join("\t", $., @d), "\n";
			close $m;
			open $out, ">", "$name.sql" or die;
		}
		$prev = $_;
	}' "$work"

for meta in "$work"/*.meta; do
	IFS=$'\t' read -r line directives <"$meta"
	block=${meta%.meta}.sql
	args=()
	expect=""
	bad=""
	IFS=$'\t' read -r -a ds <<<"$directives"
	for d in "${ds[@]}"; do
		case $d in
		with\ *.sql)
			f=test/readme/${d#with }
			[[ -f $f ]] && args+=(-f "$f") || bad="no such file $f"
			;;
		error\ [0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z]) expect=${d#error } ;;
		*) bad="unknown directive: $d" ;;
		esac
	done
	what="README.md:$line sql block${expect:+ (error $expect)}"
	if [[ -n $bad ]]; then
		not_ok "$what: $bad"
		continue
	fi
	dropdb --if-exists readme_block >/dev/null 2>&1
	createdb -T readme_sample readme_block
	"${psql[@]}" -d readme_block "${args[@]}" -f "$block" >"$work/out" 2>&1
	rc=$?
	[[ -n ${README_VERBOSE:-} ]] && cat "$work/out"
	if [[ -z $expect && $rc -eq 0 ]]; then
		ok "$what"
	elif [[ -n $expect && $rc -ne 0 ]] && grep -q "ERROR:  $expect:" "$work/out"; then
		ok "$what"
	else
		not_ok "$what"
		sed 's/^/    /' "$work/out" | head -n 20
	fi
done
dropdb --if-exists readme_block >/dev/null 2>&1
dropdb --if-exists readme_sample >/dev/null 2>&1

echo "readme: $passed passed, $failed failed"
