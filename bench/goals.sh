#!/usr/bin/env bash
# bench/goals.sh -- issue 19's goals (SPEC section 8, JSON) in one run, one
# table of ratios.  Meant for an idle machine: every number is wall time.
#
#   library   marshal_to_json_text (bench_codec.c's tojson, built with the
#             flags PGXS builds the extension with, -O2 without pg_config)
#             against MRI's JSON.generate(Marshal.load(b)) on each workload
#             of bench/workloads.rb, ActiveSupport::JSON.encode on
#             as_values_1k; codec and MRI back to back per workload, pinned
#             to one CPU (bench/run.sh's protocol: BENCH_PASSES timed
#             passes of >= BENCH_TARGET_MS after BENCH_WARMUP).
#             Goal: MRI / codec >= 10 (>= 5 against ActiveSupport's encoder).
#   database  bench/db_json.sh in a throwaway cluster (builds and installs
#             this tree; needs pg_virtualenv): v::jsonb / jsonb_in on the
#             1.8 MB value (goal <= 0.5) and on BENCH_ROWS sessions (<= 0.6),
#             v::json / v::jsonb (<= 0.33), v -> 'k' / j -> 'k' and
#             v ->> 'k' / j ->> 'k' (<= 1.5).
#
#   bash bench/goals.sh            both halves
#   GOALS_DB=0 bash bench/goals.sh the library half only (no PostgreSQL)
#
# Ratios are of bests (library) and of medians (library, database); the
# raw lines stay in bench/out/goals.tsv and bench/out/goals_db.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

CC=${CC:-gcc}
RUBY=${RUBY:-ruby}
PASSES=${BENCH_PASSES:-25}
WARMUP=${BENCH_WARMUP:-3}
TARGET_MS=${BENCH_TARGET_MS:-20}
OUT=bench/out
WORKLOADS=${BENCH_WORKLOADS:-"mixed_214 session_500 settings_2k as_values_1k big_200k"}
CODEC_SRC=${CODEC_SRC:-$(sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' Makefile | sed 's|src/marshal_rails_cache\.c||')}
mkdir -p "$OUT"
raw=$OUT/goals.tsv
dbraw=$OUT/goals_db.txt
: >"$raw"

ncpu=$(nproc)
cpu=${BENCH_CPU:-$((ncpu - 1))}
pin=()
if [[ $cpu != none ]] && command -v taskset >/dev/null; then
	pin=(taskset -c "$cpu")
fi

echo "bench/goals.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ changed)'), load $(cut -d' ' -f1-3 /proc/loadavg), $ncpu CPUs, $($RUBY -e 'print RUBY_DESCRIPTION.split(" ")[0, 2].join(" ")')"

# --- library ----------------------------------------------------------------
$RUBY bench/workloads.rb "$OUT" >/dev/null
if command -v pg_config >/dev/null; then
	flags="$(pg_config --cflags) $(pg_config --cflags_sl)"
	label="PGXS flags"
else
	flags="-O2"
	label="-O2"
fi
# shellcheck disable=SC2086
$CC -std=c11 -g -w -Isrc $flags -o "$OUT/bench_codec_goals" bench/bench_codec.c $CODEC_SRC -lm
for w in $WORKLOADS; do
	echo "  library: $w" >&2
	BENCH_OPS=tojson "${pin[@]}" "$OUT/bench_codec_goals" -w "$WARMUP" -p "$PASSES" \
		-t "$TARGET_MS" codec "$OUT/$w.bin" >>"$raw"
	BENCH_OPS=json "${pin[@]}" "$RUBY" bench/bench_mri.rb -w "$WARMUP" -p "$PASSES" \
		-t "$TARGET_MS" "$OUT/$w.bin" >>"$raw"
done

# --- database ---------------------------------------------------------------
: >"$dbraw"
if [[ ${GOALS_DB:-1} != 0 ]]; then
	echo "  database: bench/db_json.sh" >&2
	bash bench/db_json.sh >"$dbraw" 2>&1 || {
		cat "$dbraw" >&2
		echo "bench/goals.sh: bench/db_json.sh failed" >&2
		exit 1
	}
fi

# --- one table ----------------------------------------------------------------
# library rows: R <label> <workload> <op> <bytes> <reps> <best> <median>;
# database rows: | data | `query` | ms | `against` | ms | ratio |
awk -F '\t' -v label="$label" -v db="$dbraw" '
function row(what, against, ratio, goal, ok, times) {
	printf "| %s | %s | %s | %s | %s | %s |\n", what, against, ratio, goal, ok ? "yes" : "no", times
}
$1 == "R" && $2 == "codec" { cb[$3] = $7; cm[$3] = $8; order[++n] = $3 }
$1 == "R" && $2 == "mri" { mb[$3] = $7; mm[$3] = $8; op[$3] = $4 }
END {
	print "| goal | against | ratio | goal | met | times |"
	print "|---|---|---:|---:|---|---|"
	for (i = 1; i <= n; i++) {
		w = order[i]
		if (!(w in mb)) continue
		as = op[w] == "json(AS)"
		goal = as ? 5 : 10
		rb = mb[w] / cb[w]; rm = mm[w] / cm[w]
		row("library `marshal_to_json_text` (" label "), " w, \
			as ? "ActiveSupport::JSON.encode(Marshal.load)" : "JSON.generate(Marshal.load)", \
			sprintf("%.1fx best, %.1fx median", rb, rm), ">= " goal "x", rb >= goal && rm >= goal, \
			sprintf("%.2f us / %.2f us best", cb[w] / 1000, mb[w] / 1000))
	}
	while ((getline line < db) > 0) {
		if (line !~ /^\| / || line ~ /^\| data \|/) continue
		split(line, c, "|")
		for (k in c) gsub(/^ +| +$/, "", c[k])
		data = c[2]; q = c[3]; a = c[4]; against = c[5]; b = c[6]; r = c[7] + 0
		if (q ~ /jsonb`$/ && against ~ /jsonb_in/) goal = data ~ /MB/ ? 0.5 : 0.6
		else if (q ~ /json`$/) goal = 0.33
		else goal = 1.5
		row("database " q ", " data, against, sprintf("%.2f", r), "<= " goal, r <= goal, \
			sprintf("%s ms / %s ms median", a, b))
	}
}' "$raw"
