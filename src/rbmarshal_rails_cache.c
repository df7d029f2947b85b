/*
 * rbmarshal_rails_cache.c
 *		rbmarshal_cache_entry(bytea): a Rails cache entry's value, expiry,
 *		version and format, whichever format wrote it.
 */
#include "rbmarshal.h"

#include "datatype/timestamp.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include <math.h>

PG_FUNCTION_INFO_V1(rbmarshal_cache_entry);

/* Upper bound of what a compressed entry may inflate to (bytes). */
int			rbmarshal_max_inflated_kb = 256 * 1024;

/*
 * Float seconds since 1970 as Time.at(f) holds them, exactly: whole seconds
 * (floor) and microseconds truncated, as Time#usec shows them.  The double
 * is m * 2**-k: the fraction's microseconds are floor(frac_m * 10**6 / 2**k),
 * never the rounding of a multiplication in floating point.
 */
static bool
float_seconds(double f, int64 *secs, int64 *usec)
{
	double		s;
	double		frac;
	int			e;
	uint64		m;
	int			k;

	if (!isfinite(f) || fabs(f) > 9.0e12)	/* past timestamptz anyway */
		return false;
	s = floor(f);
	frac = f - s;				/* exact: the low bits of f */
	*secs = (int64) s;
	*usec = 0;
	if (frac == 0.0)
		return true;
	m = (uint64) ldexp(frexp(frac, &e), 53);	/* frac = m * 2**(e - 53) */
	k = 53 - e;
#ifdef HAVE_INT128
	if (k < 128)
		*usec = (int64) (((uint128) m * 1000000) >> k);
#else
	*usec = (int64) floorl((long double) frac * 1000000.0L);
#endif
	return true;
}

/*
 * expires_at, seconds since 1970 as a Ruby Float: Time.at(f), truncated as
 * Time#usec.  Float::INFINITY (expires_in: Float::INFINITY) is infinity;
 * NaN and what timestamptz cannot hold are errors, not a wrong value.
 */
static TimestampTz
expiry(double f)
{
	int64		secs;
	int64		usec;
	TimestampTz t;

	if (isinf(f))
		return f > 0 ? DT_NOEND : DT_NOBEGIN;
	if (float_seconds(f, &secs, &usec))
	{
		t = (secs - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY) *
			USECS_PER_SEC + usec;
		if (IS_VALID_TIMESTAMP(t))
			return t;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("cache entry expiry out of range for timestamp with time zone")));
}

/*
 * The version, a Ruby String, as text: UTF-8 converted to the server
 * encoding, and refused if it is not valid UTF-8 (a NUL or a 0xFF byte
 * would make a text value nothing can read back).
 */
static text *
version_text(const uint8_t *s, size_t len)
{
	char	   *conv;

	if (len > MaxAllocSize - VARHDRSZ - 1 ||
		!pg_verify_mbstr(PG_UTF8, (const char *) s, (int) len, true))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("cache entry version is not UTF-8 text")));
	conv = pg_any_to_server((const char *) s, (int) len, PG_UTF8);
	return conv == (const char *) s ? cstring_to_text_with_len(conv, (int) len)
		: cstring_to_text(conv);
}

Datum
rbmarshal_cache_entry(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	TupleDesc	desc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	MarshalCacheEntry e;
	MarshalError err;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (marshal_cache_entry((const uint8_t *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
							rbmarshal_hooks(), (uint32_t) rbmarshal_max_depth,
							(size_t) rbmarshal_max_inflated_kb * 1024, &e, &err) != MARSHAL_OK)
	{
		if (err.status == MARSHAL_ERR_UNSUPPORTED)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot read this cache entry: %s", err.detail),
					 errhint("Only Marshal-serialized, unencrypted entries can be read.")));
		if (err.status == MARSHAL_ERR_LIMIT &&
			strcmp(err.detail, MARSHAL_INFLATE_LIMIT_DETAIL) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("Marshal data exceeds a limit"),
					 errdetail("At byte offset %zu: %s.", err.offset, err.detail),
					 errhint("Compressed cache entries inflate to at most %s (\"rbmarshal.max_inflated_size\", set by a superuser).",
							 GetConfigOptionByName("rbmarshal.max_inflated_size", NULL, false))));
		rbmarshal_report(&err, NULL, "rbmarshal");
	}
	values[0] = PointerGetDatum(rbmarshal_value(e.value, e.value_len));
	if (e.has_expires)
		values[1] = TimestampTzGetDatum(expiry(e.expires_at));
	else
		nulls[1] = true;
	if (e.has_version && !e.version_marshaled)
		values[2] = PointerGetDatum(version_text(e.version, e.version_len));
	else if (e.has_version)
	{
		/* 7.1 wrote Marshal.dump(version): read its String */
		MarshalDoc	doc;
		MarshalNode n;

		if (marshal_doc_open(&doc, e.version, e.version_len, rbmarshal_hooks(), 0,
							 &err) != MARSHAL_OK)
			rbmarshal_report(&err, NULL, "rbmarshal");
		if (marshal_node(&doc, MARSHAL_ROOT, &n, &err) != MARSHAL_OK)
			rbmarshal_report(&err, NULL, "rbmarshal");
		if (n.type == MT_STRING)
			values[2] = PointerGetDatum(version_text(n.data.ptr, n.data.len));
		else
			nulls[2] = true;
	}
	else
		nulls[2] = true;
	values[3] = PointerGetDatum(cstring_to_text(e.format));
	marshal_cache_entry_free(&e, rbmarshal_hooks());
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
