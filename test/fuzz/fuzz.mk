# test/fuzz/fuzz.mk -- libFuzzer targets of the PostgreSQL-free codec.
#
# Included by the top-level Makefile; works on its own as well, without
# pg_config (run-ci.sh uses it that way):
#   make -f test/fuzz/fuzz.mk fuzz-build
#
#   fuzz-build   build test/fuzz/fuzz_validate and test/fuzz/fuzz_text
#   fuzz-seeds   (re)write the seed corpora from the committed fixtures
#   fuzz         fuzz each target for FUZZ_SECONDS (default 60) seconds
#   fuzz-ci      test/fuzz/run-ci.sh: replay regressions, short bounded runs
#
# Knobs: FUZZ_SECONDS=600, FUZZ_JOBS=2 (parallel processes per target),
# FUZZ_FLAGS='-max_len=16384' (more libFuzzer flags), FUZZ_CC=clang-14,
# FUZZ_SKIP=stack,cursor (checks to turn off, see fuzz_validate.c).
# Corpora grow in test/fuzz/corpus/<target>/, crashing inputs land in
# test/fuzz/findings/<target>/, libFuzzer's job logs in test/fuzz/out/
# (all gitignored).  See test/fuzz/README.md.

# Alone, take the codec's sources from the top-level Makefile's CODEC_SRC
# line, so the two cannot drift apart.
CODEC_SRC ?= $(shell sed -n 's/^CODEC_SRC[ \t]*=[ \t]*//p' Makefile 2>/dev/null)

# The targets exercise the reader, the cursor and the text forms, and link
# only those files of CODEC_SRC: the rest needs more than CI's fuzz job has
# (zlib for marshal_rails_cache.c).  Add a file here if those start calling it.
FUZZ_SRC ?= $(filter %/marshal_reader.c %/marshal_cursor.c %/marshal_hex_base64.c,$(CODEC_SRC))

FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
FUZZ_LDLIBS ?= -lm
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_FLAGS ?=

FUZZ_TARGETS := fuzz_validate fuzz_text fuzz_walk fuzz_yaml
FUZZ_BINS := $(addprefix test/fuzz/,$(FUZZ_TARGETS))

# fuzz_walk drives the walkers and writers: the whole codec but zlib's part
FUZZ_WALK_SRC ?= $(filter-out %/marshal_rails_cache.c,$(CODEC_SRC))

# fuzz_yaml drives the YAML reader (libyaml) and validates what it writes
YAML_SRC ?= $(shell sed -n 's/^YAML_SRC[ \t]*=[ \t]*//p' Makefile 2>/dev/null)

# keep the including Makefile's default goal (PGXS's "all")
fuzz_saved_goal := $(.DEFAULT_GOAL)

test/fuzz/fuzz_walk: test/fuzz/fuzz_walk.c $(FUZZ_WALK_SRC) $(wildcard src/marshal*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -o $@ $< $(FUZZ_WALK_SRC) $(FUZZ_LDLIBS)

test/fuzz/fuzz_yaml: test/fuzz/fuzz_yaml.c $(FUZZ_WALK_SRC) $(YAML_SRC) $(wildcard src/marshal*.h src/yaml*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -o $@ $< $(FUZZ_WALK_SRC) $(YAML_SRC) $(FUZZ_LDLIBS) -lyaml

$(filter-out test/fuzz/fuzz_walk test/fuzz/fuzz_yaml,$(FUZZ_BINS)): test/fuzz/%: test/fuzz/%.c $(FUZZ_SRC) $(wildcard src/marshal*.h test/fuzz/*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -o $@ $< $(FUZZ_SRC) $(FUZZ_LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz-seeds:
	bash test/fuzz/seeds.sh

# Every target runs even if an earlier one finds something; the recipe fails
# at the end if any did.  Paths are absolute because each run happens in
# test/fuzz/out/<target>/, where libFuzzer drops its fuzz-<n>.log files.
fuzz: fuzz-build fuzz-seeds
	@rc=0; \
	for t in $(FUZZ_TARGETS); do \
		case $$t in fuzz_text) dict=text.dict ;; fuzz_yaml) dict=yaml.dict ;; *) dict=marshal.dict ;; esac; \
		mkdir -p test/fuzz/corpus/$$t test/fuzz/findings/$$t test/fuzz/out/$$t; \
		echo "== $$t: $(FUZZ_SECONDS)s x $(FUZZ_JOBS) job(s)"; \
		( cd test/fuzz/out/$$t && \
		  $(CURDIR)/test/fuzz/$$t \
			-max_total_time=$(FUZZ_SECONDS) \
			-dict=$(CURDIR)/test/fuzz/$$dict \
			-artifact_prefix=$(CURDIR)/test/fuzz/findings/$$t/ \
			-print_final_stats=1 \
			$(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
			$(FUZZ_FLAGS) \
			$(CURDIR)/test/fuzz/corpus/$$t ) || { rc=1; echo "!! $$t found something: see test/fuzz/findings/$$t/"; }; \
	done; \
	exit $$rc

fuzz-ci:
	bash test/fuzz/run-ci.sh

.PHONY: fuzz-build fuzz-seeds fuzz fuzz-ci

EXTRA_CLEAN += $(FUZZ_BINS)

.DEFAULT_GOAL := $(fuzz_saved_goal)
