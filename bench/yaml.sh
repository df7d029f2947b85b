#!/usr/bin/env bash
# The YAML reader against Ruby 3.1's YAML.unsafe_load (Psych 4), on three
# workloads bench/yaml_rows.rb writes (seeded):
#   report      one big cached report: 10 Hashes of 20,000 short String keys
#               to Integers (3.5 MB of YAML, 200k objects; the fast path)
#   prefs       20,000 rows of `serialize :prefs` (YAMLColumn) of a Hash of
#               String keys to Strings (the fast path)
#   papertrail  10,000 PaperTrail `object` rows: Integers, Strings, an enum,
#               BigDecimal, a Date, TimeWithZones sharing Time.zone (libyaml)
#
#   bash bench/yaml.sh          the C library alone (bench/yaml_bench.c)
#                               against Ruby on the report
#   bash bench/yaml.sh --db     and the server, rbmarshal_from_yaml(t) and
#                               rbmarshal_from_yaml(t)::jsonb on each
#                               workload, in a throwaway cluster
#                               (pg_virtualenv; the extension installed), or
#                               with BENCH_PSQL=1 in the server the PG*
#                               variables name
#
# Each round runs Ruby (a warm-up pass, then one timed pass, in one process)
# and then each query (in a fresh session after a warm-up call), so a busy
# spell on a shared machine hits both sides; BENCH_RUNS rounds (7).  The
# table gives medians of the wall time and of the CPU time (Ruby's process
# CPU clock; the backend's /proc/PID/schedstat), and Ruby's time divided by
# ours.  Output also goes to bench/out/yaml/yaml.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/yaml
mkdir -p "$out"
RUBY=${RUBY:-ruby}
RUNS=${BENCH_RUNS:-7}
WORKLOADS="report prefs papertrail"

$RUBY bench/yaml_rows.rb "$out"
for w in $WORKLOADS; do
	echo "$w: $(wc -l <"$out/$w.tsv") rows, $(wc -c <"$out/$w.raw") bytes of YAML"
done

# "wall_ms cpu_ms" of YAML.unsafe_load of every row of workload $1
ruby_once() {
	$RUBY -ryaml -rbigdecimal -ractive_support/all -e '
		rows = Marshal.load(File.binread(ARGV[0]))
		rows.each { |y| YAML.unsafe_load(y) }
		w = Process.clock_gettime(Process::CLOCK_MONOTONIC)
		c = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
		rows.each { |y| YAML.unsafe_load(y) }
		printf("%.1f %.1f\n", (Process.clock_gettime(Process::CLOCK_MONOTONIC) - w) * 1000,
			   (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - c) * 1000)' "$out/$1.bin"
}

median() {
	sort -n | awk '{v[NR] = $1} END {printf "%.1f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'
}

codec=$(sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' Makefile)
yaml=$(sed -n 's/^YAML_SRC[ \t]*=[ \t]*//p' Makefile)
# shellcheck disable=SC2086
${CC:-cc} -O2 -Isrc -o "$out/yaml_bench" bench/yaml_bench.c $codec $yaml -lm -lz -lyaml

if [[ ${1:-} != --db ]]; then
	for ((i = 0; i < RUNS; i++)); do
		ruby_once report >>"$out/lib.ruby"
		"$out/yaml_bench" "$out/report.raw" 1 | sed 's/ ms.*//' >>"$out/lib.ours"
	done
	r=$(cut -d' ' -f1 "$out/lib.ruby" | median) l=$(median <"$out/lib.ours")
	rm -f "$out/lib.ruby" "$out/lib.ours"
	echo "report: Ruby $r ms, library marshal_from_yaml $l ms: $(awk -v r="$r" -v l="$l" 'BEGIN {printf "%.1f", r / l}')x"
	exit 0
fi

if [[ -z ${BENCH_PSQL:-} && -z ${BENCH_IN_CLUSTER:-} ]]; then
	BENCH_IN_CLUSTER=1 exec pg_virtualenv -t bash "$0" "$@"
fi

psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS rbmarshal;
DROP TABLE IF EXISTS yaml_bench;
CREATE TABLE yaml_bench (w text, t text);
\\copy yaml_bench (t) FROM '$out/report.tsv'
UPDATE yaml_bench SET w = 'report' WHERE w IS NULL;
\\copy yaml_bench (t) FROM '$out/prefs.tsv'
UPDATE yaml_bench SET w = 'prefs' WHERE w IS NULL;
\\copy yaml_bench (t) FROM '$out/papertrail.tsv'
UPDATE yaml_bench SET w = 'papertrail' WHERE w IS NULL;
VACUUM ANALYZE yaml_bench;
SQL

# "wall_ms cpu_ms" of one query in a fresh session, after a warm-up call
db_once() {
	psql -X -q -At <<SQL 2>&1 | awk '/^C / {c[++nc] = $2} /^Time:/ {t = $2} END {printf "%s %.1f\n", t, (c[2] - c[1]) / 1e6}'
SELECT pg_backend_pid() AS pid \\gset
SELECT rbmarshal_from_yaml('a: 1')::jsonb \\g /dev/null
\\setenv BPID :pid
\\! echo "C \$(cut -d' ' -f1 /proc/\$BPID/schedstat)"
\\timing on
SELECT $1 \\g /dev/null
\\timing off
\\! echo "C \$(cut -d' ' -f1 /proc/\$BPID/schedstat)"
SQL
}

report=$out/yaml.md
{
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before,"
	echo "rbmarshal $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $($RUBY -e 'print "ruby #{RUBY_VERSION}"'), $(psql -X -At -c 'SELECT version()' | cut -d, -f1);"
	echo "medians of $RUNS rounds (Ruby, then each query in a fresh session)"
	echo
	echo "| workload | Ruby \`YAML.unsafe_load\` ms (CPU) | \`rbmarshal_from_yaml(t)\` ms (CPU) | ratio (CPU) | \`::jsonb\` ms (CPU) | ratio (CPU) |"
	echo "|---|---:|---:|---:|---:|---:|"
} >"$report"
for w in $WORKLOADS; do
	q1="sum(length(rbmarshal_from_yaml(t)::bytea)) FROM yaml_bench WHERE w = '$w'"
	q2="count(rbmarshal_from_yaml(t)::jsonb) FROM yaml_bench WHERE w = '$w'"
	: >"$out/$w.r" && : >"$out/$w.q1" && : >"$out/$w.q2"
	for ((i = 0; i < RUNS; i++)); do
		ruby_once "$w" >>"$out/$w.r"
		db_once "$q1" >>"$out/$w.q1"
		db_once "$q2" >>"$out/$w.q2"
	done
	for k in r q1 q2; do
		eval "${k}w=\$(cut -d' ' -f1 \"\$out/\$w.\$k\" | median) ${k}c=\$(cut -d' ' -f2 \"\$out/\$w.\$k\" | median)"
	done
	# shellcheck disable=SC2154
	awk -v w="$w" -v rw="$rw" -v rc="$rc" -v aw="$q1w" -v ac="$q1c" -v bw="$q2w" -v bc="$q2c" 'BEGIN {
		printf "| %s | %.1f (%.1f) | %.1f (%.1f) | %.1fx (%.1fx) | %.1f (%.1f) | %.1fx (%.1fx) |\n",
			w, rw, rc, aw, ac, rw / aw, rc / ac, bw, bc, rw / bw, rc / bc }' >>"$report"
	rm -f "$out/$w.r" "$out/$w.q1" "$out/$w.q2"
done
psql -X -q -c "DROP TABLE yaml_bench"
cat "$report"
