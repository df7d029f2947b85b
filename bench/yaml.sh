#!/usr/bin/env bash
# The YAML reader against Ruby on a big cached report: 10 Hashes of 20,000
# short String keys to Integers (3.5 MB of YAML, 200k objects).
#
#   bash bench/yaml.sh          Ruby's YAML.unsafe_load, the C library
#                               (bench/yaml_bench.c), and with --db the server:
#   bash bench/yaml.sh --db     rbmarshal_from_yaml(t) and ::jsonb on top, in a
#                               throwaway cluster (pg_virtualenv; the extension
#                               installed; hold /tmp/rbm-pg.lock around it), or
#                               with BENCH_PSQL=1 in the server the PG*
#                               variables name
#
# Each time is the median of several runs; the ratios are to Ruby's time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/yaml
mkdir -p "$out"
RUBY=${RUBY:-ruby}

$RUBY -ryaml -e '
  v = Array.new(10) { |i| Array.new(20_000) { |j| ["k#{i}_#{j}", j * 7 + i] }.to_h }
  File.write(ARGV[0], v.to_yaml)' "$out/report.yaml"
echo "report: $(wc -c <"$out/report.yaml") bytes of YAML"

ruby_ms=$($RUBY -ryaml -e '
  y = File.read(ARGV[0]); YAML.unsafe_load(y)
  t = Array.new(7) { a = Process.clock_gettime(Process::CLOCK_MONOTONIC); YAML.unsafe_load(y)
                     (Process.clock_gettime(Process::CLOCK_MONOTONIC) - a) * 1000 }
  printf("%.1f", t.sort[3])' "$out/report.yaml")
echo "Ruby $($RUBY -e 'print RUBY_VERSION') YAML.unsafe_load: $ruby_ms ms"

codec=$(sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' Makefile)
yaml=$(sed -n 's/^YAML_SRC[ \t]*=[ \t]*//p' Makefile)
# shellcheck disable=SC2086
${CC:-cc} -O2 -Isrc -o "$out/yaml_bench" bench/yaml_bench.c $codec $yaml -lm -lz -lyaml
lib=$("$out/yaml_bench" "$out/report.yaml" 9)
lib_ms=${lib%% ms*}
echo "library marshal_from_yaml: $lib"
awk -v r="$ruby_ms" -v l="$lib_ms" 'BEGIN { printf "  %.1fx faster than Ruby\n", r / l }'

[[ ${1:-} == --db ]] || exit 0
# seven runs of each query; the median
{
	echo "SET client_min_messages = warning; DROP TABLE IF EXISTS yaml_bench; CREATE EXTENSION IF NOT EXISTS rbmarshal;"
	echo "\\set content \`cat $PWD/$out/report.yaml\`"
	echo "CREATE TABLE yaml_bench AS SELECT :'content'::text AS t;"
	echo "\\timing on"
	for q in "SELECT length(rbmarshal_from_yaml(t)::bytea) FROM yaml_bench;" \
		"SELECT rbmarshal_from_yaml(t)::jsonb IS NOT NULL FROM yaml_bench;"; do
		for _ in 1 2 3 4 5 6 7; do echo "$q"; done
	done
} >"$out/db.sql"
run=(pg_virtualenv -t)
[[ -n ${BENCH_PSQL:-} ]] && run=()
"${run[@]}" psql -qXAt -f "$out/db.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' >"$out/db.times"
for k in 0 1; do
	ms=$(sed -n "$((k * 7 + 1)),$((k * 7 + 7))p" "$out/db.times" | sort -n | sed -n 4p)
	name=$([[ $k == 0 ]] && echo "rbmarshal_from_yaml(t)" || echo "rbmarshal_from_yaml(t)::jsonb")
	awk -v n="$name" -v r="$ruby_ms" -v l="$ms" \
		'BEGIN { printf "database %s: %.1f ms, %.1fx faster than Ruby\n", n, l, r / l }'
done
