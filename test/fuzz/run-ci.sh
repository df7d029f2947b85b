#!/usr/bin/env bash
# CI entry point of the fuzzers (make fuzz-ci).
#
#   1. build test/fuzz/fuzz_validate and test/fuzz/fuzz_text (fuzz.mk alone,
#      no pg_config needed);
#   2. replay the committed inputs of test/fuzz/regressions/<target>/ (and,
#      for fuzz_validate, the 1.8 MB fixture big_200k.bin): one result per
#      target's replay set;
#   3. write the seed corpora (seeds.sh) and fuzz each target for
#      FUZZ_CI_SECONDS (default 25) seconds: one result per target.
#
# Needs clang, libclang-rt-14-dev and libfuzzer-14-dev (Debian), bash and
# coreutils.  Crashing inputs go to test/fuzz/findings/<target>/.  The last
# line is "fuzz: N passed, N failed"; the exit status is non-zero if
# anything failed.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_CI_SECONDS:-20}
targets=(fuzz_validate fuzz_text fuzz_walk fuzz_yaml)
passed=0
failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

result() {
	if [[ $1 == 0 ]]; then
		echo "ok - $2"
		passed=$((passed + 1))
	else
		echo "not ok - $2"
		failed=$((failed + 1))
	fi
}

finish() {
	echo "fuzz: $passed passed, $failed failed"
	[[ $failed == 0 ]]
	exit
}

dict_of() {
	case $1 in
		fuzz_text) echo test/fuzz/text.dict ;;
		fuzz_yaml) echo test/fuzz/yaml.dict ;;
		*) echo test/fuzz/marshal.dict ;;
	esac
}

echo "== build"
if ! make -s -f test/fuzz/fuzz.mk fuzz-build >"$log/build" 2>&1; then
	cat "$log/build"
	result 1 "build"
	finish
fi

echo "== replay regressions"
for t in "${targets[@]}"; do
	inputs=()
	for f in test/fuzz/regressions/"$t"/*; do
		[[ -f $f ]] && inputs+=("$f")
	done
	[[ $t == fuzz_validate && -f test/fixtures/big_200k.bin ]] &&
		inputs+=(test/fixtures/big_200k.bin)
	bad=0
	# one process per input, so that every failing one is reported
	for f in "${inputs[@]}"; do
		if ! "test/fuzz/$t" "$f" >"$log/replay" 2>&1; then
			echo "   $f:"
			grep -E 'ERROR|SUMMARY|^fuzz_|^    #[0-9]+ .* in (marshal|read_|LLVMFuzzer)' \
				"$log/replay" | head -n 8 | sed 's/^/     /'
			bad=1
		fi
	done
	result $bad "$t replays ${#inputs[@]} input(s)"
done

echo "== seed corpora"
if ! bash test/fuzz/seeds.sh; then
	result 1 "seeds"
	finish
fi

# the YAML reader starts from the texts of test/yaml/cases.tsv
bash test/yaml/seeds.sh test/fuzz/corpus/fuzz_yaml

# the walkers start from the validator's seeds
mkdir -p test/fuzz/corpus/fuzz_walk
cp -n test/fuzz/corpus/fuzz_validate/* test/fuzz/corpus/fuzz_walk/ 2>/dev/null

echo "== fuzz ${seconds}s per target"
for t in "${targets[@]}"; do
	mkdir -p "test/fuzz/findings/$t"
	"test/fuzz/$t" -max_total_time="$seconds" -timeout=10 \
		-dict="$(dict_of "$t")" -artifact_prefix="test/fuzz/findings/$t/" \
		-print_final_stats=1 "test/fuzz/corpus/$t" >"$log/$t" 2>&1
	rc=$?
	if [[ $rc != 0 ]]; then
		grep -E 'ERROR|SUMMARY|^fuzz_|Test unit written|^    #[0-9]+ .* in (marshal|read_|LLVMFuzzer)' \
			"$log/$t" | head -n 20 | sed 's/^/   /'
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log/$t" | tail -n 1)
	result $rc "$t: ${runs:-?} executions in ${seconds}s"
done

finish
