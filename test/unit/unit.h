/*
 * unit.h
 *		The harness of the codec's unit tests: counters, checks, fixtures,
 *		and each module's tests (test_<module>.c).
 *
 * Usage of the binary: test_codec FIXTURE_DIR.  The fixtures are written by
 * test/fixtures/generate.rb: MRI's own bytes, with its object-table and
 * symbol-table sizes.
 */
#ifndef RBMARSHAL_UNIT_H
#define RBMARSHAL_UNIT_H

#include "marshal.h"
#include "marshal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fixture
{
	char		name[128];
	long		objects;
	long		symbols;
	uint8_t    *bytes;
	size_t		len;
	char	   *extra;			/* third column of invalid.tsv */
} Fixture;

/* Count one check; print the failing ones. */
extern void check(int ok, const char *what, const char *name);
/* A whole file (NUL-terminated); exits on error. */
extern char *read_file(const char *path, size_t *len);
/* Decoded hex; exits on bad hex. */
extern uint8_t *unhex(const char *hex, size_t *len);

/* test_reader.c: validation and the index */
extern void test_valid(Fixture *fx, int n);
extern void test_prefixes(Fixture *fx, int n);
extern void test_trailing(Fixture *fx, int n);
extern void test_invalid(Fixture *fx, int n);
extern void test_rules(void);
extern void test_depth(void);
extern void test_big(const char *dir);
extern void test_mutations(Fixture *fx, int n);

/* test_writer.c: the re-encoder */
extern void test_reencode(MarshalDoc *doc, const char *name);

/* test_hex_base64.c: the text forms */
extern void test_text(void);
extern void test_printable(void);
extern void test_sessions(const char *dir);

/* test_json.c: the JSON walk and text sink */
extern void test_json_text(Fixture *fx, int n);

/* test_class.c: the class table */
extern void test_classes(Fixture *fx, int n);

/* test_edit.c: changing values */
extern void test_edits(Fixture *fx, int n);

/* test_activerecord.c: attribute casts */
extern void test_record_casts(void);

#endif							/* RBMARSHAL_UNIT_H */
