/*
 * marshal_cursor.h
 *		Reading a validated stream: documents, nodes, symbols, leaves.
 */
#ifndef RBMARSHAL_MARSHAL_CURSOR_H
#define RBMARSHAL_MARSHAL_CURSOR_H

#include "marshal_stream.h"

/*
 * The cursor: reading a stream already validated and indexed, for the walkers
 * built on it (jsonb, navigation, inspect).  It sees through I, e and C
 * wrappers and resolves "@n" and ";n" through the index.  Reads stay bounds-
 * checked, so a damaged value gives MARSHAL_ERR_FORMAT, never a wild read.
 */
/*
 * A lazy document indexes only as far as a link or symbol link asks
 * (navigation reads a few keys of a large value): the cursor extends its
 * index with these hooks.  Start one with marshal_doc_lazy(); the fields
 * are marshal_reader.c's and marshal_cursor.c's.
 */
/* Where the root value starts: after the header 04 08. */
#define MARSHAL_ROOT 2

typedef struct MarshalDocLazy
{
	bool		on;
	const MarshalHooks *hooks;
	uint32_t	depth;
	/*
	 * The first symbols, as marshal_find_symbol's skip met them: offset of
	 * the length prefix, MARSHAL_SCANNED_IVAR set if defined with an I.
	 */
	uint32_t	nscanned;
	uint32_t	scanned[16];
} MarshalDocLazy;

typedef struct MarshalDoc
{
	const uint8_t *buf;
	size_t		len;
	MarshalIndex index;
	MarshalDocLazy lazy;		/* the reader's and the cursor's; its hooks and depth
								 * also serve inspect texts of keys */
} MarshalDoc;

extern void marshal_doc_lazy(MarshalDoc *doc, const uint8_t *buf, size_t len,
							 const MarshalHooks *hooks, uint32_t max_depth);
/* A document indexed whole at once (marshal_index); every field set. */
extern MarshalStatus marshal_doc_open(MarshalDoc *doc, const uint8_t *buf,
									  size_t len, const MarshalHooks *hooks,
									  uint32_t max_depth, MarshalError *err);
/* Make sure symbol nsym - 1 and object nobj - 1 are indexed, if they exist. */
extern MarshalStatus marshal_doc_need(const MarshalDoc *doc, int64_t nsym,
									  int64_t nobj, MarshalError *err);

typedef struct MarshalNode
{
	int			type;			/* body type byte; links and wrappers resolved */
	size_t		pos;			/* first byte of the value (after resolving) */
	int64_t		slot;			/* object-table slot, -1 for immediates */
	MarshalBytes cls;			/* class name of o S u U d; path of c m M */
	MarshalBytes uclass;		/* the C wrapper's class, len 0 if none */
	int			nextended;		/* number of e wrappers */
	int64_t		ival;			/* i */
	MarshalBytes data;			/* bytes of " : / u f c m M; magnitude of l */
	int			negative;		/* l: sign */
	int			regexp_options; /* /: the options byte */
	uint32_t	count;			/* [ { } S: elements, pairs, members; o: ivars */
	size_t		items;			/* offset of the first element/pair/member/ivar */
	MarshalEncoding encoding;	/* " : / u: from the ivars */
	MarshalBytes encname;		/* MENC_NAMED: the encoding's name */
	int			has_ivars;		/* an I wrapper's ivar block follows the body */
	size_t		ivars;			/* offset of that block's count, when known */
	size_t		next;			/* offset after the bytes read at the given
								 * position (after "@n" for a link), or 0 for
								 * a container, whose end needs a walk */
} MarshalNode;

/*
 * Read the value at pos.  For an I-wrapped String, Regexp, Symbol or u
 * object the ivar block is read too (it holds the encoding); for an
 * I-wrapped container it follows the elements, at the offset the walker
 * reaches after them.
 */
extern MarshalStatus marshal_node(const MarshalDoc *doc, size_t pos,
								  MarshalNode *node, MarshalError *err);

/* Offset just after the value at pos (walks containers). */
/*
 * The hooks' interrupt check (if any), every 4096th call with i counting:
 * for scans over the entries of one container, which can be millions.
 */
extern void marshal_doc_interrupts(const MarshalDoc *doc, int64_t i);

extern MarshalStatus marshal_skip(const MarshalDoc *doc, size_t pos,
								  size_t *end, MarshalError *err);

/*
 * Name of the symbol at pos (":" or ";n", optionally I-wrapped) and, where
 * enc and encname are not NULL, its encoding; *end after it.
 */
extern MarshalStatus marshal_symbol(const MarshalDoc *doc, size_t pos,
									MarshalBytes *name, MarshalEncoding *enc,
									MarshalBytes *encname, size_t *end,
									MarshalError *err);

/*
 * Name of symbol number n, found by skipping from the start when the index
 * has not reached it (no tables built); *plain when it has no I wrapper.
 */
extern MarshalStatus marshal_find_symbol(const MarshalDoc *doc, int64_t n,
										 MarshalBytes *name, bool *plain,
										 MarshalError *err);

/* Read one packed long at pos (lengths, counts, Integers). */
extern MarshalStatus marshal_long(const MarshalDoc *doc, size_t pos,
								  int64_t *value, size_t *end,
								  MarshalError *err);

/*
 * The commonest values (nil, true, false, an Integer of 31 bits, a String
 * with no ivars or only E), read from their bytes alone: walkers take them
 * without building a node, and they re-encode to their own bytes:
 * leaf->body, copied as it is, after 04 08 and before leaf->tail (an E ivar
 * whose symbol link is written out).  *found is false for any other value,
 * and for bytes MRI would not write back as they are (non-canonical longs).
 */
typedef struct MarshalLeaf
{
	int			type;			/* MT_NIL, MT_TRUE, MT_FALSE, MT_FIXNUM,
								 * MT_STRING */
	int64_t		ival;			/* MT_FIXNUM */
	MarshalBytes data;			/* MT_STRING: its bytes */
	MarshalEncoding encoding;	/* MT_STRING: binary, UTF-8 or US-ASCII */
	size_t		end;			/* offset after the value */
	MarshalBytes body;
	uint8_t		tail[5];
	size_t		ntail;
} MarshalLeaf;

extern MarshalStatus marshal_leaf(const MarshalDoc *doc, size_t pos,
								  MarshalLeaf *leaf, bool *found,
								  MarshalError *err);
/* The leaf's stream (04 08, body, tail) into out; returns its length. */
extern size_t marshal_leaf_write(const MarshalLeaf *leaf, uint8_t *out);

#define MARSHAL_LEAF_SIZE(leaf) (2 + (leaf)->body.len + (leaf)->ntail)

#endif							/* RBMARSHAL_MARSHAL_CURSOR_H */
