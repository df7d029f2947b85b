/*
 * marshal_edit.h
 *		Changing a value: what Marshal.dump writes after a change made in
 *		Ruby to Marshal.load(v) (marshal_edit.c), written by the re-encoder.
 *
 * A change names one container by the offset where its value starts (links
 * resolved), so a Hash referenced twice changes at both places, as Ruby's
 * one object would.  Entries dropped or replaced leave their old values to
 * other references, which the re-encoder writes in full where next used.
 */
#ifndef RBMARSHAL_MARSHAL_EDIT_H
#define RBMARSHAL_MARSHAL_EDIT_H

#include "marshal_view.h"

/* How an added entry's key is written. */
typedef enum MarshalKeyKind
{
	MKEY_NONE = 0,				/* an Array element */
	MKEY_SYMBOL,				/* a Symbol (an ivar name, with its @) */
	MKEY_STRING,				/* a UTF-8 String, as Hash#[]= stores it */
	MKEY_VALUE					/* a key of the other document */
} MarshalKeyKind;

typedef struct MarshalAddition
{
	uint32_t	before;			/* the entry it goes before; count: the end */
	MarshalKeyKind key_kind;
	MarshalBytes key;			/* MKEY_SYMBOL, MKEY_STRING: its text */
	MarshalEncoding key_enc;	/* MKEY_STRING: UTF-8 or US-ASCII */
	size_t		key_pos;		/* MKEY_VALUE: in the other document */
	size_t		value;			/* in the other document */
} MarshalAddition;

/* What the copy of the changed container starts as (Hash#merge, Array#+). */
typedef enum MarshalFresh
{
	MFRESH_NONE = 0,			/* the container itself, changed in place */
	MFRESH_DUP,					/* a dup: a new object, no extended modules */
	MFRESH_PLAIN				/* a new plain Array or Hash: no wrappers */
} MarshalFresh;

/*
 * How a HashWithIndifferentAccess stores a value (its convert_value): a
 * Hash becomes a new HashWithIndifferentAccess (String keys), an Array's
 * elements are converted, in place when assigned, in a copy on update.
 */
typedef enum MarshalConvert
{
	MCONV_NONE = 0,
	MCONV_ASSIGN,				/* []= */
	MCONV_UPDATE				/* merge, update, and inside a new one */
} MarshalConvert;

#define MARSHAL_HWIA "ActiveSupport::HashWithIndifferentAccess"

typedef struct MarshalChange
{
	size_t		target;			/* the changed container; 0: none */
	MarshalFresh fresh;
	MarshalConvert convert;		/* new values, as the target stores them */
	uint32_t	nentries;		/* its entries (elements, pairs, ivars) */
	uint8_t    *drop;			/* per entry: dropped; or NULL */
	size_t	   *replace;		/* per entry: the new value's offset in
								 * other, 0 to keep it; or NULL */
	MarshalAddition *adds;		/* in order of before */
	uint32_t	nadds;
	const MarshalDoc *other;	/* where new keys and values come from */
	const size_t *frozen;		/* other's Hash keys (frozen Strings) that
								 * are not written, as links reach them */
	uint32_t	nfrozen;

	/* class and module names: renamed from -> to (from.len 0: none) */
	MarshalBytes from;
	MarshalBytes to;
	/* called with every class and module name written; false: no memory */
	bool		(*on_class) (void *ctx, const uint8_t *name, size_t len);
	void	   *ctx;
} MarshalChange;

/*
 * The whole of doc, changed, as a stream (marshal_reencode.c): a writer's
 * result, or an error.
 */
extern MarshalStatus marshal_reencode_changed(const MarshalDoc *doc,
											  const MarshalChange *change,
											  const MarshalHooks *hooks,
											  uint32_t max_depth,
											  uint8_t **out, size_t *len,
											  MarshalError *err);

/* --- the edits (marshal_edit.c); all leave *out NULL for "unchanged" --- */

/* Every class and module name doc writes, each once, in stream order. */
typedef struct MarshalNames
{
	uint32_t	count;
	MarshalBytes *names;		/* point into the document */
	uint32_t	cap;
	const MarshalHooks *hooks;
} MarshalNames;

extern MarshalStatus marshal_class_names(const MarshalDoc *doc,
										 const MarshalHooks *hooks,
										 uint32_t max_depth,
										 MarshalNames *names,
										 MarshalError *err);
extern void marshal_names_free(MarshalNames *names);

/* Every reference to class from, and to constants in it, as to. */
extern MarshalStatus marshal_rename_class(const MarshalDoc *doc,
										  MarshalBytes from, MarshalBytes to,
										  const MarshalHooks *hooks,
										  uint32_t max_depth,
										  uint8_t **out, size_t *len,
										  MarshalError *err);

/* A path of UTF-8 keys (array positions as their digits, as #> takes them). */
typedef struct MarshalPath
{
	int			n;
	const MarshalPathStep *steps;
} MarshalPath;

/* How marshal_edit_path changes the container at the end of the path. */
typedef enum MarshalEditKind
{
	MEDIT_DELETE,				/* v - key */
	MEDIT_DELETE_AT,			/* v #- path: as MEDIT_DELETE, but an Array's
								 * entry is a position (delete_at) */
	MEDIT_DELETE_INDEX,			/* v - integer: Array#delete_at */
	MEDIT_SET,					/* rbmarshal_set */
	MEDIT_SET_EXISTING,			/* rbmarshal_set, create_if_missing false */
	MEDIT_INSERT,				/* rbmarshal_insert, before */
	MEDIT_INSERT_AFTER			/* rbmarshal_insert, insert_after */
} MarshalEditKind;

/* Outcomes other than a result, for the caller's messages. */
typedef enum MarshalEditRefusal
{
	MEDIT_OK = 0,
	MEDIT_UNCHANGED,			/* nothing to change: the value as it is */
	MEDIT_SCALAR,				/* deleting from a value with no entries */
	MEDIT_NOT_INDEX,			/* an Array's path element is no integer */
	MEDIT_KEY_EXISTS,			/* insert: the Hash has the key already */
	MEDIT_NOT_ARRAY				/* v - integer on a value not an Array */
} MarshalEditRefusal;

typedef struct MarshalEditArgs
{
	MarshalEditKind kind;
	MarshalPath path;			/* the keys leading to the container */
	const MarshalPathStep *keys;	/* its entries': one, or (MEDIT_DELETE)
									 * more */
	int			nkeys;
	int64_t		index;			/* MEDIT_DELETE_INDEX */
	const MarshalDoc *value;	/* MEDIT_SET, MEDIT_INSERT*: the new value */
	/* named encodings' keys compare as the UTF-8 they convert to */
	const MarshalTranscoder *transcoder;
} MarshalEditArgs;

/*
 * The change asked for; *refusal says why there is no result (the element
 * of the path at fault in *at).  *out is NULL with MEDIT_UNCHANGED.
 */
extern MarshalStatus marshal_edit_path(const MarshalDoc *doc,
									   const MarshalEditArgs *args,
									   const MarshalHooks *hooks,
									   uint32_t max_depth,
									   uint8_t **out, size_t *len,
									   MarshalEditRefusal *refusal, int *at,
									   MarshalError *err);

/*
 * v || w: Hash#merge when both are Hashes (keeping v's class and default),
 * Array#+ when both are Arrays.  *mismatch when neither: no result.
 */
extern MarshalStatus marshal_concat(const MarshalDoc *v, const MarshalDoc *w,
									const MarshalHooks *hooks,
									uint32_t max_depth,
									uint8_t **out, size_t *len,
									bool *mismatch, MarshalError *err);

#endif							/* RBMARSHAL_MARSHAL_EDIT_H */
