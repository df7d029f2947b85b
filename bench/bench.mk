# bench/bench.mk -- the library-level benchmark (no PostgreSQL needed).
# Included by the top-level Makefile; see bench/run.sh for what it measures.
#
#   make bench         generate the workloads, build, run codec and MRI,
#                      print the tables (takes a few minutes)
#   make bench-db      the database-level benchmark (rbmarshal vs jsonb,
#                      one UPDATE vs a Ruby script), bench/db.sh
#   make bench-clean   remove bench/out/ (workloads, binaries, raw results)
#
# Knobs (environment or make variables): BENCH_PASSES, BENCH_WARMUP,
# BENCH_TARGET_MS, BENCH_CPU, BENCH_WORKLOADS, BENCH_NICE, RUBY.

# Keep the including Makefile's default goal (this file may come first).
bench_saved_default_goal := $(.DEFAULT_GOAL)

# the top-level Makefile's list (read from it when this file is used alone)
CODEC_SRC ?= $(shell sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' Makefile 2>/dev/null)

bench:
	CC='$(CC)' CODEC_SRC='$(filter-out %/marshal_rails_cache.c,$(CODEC_SRC))' bash bench/run.sh

# the database-level comparison (a throwaway cluster; see bench/db.sh)
bench-db:
	bash bench/db.sh

bench-clean:
	rm -rf bench/out

.PHONY: bench bench-db bench-clean

.DEFAULT_GOAL := $(bench_saved_default_goal)
