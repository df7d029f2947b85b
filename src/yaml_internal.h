/*
 * yaml_internal.h
 *		The YAML reader's parts (not installed): the document tree libyaml's
 *		events build (yaml_reader.c), the Ruby object graph Psych's ToRuby
 *		would build from it (yaml_ruby.c, yaml_scalar.c), and its dump
 *		through the Marshal writer (yaml_dump.c).
 */
#ifndef RBMARSHAL_YAML_INTERNAL_H
#define RBMARSHAL_YAML_INTERNAL_H

#include <setjmp.h>

#include "yaml_reader.h"

/* --- memory: a bump arena over the codec's hooks, freed at once ------- */

typedef struct YArenaChunk YArenaChunk;

typedef struct YArena
{
	const MarshalHooks *hooks;
	YArenaChunk *chunks;
	char	   *ptr;
	size_t		left;
} YArena;

/* --- the document tree (Psych::Nodes) ---------------------------------- */

typedef enum YNodeKind
{
	YN_SCALAR,
	YN_SEQ,
	YN_MAP,
	YN_ALIAS
} YNodeKind;

typedef struct YNode
{
	uint8_t		kind;
	bool		quoted;			/* Psych's Scalar#quoted (quoted_implicit) */
	bool		flow;			/* a flow collection (only for tags) */
	int32_t		anchor;			/* anchor id, or -1; YN_ALIAS: its target */
	const char *tag;			/* NUL-terminated, or NULL */
	char	   *value;			/* YN_SCALAR, NUL-terminated */
	size_t		len;
	struct YNode **kids;		/* YN_SEQ: items; YN_MAP: key, value, ... */
	uint32_t	nkids;
	uint32_t	line;			/* 1-based, as Psych reports */
	uint32_t	col;
	size_t		offset;
} YNode;

/* --- the Ruby object graph --------------------------------------------- */

typedef enum RKind
{
	RV_NIL,
	RV_TRUE,
	RV_FALSE,
	RV_INT,						/* ival */
	RV_BIGINT,					/* str: decimal digits with a sign */
	RV_FLOAT,					/* dval */
	RV_STRING,					/* str, enc, cls, ivars */
	RV_SYMBOL,					/* str */
	RV_ARRAY,					/* items, cls, ivars */
	RV_HASH,					/* items (key, value, ...), cls, ivars, dflt */
	RV_OBJECT,					/* cls, ivars */
	RV_STRUCT,					/* cls, ivars as members */
	RV_USERDEF,					/* u: cls, str payload (BigDecimal) */
	RV_USRMARSHAL,				/* U: cls, data */
	RV_REGEXP,					/* str source, ival options, enc */
	RV_CLASS,					/* str name */
	RV_MODULE,					/* str name */
	RV_TIME						/* time */
} RKind;

typedef struct RVal RVal;

typedef struct RList
{
	RVal	  **v;
	uint32_t	n;
	uint32_t	cap;
} RList;

typedef struct RTime
{
	int64_t		epoch;			/* UTC seconds */
	int64_t		nsec;			/* 0..999999999 */
	int64_t		subnum;			/* below the nanosecond: subnum/subden ns */
	int64_t		subden;
	bool		utc;			/* UTC mode */
	int32_t		offset;			/* seconds east, when not UTC */
	RVal	   *zone;			/* String or NULL (nil) when not UTC */
} RTime;

/* ivars and struct members: names as symbols (with the @ where Ruby has it) */
typedef struct RIvar
{
	const char *name;
	size_t		len;
	RVal	   *value;
} RIvar;

typedef struct RIvars
{
	RIvar	   *v;
	uint32_t	n;
	uint32_t	cap;
} RIvars;

typedef struct RKeyIndex RKeyIndex;

struct RVal
{
	uint8_t		kind;
	uint8_t		enc;			/* MarshalEncoding of a String or Regexp;
								 * RV_BIGINT: the sign */
	bool		frozen;			/* an interned String (Hash keys) */
	bool		hashed;			/* hash below is set */
	bool		walking;		/* on the path of yr_check_expansion */
	uint32_t	slot;			/* object number + 1 once dumped */
	union
	{
		int64_t		ival;		/* RV_BIGINT: the base of str */
		double		dval;
	};
	uint64_t	hash;			/* String, Symbol: of the bytes (Hash keys) */
	const char *str;
	size_t		len;
	/* not allocated for RV_NIL .. RV_FLOAT and RV_SYMBOL (yr_new) */
	const char *cls;			/* class of o S u U, subclass of " [ { */
	RList		items;
	RIvars		ivars;
	union
	{
		RTime	   *time;		/* RV_TIME */
		RVal	   *data;		/* RV_USRMARSHAL */
		struct
		{
			RVal	   *dflt;	/* RV_HASH: default value, or NULL */
			RKeyIndex  *index;	/* RV_HASH: key lookup when large */
		};
	};
};

/* --- the reader's state ------------------------------------------------- */

typedef struct YClassIvars YClassIvars;

typedef struct YState
{
	YArena		arena;
	const YamlOptions *opts;
	const uint8_t *text;
	size_t		textlen;
	MarshalError *err;
	jmp_buf		fail;			/* yr_fail jumps here */

	/* anchors: names interned to ids at parse time, values by id */
	char	  **anchor_names;
	uint32_t	nanchors;
	RVal	  **anchor_values;

	int64_t		budget;			/* work left: nodes built, pairs copied */
	uint32_t	depth;
	uint32_t	tick;			/* for check_interrupts */
	size_t		progress;		/* bytes since then (yr_progress) */
	size_t		read;			/* the text libyaml has read */

	/* Float::NAN and Float::INFINITY, one object each as in MRI */
	RVal	   *nan;
	RVal	   *inf;
	RVal	   *nil;
	RVal	   *rtrue;
	RVal	   *rfalse;

	RList		singletons;		/* classes, modules, encodings seen */


	/* per class, the order ivar names were first set (MRI's iv index) */
	YClassIvars *classes;
} YState;

/* yaml_reader.c */
extern YState *yr_state_new(const uint8_t *text, size_t len,
							const YamlOptions *opts,
							const MarshalHooks *hooks, MarshalError *err);
extern void yr_state_free(YState *st);
/* marshal_from_yaml without the fast path (yaml_fast.c) */
extern MarshalStatus yr_read_libyaml(const uint8_t *text, size_t len,
									 const YamlOptions *opts,
									 const MarshalHooks *hooks, uint8_t **out,
									 size_t *outlen, MarshalError *err);
extern void *yr_alloc(YState *st, size_t size);
extern char *yr_strdup(YState *st, const char *s, size_t len);
extern void yr_fail(YState *st, MarshalStatus status, size_t offset,
					  uint32_t line, uint32_t col, const char *fmt,...)
			__attribute__((noreturn, format(printf, 6, 7)));
extern void yr_fail_at(YState *st, const YNode *n, MarshalStatus status,
						 const char *fmt,...)
			__attribute__((noreturn, format(printf, 4, 5)));
extern void yr_charge(YState *st, const YNode *n, int64_t cost);
/* Bytes between interrupt checks in loops over one scalar's bytes */
#define YAML_INTERRUPT_BYTES ((size_t) 1 << 20)
extern void yr_progress(YState *st, size_t bytes);

/* yaml_fast.c: false when it declines the text (yr_read_libyaml reads it) */
extern bool yr_read_fast(const uint8_t *text, size_t len,
						 const YamlOptions *opts, const MarshalHooks *hooks,
						 uint8_t **out, size_t *outlen, MarshalError *err,
						 MarshalStatus *status);

/* yaml_ruby.c */
extern void yr_graph_init(YState *st);
extern RVal *yr_to_ruby(YState *st, YNode *root);
extern RVal *yr_new(YState *st, RKind kind);
extern RVal *yr_string(YState *st, const char *s, size_t len, int enc);
extern RVal *yr_symbol(YState *st, const YNode *n, const char *s, size_t len);
extern RVal *yr_symbol_of(YState *st, const char *s, size_t len);
extern void yr_push(YState *st, RList *l, RVal *v);
extern void yr_reserve(YState *st, RList *l, uint32_t n);
extern void yr_ivar_set(YState *st, RVal *obj, const char *name,
						  size_t len, RVal *value);
extern void yr_hash_set(YState *st, RVal *h, RVal *key, RVal *value);
extern RVal *yr_hash_get(RVal *h, const char *key);
extern RVal *yr_deduplicate(YState *st, RVal *key);
extern void yr_permit(YState *st, const YNode *n, const char *cls);
extern const char *yr_class(YState *st, const YNode *n, const char *name);
extern const YClassIvars *yr_class_ivars(YState *st, const char *cls);
extern int	yr_ivar_rank(const YClassIvars *c, const char *name, size_t len);
extern void yr_class_note(YState *st, const char *cls, const char *name,
						  size_t len);

/* yaml_scalar.c: ScalarScanner#tokenize and the scalar tags */
typedef enum YTokenKind
{
	YT_OTHER,
	YT_INT,
	YT_STRING,
	YT_NIL,
	YT_TRUE,
	YT_FALSE
} YTokenKind;

extern YTokenKind yr_tokenize_quick(const char *s, size_t len, int64_t *ival);
extern RVal *yr_tokenize(YState *st, const YNode *n, const char *s,
						   size_t len);
extern RVal *yr_parse_time(YState *st, const YNode *n, const char *s,
							 size_t len);
extern RVal *yr_datetime(YState *st, RVal *time);
extern RVal *yr_int_from_text(YState *st, const char *digits, size_t len);
extern RVal *yr_float(YState *st, double d);
extern RVal *yr_bigdecimal(YState *st, const YNode *n, const char *s,
						  size_t len);
extern RVal *yr_rational(YState *st, const YNode *n, RVal *num, RVal *den);
extern RVal *yr_int_from_digits(YState *st, bool neg, const char *digits, size_t n, int base);
/* in yaml_bignum.c */
extern void yr_rational_bignums(YState *st, const YNode *n, RVal *num, RVal *den, RVal *arr);
extern bool yr_ruby_float(const char *s, size_t len, double *out);
extern const char *yr_encoding_name(const char *name, size_t len,
									size_t *outlen);

extern void yr_check_expansion(YState *st, RVal *root, uint64_t limit);

/* yaml_dump.c */
extern void yr_dump(YState *st, MarshalWriter *w, RVal *root);

#endif							/* RBMARSHAL_YAML_INTERNAL_H */
