EXTENSION = rbmarshal
# the version being developed: default_version in the control file
EXTVERSION = $(shell sed -n "s/^default_version = '\\(.*\\)'$$/\\1/p" $(EXTENSION).control)

MODULE_big = rbmarshal
# The codec, free of PostgreSQL: the extension, the unit tests, the fuzzers
# (test/fuzz/fuzz.mk) and the benchmark (bench/) all build it from this line.
CODEC_SRC = src/marshal_reader.c src/marshal_cursor.c src/marshal_hex_base64.c src/marshal_numbers_dates.c src/marshal_class.c src/marshal_time.c src/marshal_time_fraction.c src/marshal_view.c src/marshal_json.c src/marshal_json_scalar.c src/marshal_json_text.c src/marshal_json_fast.c src/marshal_activerecord.c src/marshal_activerecord_type.c src/marshal_activerecord_view.c src/marshal_activerecord_number.c src/marshal_writer.c src/marshal_reencode.c src/marshal_literal.c src/marshal_inspect.c src/marshal_inspect_text.c src/marshal_to_s.c src/marshal_edit.c src/marshal_rails_cache.c
CODEC_OBJS = $(CODEC_SRC:.c=.o)
SHLIB_LINK = -lz -lyaml
# the YAML reader (PostgreSQL-free, like the codec; needs libyaml)
YAML_SRC = src/yaml_reader.c src/yaml_fast.c src/yaml_scalar.c src/yaml_ruby.c src/yaml_values.c src/yaml_hash.c src/yaml_dump.c src/yaml_bignum.c
OBJS = $(CODEC_OBJS) $(YAML_SRC:.c=.o) src/rbmarshal.o src/rbmarshal_io.o src/rbmarshal_to_jsonb.o src/rbmarshal_jsonb_binary.o src/rbmarshal_from_jsonb.o src/rbmarshal_transcode.o src/rbmarshal_nav.o src/rbmarshal_view_text.o src/rbmarshal_cast.o src/rbmarshal_subs.o src/rbmarshal_build.o src/rbmarshal_rails_cache.o src/rbmarshal_yaml.o src/rbmarshal_zones.o src/rbmarshal_edit.o src/rbmarshal_from_yaml.o

# the last release: its install script is committed (frozen) and the upgrade
# script from it to EXTVERSION is built
RELEASED = 0.1.0

# The install script of EXTVERSION and the upgrade script from RELEASED are
# built from src/ (docs/development.md, "Adding an SQL object"): both end with
# src/rbmarshal_added.sql, what both create.  Released scripts (frozen) and
# their control files are committed as they are.
DATA_built = $(EXTENSION)--$(EXTVERSION).sql $(EXTENSION)--$(RELEASED)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard $(EXTENSION)--*.sql)) $(wildcard $(EXTENSION)--*.control)

# each test runs alone (tables several read: sql/include/shared_tables.sql)
REGRESS = fixtures io compare copy errors jsonb differential navigation builders migrate rails fidelity adversarial literal limits edit security yaml written_limits exists_kinds inflated_limit json_text
REGRESS_OPTS = --load-extension=$(EXTENSION)

# Warnings are errors in every build (CI and developers alike).
PG_CFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers
# No JIT bitcode: nothing here benefits and it needs clang at install time.
with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(EXTENSION)--$(EXTVERSION).sql: src/$(EXTENSION).sql src/$(EXTENSION)_added.sql $(EXTENSION).control
	cat src/$(EXTENSION).sql src/$(EXTENSION)_added.sql >$@

$(EXTENSION)--$(RELEASED)--$(EXTVERSION).sql: src/$(EXTENSION)_upgrade.sql src/$(EXTENSION)_added.sql $(EXTENSION).control
	cat src/$(EXTENSION)_upgrade.sql src/$(EXTENSION)_added.sql >$@

# PGXS tracks no headers: a changed struct must rebuild every user of it.
$(OBJS): $(wildcard src/marshal*.h) src/rbmarshal.h src/yaml_reader.h src/yaml_internal.h

# --- the codec on its own: unit tests, sanitizers, fuzzers -----------------

UNIT_CFLAGS = -std=c11 -g -O2 -Wall -Wextra -Werror -Isrc

# test_codec.c (the harness) and one test_<module>.c per codec module
UNIT_SRC = $(wildcard test/unit/test_*.c)

test/unit/test_codec: $(UNIT_SRC) test/unit/unit.h $(CODEC_SRC) $(wildcard src/marshal*.h)
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRC) $(CODEC_SRC) -lm -lz

test/unit/test_codec_asan: $(UNIT_SRC) test/unit/unit.h $(CODEC_SRC) $(wildcard src/marshal*.h)
	clang $(UNIT_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ $(UNIT_SRC) $(CODEC_SRC) -lm -lz

# C unit tests of the codec against the committed fixtures.
unit: test/unit/test_codec
	test/unit/test_codec test/fixtures

# The same under AddressSanitizer and UndefinedBehaviorSanitizer.
unit-asan: test/unit/test_codec_asan
	test/unit/test_codec_asan test/fixtures

# The YAML reader against MRI's bytes (test/yaml/check.sh runs it).
test/yaml/yaml_check: test/yaml/yaml_check.c $(CODEC_SRC) $(YAML_SRC) src/marshal.h src/yaml_reader.h src/yaml_internal.h
	$(CC) $(UNIT_CFLAGS) -o $@ test/yaml/yaml_check.c $(CODEC_SRC) $(YAML_SRC) -lm -lz -lyaml

test/yaml/yaml_check_asan: test/yaml/yaml_check.c $(CODEC_SRC) $(YAML_SRC) src/marshal.h src/yaml_reader.h src/yaml_internal.h
	clang $(UNIT_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ test/yaml/yaml_check.c $(CODEC_SRC) $(YAML_SRC) -lm -lz -lyaml

# Regenerate the fixtures with Ruby (needs ruby and ruby-activesupport).
fixtures:
	ruby test/fixtures/generate.rb

# The regression suite with the server under valgrind (test/valgrind/run.sh).
installcheck-valgrind:
	bash test/valgrind/run.sh

# The C unit tests under valgrind.
unit-valgrind: test/unit/test_codec
	valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
		test/unit/test_codec test/fixtures

# Everything: unit tests, sanitizer build, regression suite (needs a server).
test: unit unit-asan installcheck

.PHONY: unit unit-asan unit-valgrind installcheck-valgrind fixtures test

EXTRA_CLEAN = test/unit/test_codec test/unit/test_codec_asan test/yaml/yaml_check test/yaml/yaml_check_asan

# Fuzzing (test/fuzz) and the benchmarks (bench/): their own targets.
-include test/fuzz/fuzz.mk
-include bench/bench.mk
