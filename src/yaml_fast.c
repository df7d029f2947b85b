/*
 * yaml_fast.c
 *		The YAML reader's fast path: the block style Psych writes (to_yaml,
 *		Active Record's YAML columns) read straight into Marshal bytes,
 *		without libyaml, the document tree or the object graph.
 *
 * What it reads: one document (an optional "---", an optional "..."),
 * block mappings and sequences (compact and indentless ones too), the empty
 * flow collections "[]" and "{}", and scalars on one line: plain, single-
 * and double-quoted; comments and blank lines where libyaml skips them.
 * Plain scalars are resolved by the general path's own ScalarScanner code
 * (yaml_scalar.c, yr_dump for what is not a String, an Integer, nil or a
 * boolean) and everything is written through the same writer in the same
 * order, so the bytes are the general path's.  Anything else declines:
 * tags, anchors, aliases, block scalars, flow collections with content, a
 * scalar over more than one line, a tab or CR anywhere, a character libyaml
 * refuses, a repeated key, a merge key, a key other than a String, Symbol
 * or Integer, a quoted key with escapes, nesting near the depth limit, and
 * every error.  marshal_from_yaml then reads the text with libyaml
 * (yaml_reader.c), which gives the answer, errors included.  fuzz_yaml and
 * test/yaml check that both paths write the same bytes where this one
 * answers.
 *
 * Two passes over the text with the same scanner: the first checks the
 * whole structure and counts each collection's entries, the second writes,
 * so each Hash and Array has its count before its elements as Marshal
 * needs, and nothing is kept per scalar.  Each line is decided by its
 * indentation as libyaml's scanner decides it: a collection's entries share
 * a column, a value on an entry's line ends there (a deeper line after it
 * would continue a plain scalar: declined), a value on the lines below is
 * deeper, but for a sequence in a mapping, which may sit at the mapping's
 * column.
 */
#include "yaml_internal.h"
#include "marshal_internal.h"

#include <string.h>

/* A scalar (or an empty flow collection) read, not yet written */
typedef enum FKind
{
	F_NULL,						/* an empty plain scalar: nil */
	F_PLAIN,
	F_SINGLE,					/* quoted, nothing to unescape */
	F_SINGLE_ESC,				/* with '' */
	F_DOUBLE,
	F_DOUBLE_ESC,				/* with \ escapes */
	F_EMPTY_SEQ,				/* [] */
	F_EMPTY_MAP					/* {} */
} FKind;

typedef struct FScalar
{
	FKind		kind;
	const char *s;
	size_t		len;
} FScalar;

/* Keys longer than this may be past libyaml's 1024-character simple key */
#define FAST_MAX_KEY 1000

typedef struct FStr FStr;
typedef struct FSlot FSlot;
typedef struct FUndo FUndo;
typedef struct FKey FKey;

typedef struct FScan
{
	YState	   *st;
	const char *text;
	const char *end;
	const char *p;				/* the scanner's place */
	const char *line;			/* the start of p's line */
	uint32_t	depth;
	uint32_t	tick;
	uint64_t	nodes;			/* scalars and collections */
	MarshalWriter *w;			/* the second pass writes */
	/* each block collection's entries, in the order they open */
	uint32_t   *counts;
	size_t		ncounts;
	size_t		capcounts;
	size_t		next;			/* second pass: the next collection */
	/* String keys: how often each hash bucket holds one (2 bits each) */
	uint8_t    *sketch;
	size_t		sketch_mask;
	/* String keys that may repeat: the writer's objects, by text */
	FStr	   *strs;
	size_t		nstrs;
	size_t		capstrs;
	FSlot	   *slots;
	size_t		capslots;
	FUndo	   *undo;
	size_t		nundo;
	size_t		capundo;
	/* Symbol and Integer keys of the open Hashes */
	FKey	   *keys;
	size_t		nkeys;
	size_t		capkeys;
	uint32_t   *kslots;
	size_t		nkslots;
	size_t		capkslots;
} FScan;

static void decline(FScan *f) __attribute__((noreturn));

/* Leave for the general path (yr_read_fast's setjmp). */
static void
decline(FScan *f)
{
	longjmp(f->st->fail, 1);
}

static void
tick(FScan *f)
{
	const MarshalHooks *h = f->st->arena.hooks;

	if (++f->tick >= 4096)
	{
		f->tick = 0;
		if (h && h->check_interrupts)
			h->check_interrupts(h->ctx);
	}
}

/* Room for need elements of size in *buf; declines when out of memory */
static void
grow(FScan *f, void **buf, size_t *cap, size_t need, size_t size)
{
	size_t		c = *cap ? *cap : 64;
	void	   *b;

	if (need <= *cap)
		return;
	while (c < need)
		c *= 2;
	b = marshal_realloc(f->st->arena.hooks, *buf, c * size);
	if (b == NULL)
		decline(f);
	*buf = b;
	*cap = c;
}

/* --- the text ------------------------------------------------------------- */

/*
 * Only what libyaml reads as the plain characters it is: printable ASCII,
 * line feeds, and UTF-8 that decodes to a printable character other than a
 * line break (NEL, LS, PS) or a BOM.  Tabs and CRs decline too: where they
 * may stand is libyaml's longer story.
 */
static bool
text_ok(const uint8_t *s, size_t len, size_t *lines, const MarshalHooks *hooks)
{
	static uint8_t plain[256];
	size_t		i = 0;
	size_t		breaks = 0;
	size_t		next_check = YAML_INTERRUPT_BYTES;

	if (!plain['a'])
	{
		plain['\n'] = 1;
		for (int c = 0x20; c < 0x7F; c++)
			plain[c] = 1;
	}
	while (i < len)
	{
		uint8_t		c,
					c1;
		int			n;

		if (i >= next_check)
		{
			next_check = i + YAML_INTERRUPT_BYTES;
			if (hooks && hooks->check_interrupts)
				hooks->check_interrupts(hooks->ctx);
		}
		if (i + 8 <= len &&
			(plain[s[i]] & plain[s[i + 1]] & plain[s[i + 2]] & plain[s[i + 3]] &
			 plain[s[i + 4]] & plain[s[i + 5]] & plain[s[i + 6]] & plain[s[i + 7]]))
		{
			uint64_t	x;

			/* the line feeds: zero bytes of x ^ "\n\n...", exact for these */
			memcpy(&x, s + i, 8);
			x ^= 0x0A0A0A0A0A0A0A0AULL;
			x = ((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) >> 7;
			breaks += (size_t) ((x * 0x0101010101010101ULL) >> 56);
			i += 8;
			continue;
		}
		c = s[i];
		if (plain[c])
		{
			breaks += c == '\n';
			i++;
			continue;
		}
		n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 :
			c >= 0xF0 && c <= 0xF4 ? 4 : 0;
		if (n == 0 || i + n > len)
			return false;
		for (int k = 1; k < n; k++)
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
		c1 = s[i + 1];
		if ((c == 0xC2 && c1 < 0xA0) || /* C1 controls, NEL */
			(c == 0xE0 && c1 < 0xA0) || /* overlong */
			(c == 0xED && c1 >= 0xA0) ||	/* surrogates */
			(c == 0xE2 && c1 == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) ||
			(c == 0xEF && c1 == 0xBB && s[i + 2] == 0xBF) ||	/* BOM */
			(c == 0xEF && c1 == 0xBF && s[i + 2] >= 0xBE) ||	/* U+FFFE, U+FFFF */
			(c == 0xF0 && c1 < 0x90) || /* overlong */
			(c == 0xF4 && c1 >= 0x90))	/* past U+10FFFF */
			return false;
		i += n;
	}
	*lines = breaks + 1;
	return true;
}

/* IS_BLANKZ at q (no tabs or CRs here) */
static inline bool
blankz(const FScan *f, const char *q)
{
	return q >= f->end || *q == ' ' || *q == '\n';
}

static inline int
column(const FScan *f)
{
	return (int) (f->p - f->line);
}

/* A block entry: "-" and a blank */
static inline bool
is_entry(const FScan *f)
{
	return f->p < f->end && *f->p == '-' && blankz(f, f->p + 1);
}

/* "---" or "..." (c) at the start of a line, and a blank */
static bool
marker(const FScan *f, char c)
{
	const char *p = f->p;

	return p == f->line && f->end - p >= 3 && p[0] == c && p[1] == c &&
		p[2] == c && blankz(f, p + 3);
}

/*
 * To the next line with content, past blank and comment lines: its column,
 * p at its first character; -1 at the end of the text.
 */
static int
next_content(FScan *f)
{
	for (;;)
	{
		const char *q = f->line = f->p;

		while (q < f->end && *q == ' ')
			q++;
		if (q >= f->end)
		{
			f->p = q;
			return -1;
		}
		if (*q == '#')
			while (q < f->end && *q != '\n')
				q++;
		if (q < f->end && *q == '\n')
		{
			f->p = q + 1;
			continue;
		}
		if (q >= f->end)
		{
			f->p = q;
			return -1;
		}
		f->p = q;
		return column(f);
	}
}

/* The rest of a line after its value: blanks, maybe a comment, the break */
static void
finish_line(FScan *f)
{
	const char *q = f->p;

	while (q < f->end && *q == ' ')
		q++;
	/* a comment follows a blank ("'a'#b" declines) */
	if (q < f->end && *q == '#' && q[-1] == ' ')
		while (q < f->end && *q != '\n')
			q++;
	if (q < f->end && *q != '\n')
		decline(f);
	f->p = q < f->end ? q + 1 : q;
	f->line = f->p;
}

/* ":" and a blank after the scalar just read (past blanks): p after it */
static bool
colon_follows(FScan *f)
{
	const char *q = f->p;

	while (q < f->end && *q == ' ')
		q++;
	if (q < f->end && *q == ':' && blankz(f, q + 1))
	{
		f->p = q + 1;
		return true;
	}
	return false;
}

/* --- scalars -------------------------------------------------------------- */

/*
 * A plain scalar on one line: to a " #", a ":" and a blank, or the line's
 * end, trailing blanks not included.  Whether the next line continues it
 * is the caller's to check (it declines when one could).
 */
static void
scan_plain(FScan *f, FScalar *sc)
{
	static const bool stop[256] = {[' '] = true, [':'] = true, ['\n'] = true};
	const char *q = f->p;
	const char *last = q;

	sc->kind = F_PLAIN;
	sc->s = q;
	while (q < f->end)
	{
		const char *r = q;

		while (r < f->end && !stop[(uint8_t) *r])
			r++;
		yr_progress(f->st, (size_t) (r - q));
		if (r > q)
			last = r;
		q = r;
		if (q >= f->end || *q == '\n')
			break;
		if (*q == ' ')
		{
			r = q + 1;
			while (r < f->end && *r == ' ')
				r++;
			if (r >= f->end || *r == '\n' || *r == '#')
				break;
			q = r;
			continue;
		}
		/* ':' */
		if (blankz(f, q + 1))
			break;
		last = ++q;
	}
	sc->len = last - sc->s;
	f->p = q;
}

static int
hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A quoted scalar closed on its line; escapes checked as libyaml does */
static void
scan_quoted(FScan *f, FScalar *sc)
{
	char		quote = *f->p;
	const char *q = f->p + 1;

	const char *next_check = q + YAML_INTERRUPT_BYTES;

	sc->kind = quote == '\'' ? F_SINGLE : F_DOUBLE;
	sc->s = q;
	for (;;)
	{
		if (q >= next_check)
		{
			next_check = q + YAML_INTERRUPT_BYTES;
			yr_progress(f->st, YAML_INTERRUPT_BYTES);
		}
		if (q >= f->end || *q == '\n')
			decline(f);
		if (*q == quote)
		{
			if (quote == '\'' && q + 1 < f->end && q[1] == '\'')
			{
				sc->kind = F_SINGLE_ESC;
				q += 2;
				continue;
			}
			break;
		}
		if (*q == '\\' && quote == '"')
		{
			int			digits;
			uint32_t	value = 0;

			sc->kind = F_DOUBLE_ESC;
			if (q + 1 >= f->end || q[1] == '\0' || !strchr("0abtnvfre \"/\\N_LPxuU", q[1]))
				decline(f);
			digits = q[1] == 'x' ? 2 : q[1] == 'u' ? 4 : q[1] == 'U' ? 8 : 0;
			q += 2;
			if (f->end - q < digits)
				decline(f);
			for (int k = 0; k < digits; k++)
			{
				if (hex_value(q[k]) < 0)
					decline(f);
				value = value << 4 | (uint32_t) hex_value(q[k]);
			}
			if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF)
				decline(f);
			q += digits;
			continue;
		}
		q++;
	}
	sc->len = q - sc->s;
	f->p = q + 1;
}

/* Can p start a plain scalar (libyaml's rule, tabs aside)? */
static bool
plain_start(FScan *f)
{
	/* 1: never (and blanks), 2: if no blank follows */
	static const uint8_t indicator[256] = {
		[','] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1, ['#'] = 1,
		['&'] = 1, ['*'] = 1, ['!'] = 1, ['|'] = 1, ['>'] = 1, ['\''] = 1,
		['"'] = 1, ['%'] = 1, ['@'] = 1, ['`'] = 1, [' '] = 1, ['\n'] = 1,
		['-'] = 2, ['?'] = 2, [':'] = 2
	};
	uint8_t		k = indicator[(uint8_t) *f->p];

	return k == 0 || (k == 2 && !blankz(f, f->p + 1));
}

/*
 * A scalar, "[]" or "{}" on the line, at p; anything else that can start a
 * token (indicators, anchors, tags, block scalars, flow content) declines.
 */
static void
scan_inline(FScan *f, FScalar *sc)
{
	char		c = *f->p;

	if (c == '\'' || c == '"')
		scan_quoted(f, sc);
	else if ((c == '[' || c == '{') && f->end - f->p >= 2 &&
			 f->p[1] == (c == '[' ? ']' : '}'))
	{
		sc->kind = c == '[' ? F_EMPTY_SEQ : F_EMPTY_MAP;
		sc->s = f->p;
		sc->len = 2;
		f->p += 2;
	}
	else if (plain_start(f))
		scan_plain(f, sc);
	else
		decline(f);
}

/* A key at p and its ":" (p after it), or decline */
static void
scan_key(FScan *f, FScalar *sc)
{
	const char *start = f->p;

	if (*f->p == '\'' || *f->p == '"')
		scan_quoted(f, sc);
	else if (plain_start(f))
		scan_plain(f, sc);
	else
		decline(f);
	if (!colon_follows(f) || f->p - start > FAST_MAX_KEY)
		decline(f);
}

/* --- writing --------------------------------------------------------------- */

/*
 * String keys are MRI's interned Strings: one object per text, a repeat is
 * a link to it, as the writer's fstring table writes them (the fast path's
 * only other interned String is Time's "UTC", US-ASCII, never equal to a
 * key).  The first pass counts the keys of each hash bucket: a key alone in
 * its bucket is unique in the document, written as the String its first
 * interning writes, and kept nowhere.  The others go through a table of
 * offsets into the text that also notes the Hash each key was last a key
 * of, so a key repeated in one Hash is found in the same lookup.  A nested
 * Hash that has the key too restores the outer Hash's mark when it closes
 * (the undo stack): a key's mark is the innermost open Hash holding it.
 */
struct FStr
{
	uint32_t	off;
	uint32_t	len;
	uint32_t	obj;			/* its object number */
	uint32_t	map;			/* the Hash it was last a key of */
};

struct FSlot
{
	uint32_t	str;			/* strs index + 1; 0 empty */
	uint32_t	hash;
};

struct FUndo
{
	uint32_t	str;
	uint32_t	map;
};

/* Symbol and Integer keys: per Hash, in a table past 8 keys */
struct FKey
{
	uint64_t	hash;
	const char *s;
	int64_t		ival;
	uint32_t	len;
	uint8_t		kind;			/* RV_SYMBOL or RV_INT */
};

typedef struct FHash
{
	uint32_t	id;				/* its collection number + 1 */
	uint32_t	pairs;
	size_t		undo;			/* where its undo records start */
	size_t		first;			/* its Symbol and Integer keys */
	size_t		table;
	uint32_t	cap;
} FHash;

/*
 * Keys are short: every byte is read by whole-word loads (the last word and
 * the 4-byte halves overlap), never a byte loop; equal hashes are compared.
 */
static uint64_t
key_hash(const char *s, size_t len, uint64_t h)
{
	const char *end = s + len;
	uint64_t	x;
	uint32_t	a,
				b;

	h ^= len * 0x9E3779B97F4A7C15ULL;
	if (len >= 8)
	{
		for (; end - s > 8; s += 8)
		{
			memcpy(&x, s, 8);
			h = (h ^ x) * 0xbf58476d1ce4e5b9ULL;
			h ^= h >> 31;
		}
		memcpy(&x, end - 8, 8);
	}
	else if (len >= 4)
	{
		memcpy(&a, s, 4);
		memcpy(&b, end - 4, 4);
		x = a | (uint64_t) b << 32;
	}
	else if (len > 0)
		x = (uint8_t) s[0] | (uint64_t) (uint8_t) s[len >> 1] << 8 |
			(uint64_t) (uint8_t) s[len - 1] << 16;
	else
		x = 0;
	h = (h ^ x) * 0x94d049bb133111ebULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static void
slots_put(FSlot *t, size_t cap, uint32_t str, uint32_t hash)
{
	size_t		j = hash & (cap - 1);

	while (t[j].str)
		j = (j + 1) & (cap - 1);
	t[j].str = str;
	t[j].hash = hash;
}

/*
 * A String key of the Hash h whose text is s (in the text).  The first
 * pass counts String keys by hash bucket, to two: a key alone in its bucket
 * is unique in the document, and written as the String its interning
 * would write; the rest are looked up.
 */
static void
emit_string_key(FScan *f, FHash *h, const char *s, size_t len)
{
	uint64_t	h64 = key_hash(s, len, 0);
	size_t		b = (size_t) (h64 >> 32) & f->sketch_mask;
	int			seen = f->sketch[b >> 2] >> ((b & 3) * 2) & 3;
	uint32_t	hash = (uint32_t) h64;
	size_t		j;
	FStr	   *e;

	if (f->w == NULL)
	{
		if (seen < 2)
			f->sketch[b >> 2] += (uint8_t) (1 << ((b & 3) * 2));
		return;
	}
	if (seen == 1)
	{
		marshal_write_string(f->w, (const uint8_t *) s, len, MENC_UTF8);
		return;
	}

	if ((f->nstrs + 1) * 2 > f->capslots)
	{
		size_t		cap = f->capslots ? f->capslots * 2 : 1024;
		FSlot	   *t = marshal_realloc(f->st->arena.hooks, NULL, cap * sizeof(FSlot));

		if (t == NULL)
			decline(f);
		memset(t, 0, cap * sizeof(FSlot));
		for (size_t k = 0; k < f->capslots; k++)
			if (f->slots[k].str)
				slots_put(t, cap, f->slots[k].str, f->slots[k].hash);
		marshal_free(f->st->arena.hooks, f->slots);
		f->slots = t;
		f->capslots = cap;
	}
	for (j = hash & (f->capslots - 1); f->slots[j].str; j = (j + 1) & (f->capslots - 1))
	{
		if (f->slots[j].hash != hash)
			continue;
		e = &f->strs[f->slots[j].str - 1];
		if (e->len != len || memcmp(f->text + e->off, s, len) != 0)
			continue;
		/* Hash#[]= on a key it has: the general path's to write */
		if (e->map == h->id)
			decline(f);
		grow(f, (void **) &f->undo, &f->capundo, f->nundo + 1, sizeof(FUndo));
		f->undo[f->nundo].str = f->slots[j].str;
		f->undo[f->nundo++].map = e->map;
		e->map = h->id;
		marshal_write_link(f->w, e->obj);
		return;
	}
	grow(f, (void **) &f->strs, &f->capstrs, f->nstrs + 1, sizeof(FStr));
	e = &f->strs[f->nstrs++];
	e->off = (uint32_t) (s - f->text);
	e->len = (uint32_t) len;
	e->obj = marshal_writer_objects(f->w);
	e->map = h->id;
	f->slots[j].str = (uint32_t) f->nstrs;
	f->slots[j].hash = hash;
	marshal_write_string(f->w, (const uint8_t *) s, len, MENC_UTF8);
}

static bool
key_eq(const FKey *a, const FKey *b)
{
	return a->kind == b->kind && a->hash == b->hash && a->len == b->len &&
		(a->kind == RV_INT ? a->ival == b->ival : memcmp(a->s, b->s, a->len) == 0);
}

/* A Symbol or Integer key of h; a repeat declines */
static void
key_add(FScan *f, FHash *h, RKind kind, const char *s, size_t len, int64_t ival)
{
	FKey	   *k;

	grow(f, (void **) &f->keys, &f->capkeys, f->nkeys + 1, sizeof(FKey));
	k = &f->keys[f->nkeys];
	k->kind = (uint8_t) kind;
	k->s = s;
	k->len = (uint32_t) len;
	k->ival = ival;
	k->hash = kind == RV_INT ? key_hash((const char *) &ival, 8, 7) :
		key_hash(s, len, kind);
	if (h->cap == 0 && h->pairs > 8)
	{
		/* the first such key of a big Hash: its table */
		for (h->cap = 16; h->cap < h->pairs * 2; h->cap *= 2)
			;
		h->table = f->nkslots;
		grow(f, (void **) &f->kslots, &f->capkslots, f->nkslots + h->cap,
			 sizeof(uint32_t));
		memset(f->kslots + h->table, 0, h->cap * sizeof(uint32_t));
		f->nkslots += h->cap;
	}
	if (h->cap == 0)
	{
		for (size_t i = h->first; i < f->nkeys; i++)
			if (key_eq(&f->keys[i], k))
				decline(f);
	}
	else
	{
		uint32_t   *t = f->kslots + h->table;
		uint32_t	j = (uint32_t) k->hash & (h->cap - 1);

		for (; t[j]; j = (j + 1) & (h->cap - 1))
			if (key_eq(&f->keys[h->first + t[j] - 1], k))
				decline(f);
		t[j] = (uint32_t) (f->nkeys - h->first + 1);
	}
	f->nkeys++;
}

/* unescape a quoted scalar's text (checked by scan_quoted) */
static size_t
unescape(FScan *f, const char *s, size_t len, bool single, char *out)
{
	size_t		o = 0;
	size_t		next_check = YAML_INTERRUPT_BYTES;

	for (size_t i = 0; i < len;)
	{
		uint32_t	v = 0;
		int			digits = 0;

		if (i >= next_check)
		{
			next_check = i + YAML_INTERRUPT_BYTES;
			yr_progress(f->st, YAML_INTERRUPT_BYTES);
		}

		if (single || s[i] != '\\')
		{
			out[o++] = s[i];
			i += single && s[i] == '\'' ? 2 : 1;
			continue;
		}
		switch (s[i + 1])
		{
			case '0':
				v = 0;
				break;
			case 'a':
				v = 7;
				break;
			case 'b':
				v = 8;
				break;
			case 't':
				v = 9;
				break;
			case 'n':
				v = 10;
				break;
			case 'v':
				v = 11;
				break;
			case 'f':
				v = 12;
				break;
			case 'r':
				v = 13;
				break;
			case 'e':
				v = 0x1B;
				break;
			case 'N':
				v = 0x85;
				break;
			case '_':
				v = 0xA0;
				break;
			case 'L':
				v = 0x2028;
				break;
			case 'P':
				v = 0x2029;
				break;
			case 'x':
				digits = 2;
				break;
			case 'u':
				digits = 4;
				break;
			case 'U':
				digits = 8;
				break;
			default:			/* space " / \ */
				v = (uint8_t) s[i + 1];
		}
		i += 2;
		for (int k = 0; k < digits; k++)
			v = v << 4 | (uint32_t) hex_value(s[i++]);
		if (v < 0x80)
			out[o++] = (char) v;
		else if (v < 0x800)
		{
			out[o++] = (char) (0xC0 | v >> 6);
			out[o++] = (char) (0x80 | (v & 0x3F));
		}
		else if (v < 0x10000)
		{
			out[o++] = (char) (0xE0 | v >> 12);
			out[o++] = (char) (0x80 | (v >> 6 & 0x3F));
			out[o++] = (char) (0x80 | (v & 0x3F));
		}
		else
		{
			out[o++] = (char) (0xF0 | v >> 18);
			out[o++] = (char) (0x80 | (v >> 12 & 0x3F));
			out[o++] = (char) (0x80 | (v >> 6 & 0x3F));
			out[o++] = (char) (0x80 | (v & 0x3F));
		}
	}
	return o;
}

/* A plain scalar the quick rules leave open: yr_tokenize, as in scalar() */
static RVal *
tokenize(FScan *f, const FScalar *sc)
{
	YNode		n;

	memset(&n, 0, sizeof(n));
	n.kind = YN_SCALAR;
	n.anchor = -1;
	return yr_tokenize(f->st, &n, yr_strdup(f->st, sc->s, sc->len), sc->len);
}

/*
 * A key of the open Hash h, as revive_hash stores it: a String key frozen
 * and interned; others as they are.  Keys that are nil, booleans, other
 * objects or "<<", or quoted with escapes, decline.
 */
static void
emit_key(FScan *f, FHash *h, const FScalar *sc)
{
	int64_t		x = 0;
	RVal	   *v;

	f->nodes++;
	if (f->w == NULL)
	{
		/*
		 * The first pass counts every key that may be a String: plain ones
		 * whatever they resolve to (counting more is only slower)
		 */
		if (sc->kind != F_PLAIN && sc->kind != F_SINGLE && sc->kind != F_DOUBLE)
			decline(f);
		emit_string_key(f, h, sc->s, sc->len);
		return;
	}
	if (sc->kind == F_PLAIN)
	{
		switch (yr_tokenize_quick(sc->s, sc->len, &x))
		{
			case YT_INT:
				key_add(f, h, RV_INT, NULL, 0, x);
				marshal_write_int(f->w, x);
				return;
			case YT_STRING:
				break;
			case YT_OTHER:
				v = tokenize(f, sc);
				if (v->kind == RV_SYMBOL || v->kind == RV_INT)
				{
					key_add(f, h, (RKind) v->kind, v->str,
							v->kind == RV_INT ? 0 : v->len, v->ival);
					yr_dump(f->st, f->w, v);
					return;
				}
				/* a String of its own text, or not taken here */
				if (v->kind != RV_STRING || v->len != sc->len)
					decline(f);
				break;
			default:
				decline(f);
		}
	}
	else if (sc->kind != F_SINGLE && sc->kind != F_DOUBLE)
		decline(f);
	/* "<<", quoted or not, is a merge key */
	if (sc->len == 2 && sc->s[0] == '<' && sc->s[1] == '<')
		decline(f);
	emit_string_key(f, h, sc->s, sc->len);
}

/* A value: as scalar() and yr_tokenize make it, and yr_dump writes it */
static void
emit_value(FScan *f, const FScalar *sc)
{
	MarshalWriter *w = f->w;
	int64_t		x = 0;
	char	   *buf;

	f->nodes++;
	tick(f);
	if (w == NULL)
		return;
	switch (sc->kind)
	{
		case F_NULL:
			marshal_write_nil(w);
			break;
		case F_PLAIN:
			switch (yr_tokenize_quick(sc->s, sc->len, &x))
			{
				case YT_INT:
					marshal_write_int(w, x);
					break;
				case YT_STRING:
					marshal_write_string(w, (const uint8_t *) sc->s, sc->len, MENC_UTF8);
					break;
				case YT_NIL:
					marshal_write_nil(w);
					break;
				case YT_TRUE:
					marshal_write_bool(w, true);
					break;
				case YT_FALSE:
					marshal_write_bool(w, false);
					break;
				case YT_OTHER:
					yr_dump(f->st, w, tokenize(f, sc));
					break;
			}
			break;
		case F_SINGLE:
		case F_DOUBLE:
			marshal_write_string(w, (const uint8_t *) sc->s, sc->len, MENC_UTF8);
			break;
		case F_SINGLE_ESC:
		case F_DOUBLE_ESC:
			/* \L and \P grow by a byte: at most 3 bytes for 2 */
			buf = yr_alloc(f->st, sc->len * 3 / 2 + 1);
			marshal_write_string(w, (const uint8_t *) buf,
								 unescape(f, sc->s, sc->len, sc->kind == F_SINGLE_ESC, buf),
								 MENC_UTF8);
			break;
		case F_EMPTY_SEQ:
			marshal_write_array(w, 0);
			break;
		case F_EMPTY_MAP:
			marshal_write_hash(w, 0);
			break;
	}
}

/*
 * A block collection opens: its number; the second pass writes its header
 * with the count the first pass found.  As deep as the general path allows,
 * less one.
 */
static size_t
open_collection(FScan *f, bool map)
{
	const MarshalHooks *h = f->st->arena.hooks;
	size_t		id;

	if (++f->depth + 1 >= f->st->opts->max_depth)
		decline(f);
	if (h && h->check_stack)
		h->check_stack(h->ctx);
	tick(f);
	f->nodes++;
	if (f->w == NULL)
	{
		grow(f, (void **) &f->counts, &f->capcounts, f->ncounts + 1, sizeof(uint32_t));
		f->counts[f->ncounts] = 0;
		return f->ncounts++;
	}
	id = f->next++;
	if (map)
		marshal_write_hash(f->w, f->counts[id]);
	else
		marshal_write_array(f->w, f->counts[id]);
	return id;
}

static void
close_collection(FScan *f, size_t id, uint32_t n)
{
	if (f->w == NULL)
		f->counts[id] = n;
	f->depth--;
}

/* --- collections ----------------------------------------------------------- */

static int	block_seq(FScan *f, int col);
static int	block_map(FScan *f, int col, const FScalar *first);

/* A collection starting at p, column col: a sequence or a mapping */
static int
block_node(FScan *f, int col)
{
	if (is_entry(f))
		return block_seq(f, col);
	return block_map(f, col, NULL);
}

/* A value on its entry's line, at p: then the line must end */
static int
inline_value(FScan *f, int col)
{
	FScalar		sc;
	int			c;

	if (is_entry(f))
		decline(f);
	scan_inline(f, &sc);
	if (colon_follows(f))
		decline(f);
	finish_line(f);
	emit_value(f, &sc);
	c = next_content(f);
	/* a deeper line would continue a plain scalar, or be an error */
	if (c > col && !(c == 0 && (marker(f, '-') || marker(f, '.'))))
		decline(f);
	return c;
}

/* A null value: an empty plain scalar */
static void
emit_null(FScan *f)
{
	FScalar		sc = {F_NULL, NULL, 0};

	emit_value(f, &sc);
}

/*
 * The value after a key's ":" in a mapping at column col; returns the
 * column of the next line with content (-1 at the end).
 */
static int
map_value(FScan *f, int col)
{
	int			c;

	while (f->p < f->end && *f->p == ' ')
		f->p++;
	if (f->p < f->end && *f->p != '\n' && *f->p != '#')
		return inline_value(f, col);
	finish_line(f);
	c = next_content(f);
	if (c > col)
		return block_node(f, c);
	if (c == col && is_entry(f))
		return block_seq(f, col);
	emit_null(f);
	return c;
}

/* A mapping at column col, at its first key (or after first and its ":") */
static int
block_map(FScan *f, int col, const FScalar *first)
{
	FHash		h;
	FScalar		key;
	size_t		id = open_collection(f, true);
	int			c;

	memset(&h, 0, sizeof(h));
	h.id = (uint32_t) id + 1;
	h.pairs = f->w ? f->counts[id] : 0;
	h.undo = f->nundo;
	h.first = f->nkeys;
	h.table = f->nkslots;
	if (first)
		key = *first;
	else
		scan_key(f, &key);
	for (;;)
	{
		emit_key(f, &h, &key);
		c = map_value(f, col);
		h.pairs += f->w == NULL;
		if (c != col || (col == 0 && (marker(f, '-') || marker(f, '.'))))
			break;
		scan_key(f, &key);
	}
	/* restore the marks of the Hashes around, drop this one's keys */
	while (f->nundo > h.undo)
	{
		f->nundo--;
		f->strs[f->undo[f->nundo].str - 1].map = f->undo[f->nundo].map;
	}
	f->nkeys = h.first;
	f->nkslots = h.table;
	close_collection(f, id, h.pairs);
	return c;
}

/* A sequence at column col, p at its first "-" */
static int
block_seq(FScan *f, int col)
{
	size_t		id = open_collection(f, false);
	uint32_t	items = 0;
	int			c;

	do
	{
		items++;
		f->p++;
		while (f->p < f->end && *f->p == ' ')
			f->p++;
		if (f->p >= f->end || *f->p == '\n' || *f->p == '#')
		{
			finish_line(f);
			c = next_content(f);
			if (c > col)
				c = block_node(f, c);
			else
				emit_null(f);
		}
		else if (is_entry(f))
			c = block_seq(f, column(f));
		else
		{
			FScalar		sc;
			int			kcol = column(f);
			const char *start = f->p;

			scan_inline(f, &sc);
			if (colon_follows(f))
			{
				/* "- key: value": a compact mapping at the key's column */
				if (sc.kind >= F_EMPTY_SEQ || f->p - start > FAST_MAX_KEY)
					decline(f);
				c = block_map(f, kcol, &sc);
			}
			else
			{
				finish_line(f);
				emit_value(f, &sc);
				c = next_content(f);
				if (c > col)
					decline(f);
			}
		}
	} while (c == col && is_entry(f));
	close_collection(f, id, items);
	return c;
}

/* The document: one root, then at most a "..." and comments. */
static void
scan_document(FScan *f)
{
	int			c;

	f->p = f->line = f->text;
	c = next_content(f);
	/* no document, or directives: the general path */
	if (c < 0 || (c == 0 && (*f->p == '%' || marker(f, '.'))))
		decline(f);
	if (c == 0 && marker(f, '-'))
	{
		f->p += 3;
		while (f->p < f->end && *f->p == ' ')
			f->p++;
		if (f->p < f->end && *f->p != '\n' && *f->p != '#')
			c = inline_value(f, -1);	/* "--- value" */
		else
		{
			finish_line(f);
			c = next_content(f);
			if (c < 0 || (c == 0 && (marker(f, '-') || marker(f, '.'))))
				emit_null(f);
			else
				c = block_node(f, c);
		}
	}
	else
		c = block_node(f, c);
	if (c < 0)
		return;
	if (c != 0 || !marker(f, '.'))
		decline(f);
	f->p += 3;
	finish_line(f);
	if (next_content(f) >= 0)
		decline(f);
}

/* --- the entry ------------------------------------------------------------- */

bool
yr_read_fast(const uint8_t *text, size_t len, const YamlOptions *opts,
			 const MarshalHooks *hooks, uint8_t **out, size_t *outlen,
			 MarshalError *err, MarshalStatus *status)
{
	/* volatile: read after longjmp */
	YState	   *volatile st;
	FScan	   *volatile f = NULL;
	volatile bool done = false;

	size_t		lines;

	if (len > UINT32_MAX || !text_ok(text, len, &lines, hooks))
		return false;
	st = yr_state_new(text, len, opts, hooks, err);
	if (st == NULL)
		return false;
	if (setjmp(st->fail) == 0)
	{
		f = yr_alloc(st, sizeof(FScan));
		memset(f, 0, sizeof(FScan));
		f->st = st;
		f->text = (const char *) text;
		f->end = f->text + len;
		/* a key per line at most: buckets for 8 times that, 256 at least */
		for (f->sketch_mask = 255; f->sketch_mask < lines * 8; f->sketch_mask = f->sketch_mask * 2 + 1)
			;
		f->sketch = yr_alloc(st, (f->sketch_mask + 1) / 4);
		memset(f->sketch, 0, (f->sketch_mask + 1) / 4);
		scan_document(f);
		/* no aliases: each node is one value, a Date eight */
		if (opts->max_expanded && f->nodes * 8 > opts->max_expanded)
			decline(f);
		yr_graph_init(st);
		f->w = marshal_writer_new(hooks);
		if (f->w == NULL)
			decline(f);
		scan_document(f);
		*status = marshal_writer_finish(f->w, out, outlen);
		f->w = NULL;
		done = *status == MARSHAL_OK;
	}
	if (f)
	{
		marshal_writer_free(f->w);
		marshal_free(hooks, f->counts);
		marshal_free(hooks, f->strs);
		marshal_free(hooks, f->slots);
		marshal_free(hooks, f->undo);
		marshal_free(hooks, f->keys);
		marshal_free(hooks, f->kslots);
	}
	yr_state_free(st);
	if (!done)
		memset(err, 0, sizeof(*err));
	return done;
}
