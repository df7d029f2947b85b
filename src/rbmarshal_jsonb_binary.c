/*
 * rbmarshal_jsonb_binary.c
 *		rbmarshal -> jsonb written straight in jsonb's on-disk format from
 *		the one-pass emitter's events: no JsonbValue tree, no pushJsonbValue.
 *
 * The bytes are those convertToJsonb (jsonb_util.c) writes for the same
 * value, which is what jsonb_in makes of the JSON text: a container is its
 * header (count and kind), one JEntry per element (an object's keys first,
 * then its values), then the elements' data in that order; every
 * JB_OFFSET_STRIDE'th JEntry holds the end offset of its data, the others
 * its length; numerics and nested containers are padded to 4 bytes from the
 * container's start, and the padding counts in their length.  An object's
 * keys are sorted by length, then bytes, and of equal keys the last one
 * stays (uniqueifyJsonbObject).  A scalar root is a one-element array with
 * JB_FSCALAR.
 *
 * Each event pushes an item (its JEntry's kind and length, and where its
 * data is: in the stream, or in the arena, where numerics, scratch text and
 * finished containers go).  A container's end writes it whole after its
 * items' arena data and moves it down over them, so the arena only holds
 * the open containers' items; the root's end writes into the result.
 * Integers are laid out as int64_to_numeric lays them out (checked against
 * it once per backend, else it is called); other numbers go through
 * numeric_in, as jsonb_in takes them.
 *
 * Anything this cannot write as convertToJsonb would (a string or container
 * over jsonb's size limits) makes it give up; the caller then builds the
 * jsonb the usual way, which gives the error.  Test:
 * test/jsonb_binary/run.sh compares the bytes with jsonb_in's of the JSON
 * text over every stored input.
 */
#include "rbmarshal.h"

#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"


/* An item's data is in the arena (else in the stream): JENTRY_HAS_OFF's bit */
#define IN_ARENA	JENTRY_HAS_OFF

typedef struct JbItem
{
	uint32		je;				/* JENTRY type | data length | IN_ARENA */
	uint32		ref;			/* offset in the arena or in the stream */
} JbItem;

typedef struct JbFrame
{
	size_t		first;			/* its first item */
	size_t		mark;			/* the arena's length when it began */
	bool		object;
} JbFrame;

/* Buffers up to this size stay with the backend for the next conversion */
#define RETAIN_BYTES (256 * 1024)

typedef struct JbBuilder
{
	const char *stream;
	size_t		streamlen;
	JbItem	   *items;
	size_t		nitems;
	size_t		itemscap;
	char	   *arena;
	size_t		arenalen;
	size_t		arenacap;
	JbFrame    *frames;
	size_t		nframes;
	size_t		framescap;
	uint32	   *order;			/* a container's pairs in jsonb's order */
	size_t		ordercap;
	bool		failed;
	Jsonb	   *result;
} JbBuilder;

/*
 * Buffers the backend keeps between conversions (TopMemoryContext), up to
 * RETAIN_BYTES each; a larger one is the conversion's (its context's, freed
 * at its end or with the query on an error).
 */
typedef struct JbKept
{
	void	   *buf;
	size_t		cap;			/* in elements */
} JbKept;

static JbKept kept_items;
static JbKept kept_arena;
static JbKept kept_frames;
static JbKept kept_order;

/* The most a first large buffer takes from a hint (untouched pages cost little) */
#define HINT_BYTES_MAX (64 * 1024 * 1024)

/*
 * Room for need more elements of size after used, doubling; a buffer
 * outgrowing the kept ones starts at hint elements (what the stream's
 * length suggests), sparing the copies and page faults of doubling.
 */
static void *
grow(void *buf, size_t used, size_t *cap, size_t need, size_t size, JbKept *kept,
	 size_t hint)
{
	size_t		n = *cap ? *cap : 1024 / size;
	void	   *p;

	while (n < used + need)
		n *= 2;
	if (n * size > RETAIN_BYTES && *cap * size <= RETAIN_BYTES)
		n = Max(n, Min(hint, HINT_BYTES_MAX / size));
	if (n * size <= RETAIN_BYTES)
	{
		/* the kept buffer, replaced */
		p = MemoryContextAlloc(TopMemoryContext, n * size);
		if (used)
			memcpy(p, buf, used * size);
		if (kept->buf)
			pfree(kept->buf);
		kept->buf = p;
		kept->cap = n;
	}
	else
	{
		p = MemoryContextAllocExtended(CurrentMemoryContext, n * size, MCXT_ALLOC_HUGE);
		if (used)
			memcpy(p, buf, used * size);
		if (buf != kept->buf)
			pfree(buf);
	}
	*cap = n;
	return p;
}

#define GROW(b, field, count, need, kept, hint) \
	do { \
		if ((count) + (need) > (b)->field##cap) \
			(b)->field = grow((b)->field, (count), &(b)->field##cap, (need), \
							  sizeof(*(b)->field), &(kept), (hint)); \
	} while (0)

static inline void
push_item(JbBuilder *b, uint32 je, uint32 ref)
{
	/* an item takes a byte of the stream at least (but for links) */
	GROW(b, items, b->nitems, 1, kept_items, b->streamlen);
	b->items[b->nitems].je = je;
	b->items[b->nitems].ref = ref;
	b->nitems++;
}

/* Room for n more arena bytes; false (given up) past what offsets hold. */
static inline bool
arena_room(JbBuilder *b, size_t n)
{
	if (b->arenalen + n > (size_t) PG_INT32_MAX)
	{
		b->failed = true;
		return false;
	}
	GROW(b, arena, b->arenalen, n, kept_arena, 4 * b->streamlen);
	return true;
}

/* n bytes: most are a few (keys, numerics), not worth a call to memcpy */
static inline void
copy_bytes(char *dst, const char *src, uint32 n)
{
	if (n > 16)
		memcpy(dst, src, n);
	else if (n >= 8)
	{
		uint64		a;
		uint64		z;

		memcpy(&a, src, 8);
		memcpy(&z, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + n - 8, &z, 8);
	}
	else if (n >= 4)
	{
		uint32		a;
		uint32		z;

		memcpy(&a, src, 4);
		memcpy(&z, src + n - 4, 4);
		memcpy(dst, &a, 4);
		memcpy(dst + n - 4, &z, 4);
	}
	else
	{
		for (uint32 i = 0; i < n; i++)
			dst[i] = src[i];
	}
}

/* Bytes into the arena as an item of type (whose length they are). */
static void
push_arena(JbBuilder *b, uint32 type, const void *data, size_t len)
{
	if (!arena_room(b, len))
		return;
	copy_bytes(b->arena + b->arenalen, data, (uint32) len);
	push_item(b, type | IN_ARENA | (uint32) len, (uint32) b->arenalen);
	b->arenalen += len;
}

static inline const char *
item_data(const JbBuilder *b, JbItem it)
{
	return (it.je & IN_ARENA) ? b->arena + it.ref : b->stream + it.ref;
}

/* ---------- the sink ---------- */

static void
begin(JbBuilder *b, bool object)
{
	JbFrame    *f;

	if (b->failed)
		return;
	GROW(b, frames, b->nframes, 1, kept_frames, 0);
	f = &b->frames[b->nframes++];
	f->first = b->nitems;
	f->mark = b->arenalen;
	f->object = object;
}

static void
jb_begin_object(void *ctx)
{
	begin(ctx, true);
}

static void
jb_begin_array(void *ctx)
{
	begin(ctx, false);
}

static void
jb_text(void *ctx, const char *s, size_t len, bool stable)
{
	JbBuilder  *b = ctx;

	if (b->failed)
		return;
	if (len > JENTRY_OFFLENMASK)
		b->failed = true;		/* jsonb's error, from the usual path */
	else if (stable && s >= b->stream && (size_t) (s - b->stream) <= b->streamlen &&
			 len <= b->streamlen - (size_t) (s - b->stream))
		push_item(b, JENTRY_ISSTRING | (uint32) len, (uint32) (s - b->stream));
	else
		push_arena(b, JENTRY_ISSTRING, s, len);
}

static void
jb_null(void *ctx)
{
	JbBuilder  *b = ctx;

	if (!b->failed)
		push_item(b, JENTRY_ISNULL, 0);
}

static void
jb_boolean(void *ctx, bool value)
{
	JbBuilder  *b = ctx;

	if (!b->failed)
		push_item(b, value ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE, 0);
}

/*
 * numeric.c's short format, which int64_to_numeric writes for every int64
 * (dscale 0, weight at most 4): the varlena header, a 16-bit header (short
 * flag, sign, weight), then base-10000 digits, most significant first,
 * without the trailing zero digits; zero has none.  Mirrored here (numeric's
 * layout is private to numeric.c) and compared with int64_to_numeric's
 * bytes once per backend.
 */
#define NUM_SHORT			0x8000
#define NUM_SHORT_SIGN		0x2000
#define NUM_SHORT_WEIGHT	0x003F

static size_t
int_numeric(int64 value, char *out)
{
	uint64		u = value < 0 ? -(uint64) value : (uint64) value;
	uint16		digits[5];
	int			nd = 0;
	int			lo = 0;
	uint16		header;
	size_t		len;
	char	   *p;

	while (u != 0)
	{
		digits[nd++] = (uint16) (u % 10000);
		u /= 10000;
	}
	while (lo < nd && digits[lo] == 0)
		lo++;
	header = NUM_SHORT | (nd > 0 ? (uint16) (nd - 1) & NUM_SHORT_WEIGHT : 0);
	if (value < 0)
		header |= NUM_SHORT_SIGN;
	len = VARHDRSZ + sizeof(uint16) + sizeof(uint16) * (size_t) (nd - lo);
	SET_VARSIZE(out, len);
	p = out + VARHDRSZ;
	memcpy(p, &header, sizeof(uint16));
	p += sizeof(uint16);
	for (int i = nd - 1; i >= lo; i--)
	{
		memcpy(p, &digits[i], sizeof(uint16));
		p += sizeof(uint16);
	}
	return len;
}

/* Whether int_numeric writes int64_to_numeric's bytes (asked once). */
static bool
int_numeric_agrees(void)
{
	static int	agrees = -1;

	if (agrees < 0)
	{
		static const int64 probe[] = {
			0, 1, -1, 9, 10, 9999, 10000, 10001, -10000, 12345678, 100000000,
			-99990000, 123400000000, PG_INT32_MAX, PG_INT32_MIN,
			INT64CONST(1000000000000000000), PG_INT64_MAX, PG_INT64_MIN, PG_INT64_MIN + 1
		};
		int32		buf[16];

		agrees = 1;
		for (size_t i = 0; i < lengthof(probe); i++)
		{
			Numeric		n = int64_to_numeric(probe[i]);
			size_t		len = int_numeric(probe[i], (char *) buf);

			if (len != VARSIZE(n) || memcmp(buf, n, len) != 0)
				agrees = 0;
			pfree(n);
		}
	}
	return agrees == 1;
}

static void
jb_integer(void *ctx, int64_t value)
{
	JbBuilder  *b = ctx;
	int32		buf[8];			/* int-aligned for SET_VARSIZE */

	if (b->failed)
		return;
	if (int_numeric_agrees())
		push_arena(b, JENTRY_ISNUMERIC, buf, int_numeric(value, (char *) buf));
	else
	{
		Numeric		n = int64_to_numeric(value);

		push_arena(b, JENTRY_ISNUMERIC, n, VARSIZE(n));
		pfree(n);
	}
}

/* Decimal text (Bignums, Floats) through numeric_in, as jsonb_in takes it. */
static void
jb_number(void *ctx, const char *text, size_t len)
{
	JbBuilder  *b = ctx;
	char	   *s;
	Numeric		n;

	if (b->failed)
		return;
	s = pnstrdup(text, len);
	n = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(s),
											ObjectIdGetDatum(InvalidOid),
											Int32GetDatum(-1)));
	push_arena(b, JENTRY_ISNUMERIC, n, VARSIZE_ANY(n));
	pfree(s);
	pfree(n);
}

/* ---------- containers ---------- */

/* jsonb's key order: length, then bytes (lengthCompareJsonbStringValue) */
static inline int
key_cmp(const JbBuilder *b, JbItem x, JbItem y)
{
	uint32		lx = x.je & JENTRY_OFFLENMASK;
	uint32		ly = y.je & JENTRY_OFFLENMASK;

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return memcmp(item_data(b, x), item_data(b, y), lx);
}

typedef struct PairSort
{
	const JbBuilder *b;
	const JbItem *items;		/* key, value, key, value... */
} PairSort;

/* pairs by key, equal keys in stream order (so the sort is stable) */
static int
pair_cmp(const void *x, const void *y, void *arg)
{
	const PairSort *ps = arg;
	uint32		px = *(const uint32 *) x;
	uint32		py = *(const uint32 *) y;
	int			c = key_cmp(ps->b, ps->items[2 * (size_t) px], ps->items[2 * (size_t) py]);

	if (c != 0)
		return c;
	return px < py ? -1 : px > py;
}

/*
 * The order of an object's pairs in jsonb: sorted, the last of equal keys
 * kept.  NULL if the stream has them in that order already, each key once.
 */
static const uint32 *
pair_order(JbBuilder *b, const JbItem *items, uint32 npairs, uint32 *kept)
{
	PairSort	ps = {b, items};
	uint32		i;
	uint32		n;

	*kept = npairs;
	for (i = 1; i < npairs; i++)
		if (key_cmp(b, items[2 * (size_t) (i - 1)], items[2 * (size_t) i]) >= 0)
			break;
	if (i >= npairs)
		return NULL;
	GROW(b, order, 0, npairs, kept_order, 0);
	for (i = 0; i < npairs; i++)
		b->order[i] = i;
	if (npairs <= 16)
	{
		for (i = 1; i < npairs; i++)
		{
			uint32		p = b->order[i];
			uint32		j;

			for (j = i; j > 0 && pair_cmp(&p, &b->order[j - 1], &ps) < 0; j--)
				b->order[j] = b->order[j - 1];
			b->order[j] = p;
		}
	}
	else
		qsort_arg(b->order, npairs, sizeof(uint32), pair_cmp, &ps);
	/* of a run of equal keys, the last */
	n = 0;
	for (i = 0; i < npairs; i++)
	{
		if (i + 1 < npairs &&
			key_cmp(b, items[2 * (size_t) b->order[i]], items[2 * (size_t) b->order[i + 1]]) == 0)
			continue;
		b->order[n++] = b->order[i];
	}
	*kept = n;
	return b->order;
}

/*
 * One element's data at *pos of the container at out, and its JEntry at
 * index: the end offset of its data every JB_OFFSET_STRIDE'th, else its
 * length (padding included).
 */
static inline void
put_element(const JbBuilder *b, char *out, size_t *pos, JbItem it, uint32 index,
			uint32 *total)
{
	uint32		type = it.je & JENTRY_TYPEMASK;
	uint32		len = it.je & JENTRY_OFFLENMASK;
	uint32		pad = 0;
	JEntry		e;

	if (type == JENTRY_ISNUMERIC || type == JENTRY_ISCONTAINER)
	{
		uint32		zero = 0;

		/* within the pad and the data (4 bytes at least) that follows */
		pad = (uint32) (-*pos & 3);
		memcpy(out + *pos, &zero, sizeof(zero));
		*pos += pad;
	}
	copy_bytes(out + *pos, item_data(b, it), len);
	*pos += len;
	*total += pad + len;
	if (index % JB_OFFSET_STRIDE == 0)
		e = type | JENTRY_HAS_OFF | *total;
	else
		e = type | (pad + len);
	memcpy(out + sizeof(uint32) + sizeof(JEntry) * (size_t) index, &e, sizeof(JEntry));
}

/*
 * The most the container of the items from first takes (its header, its
 * JEntries, its elements' data and their padding); false past jsonb's limit.
 */
static bool
container_bound(const JbBuilder *b, size_t first, size_t *bound)
{
	size_t		n = sizeof(uint32);

	for (size_t i = first; i < b->nitems; i++)
		n += sizeof(JEntry) + (b->items[i].je & JENTRY_OFFLENMASK) + 3;
	*bound = n;
	return n <= JENTRY_OFFLENMASK;
}

/*
 * The container of the items from first (a raw scalar: the root's one
 * scalar) written at out, 4-aligned from the datum's start (its padding is
 * counted from there); its length.
 */
static size_t
write_container(JbBuilder *b, char *out, size_t first, bool object, bool raw_scalar)
{
	const JbItem *items = b->items + first;
	uint32		nitems = (uint32) (b->nitems - first);
	uint32		header;
	uint32		count;
	size_t		pos;
	uint32		total = 0;

	if (object)
	{
		const uint32 *order = pair_order(b, items, nitems / 2, &count);

		header = count | JB_FOBJECT;
		pos = sizeof(uint32) + sizeof(JEntry) * 2 * (size_t) count;
		for (uint32 i = 0; i < count; i++)
			put_element(b, out, &pos, items[2 * (size_t) (order ? order[i] : i)], i, &total);
		for (uint32 i = 0; i < count; i++)
			put_element(b, out, &pos, items[2 * (size_t) (order ? order[i] : i) + 1],
						count + i, &total);
	}
	else
	{
		count = nitems;
		header = count | JB_FARRAY | (raw_scalar ? JB_FSCALAR : 0);
		pos = sizeof(uint32) + sizeof(JEntry) * (size_t) count;
		for (uint32 i = 0; i < count; i++)
			put_element(b, out, &pos, items[i], i, &total);
	}
	memcpy(out, &header, sizeof(uint32));
	return pos;
}

/* The root: the datum, palloc'd in the caller's context. */
static void
finish_root(JbBuilder *b, size_t first, bool object, bool raw_scalar)
{
	size_t		bound;
	size_t		len;
	Jsonb	   *j;

	if (!container_bound(b, first, &bound))
	{
		b->failed = true;
		return;
	}
	j = palloc(VARHDRSZ + bound);
	len = write_container(b, (char *) j + VARHDRSZ, first, object, raw_scalar);
	SET_VARSIZE(j, VARHDRSZ + len);
	b->result = j;
}

static void
jb_end(void *ctx)
{
	JbBuilder  *b = ctx;
	JbFrame		f;
	size_t		bound;
	size_t		len;

	if (b->failed)
		return;
	f = b->frames[--b->nframes];
	if (b->nframes == 0)
	{
		finish_root(b, f.first, f.object, false);
		return;
	}
	/*
	 * Written after its items' arena data, then moved down over it; the
	 * root's own elements stay where they are written (their items' data
	 * left behind is at most the root's size, and the root copies them).
	 */
	if (!container_bound(b, f.first, &bound) || !arena_room(b, bound))
	{
		b->failed = true;
		return;
	}
	len = write_container(b, b->arena + b->arenalen, f.first, f.object, false);
	b->nitems = f.first;
	if (b->nframes == 1)
	{
		push_item(b, JENTRY_ISCONTAINER | IN_ARENA | (uint32) len, (uint32) b->arenalen);
		b->arenalen += len;
	}
	else
	{
		memmove(b->arena + f.mark, b->arena + b->arenalen, len);
		b->arenalen = f.mark + len;
		push_item(b, JENTRY_ISCONTAINER | IN_ARENA | (uint32) len, (uint32) f.mark);
	}
}

/*
 * The jsonb of a stored value by the one-pass emitter, written in jsonb's
 * binary format; NULL where the emitter or this gives up.
 */
Jsonb *
rbmarshal_jsonb_binary(bytea *v, const MarshalJsonOptions *opts)
{
	JbBuilder	b;
	MarshalJsonSink sink = {
		&b, jb_begin_object, jb_end, jb_begin_array, jb_end, jb_text, jb_text,
		jb_null, jb_boolean, jb_integer, jb_number, NULL, NULL, NULL
	};
	bool		ok;

	memset(&b, 0, sizeof(b));
	b.stream = VARDATA_ANY(v);
	b.streamlen = VARSIZE_ANY_EXHDR(v);
	b.items = kept_items.buf;
	b.itemscap = kept_items.cap;
	b.arena = kept_arena.buf;
	b.arenacap = kept_arena.cap;
	b.frames = kept_frames.buf;
	b.framescap = kept_frames.cap;
	b.order = kept_order.buf;
	b.ordercap = kept_order.cap;
	ok = marshal_to_json_fast((const uint8_t *) b.stream, b.streamlen, opts, &sink,
							  rbmarshal_hooks());
	/* a scalar root: a one-element raw scalar array */
	if (ok && !b.failed && b.result == NULL && b.nframes == 0 && b.nitems == 1)
		finish_root(&b, 0, false, true);
	/* the conversion's own (large) buffers */
	if (b.items != kept_items.buf)
		pfree(b.items);
	if (b.arena != kept_arena.buf)
		pfree(b.arena);
	if (b.frames != kept_frames.buf)
		pfree(b.frames);
	if (b.order != kept_order.buf)
		pfree(b.order);
	if (!ok || b.failed || b.result == NULL)
	{
		if (b.result)
			pfree(b.result);
		return NULL;
	}
	return b.result;
}
