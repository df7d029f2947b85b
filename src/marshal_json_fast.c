/*
 * marshal_json_fast.c
 *		Marshal to JSON text in one pass, for the values most streams hold:
 *		nil, booleans, Integers, Floats, Strings and Symbols in UTF-8,
 *		US-ASCII or binary, Arrays, Hashes with String or Symbol keys, Times,
 *		and links to any of them.
 *
 * It writes what the indexed walk (marshal_json.c) and the text sink write,
 * byte for byte, without the index or nodes: it numbers objects and symbols
 * as it meets them (links only point back), writes a link's target again
 * from its bytes, and puts a Hash's pairs in jsonb's key order (as the walk
 * does for 2 to 256 String or Symbol keys) by moving their finished text.
 * Anything else (another class, an encoding by name, text that is not
 * UTF-8, a cycle, the depth or expansion limit) gives up, and the caller
 * takes the indexed walk, which also gives the error.  Test:
 * test/json_identity/check.sh compares the two over every stored input,
 * fuzz_walk on every input it makes.
 *
 * Every read is bounds-checked and every loop bounded, so any bytes are
 * safe to give it, and it accepts only streams marshal_validate accepts:
 * what it reads it checks as the reader does (the version, a Bignum's sign,
 * Float text, a Symbol's encoding, links in range), and it gives up on what
 * it cannot vouch for (nesting within VALID_MARGIN levels of the depth
 * limit, where the reader counts levels its own way; an ivar called
 * encoding), so marshal_to_json_text needs no validation pass after it.
 * fuzz_walk checks that every stream it accepts is valid.
 *
 * It also writes the text jsonb's output function prints for the same
 * value (f->pg, for the json cast): every object's keys in jsonb's order
 * with the last of equal keys, ", " and ": ", PostgreSQL's escapes, and
 * Floats as numeric prints their text (sql/json_text.sql checks it).
 */
#include "marshal_json_text.h"
#include "marshal_json_walk.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* An object slot: where its value starts, and whether it is being written. */
#define OBJ_OPEN	0x80000000u

/* Symbol encodings: as the walk's text of them */
#define SYM_BINARY	0
#define SYM_UTF8	1
#define SYM_ASCII	2

typedef struct FastSym
{
	uint32_t	pos;			/* of the name's bytes */
	uint32_t	len;
	uint8_t		enc;			/* SYM_* */
	bool		ivars;			/* defined with an I wrapper */
	bool		plain;			/* quoted as it is once: so again, unchecked */
} FastSym;

/* A Hash pair's text, for putting the pairs in jsonb's order */
typedef struct FastPair
{
	size_t		start;			/* "key":value, without the comma */
	size_t		end;
	const uint8_t *key;
	size_t		keylen;
} FastPair;

typedef struct Fast
{
	const uint8_t *b;
	size_t		len;
	JsonBuf    *out;
	const MarshalHooks *hooks;
	int			prec;
	uint64_t	cost;
	uint64_t	max_cost;
	uint32_t	depth;
	uint32_t	max_depth;
	uint32_t	steps;
	bool		replay;			/* writing a link's target again */
	uint32_t   *obj;
	uint32_t	nobj;
	uint32_t	objcap;
	FastSym    *sym;
	uint32_t	nsym;
	uint32_t	symcap;
	FastPair   *pairs;
	uint32_t	npairs;
	uint32_t	paircap;
	char	   *tmp;
	size_t		tmpcap;
	FastSym		replayed;		/* a symbol defined again while replaying */
	bool		has_e;			/* :E (no ivars) is defined, a link to it is: */
	uint8_t		e_link;			/* ... its number as one byte, 0 or 6 to 127 */
	uint32_t	obj_inline[256];
	FastSym		sym_inline[128];
	FastPair	pairs_inline[32];
	char		tmp_inline[1024];
	bool		pg;				/* jsonb's text (marshal_to_jsonb_text) */
	const MarshalJsonSink *sink;	/* events to it instead of text */
} Fast;

/*
 * Helpers with buffers (OWN_FRAME) stay out of fast_value: its frame is
 * paid once per level of nesting, 1000 levels of which must fit the stack.
 */

/*
 * The reader counts a level for an I wrapper, a Symbol's ivars and a
 * _dump's: a value among this many open containers is within its limit.
 */
#define VALID_MARGIN 6

/* For the few helpers of every value that the compiler would keep apart */
#ifdef __GNUC__
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Hashes up to this size have their keys in jsonb's order (marshal_json.c) */
#define PRESORT_MAX 256

static bool fast_value(Fast *f, size_t *pos, bool charge);

/* Between elements: jsonb's text has a space after the comma. */
static inline void
put_sep(Fast *f)
{
	if (f->sink)
		return;
	if (f->pg)
		jbuf_put(f->out, ", ", 2);
	else
		jbuf_putc(f->out, ',');
}

/* A container's bracket: text, or the sink's begin and end. */
static inline void
put_bracket(Fast *f, char c)
{
	const MarshalJsonSink *k = f->sink;

	if (k == NULL)
		jbuf_putc(f->out, c);
	else if (c == '{')
		k->begin_object(k->ctx);
	else if (c == '}')
		k->end_object(k->ctx);
	else if (c == '[')
		k->begin_array(k->ctx);
	else
		k->end_array(k->ctx);
}

/* null, true and false */
static inline void
put_word(Fast *f, int type)
{
	const MarshalJsonSink *k = f->sink;

	if (k && type == MT_NIL)
		k->null(k->ctx);
	else if (k)
		k->boolean(k->ctx, type == MT_TRUE);
	else if (type == MT_NIL)
		jbuf_put(f->out, "null", 4);
	else if (type == MT_TRUE)
		jbuf_put(f->out, "true", 4);
	else
		jbuf_put(f->out, "false", 5);
}

static inline void
put_integer(Fast *f, int64_t x)
{
	if (f->sink)
		f->sink->integer(f->sink->ctx, x);
	else if ((uint64_t) x < 10)
		jbuf_putc(f->out, (char) ('0' + x));
	else
		jbuf_integer(f->out, x);
}

/* A number's text (a Float's, a Bignum's) */
static inline void
put_number(Fast *f, const char *text, size_t len)
{
	if (f->sink)
		f->sink->number(f->sink->ctx, text, len);
	else
		jbuf_put(f->out, text, len);
}

/*
 * Room for one more of a table's entries (size each), doubling; a table
 * starts in the Fast itself (small values allocate nothing).
 */
static bool
fast_grow(Fast *f, void **table, uint32_t *cap, size_t size, void *inline_table)
{
	uint32_t	n = *cap * 2;
	void	   *p;

	if (*table == inline_table)
	{
		p = marshal_alloc(f->hooks, (size_t) n * size);
		if (p != NULL)
			memcpy(p, inline_table, (size_t) *cap * size);
	}
	else
		p = marshal_realloc(f->hooks, *table, (size_t) n * size);
	if (p == NULL)
		return false;
	*table = p;
	*cap = n;
	return true;
}

/* MRI's r_entry: the next object slot, unless writing a target again. */
static inline bool
add_object(Fast *f, size_t at, uint32_t *slot)
{
	if (f->replay)
		return true;
	if (f->nobj == f->objcap && !fast_grow(f, (void **) &f->obj, &f->objcap, sizeof(uint32_t), f->obj_inline))
		return false;
	if (slot)
		*slot = f->nobj;
	f->obj[f->nobj++] = (uint32_t) at;
	return true;
}

/* The walk's budget: one for a value and one and len/16 for text. */
static inline bool
charge(Fast *f, size_t len)
{
	f->cost += 1 + len / 16;
	return f->cost <= f->max_cost;
}

static inline bool
read_long(Fast *f, size_t *pos, int64_t *x)
{
	return marshal_decode_long(f->b, f->len, pos, x);
}

/* A length and that many bytes. */
static inline bool
read_bytes(Fast *f, size_t *pos, const uint8_t **s, size_t *n)
{
	int64_t		x;

	if (!read_long(f, pos, &x) || x < 0 || (uint64_t) x > f->len - *pos)
		return false;
	*s = f->b + *pos;
	*n = (size_t) x;
	*pos += (size_t) x;
	return true;
}

/* canonical_long's for a long of more than one byte */
static bool
canonical_long_bytes(const uint8_t *b, size_t start, size_t end, int64_t x)
{
	uint8_t		buf[9];

	return marshal_encode_long(x, buf) == end - start &&
		memcmp(buf, b + start, end - start) == 0;
}

/* Whether the long from start to end is written as MRI writes it. */
static inline bool
canonical_long(const uint8_t *b, size_t start, size_t end, int64_t x)
{
	int8_t		c = (int8_t) b[start];

	if (c == 5 || c == -5)
		return false;
	if (c == 0 || c > 4 || c < -4)
		return true;
	return canonical_long_bytes(b, start, end, x);
}

static bool read_symbol_any(Fast *f, size_t *pos, FastSym **out);

/* The next symbol's entry (there is room, and this is no replay) */
static ALWAYS_INLINE FastSym *
new_symbol(Fast *f, uint32_t at, uint32_t n, bool ivars)
{
	uint32_t	idx = f->nsym++;
	FastSym    *sym = &f->sym[idx];

	sym->pos = at;
	sym->len = n;
	sym->enc = SYM_BINARY;
	sym->ivars = ivars;
	sym->plain = false;
	/* :E, for read_e_ivar's one step (a number that is one byte long) */
	if (!ivars && !f->has_e && n == 1 && f->b[at] == 'E' && idx <= 122)
	{
		f->has_e = true;
		f->e_link = (uint8_t) (idx == 0 ? 0 : idx + 5);
	}
	return sym;
}

/*
 * A symbol (":", ";n" or "I:" with E), numbered as it is defined; a link
 * of one byte (to one of the first 123 symbols) and a plain definition of
 * a one-byte length read here.
 */
static ALWAYS_INLINE bool
read_symbol(Fast *f, size_t *pos, FastSym **out)
{
	size_t		p = *pos;

	if (p + 1 < f->len && f->b[p] == MT_SYMLINK)
	{
		int			c = (int8_t) f->b[p + 1];
		int			k = c == 0 ? 0 : c - 5;

		if ((c == 0 || c > 4) && (uint32_t) k < f->nsym)
		{
			*out = &f->sym[k];
			*pos = p + 2;
			return true;
		}
	}
	/* a definition ":" of 1 to 122 bytes */
	if (p + 1 < f->len && f->b[p] == MT_SYMBOL && !f->replay && f->nsym < f->symcap)
	{
		int			c = (int8_t) f->b[p + 1];

		if (c > 5 && (size_t) (c - 5) <= f->len - (p + 2))
		{
			*out = new_symbol(f, (uint32_t) (p + 2), (uint32_t) (c - 5), false);
			*pos = p + 2 + (size_t) (c - 5);
			return true;
		}
	}
	return read_symbol_any(f, pos, out);
}

/* read_e_ivar's for any other block */
static bool
read_e_ivar_any(Fast *f, size_t *pos, uint8_t *enc, bool *plain)
{
	FastSym    *name;

	if (*pos + 2 >= f->len || f->b[*pos] != 0x06)
		return false;			/* any other count: the walk's */
	(*pos)++;
	/* the leaf reader takes :E written 06 E, or a link */
	*plain = f->b[*pos] == MT_SYMLINK || f->b[*pos + 1] == 0x06;
	if (!read_symbol(f, pos, &name) || name->len != 1 || f->b[name->pos] != 'E' ||
		name->ivars || *pos >= f->len)
		return false;
	if (f->b[*pos] == MT_TRUE)
		*enc = SYM_UTF8;
	else if (f->b[*pos] == MT_FALSE)
		*enc = SYM_ASCII;
	else
		return false;
	(*pos)++;
	return true;
}

/*
 * The ivar block of an I-wrapped String or Symbol that has only E: its
 * encoding.  *plain: written as the leaf reader knows it (count 06, E as
 * :E or a link to a plain E), which decides whether a key is sorted.
 */
static ALWAYS_INLINE bool
read_e_ivar(Fast *f, size_t *pos, uint8_t *enc, bool *plain)
{
	const uint8_t *b = f->b + *pos;

	/* the usual "06 ;<E> T|F", in one step */
	if (f->has_e && *pos + 3 < f->len && b[0] == 0x06 && b[1] == MT_SYMLINK &&
		b[2] == f->e_link && (b[3] == MT_TRUE || b[3] == MT_FALSE))
	{
		*enc = b[3] == MT_TRUE ? SYM_UTF8 : SYM_ASCII;
		*plain = true;
		*pos += 4;
		return true;
	}
	return read_e_ivar_any(f, pos, enc, plain);
}

/* Any symbol, as read_symbol reads it. */
static bool
read_symbol_any(Fast *f, size_t *pos, FastSym **out)
{
	const uint8_t *b = f->b;
	bool		ivars = false;
	const uint8_t *s;
	size_t		n;
	uint32_t	idx = 0;

	if (*pos >= f->len)
		return false;
	if (b[*pos] == MT_SYMLINK)
	{
		int64_t		k;

		(*pos)++;
		if (!read_long(f, pos, &k) || k < 0 || k >= f->nsym)
			return false;
		*out = &f->sym[k];
		return true;
	}
	if (b[*pos] == MT_IVAR)
	{
		ivars = true;
		(*pos)++;
	}
	if (*pos >= f->len || b[*pos] != MT_SYMBOL)
		return false;
	(*pos)++;
	if (!read_bytes(f, pos, &s, &n))
		return false;
	if (!f->replay)
	{
		if (f->nsym == f->symcap && !fast_grow(f, (void **) &f->sym, &f->symcap, sizeof(FastSym), f->sym_inline))
			return false;
		idx = f->nsym;
		new_symbol(f, (uint32_t) (s - b), (uint32_t) n, ivars);
	}
	if (ivars)
	{
		uint8_t		enc;
		bool		plain;

		if (!read_e_ivar(f, pos, &enc, &plain))
			return false;
		/* the reader's check of a Symbol's bytes against its encoding */
		if (enc == SYM_UTF8 ? !marshal_utf8_valid(s, n, true) : !marshal_all_ascii(s, n))
			return false;
		if (!f->replay)
			f->sym[idx].enc = enc;
	}
	if (f->replay)
	{
		/* defined again while writing a target: the same symbol, unnumbered */
		f->replayed.pos = (uint32_t) (s - b);
		f->replayed.len = (uint32_t) n;
		f->replayed.enc = SYM_BINARY;
		f->replayed.ivars = ivars;
		f->replayed.plain = false;
		*out = &f->replayed;
		return true;
	}
	*out = &f->sym[idx];
	return true;
}

/*
 * s (n bytes of the stream) quoted, 8 bytes at a time, when none of them
 * needs a look (an escape, UTF-8 to check): true, or false with nothing
 * written.  Words are read within the stream (the last one may end at s + n
 * and be shifted) and written whole into room reserved past the text.
 */
static ALWAYS_INLINE bool
quote_plain(Fast *f, const uint8_t *s, size_t n, bool check)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	JsonBuf    *t = f->out;
	const uint8_t *end = f->b + f->len;
	const uint64_t fill = 0x6161616161616161ULL;	/* "aaaaaaaa" */
	size_t		i = 0;
	uint64_t	x;
	char	   *o;

	if (!jbuf_reserve(t, n + 2 + 8))
		return true;			/* out of memory: t->failed says it */
	o = t->buf + t->len + 1;
	for (; i + 8 <= n; i += 8)
	{
		memcpy(&x, s + i, 8);
		if (check && needs_look8(x))
			return false;
		memcpy(o + i, &x, 8);
	}
	if (i < n)
	{
		unsigned	k = (unsigned) (n - i);	/* 1 to 7 bytes left */
		uint64_t	keep = ~(uint64_t) 0 >> (64 - 8 * k);

		if ((size_t) (end - (s + i)) >= 8)
			memcpy(&x, s + i, 8);
		else if ((size_t) (s + n - f->b) >= 8)
		{
			memcpy(&x, s + n - 8, 8);
			x >>= 8 * (8 - k);
		}
		else
			return false;
		x = (x & keep) | (fill & ~keep);
		if (check && needs_look8(x))
			return false;
		memcpy(o + i, &x, 8);
	}
	o[-1] = '"';
	o[n] = '"';
	t->len += n + 2;
	return true;
#else
	(void) f;
	(void) s;
	(void) n;
	(void) check;
	return false;
#endif
}

/* put_text's for a sink */
static bool
put_text_sink(Fast *f, const uint8_t *s, size_t n, bool key)
{
	/* in the stream: stable for as long as the conversion */
	if (!marshal_utf8_valid(s, n, false) || !charge(f, n))
		return false;
	if (key)
		f->sink->key(f->sink->ctx, (const char *) s, n, true);
	else
		f->sink->string(f->sink->ctx, (const char *) s, n, true);
	return true;
}

/* Text of a String or Symbol: valid UTF-8 as it is, else the walk's. */
static ALWAYS_INLINE bool
put_text(Fast *f, const uint8_t *s, size_t n, bool key)
{
	if (f->sink)
		return put_text_sink(f, s, n, key);
	/* jsonb refuses longer strings: the walk's error */
	if (f->pg && n > 0x0FFFFFFF)
		return false;
	return charge(f, n) && (quote_plain(f, s, n, true) || jbuf_quoted(f->out, s, n, true, f->pg));
}

/* A Symbol's text, as put_text writes it: unchecked once it was plain */
static ALWAYS_INLINE bool
put_sym_text(Fast *f, FastSym *sym, bool key)
{
	const uint8_t *s = f->b + sym->pos;
	size_t		n = sym->len;

	if (f->sink)
		return put_text_sink(f, s, n, key);
	if (f->pg && n > 0x0FFFFFFF)
		return false;
	if (!charge(f, n))
		return false;
	if (quote_plain(f, s, n, !sym->plain))
	{
		sym->plain = true;
		return true;
	}
	return jbuf_quoted(f->out, s, n, true, f->pg);
}

/*
 * A String at *pos ('"' or 'I"' with E), numbered.  *sortable false for
 * bytes the leaf reader does not take (it decides key order).
 */
static ALWAYS_INLINE bool
read_string(Fast *f, size_t *pos, const uint8_t **s, size_t *n, bool *sortable)
{
	size_t		at = *pos;
	bool		ivars = f->b[at] == MT_IVAR;
	size_t		lenpos;
	int64_t		x;

	*pos += ivars ? 2 : 1;
	lenpos = *pos;
	if (!read_long(f, pos, &x) || x < 0 || (uint64_t) x > f->len - *pos)
		return false;
	*sortable = canonical_long(f->b, lenpos, *pos, x);
	*s = f->b + *pos;
	*n = (size_t) x;
	*pos += (size_t) x;
	if (!add_object(f, at, NULL))
		return false;
	if (ivars)
	{
		uint8_t		enc;
		bool		plain;

		if (!read_e_ivar(f, pos, &enc, &plain))
			return false;
		*sortable &= plain;
	}
	return true;
}

/* A Hash key: a String or a Symbol, written with its colon. */
static bool
fast_key(Fast *f, size_t *pos, const uint8_t **key, size_t *keylen, bool *sortable)
{
	const uint8_t *b = f->b;
	const uint8_t *s;
	size_t		n;

	if (*pos + 1 >= f->len)
		return false;
	if (b[*pos] == MT_STRING || (b[*pos] == MT_IVAR && b[*pos + 1] == MT_STRING))
	{
		bool		leaf;

		if (!read_string(f, pos, &s, &n, &leaf))
			return false;
		if (!leaf)
			*sortable = false;
		if (!put_text(f, s, n, true))
			return false;
	}
	else
	{
		FastSym    *sym;

		/* the walk sorts keys written ":" or ";", not "I:" */
		if (b[*pos] == MT_IVAR)
			*sortable = false;
		if (!read_symbol(f, pos, &sym) || !put_sym_text(f, sym, true))
			return false;
		s = b + sym->pos;
		n = sym->len;
	}
	if (f->sink)
		;
	else if (f->pg)
		jbuf_put(f->out, ": ", 2);
	else
		jbuf_putc(f->out, ':');
	*key = s;
	*keylen = n;
	return true;
}

/* memcmp's sign for keys of n bytes, most of them short (no call) */
static inline int
key_bytes_cmp(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t		i = 0;

	for (; i + 8 <= n; i += 8)
	{
		uint64_t	x;
		uint64_t	y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* jsonb's key order (length, then bytes), then stream order */
static ALWAYS_INLINE int
pair_order(const FastPair *a, const FastPair *b)
{
	int			c;

	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	c = key_bytes_cmp(a->key, b->key, a->keylen);
	if (c != 0)
		return c;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* pair_order for qsort */
static int
pair_cmp(const void *x, const void *y)
{
	return pair_order(x, y);
}

/* memcpy of a pair's text, most of them short (no call) */
static ALWAYS_INLINE void
copy_text(char *o, const char *s, size_t n)
{
	if (n >= 8 && n <= 16)
	{
		/* two words, overlapping */
		memcpy(o, s, 8);
		memcpy(o + n - 8, s + n - 8, 8);
	}
	else if (n >= 4 && n < 8)
	{
		memcpy(o, s, 4);
		memcpy(o + n - 4, s + n - 4, 4);
	}
	else
		memcpy(o, s, n);
}

/*
 * The pairs written in stream order, put in jsonb's key order (equal keys
 * keep their order, as the walk's insertion sort); for jsonb's text only
 * the last of equal keys stays, as jsonb keeps it.
 */
static bool
sort_pairs(Fast *f, FastPair *pairs, uint32_t count)
{
	size_t		from = pairs[0].start;
	size_t		size = pairs[count - 1].end - from;
	uint32_t	i;
	char	   *o;

	for (i = 1; i < count; i++)
		if (pair_order(&pairs[i - 1], &pairs[i]) > 0 ||
			(f->pg && pairs[i - 1].keylen == pairs[i].keylen &&
			 key_bytes_cmp(pairs[i - 1].key, pairs[i].key, pairs[i].keylen) == 0))
			break;
	if (i == count)
		return true;			/* in order already, and no key twice */
	if (count <= 32)
	{
		/* few: insertion (qsort would allocate for its merge) */
		for (i = 1; i < count; i++)
		{
			FastPair	p = pairs[i];
			uint32_t	j;

			for (j = i; j > 0 && pair_order(&p, &pairs[j - 1]) < 0; j--)
				pairs[j] = pairs[j - 1];
			pairs[j] = p;
		}
	}
	else
		qsort(pairs, count, sizeof(FastPair), pair_cmp);
	if (size > f->tmpcap)
	{
		char	   *p = marshal_alloc(f->hooks, size);

		if (p == NULL)
			return false;
		if (f->tmp != f->tmp_inline)
			marshal_free(f->hooks, f->tmp);
		f->tmp = p;
		f->tmpcap = size;
	}
	o = f->tmp;
	for (i = 0; i < count; i++)
	{
		const FastPair *p = &pairs[i];

		if (f->pg && i + 1 < count && p->keylen == pairs[i + 1].keylen &&
			key_bytes_cmp(p->key, pairs[i + 1].key, p->keylen) == 0)
			continue;			/* a later equal key wins */
		if (o > f->tmp)
		{
			*o++ = ',';
			if (f->pg)
				*o++ = ' ';
		}
		copy_text(o, f->out->buf + p->start, p->end - p->start);
		o += p->end - p->start;
	}
	memcpy(f->out->buf + from, f->tmp, (size_t) (o - f->tmp));
	f->out->len = from + (size_t) (o - f->tmp);
	return true;
}

static bool
fast_hash(Fast *f, size_t *pos)
{
	int64_t		count;
	uint32_t	base = f->npairs;
	bool		sortable;
	bool		ok = true;

	(*pos)++;
	if (!read_long(f, pos, &count) || count < 0 || (uint64_t) count > f->len - *pos)
		return false;
	/* jsonb's text: every object's keys in jsonb's order */
	sortable = count > 1 && (count <= PRESORT_MAX || f->pg) && !f->sink;
	put_bracket(f, '{');
	for (int64_t i = 0; i < count && ok; i++)
	{
		size_t		start;
		const uint8_t *key;
		size_t		keylen;

		if (i > 0)
			put_sep(f);
		start = f->out->len;
		ok = fast_key(f, pos, &key, &keylen, &sortable) && fast_value(f, pos, true);
		if (f->pg)
			sortable = count > 1;	/* whatever the bytes of its keys */
		else if (f->sink)
			sortable = false;	/* the sink sorts */
		if (ok && sortable)
		{
			FastPair   *p;

			if (f->npairs == f->paircap &&
				!fast_grow(f, (void **) &f->pairs, &f->paircap, sizeof(FastPair),
						   f->pairs_inline))
				return false;
			p = &f->pairs[f->npairs++];
			p->start = start;
			p->end = f->out->len;
			p->key = key;
			p->keylen = keylen;
		}
	}
	/* the pairs' text is all written: sorted only if every key allowed it */
	if (ok && sortable && !f->out->failed)
		ok = sort_pairs(f, &f->pairs[base], (uint32_t) count);
	f->npairs = base;
	if (ok)
		put_bracket(f, '}');	/* a sink gets nothing more once it failed */
	return ok;
}

static bool
fast_array(Fast *f, size_t *pos)
{
	int64_t		count;

	(*pos)++;
	if (!read_long(f, pos, &count) || count < 0 || (uint64_t) count > f->len - *pos)
		return false;
	put_bracket(f, '[');
	for (int64_t i = 0; i < count; i++)
	{
		if (i > 0)
			put_sep(f);
		if (!fast_value(f, pos, true))
			return false;
	}
	put_bracket(f, ']');
	return true;
}

/*
 * Float#to_s of the shortest digits (0.d1d2... times 10^decpt); for jsonb's
 * text, that text as numeric_in reads it and numeric_out prints it: the
 * same but for exponents ("1.0e+20" is 100000000000000000000, "1.5e-05"
 * 0.000015: the mantissa's decimals less the exponent, at least none).
 */
static OWN_FRAME void
put_float(Fast *f, bool neg, const char *digits, int nd, int decpt)
{
	char		text[40];
	size_t		len = 0;

	if (neg)
		text[len++] = '-';
	if (!f->pg || (decpt > 0 && decpt <= DBL_DIG) || (decpt <= 0 && decpt > -4))
	{
		len += marshal_format_digits(digits, nd, decpt, text + len);
		put_number(f, text, len);
		return;
	}
	{
		int			scale = (nd > 1 ? nd - 1 : 1) - (decpt - 1);

		jbuf_put(f->out, text, len);
		if (decpt <= 0)
			jbuf_putc(f->out, '0');
		for (int i = 0; i < decpt; i++)
			jbuf_putc(f->out, i < nd ? digits[i] : '0');
		if (scale > 0)
			jbuf_putc(f->out, '.');
		for (int i = 0; i < scale; i++)
		{
			int			k = decpt + i;

			jbuf_putc(f->out, k >= 0 && k < nd ? digits[k] : '0');
		}
	}
}

/*
 * A Float: as the walk writes it (marshal_format_float of strtod's double),
 * but from MRI's own text when that has 15 significant digits or fewer and
 * is a normal double: then it is its shortest form, digit for digit (a
 * decimal of at most DBL_DIG digits reads back from its double), so only
 * the layout changes.
 */
static OWN_FRAME bool
fast_float(Fast *f, const uint8_t *t, size_t n)
{
	char		digits[20];
	char		text[40];
	int			nd = 0;
	int			decpt = 0;
	int			exp = 0;
	size_t		i = 0;
	bool		neg = false;
	bool		point = false;
	bool		any = false;
	double		d;

	if (n > 0 && t[0] == '-')
	{
		neg = true;
		i++;
	}
	for (; i < n; i++)
	{
		uint8_t		c = t[i];

		if (c == '.' && !point)
		{
			point = true;
			continue;
		}
		if (c < '0' || c > '9')
			break;
		any = true;
		if (c == '0' && nd == 0)
		{
			/* a leading zero: after the point it moves the exponent */
			if (point)
				decpt--;
			continue;
		}
		if (nd == 15)
			goto slow;
		digits[nd++] = (char) c;
		if (!point)
			decpt++;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E') && any)
	{
		bool		eneg = false;
		size_t		k = 0;

		i++;
		if (i < n && (t[i] == '-' || t[i] == '+'))
			eneg = t[i++] == '-';
		for (; i < n && k < 4 && t[i] >= '0' && t[i] <= '9'; i++, k++)
			exp = exp * 10 + (t[i] - '0');
		if (k == 0)
			goto slow;
		if (eneg)
			exp = -exp;
	}
	if (i != n || !any || nd == 0 || (n > 0 && t[n - 1] == '.') ||
		(point && n > 0 && (t[0] == '.' || (neg && t[1] == '.'))))
		goto slow;
	decpt += exp;
	/* a normal double, far from the ends of the range */
	if (decpt - 1 < -307 || decpt - 1 > 307)
		goto slow;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	put_float(f, neg, digits, nd, decpt);
	return true;

slow:
	if (!marshal_parse_float(t, n, &d))
		return false;
	if (!isfinite(d))
		put_word(f, MT_NIL);
	else if (!f->pg)
		put_number(f, text, marshal_format_float(d, text));
	else if (d == 0)
		jbuf_put(f->out, "0.0", 3);	/* numeric has no -0 */
	else
	{
		nd = marshal_shortest_digits(d, digits, &decpt);
		put_float(f, signbit(d), digits, nd, decpt);
	}
	return true;
}

/* v's decimal digits (at least width, zeros in front) ending at o; their start */
static inline char *
put_digits(char *o, uint64_t v, int width)
{
	char	   *end = o;

	while (v >= 100)
	{
		o -= 2;
		memcpy(o, jbuf_digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
	{
		o -= 2;
		memcpy(o, jbuf_digit_pairs + 2 * v, 2);
	}
	else
		*--o = (char) ('0' + v);
	while (end - o < width)
		*--o = '0';
	return o;
}

/* An Integer of any size: 63 bits as an integer, else its decimal digits. */
static OWN_FRAME bool
fast_bignum(Fast *f, size_t *pos)
{
	size_t		at = *pos;
	bool		negative;
	int64_t		words;
	const uint8_t *mag;
	size_t		len;

	if (at + 1 >= f->len)
		return false;
	if (f->b[at + 1] != '+' && f->b[at + 1] != '-')
		return false;
	negative = f->b[at + 1] == '-';
	*pos = at + 2;
	if (!read_long(f, pos, &words) || words < 0 || (uint64_t) words * 2 > f->len - *pos)
		return false;
	mag = f->b + *pos;
	len = (size_t) words * 2;
	*pos += len;
	if (!add_object(f, at, NULL))
		return false;
	if (len <= 8)
	{
		uint64_t	m = 0;

		for (size_t i = len; i-- > 0;)
			m = m << 8 | mag[i];
		if (m < ((uint64_t) 1 << 63))
		{
			put_integer(f, negative ? -(int64_t) m : (int64_t) m);
			return true;
		}
	}
	if (!charge(f, len * 3) || len > 256)
		return false;
#ifdef __SIZEOF_INT128__
	if (len <= 16)
	{
		/* m = hi * 10^19 + lo, each written as digits from the right */
		const uint64_t e19 = 10000000000000000000u;
		unsigned __int128 m = 0;
		unsigned __int128 q;
		char		digits[42];
		char	   *o = digits + sizeof(digits);

		for (size_t i = len; i-- > 0;)
			m = m << 8 | mag[i];
		q = m / e19;
		if ((q >> 64) == 0)		/* else over 1.8 * 10^38: the limbs' way */
		{
			uint64_t	hi = (uint64_t) q;

			o = put_digits(o, (uint64_t) (m - q * e19), hi ? 19 : 1);
			if (hi)
				o = put_digits(o, hi, 1);
			if (negative && m != 0)
				*--o = '-';
			put_number(f, o, (size_t) (digits + sizeof(digits) - o));
			return true;
		}
	}
#endif
	{
		char		digits[256 * 3 + 3];
		uint32_t	limbs[256 / 4 + 2];
		size_t		nd;

		marshal_bignum_decimal(mag, len, negative, digits, sizeof(digits), &nd, limbs);
		put_number(f, digits, nd);
	}
	return true;
}

/*
 * A Time ("Iu:\tTime", its ivars): as_json's xmlschema text.  The ivars
 * that matter are Integers; zone and others may be nil, true, false,
 * Integers, Strings or links, numbered as they pass.
 */
static OWN_FRAME bool
fast_time(Fast *f, size_t *pos)
{
	size_t		at = *pos;
	FastSym    *cls;
	const uint8_t *data;
	size_t		dlen;
	int64_t		count;
	MarshalTime t;
	MarshalTimeIvars iv = {0, 1, false, -1, false};
	MarshalError err;
	char		text[80];
	size_t		tlen;
	int64_t		offset = 0;

	*pos = at + 2;
	if (!read_symbol(f, pos, &cls) || cls->len != 4 ||
		memcmp(f->b + cls->pos, "Time", 4) != 0 ||
		!read_bytes(f, pos, &data, &dlen) || !read_long(f, pos, &count) || count < 0)
		return false;
	for (int64_t i = 0; i < count; i++)
	{
		FastSym    *name;
		const uint8_t *nm;
		int64_t		ival = 0;
		bool		isint = false;
		const uint8_t *s = NULL;
		size_t		n = 0;

		if (!read_symbol(f, pos, &name) || *pos + 1 >= f->len)
			return false;
		nm = f->b + name->pos;
		/* an encoding name, which the reader checks its own way */
		if (name->len == 8 && memcmp(nm, "encoding", 8) == 0)
			return false;
		switch (f->b[*pos])
		{
			case MT_NIL:
			case MT_TRUE:
			case MT_FALSE:
				(*pos)++;
				break;
			case MT_FIXNUM:
			case MT_LINK:		/* a link: to a zone name, say */
				isint = f->b[(*pos)++] == MT_FIXNUM;
				if (!read_long(f, pos, &ival) ||
					(!isint && (ival < 0 || ival >= f->nobj)))
					return false;
				break;
			case MT_STRING:
			case MT_IVAR:
				{
					bool		leaf;

					if (f->b[*pos] == MT_IVAR && f->b[*pos + 1] != MT_STRING)
						return false;
					if (!read_string(f, pos, &s, &n, &leaf))
						return false;
					break;
				}
			default:
				return false;
		}
		if (name->len == 6 && memcmp(nm, "offset", 6) == 0)
		{
			if (!isint)
				return false;	/* a Rational, or bad: the walk's */
			offset = ival;
		}
		else if (name->len == 8 && memcmp(nm, "nano_num", 8) == 0)
		{
			if (!isint)
				return false;
			iv.nano_num = ival;
			iv.has_nano = true;
		}
		else if (name->len == 8 && memcmp(nm, "nano_den", 8) == 0)
		{
			if (!isint)
				return false;
			iv.nano_den = ival;
		}
		else if (name->len == 8 && memcmp(nm, "submicro", 8) == 0)
		{
			if (s == NULL)
				return false;
			if (n >= 1)
				iv.submicro = marshal_time_submicro((MarshalBytes) {s, n});
		}
	}
	if (!add_object(f, at, NULL))
		return false;
	if (marshal_time_payload((MarshalBytes) {data, dlen}, at, &t, &err) != MARSHAL_OK)
		return false;
	t.offset = offset;
	if (marshal_time_finish(&t, &iv, at, &err) != MARSHAL_OK)
		return false;
	tlen = marshal_time_xmlschema(&t, f->prec, text);
	if (f->sink)
		f->sink->string(f->sink->ctx, text, tlen, false);
	else
	{
		jbuf_putc(f->out, '"');
		jbuf_put(f->out, text, tlen);
		jbuf_putc(f->out, '"');
	}
	return true;
}

static bool
fast_string(Fast *f, size_t *pos)
{
	const uint8_t *s;
	size_t		n;
	bool		leaf;

	return read_string(f, pos, &s, &n, &leaf) && put_text(f, s, n, false);
}

static bool
fast_symbol(Fast *f, size_t *pos)
{
	FastSym    *sym;

	return read_symbol(f, pos, &sym) && put_sym_text(f, sym, false);
}

/* A container: its slot open while its entries are written. */
static bool
fast_container(Fast *f, size_t *pos)
{
	uint32_t	slot = 0;
	bool		ok;

	if (f->depth + 1 + VALID_MARGIN > f->max_depth || !add_object(f, *pos, &slot))
		return false;
	if (++f->depth % 8 == 0 && f->hooks && f->hooks->check_stack)
		f->hooks->check_stack(f->hooks->ctx);
	if (!f->replay)
		f->obj[slot] |= OBJ_OPEN;
	ok = f->b[*pos] == MT_ARRAY ? fast_array(f, pos) : fast_hash(f, pos);
	if (!f->replay)
		f->obj[slot] &= ~OBJ_OPEN;
	f->depth--;
	return ok;
}

/*
 * One value at *pos, moved past it.  charge: as the walk counts a value
 * (not for a link's target, which its link counted).
 */
static bool
fast_value(Fast *f, size_t *pos, bool charge_it)
{
	const uint8_t *b = f->b;
	size_t		p = *pos;

	if (charge_it)
	{
		if (!charge(f, 0) || f->depth + 1 > f->max_depth)
			return false;
		if (++f->steps % 4096 == 0 && f->hooks && f->hooks->check_interrupts)
			f->hooks->check_interrupts(f->hooks->ctx);
	}
	if (p >= f->len)
		return false;
	switch (b[p])
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			put_word(f, b[p]);
			*pos = p + 1;
			return true;
		case MT_FIXNUM:
			{
				int64_t		x;

				p++;
				if (!read_long(f, &p, &x))
					return false;
				put_integer(f, x);
				*pos = p;
				return true;
			}
		case MT_SYMBOL:
		case MT_SYMLINK:
			return fast_symbol(f, pos);
		case MT_STRING:
			return fast_string(f, pos);
		case MT_IVAR:
			if (p + 1 >= f->len)
				return false;
			if (b[p + 1] == MT_STRING)
				return fast_string(f, pos);
			if (b[p + 1] == MT_SYMBOL)
				return fast_symbol(f, pos);
			if (b[p + 1] == MT_USERDEF)
				return fast_time(f, pos);
			return false;
		case MT_FLOAT:
			{
				const uint8_t *s;
				size_t		n;

				p++;
				if (!read_bytes(f, &p, &s, &n) || !marshal_float_text_ok(s, n) ||
					!add_object(f, *pos, NULL))
					return false;
				*pos = p;
				return fast_float(f, s, n);
			}
		case MT_BIGNUM:
			return fast_bignum(f, pos);
		case MT_ARRAY:
		case MT_HASH:
			return fast_container(f, pos);
		case MT_LINK:
			{
				int64_t		k;
				size_t		target;
				bool		was = f->replay;
				bool		ok;

				p++;
				if (!read_long(f, &p, &k) || k < 0 || k >= f->nobj ||
					(f->obj[k] & OBJ_OPEN))
					return false;	/* a cycle: the walk's error */
				target = f->obj[k];
				f->replay = true;
				ok = fast_value(f, &target, false);
				f->replay = was;
				*pos = p;
				return ok;
			}
		default:
			return false;
	}
}

static bool fast_run(const uint8_t *buf, size_t len, const MarshalJsonOptions *opts,
					 const MarshalHooks *hooks, bool jsonb_text,
					 const MarshalJsonSink *sink, JsonBuf *t);

bool
marshal_json_fast(const uint8_t *buf, size_t len, const MarshalJsonOptions *opts,
				  const MarshalHooks *hooks, bool jsonb_text, JsonBuf *t)
{
	return fast_run(buf, len, opts, hooks, jsonb_text, NULL, t);
}

bool
marshal_to_json_fast(const uint8_t *buf, size_t len, const MarshalJsonOptions *opts,
					 const MarshalJsonSink *sink, const MarshalHooks *hooks)
{
	JsonBuf		none = {NULL, 0, 0, false, hooks};

	return fast_run(buf, len, opts, hooks, false, sink, &none);
}

static bool
fast_run(const uint8_t *buf, size_t len, const MarshalJsonOptions *opts,
		 const MarshalHooks *hooks, bool jsonb_text, const MarshalJsonSink *sink,
		 JsonBuf *t)
{
	Fast		f;
	size_t		pos = MARSHAL_ROOT;
	bool		ok;

	/* jsonb's limits (256 MB a container) are the walk's to report */
	if (len < MARSHAL_ROOT || len >= OBJ_OPEN || (jsonb_text && len > (64 << 20)) ||
		buf[0] != MARSHAL_MAJOR || buf[1] > MARSHAL_MINOR)
		return false;
	memset(&f, 0, offsetof(Fast, obj_inline));
	f.obj = f.obj_inline;
	f.objcap = lengthof(f.obj_inline);
	f.sym = f.sym_inline;
	f.symcap = lengthof(f.sym_inline);
	f.pairs = f.pairs_inline;
	f.paircap = lengthof(f.pairs_inline);
	f.tmp = f.tmp_inline;
	f.tmpcap = sizeof(f.tmp_inline);
	f.pg = jsonb_text;
	f.sink = sink;
	f.b = buf;
	f.len = len;
	f.out = t;
	f.hooks = hooks;
	f.prec = opts->time_precision < 0 ? 0 : opts->time_precision > 9 ? 9 : opts->time_precision;
	f.max_depth = opts->max_depth ? opts->max_depth : MARSHAL_DEFAULT_MAX_DEPTH;
	if (f.max_depth <= VALID_MARGIN)
		return false;			/* the root's own levels: the reader's to count */
	f.max_cost = opts->max_cost ? opts->max_cost : MARSHAL_DEFAULT_COST(len);
	/* about one output byte per input byte, and the final NUL */
	ok = (sink || jbuf_reserve(t, len + len / 4 + 16)) &&
		fast_value(&f, &pos, true) && pos == len && !t->failed;
	if (f.obj != f.obj_inline)
		marshal_free(hooks, f.obj);
	if (f.sym != f.sym_inline)
		marshal_free(hooks, f.sym);
	if (f.pairs != f.pairs_inline)
		marshal_free(hooks, f.pairs);
	if (f.tmp != f.tmp_inline)
		marshal_free(hooks, f.tmp);
	return ok;
}
