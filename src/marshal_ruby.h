/*
 * marshal_ruby.h
 *		Ruby values: numbers, times and dates, inspect, Rails cache entries.
 */
#ifndef RBMARSHAL_MARSHAL_RUBY_H
#define RBMARSHAL_MARSHAL_RUBY_H

#include "marshal_class.h"

/* Numbers as Ruby reads and prints them (marshal_numbers_dates.c). */

/* Float text of a stream (validated) to a double, legacy tail included. */
extern bool marshal_parse_float(const uint8_t *text, size_t len, double *out);

/* Float#to_s ("1.0", "1.0e+20", "NaN"); out holds at least 32 bytes. */
extern size_t marshal_format_float(double d, char *out);

/*
 * The shortest decimal digits that read back as a normal double |d| (no
 * trailing zeros; 17 at most, NUL-terminated; *decpt places the point:
 * 0.DIGITS x 10^decpt), the closest to d of those, ties to even: returns
 * their number, or 0 to leave d to the codec.  A host with such a
 * generator (PostgreSQL's Ryu) may give it once at start; without one the
 * codec tries 15, 16 and 17 digits with snprintf and strtod (the same
 * digits, at several times the cost).
 */
typedef int (*MarshalShortestDigits) (double d, char *digits, int *decpt);
extern void marshal_set_shortest_digits(MarshalShortestDigits fn);

/*
 * Decimal text of a bignum magnitude (little-endian bytes); false if it
 * does not fit out (3 * len + 3 bytes always do).  limbs is scratch for
 * (len + 3) / 4 words.
 */
extern bool marshal_bignum_decimal(const uint8_t *mag, size_t len,
								   bool negative, char *out, size_t size,
								   size_t *outlen, uint32_t *limbs);

/* The float text w_float writes ("1", "1.5", "1e-5", "-0", "inf"). */
extern size_t marshal_float_text(double d, char *out);

/*
 * Instants and dates for the typed casts and inspect (marshal_time.c):
 * Time, TimeWithZone, DateTime and Date.
 */
typedef struct MarshalInstant
{
	int64_t		epoch;			/* seconds since 1970-01-01 UTC */
	int64_t		nsec;
} MarshalInstant;

/*
 * The JSON view's text of a Time (u, wrapped or linked) or of a Date,
 * DateTime or TimeWithZone written bare at pos (U, no wrapper): as_json
 * with prec fraction digits, into buf (80 bytes), as the walk writes it,
 * without the walk.  *ok is false for any other value and for one whose
 * data the view refuses (the walk then says why).
 */
extern MarshalStatus marshal_time_json_at(const MarshalDoc *doc, size_t pos,
										  int prec, char *buf, size_t *len,
										  bool *ok, MarshalError *err);

/* *ok is false when the value at pos is none of those classes. */
extern MarshalStatus marshal_instant(const MarshalDoc *doc, size_t pos,
									 MarshalInstant *t, bool *ok,
									 MarshalError *err);
/* A Time's wall clock as Time#inspect shows it. */
typedef struct MarshalTimeParts
{
	int64_t		year;
	int			month;
	int			day;
	int			hour;
	int			minute;
	int			second;
	bool		utc;
	int64_t		offset;			/* seconds east of UTC, when !utc */
} MarshalTimeParts;

extern MarshalStatus marshal_time_parts(const MarshalDoc *doc, size_t pos,
										MarshalInstant *t,
										MarshalTimeParts *parts, bool *ok,
										MarshalError *err);

/* A date as a key gives it: "%Y-%m-%d", alone or before a 'T'. */
typedef struct MarshalYmd
{
	int64_t		y;
	int			m;
	int			d;
} MarshalYmd;

/* The key's leading date (len > 0); false if it does not start with one. */
extern bool marshal_parse_ymd(const char *s, size_t len, MarshalYmd *out);

/*
 * Whether the view text of the value at pos cannot start with any of the
 * ndays dates, read where its bytes stand: a Date, DateTime or
 * TimeWithZone (U, bare) or a Time in UTC (u).  *excluded is false when it
 * might, and for any value not in the layout MRI writes (then the caller
 * converts it).  *end: where an excluded value ends, when that was read
 * (else 0).
 */
extern MarshalStatus marshal_view_date_excludes(const MarshalDoc *doc,
												size_t pos,
												const MarshalYmd *days,
												int ndays, bool *excluded,
												size_t *end, MarshalError *err);

/* The Julian Day Number of a Date. */
extern MarshalStatus marshal_date_jd(const MarshalDoc *doc, size_t pos,
									 int64_t *jd, bool *ok, MarshalError *err);

/*
 * The value as Ruby 4.0's inspect shows it, objects without addresses
 * (marshal_inspect.c).  limit bounds the text (0: a default budget).
 */
extern MarshalStatus marshal_inspect(const MarshalDoc *doc,
									 const MarshalHooks *hooks,
									 uint32_t max_depth, size_t limit,
									 char **out, size_t *outlen,
									 MarshalError *err);

/*
 * Rails cache entries (marshal_rails_cache.c): the formats ActiveSupport::Cache
 * writes (6.1 Entry objects, 7.0 and 7.1 envelopes), plain Marshal and gzip.
 * The value comes out as a Marshal stream of its own.
 */
typedef struct MarshalCacheEntry
{
	const char *format;			/* "6.1", "7.0", "7.1", "marshal", "gzip" */
	uint8_t    *value;			/* a Marshal stream (from the hooks) */
	size_t		value_len;
	bool		has_expires;
	double		expires_at;		/* seconds since 1970 */
	bool		has_version;
	const uint8_t *version;		/* its bytes (into the input, or owned) */
	size_t		version_len;
	bool		version_owned;
	bool		version_marshaled;	/* 7.1 wrote Marshal.dump(version) */
} MarshalCacheEntry;

/*
 * The detail of the MARSHAL_ERR_LIMIT a compressed entry gives when it
 * inflates past max_inflated: the caller names its setting.
 */
#define MARSHAL_INFLATE_LIMIT_DETAIL "compressed value inflates beyond the limit"

extern MarshalStatus marshal_cache_entry(const uint8_t *buf, size_t len,
										 const MarshalHooks *hooks,
										 uint32_t max_depth,
										 size_t max_inflated,
										 MarshalCacheEntry *e,
										 MarshalError *err);
extern void marshal_cache_entry_free(MarshalCacheEntry *e,
									 const MarshalHooks *hooks);

#endif							/* RBMARSHAL_MARSHAL_RUBY_H */
