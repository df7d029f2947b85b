#!/usr/bin/env bash
# Seed corpus of test/fuzz/fuzz_yaml: the YAML texts of test/yaml/cases.tsv,
# one file each (seed-<line>), the TSV escapes undone.  Needs bash and
# coreutils only.  Usage: seeds.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1
mkdir -p "$dir"
n=0
while IFS=$'\037' read -r _ yaml _; do
	n=$((n + 1))
	# \\ \n \t \r are the only escapes the generator writes
	printf '%b' "$yaml" >"$dir/seed-$n"
done < <(tr '\t' '\037' <test/yaml/cases.tsv)
