/*
 * marshal_to_s.h
 *		Ruby's to_s of the values whose to_s the bytes decide (marshal_to_s.c),
 *		and BigDecimal payloads read as BigDecimal._load reads them.
 */
#ifndef RBMARSHAL_MARSHAL_TO_S_H
#define RBMARSHAL_MARSHAL_TO_S_H

#include "marshal.h"

/* ASCII white space and digits, as MRI's ISSPACE and ISDIGIT */
static inline bool
marshal_is_space(uint8_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool
marshal_is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* A BigDecimal: 0.<digits> * 10**exp, or a special value. */
typedef enum MarshalDecimalKind
{
	MDEC_FINITE = 0,
	MDEC_NAN,
	MDEC_INFINITY				/* neg tells which */
} MarshalDecimalKind;

typedef struct MarshalDecimal
{
	MarshalDecimalKind kind;
	bool		neg;
	char	   *digits;			/* no leading or trailing zeros; ndigits 0: zero */
	size_t		ndigits;
	int64_t		exp;
} MarshalDecimal;

/* |exp| beyond this is refused as too large to print */
#define MARSHAL_DECIMAL_MAX_EXP 1000000

/*
 * A BigDecimal's _dump payload "<maxprec>:<number>" read as BigDecimal._load
 * reads it; false when MRI refuses it (or its exponent is past
 * MARSHAL_DECIMAL_MAX_EXP).  digits must hold len bytes.
 */
extern bool marshal_decimal_load(const uint8_t *s, size_t len, char *digits,
								 MarshalDecimal *d);

/* Bytes marshal_decimal_to_s may write for d (finite or not). */
extern size_t marshal_decimal_text_size(const MarshalDecimal *d);

/*
 * BigDecimal#to_s: "F" notation as ActiveSupport prints it ("123.45",
 * "-0.0", "NaN", "Infinity"), else Ruby's default ("0.12345e3").
 */
extern size_t marshal_decimal_to_s(const MarshalDecimal *d, bool plain,
								   char *out);

/*
 * Whether the view text of the BigDecimal at pos (u, bare, as MRI dumps
 * one) is none of the nkeys decimals (keys as marshal_decimal_load reads
 * their text): *excluded false when it might be one, or when the value is
 * something else or not read here (the caller converts it).
 */
extern MarshalStatus marshal_view_decimal_excludes(const MarshalDoc *doc,
												   size_t pos,
												   const MarshalDecimal *keys,
												   int nkeys, bool *excluded,
												   MarshalError *err);

/*
 * Regexp#to_s ("(?ix-m:source)") of a Regexp node into out (its length plus a
 * NUL); out NULL: only the length.
 */
extern size_t marshal_regexp_to_s(const MarshalNode *n, char *out);

/* IPAddr#to_s of an IPv6 address's eight groups; buf: 64 bytes or more */
extern size_t marshal_ipv6_to_s(const unsigned g[8], bool zone, char *buf,
								size_t size);

/*
 * key.to_s of a Hash key or a Range end that is not a String or Symbol:
 * nil, true/false, numbers, Time, Date, DateTime, TimeWithZone, BigDecimal,
 * Rational, Complex, Duration, Regexp, Class/Module (its name), Exception (its
 * message), Ranges of these, and Arrays (their inspect).  The text goes to buf;
 * *ok false for values whose to_s is not made from the bytes (inspect
 * texts, out of room).
 */
extern MarshalStatus marshal_to_s(const MarshalDoc *doc, size_t pos, char *buf,
								  size_t size, size_t *len, bool *ok,
								  MarshalError *err);

/*
 * Array#to_s (its inspect) as Ruby 3.1 with ActiveSupport writes it, of an
 * Array whose elements are nil, booleans, numbers, Strings, Symbols, Time,
 * TimeWithZone, Date, DateTime, BigDecimal or such Arrays (marshal_inspect.c);
 * *ok false for any other, or a text past size - 1 bytes.
 */
extern MarshalStatus marshal_inspect_key(const MarshalDoc *doc, size_t pos,
										 char *buf, size_t size, size_t *len,
										 bool *ok, MarshalError *err);

/* Time#to_s and TimeWithZone#to_s into out (80 bytes), marshal_time.c */
extern MarshalStatus marshal_time_to_s(const MarshalDoc *doc,
									   const MarshalNode *n, char *out,
									   size_t *len, MarshalError *err);
extern MarshalStatus marshal_time_with_zone_to_s(const MarshalDoc *doc,
												 const MarshalNode *n,
												 char *out, size_t *len,
												 MarshalError *err);

/*
 * A Time's nano_num/nano_den (the values at vnum and vden, Integers of any
 * size): *nsec their whole nanoseconds, and when frac is not NULL and the
 * Rational is no whole number, the sub-second with the payload's usec as
 * inspect shows it ("num/den", reduced) in frac (cap bytes).  *ok false for
 * numbers MRI does not write (negative, a zero denominator, a microsecond
 * or more, past 2048 bits) or a text past cap.  marshal_time_fraction.c.
 */
extern MarshalStatus marshal_time_nano(const MarshalDoc *doc, size_t vnum,
									   size_t vden, int64_t usec,
									   int64_t *nsec, char *frac, size_t cap,
									   size_t *fraclen, bool *ok,
									   MarshalError *err);

struct MarshalTime;

/*
 * A TimeWithZone's wall clock (*local: the instant, its nanoseconds and the
 * zone's offset), its zone's Rails name, whether that zone prints as UTC.
 */
extern MarshalStatus marshal_time_with_zone_parts(const MarshalDoc *doc,
												  const MarshalNode *n,
												  struct MarshalTime *local,
												  MarshalBytes *zone,
												  bool *utc_zone,
												  MarshalError *err);

#endif							/* RBMARSHAL_MARSHAL_TO_S_H */
