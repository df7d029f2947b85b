/*
 * marshal_internal.h
 *		What the codec's files share and its users do not see: errors,
 *		allocation, the packed-long and skipping primitives, and the
 *		functions one module offers the others.  Sections in dependency
 *		order: primitives first, then by the file that defines them.
 */
#ifndef RBMARSHAL_MARSHAL_INTERNAL_H
#define RBMARSHAL_MARSHAL_INTERNAL_H

#include "marshal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef lengthof
#define lengthof(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Fill *err and return status (marshal_reader.c). */
extern MarshalStatus marshal_error(MarshalError *err, MarshalStatus status,
								   size_t offset, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));
extern MarshalStatus marshal_verror(MarshalError *err, MarshalStatus status,
									size_t offset, const char *fmt,
									va_list ap)
			__attribute__((format(printf, 4, 0)));

/*
 * The allocation hooks, or malloc, realloc and free when there are none.
 * marshal_realloc of NULL allocates; marshal_free of NULL does nothing.
 */
static inline void *
marshal_alloc(const MarshalHooks *h, size_t size)
{
	return h && h->alloc ? h->alloc(h->ctx, size) : malloc(size);
}

static inline void *
marshal_realloc(const MarshalHooks *h, void *ptr, size_t size)
{
	if (ptr == NULL)
		return marshal_alloc(h, size);
	return h && h->realloc ? h->realloc(h->ctx, ptr, size) : realloc(ptr, size);
}

static inline void
marshal_free(const MarshalHooks *h, void *ptr)
{
	if (ptr == NULL)
		return;
	if (h && h->free)
		h->free(h->ctx, ptr);
	else
		free(ptr);
}

/* MarshalDocLazy.scanned: the symbol was defined with an I wrapper */
#define MARSHAL_SCANNED_IVAR 0x80000000u

/* Return a failed status at once; the callee has filled the error. */
#define TRY(expr) \
	do { MarshalStatus s_ = (expr); if (s_ != MARSHAL_OK) return s_; } while (0)

/*
 * What each recursive walk of a value carries (the reader, the re-encoder,
 * the literal parser, inspect): the caller's hooks, where the error goes,
 * and the nesting depth against its limit.
 */
typedef struct MarshalWalk
{
	const MarshalHooks *hooks;
	MarshalError *err;
	uint32_t	depth;
	uint32_t	max_depth;
} MarshalWalk;

/* A walk about to start: no error yet; max_depth 0 is the default limit. */
static inline void
marshal_walk_start(MarshalWalk *w, const MarshalHooks *hooks,
				   uint32_t max_depth, MarshalError *err)
{
	w->hooks = hooks;
	w->err = err;
	w->depth = 0;
	w->max_depth = max_depth ? max_depth : MARSHAL_DEFAULT_MAX_DEPTH;
	err->status = MARSHAL_OK;
	err->offset = 0;
	err->detail[0] = '\0';
}

/* One level deeper, into the value at pos: an error past the limit. */
static inline MarshalStatus
marshal_walk_deeper(MarshalWalk *w, size_t pos)
{
	if (++w->depth > w->max_depth)
		return marshal_error(w->err, MARSHAL_ERR_DEPTH, pos,
							 "nesting deeper than %u levels", w->max_depth);
	return MARSHAL_OK;
}

/*
 * The hooks' stack check every `every` levels: the depth a caller allows
 * may need more stack than the server has.
 */
static inline void
marshal_walk_check_stack(const MarshalWalk *w, uint32_t every)
{
	if (w->depth % every == 0 && w->hooks && w->hooks->check_stack)
		w->hooks->check_stack(w->hooks->ctx);
}

/*
 * MRI's r_long: 0; 5..127 and -128..-5 are small values; 1..4 and -1..-4
 * count the little-endian bytes that follow (negative ones over a base of
 * all ones).  Returns false, leaving *pos alone, when the bytes run out.
 */
static inline bool
marshal_decode_long(const uint8_t *buf, size_t len, size_t *pos, int64_t *out)
{
	size_t		p = *pos;
	int			c;
	int			n;
	int64_t		x;

	if (p >= len)
		return false;
	c = (int8_t) buf[p++];
	if (c == 0)
		x = 0;
	else if (c > 4)
		x = c - 5;
	else if (c < -4)
		x = c + 5;
	else
	{
		n = c > 0 ? c : -c;
		if (len - p < (size_t) n)
			return false;
		x = c > 0 ? 0 : -1;
		for (int i = 0; i < n; i++)
		{
			x &= ~((int64_t) 0xff << (8 * i));
			x |= (int64_t) buf[p++] << (8 * i);
		}
	}
	*pos = p;
	*out = x;
	return true;
}

/*
 * Skipping in place (marshal_cursor.c's skip, navigation's key search):
 * each takes the position of a value and returns where it ends, 0 if it
 * is not one these handle or does not fit.
 */
static inline size_t
marshal_skip_bytes(const uint8_t *b, size_t len, size_t p)
{
	int64_t		n;

	if (!marshal_decode_long(b, len, &p, &n) || n < 0 || (uint64_t) n > len - p)
		return 0;
	return p + (size_t) n;
}

/*
 * The usual text String, I " <bytes> 06 ;<n> T|F, from its " at p: where
 * it ends, or 0 if it is not one (the E symbol a link, not defined here).
 */
static inline size_t
marshal_skip_text_string(const uint8_t *b, size_t len, size_t p)
{
	if (p >= len || b[p] != MT_STRING || (p = marshal_skip_bytes(b, len, p + 1)) == 0 ||
		p + 3 >= len || b[p] != 0x06 || b[p + 1] != MT_SYMLINK ||
		!(b[p + 2] == 0 || (b[p + 2] > 5 && b[p + 2] < 128)) ||
		(b[p + 3] != MT_TRUE && b[p + 3] != MT_FALSE))
		return 0;
	return p + 4;
}

/*
 * The flat values that make up most of a container, stepped over in line
 * by the container loops; 0 for anything else.
 */
static inline size_t
marshal_skip_leaf(const uint8_t *b, size_t len, size_t p)
{
	int64_t		n;

	if (p >= len)
		return 0;
	switch (b[p])
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			return p + 1;
		case MT_FIXNUM:
		case MT_LINK:
		case MT_SYMLINK:
			p++;
			return marshal_decode_long(b, len, &p, &n) ? p : 0;
		case MT_STRING:
			return marshal_skip_bytes(b, len, p + 1);
		case MT_IVAR:
			return marshal_skip_text_string(b, len, p + 1);
		default:
			return 0;
	}
}

/* MRI's w_long: the packed form of x into buf; returns its length. */
static inline size_t
marshal_encode_long(int64_t x, uint8_t buf[9])
{
	int			i;

	if (x == 0)
	{
		buf[0] = 0;
		return 1;
	}
	if (x > 0 && x < 123)
	{
		buf[0] = (uint8_t) (x + 5);
		return 1;
	}
	if (x < 0 && x > -124)
	{
		buf[0] = (uint8_t) ((x - 5) & 0xff);
		return 1;
	}
	for (i = 1; i <= 8; i++)
	{
		buf[i] = (uint8_t) (x & 0xff);
		x >>= 8;				/* arithmetic shift, as MRI's RSHIFT */
		if (x == 0 || x == -1)
		{
			buf[0] = (uint8_t) (x == 0 ? i : -i);
			break;
		}
	}
	return (size_t) i + 1;
}

/* In 64-bit MRI a double is an immediate "flonum" for most exponents. */
static inline bool
marshal_is_flonum(double d)
{
	uint64_t	bits;
	int			top;

	memcpy(&bits, &d, 8);
	if (bits == 0)
		return true;			/* +0.0 */
	top = (int) ((bits >> 60) & 7);
	return (top == 3 || top == 4) && bits != 0x3000000000000000ULL;
}

/* a / b rounded down (b > 0): days of a count of seconds, before 1970 too */
static inline int64_t
marshal_floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* v (>= 0, under 10^width) as exactly width zero-padded digits; no NUL. */
static inline size_t
marshal_put_digits(char *out, int64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--)
	{
		out[i] = (char) ('0' + v % 10);
		v /= 10;
	}
	return (size_t) width;
}

/* Length of the valid UTF-8 character at s, n bytes left (0 if invalid or NUL). */
static inline size_t
marshal_utf8_seq(const uint8_t *s, size_t n)
{
	size_t		len = s[0] < 0x80 ? 1 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;

	if (len > n || !marshal_utf8_valid(s, len, false))
		return 0;
	return len;
}

/* The value of one hex digit, or -1. */
static inline int
marshal_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* marshal_reader.c: checks the one-pass emitter makes as the reader does */
extern bool marshal_all_ascii(const uint8_t *s, size_t n);
/* Float text as MRI writes it (or Ruby 1.8 did) */
extern bool marshal_float_text_ok(const uint8_t *p, size_t n);

/* marshal_numbers_dates.c: numbers and dates as Ruby reads and prints them */


/* Shortest round-trip decimal digits of |d| (d finite, non-zero). */
extern int	marshal_shortest_digits(double d, char *digits, int *decpt);
/* Float#to_s's layout of those digits (no sign): 1.5, 0.001, 1.0e+20 */
extern size_t marshal_format_digits(const char *digits, int nd, int decpt,
									char *out);


extern int64_t marshal_days_from_civil(int64_t y, int m, int d);
extern void marshal_civil_from_days(int64_t days, int64_t *y, int *m, int *d);
/* The date and time of day of seconds since 1970 (all of parts but utc, offset). */
extern void marshal_civil_from_epoch(int64_t secs, MarshalTimeParts *parts);
extern void marshal_julian_from_jd(int64_t jd, int64_t *y, int *m, int *d);
extern size_t marshal_format_year(int64_t y, char *out);


/* marshal_view.c */
extern bool marshal_bytes_eq(MarshalBytes b, const char *s);
/* The value of the ivar called name among count pairs at pos; 0 if absent. */
extern MarshalStatus marshal_find_ivar(const MarshalDoc *doc, size_t pos,
									   uint32_t count, const char *name,
									   size_t *vpos, MarshalError *err);

/*
 * Each of the count ivar pairs at pos, in order: fn (if not NULL) gets the
 * name and the value's position; *end receives the offset after them.
 */
typedef MarshalStatus (*MarshalIvarFn) (const MarshalDoc *doc,
										MarshalBytes name, size_t vpos,
										void *arg, MarshalError *err);
extern MarshalStatus marshal_for_each_ivar(const MarshalDoc *doc, size_t pos,
										   uint32_t count, MarshalIvarFn fn,
										   void *arg, size_t *end,
										   MarshalError *err);

/*
 * marshal_activerecord_view.c: the Active Record side of the view.
 * marshal_record_view makes an object with @attributes an MV_RECORD view if
 * they are a model's, marshal_record71_view a U whose data is 7.1's
 * [attributes, new_record]; marshal_record_next is marshal_view_next for
 * MV_RECORD.
 */
extern MarshalStatus marshal_record_view(const MarshalDoc *doc,
										 MarshalView *view,
										 MarshalError *err);
extern MarshalStatus marshal_record71_view(const MarshalDoc *doc,
										   MarshalView *view,
										   MarshalError *err);
extern MarshalStatus marshal_record_next(const MarshalDoc *doc,
										 MarshalViewIter *it,
										 MarshalEntry *e, bool *done,
										 MarshalError *err);

/* marshal_json.c: " (at $.a[3])" after an error's detail, path[1..depth] */
extern void marshal_error_locate(MarshalError *err, const MarshalPathStep *path,
								 uint32_t depth);

/* marshal_time.c: what a Time's payload and ivars say */
typedef struct MarshalTime
{
	int64_t		epoch;			/* seconds since 1970 UTC */
	int64_t		nsec;
	bool		utc;
	int64_t		offset;			/* seconds east of UTC when !utc */
} MarshalTime;

/* What a Time's ivars add to its payload (nano_den 1, submicro -1 if absent). */
typedef struct MarshalTimeIvars
{
	int64_t		nano_num;
	int64_t		nano_den;
	bool		has_nano;
	int			submicro;
	bool		bad;			/* an offset or fraction of another class */
} MarshalTimeIvars;

/* a Time's payload decoded; its ivars applied; as_json's text of it */
extern MarshalStatus marshal_time_payload(MarshalBytes data, size_t pos,
										  MarshalTime *t, MarshalError *err);
extern int	marshal_time_submicro(MarshalBytes b);	/* b.len >= 1 */
extern MarshalStatus marshal_time_finish(MarshalTime *t, const MarshalTimeIvars *iv,
										 size_t pos, MarshalError *err);
extern size_t marshal_time_xmlschema(const MarshalTime *t, int prec, char *out);

/* an Integer (fixnum, or bignum that fits 64 bits); *ok false if not one */
extern MarshalStatus marshal_read_int(const MarshalDoc *doc, size_t pos,
									  int64_t *v, bool *ok, MarshalError *err);
/* an Integer, or a Rational floored to one */
extern MarshalStatus marshal_read_int_or_rational(const MarshalDoc *doc,
												  size_t pos, int64_t *v,
												  bool *ok, MarshalError *err);
extern MarshalStatus marshal_time_decode(const MarshalDoc *doc,
										 const MarshalNode *n, MarshalTime *t,
										 MarshalError *err);
/* Date's CM_PERIOD: days of one nth (a Date's jd field counts within it) */
#define DATE_CM_PERIOD INT64_C(213447717)
/* nth beyond this is refused: the real Julian Day's seconds must fit int64 */
#define DATE_MAX_NTH 100000
/* [nth, jd, df, sf, of] of a Date or DateTime: nth folded into jd (nth 0) */
extern MarshalStatus marshal_date_fields(const MarshalDoc *doc,
										 const MarshalNode *n, int64_t *v,
										 MarshalError *err);
/*
 * as_json text of a wall clock, Time, TimeWithZone, Date and DateTime (out
 * holds 80 bytes; prec fraction digits, 0..9)
 */
extern size_t marshal_format_wall(int64_t wall, int64_t nsec, int prec,
								  char *out);
extern MarshalStatus marshal_time_json(const MarshalDoc *doc,
									   const MarshalNode *n, int prec,
									   char *out, size_t *len,
									   MarshalError *err);
extern MarshalStatus marshal_time_with_zone_json(const MarshalDoc *doc,
												 const MarshalNode *n,
												 int prec, char *out,
												 size_t *len,
												 MarshalError *err);
extern MarshalStatus marshal_date_json(const MarshalDoc *doc,
									   const MarshalNode *n, bool datetime,
									   int prec, char *out, size_t *len,
									   MarshalError *err);

#endif							/* RBMARSHAL_MARSHAL_INTERNAL_H */
