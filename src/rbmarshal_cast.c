/*
 * rbmarshal_cast.c
 *		Typed casts: a Ruby Integer, Float, BigDecimal, boolean, Time or Date
 *		as the PostgreSQL value of the same meaning.
 *
 * Numbers go through numeric text where that is exact (bignums, BigDecimal,
 * Float#to_s), so nothing is rounded on the way; anything else is an error
 * naming the Ruby class.
 */
#include "rbmarshal.h"
#include "marshal_to_s.h"

#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(rbmarshal_to_numeric);
PG_FUNCTION_INFO_V1(rbmarshal_to_int8);
PG_FUNCTION_INFO_V1(rbmarshal_to_int4);
PG_FUNCTION_INFO_V1(rbmarshal_to_float8);
PG_FUNCTION_INFO_V1(rbmarshal_to_bool);
PG_FUNCTION_INFO_V1(rbmarshal_to_timestamptz);
PG_FUNCTION_INFO_V1(rbmarshal_to_date);

static void
cannot_cast(const MarshalNode *n, const char *target)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot cast Ruby %s to %s", rbmarshal_class_name(n), target)));
}

/* The root value, which a decoder found not to be what target needs. */
static void
cannot_cast_root(const MarshalDoc *doc, const char *target)
{
	MarshalNode n;
	MarshalError err;

	rbmarshal_check_status(marshal_node(doc, MARSHAL_ROOT, &n, &err), &err);
	cannot_cast(&n, target);
}

static Numeric
numeric_of_text(const char *s)
{
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(s),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/* Integer, Float (NaN and Infinity too) or BigDecimal as numeric. */
static Numeric
to_numeric(bytea *v, const char *target, MarshalNode *n, MarshalDoc *doc)
{
	MarshalError err;

	rbmarshal_open_lazy(v, doc);
	rbmarshal_check_status(marshal_node(doc, MARSHAL_ROOT, n, &err), &err);
	switch (n->type)
	{
		case MT_FIXNUM:
			return int64_to_numeric(n->ival);
		case MT_BIGNUM:
			{
				size_t		size = n->data.len * 3 + 3;
				char	   *digits = palloc(size);
				uint32	   *limbs = palloc((n->data.len + 3) / 4 * sizeof(uint32) + 4);
				size_t		len;

				(void) marshal_bignum_decimal(n->data.ptr, n->data.len, n->negative,
									digits, size, &len, limbs);
				return numeric_of_text(digits);
			}
		case MT_FLOAT:
			{
				double		d;
				char		buf[40];

				if (!marshal_parse_float(n->data.ptr, n->data.len, &d))
					cannot_cast(n, target);
				if (isnan(d))
					return numeric_of_text("NaN");
				if (isinf(d))
					return numeric_of_text(d > 0 ? "Infinity" : "-Infinity");
				marshal_format_float(d, buf);
				return numeric_of_text(buf);
			}
		case MT_USERDEF:
			if (marshal_class_is(n, MC_BIGDECIMAL))
			{
				/* read as BigDecimal._load reads it; numeric reads "0.12345e3" */
				MarshalDecimal d;
				char	   *text;

				if (!marshal_decimal_load(n->data.ptr, n->data.len,
										  palloc(n->data.len + 1), &d))
				{
					err.status = MARSHAL_ERR_FORMAT;
					err.offset = n->pos;
					strlcpy(err.detail, "a BigDecimal payload that BigDecimal._load refuses",
							sizeof(err.detail));
					rbmarshal_check_status(MARSHAL_ERR_FORMAT, &err);
				}
				text = palloc(marshal_decimal_text_size(&d));
				text[marshal_decimal_to_s(&d, false, text)] = '\0';
				return numeric_of_text(text);
			}
			break;
		default:
			break;
	}
	cannot_cast(n, target);
	return NULL;				/* keep compiler quiet */
}

Datum
rbmarshal_to_numeric(PG_FUNCTION_ARGS)
{
	MarshalNode n;
	MarshalDoc	doc;

	PG_RETURN_NUMERIC(to_numeric(PG_GETARG_RBMARSHAL_PP(0), "numeric", &n, &doc));
}

Datum
rbmarshal_to_int8(PG_FUNCTION_ARGS)
{
	MarshalNode n;
	MarshalDoc	doc;
	Numeric		num = to_numeric(PG_GETARG_RBMARSHAL_PP(0), "bigint", &n, &doc);

	if (n.type == MT_FIXNUM)
		PG_RETURN_INT64(n.ival);
	return DirectFunctionCall1(numeric_int8, NumericGetDatum(num));
}

Datum
rbmarshal_to_int4(PG_FUNCTION_ARGS)
{
	MarshalNode n;
	MarshalDoc	doc;
	Numeric		num = to_numeric(PG_GETARG_RBMARSHAL_PP(0), "integer", &n, &doc);

	return DirectFunctionCall1(numeric_int4, NumericGetDatum(num));
}

Datum
rbmarshal_to_float8(PG_FUNCTION_ARGS)
{
	MarshalNode n;
	MarshalDoc	doc;
	Numeric		num = to_numeric(PG_GETARG_RBMARSHAL_PP(0), "double precision", &n, &doc);
	double		d;

	/* a Float is itself; others round once, through numeric */
	if (n.type == MT_FLOAT && marshal_parse_float(n.data.ptr, n.data.len, &d))
		PG_RETURN_FLOAT8(d);
	return DirectFunctionCall1(numeric_float8, NumericGetDatum(num));
}

Datum
rbmarshal_to_bool(PG_FUNCTION_ARGS)
{
	MarshalDoc	doc;
	MarshalNode n;
	MarshalError err;

	rbmarshal_open_lazy(PG_GETARG_RBMARSHAL_PP(0), &doc);
	rbmarshal_check_status(marshal_node(&doc, MARSHAL_ROOT, &n, &err), &err);
	if (n.type != MT_TRUE && n.type != MT_FALSE)
		cannot_cast(&n, "boolean");
	PG_RETURN_BOOL(n.type == MT_TRUE);
}

/* Time, ActiveSupport::TimeWithZone and DateTime, to the microsecond. */
Datum
rbmarshal_to_timestamptz(PG_FUNCTION_ARGS)
{
	MarshalDoc	doc;
	MarshalError err;
	MarshalInstant t;
	bool		ok;
	TimestampTz result;

	rbmarshal_open_lazy(PG_GETARG_RBMARSHAL_PP(0), &doc);
	rbmarshal_check_status(marshal_instant(&doc, MARSHAL_ROOT, &t, &ok, &err), &err);
	if (!ok)
		cannot_cast_root(&doc, "timestamp with time zone");
	/* truncated to microseconds, as Time#usec */
	result = (t.epoch - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY) *
		USECS_PER_SEC + t.nsec / 1000;
	if (t.epoch > INT64CONST(9223372036854) || t.epoch < -INT64CONST(9223372036854) ||
		!IS_VALID_TIMESTAMP(result))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("Ruby time out of range for timestamp with time zone")));
	PG_RETURN_TIMESTAMPTZ(result);
}

Datum
rbmarshal_to_date(PG_FUNCTION_ARGS)
{
	MarshalDoc	doc;
	MarshalError err;
	int64		jd;
	bool		ok;

	rbmarshal_open_lazy(PG_GETARG_RBMARSHAL_PP(0), &doc);
	rbmarshal_check_status(marshal_date_jd(&doc, MARSHAL_ROOT, &jd, &ok, &err), &err);
	if (!ok)
		cannot_cast_root(&doc, "date");
	/* a Julian Day Number is calendar-free: the same day in either */
	if (jd < DATETIME_MIN_JULIAN || jd >= DATE_END_JULIAN)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("Ruby date out of range for date")));
	PG_RETURN_DATEADT((DateADT) (jd - POSTGRES_EPOCH_JDATE));
}
