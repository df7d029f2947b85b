/*
 * marshal_activerecord.c
 *		Type-directed casting of Active Record attributes (where they are:
 *		marshal_activerecord_view.c; what their type objects say:
 *		marshal_activerecord_type.c).
 *
 * A record loaded from the database keeps the adapter's raw values (SQLite:
 * a decimal as a Float, a datetime as text, a boolean as 1/0), and an
 * attribute assigned from a form keeps the form's String until it is read.
 * serializable_hash casts them with the attribute's type object, which the
 * stream holds (@types, or an Attribute's @type), as marshal_record_type
 * reads it.  This file reproduces the casts of ActiveModel/ActiveRecord
 * that can be proven from the bytes alone; anything else is left raw
 * (MCAST_RAW), as the value was.
 *
 * Assumptions a stream cannot tell: default_timezone :utc and Time.zone UTC
 * (times come out as "...Z"), and Float/String parsing as MRI's to_f, to_i
 * and BigDecimal.interpret_loosely do for ASCII text.
 */
#include "marshal_activerecord_type.h"
#include "marshal_activerecord_number.h"
#include "marshal_to_s.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
set_text(MarshalCast *c, MarshalCastKind kind, const char *s, size_t len)
{
	c->kind = kind;
	memcpy(c->text, s, len);
	c->len = len;
}

/* Numeric's cast: nil for blank text, 1/0 for true/false (cast mode). */
static bool
numeric_blank_or_bool(const MarshalNode *v, MarshalCast *c, int *as_int)
{
	*as_int = -1;
	if (v->type == MT_STRING && marshal_blank(v->data))
	{
		c->kind = MCAST_NULL;
		return true;
	}
	if (v->type == MT_TRUE || v->type == MT_FALSE)
		*as_int = v->type == MT_TRUE;
	return false;
}

static void
cast_integer(const MarshalNode *v, bool user, MarshalCast *c)
{
	int			b;

	if (v->type == MT_FALSE && !user)
	{
		c->kind = MCAST_NULL;	/* false.blank? */
		return;
	}
	if (v->type == MT_TRUE && !user)
		return;		/* true.to_i raises */
	if (numeric_blank_or_bool(v, c, &b))
		return;
	if (b >= 0)
	{
		c->kind = MCAST_INT;
		c->integer = b;
		return;
	}
	if (v->type == MT_STRING && marshal_plain_ascii(v->data))
	{
		char		buf[80];
		size_t		len;

		if (marshal_string_to_i(v->data, buf, sizeof(buf), &len))
			set_text(c, MCAST_NUMBER, buf, len);
		return;
	}
	if (v->type == MT_USERDEF && marshal_class_is(v, MC_BIGDECIMAL) && v->data.len < 96)
	{
		/* BigDecimal#to_i (the postgresql adapter's numeric(p, 0)) */
		MarshalDecimal d;
		char		digits[96];
		size_t		o = 0;

		if (!marshal_decimal_load(v->data.ptr, v->data.len, digits, &d) ||
			d.kind != MDEC_FINITE || d.exp > 90)
			return;
		if (d.neg && d.exp > 0)
			c->text[o++] = '-';
		for (int64_t k = 0; k < d.exp; k++)
			c->text[o++] = (size_t) k < d.ndigits ? d.digits[k] : '0';
		if (o == 0 || (o == 1 && d.neg))
			o = 0, c->text[o++] = '0';
		c->len = o;
		c->kind = MCAST_NUMBER;
		return;
	}
	if (v->type == MT_FLOAT)
	{
		double		d;

		/* to_i truncates; NaN and infinities: nil (cast) or an error */
		if (!marshal_parse_float(v->data.ptr, v->data.len, &d))
			return;
		if (!isfinite(d))
		{
			if (user)
				c->kind = MCAST_NULL;
			return;
		}
		if (fabs(d) < 9e18)
		{
			c->kind = MCAST_INT;
			c->integer = (int64_t) trunc(d);
		}
		else if (fabs(d) < 1e100)
		{
			/* the double's exact integer (2**70 is 1180591620717411303424) */
			c->kind = MCAST_NUMBER;
			c->len = (size_t) snprintf(c->text, sizeof(c->text), "%.0f", trunc(d));
		}
	}
}

static MarshalStatus
cast_float(const MarshalNode *v, MarshalCast *c)
{
	int			b;
	double		d;

	if (numeric_blank_or_bool(v, c, &b))
		return MARSHAL_OK;
	if (b >= 0)
		d = b;
	else if (v->type == MT_FIXNUM)
		d = (double) v->ival;
	else if (v->type == MT_STRING && marshal_plain_ascii(v->data))
	{
		if (marshal_bytes_eq(v->data, "Infinity") || marshal_bytes_eq(v->data, "-Infinity") ||
			marshal_bytes_eq(v->data, "NaN"))
		{
			c->kind = MCAST_NULL;	/* as_json of a non-finite Float */
			return MARSHAL_OK;
		}
		if (!marshal_string_to_f(v->data, &d))
			return MARSHAL_OK;
	}
	else
		return MARSHAL_OK;		/* a Float stays; others are not reproduced */
	c->kind = MCAST_NUMBER;
	c->len = marshal_format_float(d, c->text);
	return MARSHAL_OK;
}

static MarshalStatus
cast_decimal(const MarshalNode *v, const RecordType *t, MarshalCast *c)
{
	MarshalDec	x;
	int			b;
	int64_t		prec = t->has_precision ? t->precision : 18;

	if (numeric_blank_or_bool(v, c, &b))
		return MARSHAL_OK;
	if (t->has_scale && (t->scale < 0 || t->scale > 40))
		return MARSHAL_OK;
	if (b >= 0 || v->type == MT_FIXNUM)
	{
		char		buf[32];
		int			n = snprintf(buf, sizeof(buf), "%lld",
								 (long long) (b >= 0 ? b : v->ival));
		bool		neg = buf[0] == '-';

		/* BigDecimal(int, precision): exact while the digits fit */
		if (n - neg > prec)
			return MARSHAL_OK;
		marshal_dec_from_parts(&x, neg, buf + neg, (size_t) (n - neg), "", 0, 0);
	}
	else if (v->type == MT_FLOAT)
	{
		double		d;

		if (!marshal_parse_float(v->data.ptr, v->data.len, &d) || !isfinite(d))
			return MARSHAL_OK;
		if (t->has_precision)
		{
			if (t->has_scale)
			{
				if (t->scale > 14)
					return MARSHAL_OK;
				d = marshal_float_round(d, (int) t->scale);
			}
			if (!marshal_dec_from_float(d, (int) (prec > 16 ? 16 : prec), &x))
				return MARSHAL_OK;
		}
		else if (!marshal_dec_from_float(d, 0, &x))
			return MARSHAL_OK;
	}
	else if (v->type == MT_STRING && marshal_plain_ascii(v->data))
	{
		if (marshal_bytes_eq(v->data, "NaN") || marshal_bytes_eq(v->data, "Infinity") ||
			marshal_bytes_eq(v->data, "-Infinity"))
		{
			c->kind = MCAST_NULL;	/* as_json of a BigDecimal that is not finite */
			return MARSHAL_OK;
		}
		if (!marshal_dec_from_string(v->data, &x))
			return MARSHAL_OK;
	}
	else
		return MARSHAL_OK;
	if (t->has_scale)
		marshal_dec_round(&x, t->scale);
	if (marshal_dec_format(&x, c->text, sizeof(c->text), &c->len))
		c->kind = MCAST_STRING;
	return MARSHAL_OK;
}

/* Boolean::FALSE_VALUES, compared as a Set does (eql?). */
static void
cast_boolean(const MarshalNode *v, MarshalCast *c)
{
	static const char *const false_text[] = {
		"0", "f", "F", "false", "FALSE", "off", "OFF"
	};
	bool		value = true;

	if (v->type == MT_STRING && v->data.len == 0)
	{
		c->kind = MCAST_NULL;
		return;
	}
	if (v->type == MT_FALSE || (v->type == MT_FIXNUM && v->ival == 0))
		value = false;
	else if ((v->type == MT_STRING && v->encoding != MENC_NAMED) || v->type == MT_SYMBOL)
	{
		for (size_t i = 0; i < sizeof(false_text) / sizeof(false_text[0]); i++)
			if (marshal_bytes_eq(v->data, false_text[i]))
				value = false;
	}
	else if (v->type == MT_STRING)
		return;					/* another encoding: not reproduced */
	c->kind = MCAST_BOOL;
	c->boolean = value;
}

/* the String at p (0: none) as the cast value */
static MarshalStatus
string_at(const MarshalDoc *doc, size_t p, MarshalCast *c, MarshalError *err)
{
	MarshalNode s;

	if (p == 0)
		return MARSHAL_OK;
	TRY(marshal_node(doc, p, &s, err));
	if (s.type == MT_STRING)
	{
		c->kind = MCAST_VALUE;
		c->pos = p;
	}
	return MARSHAL_OK;
}

static MarshalStatus
cast_string(const MarshalDoc *doc, const MarshalNode *v, const RecordType *t,
			MarshalCast *c, MarshalError *err)
{
	if (v->type == MT_OBJECT && v->cls.len > 6 &&
		memcmp(v->cls.ptr + v->cls.len - 6, "::Data", 6) == 0)
	{
		/* the postgresql adapter's Bit::Data and Xml::Data: their @value */
		size_t		p;

		TRY(marshal_find_ivar(doc, v->items, v->count, "@value", &p, err));
		return string_at(doc, p, c, err);
	}
	if (v->type == MT_TRUE || v->type == MT_FALSE)
		return string_at(doc, v->type == MT_TRUE ? t->true_text : t->false_text, c, err);
	if (v->type == MT_FIXNUM)
	{
		c->kind = MCAST_STRING;
		c->len = (size_t) snprintf(c->text, sizeof(c->text), "%lld", (long long) v->ival);
	}
	else if (v->type == MT_FLOAT)
	{
		double		d;

		if (marshal_parse_float(v->data.ptr, v->data.len, &d))
		{
			c->kind = MCAST_STRING;
			c->len = marshal_format_float(d, c->text);
		}
	}
	else if (v->type == MT_BIGNUM && v->data.len <= 32)
	{
		uint32_t	limbs[12];

		if (marshal_bignum_decimal(v->data.ptr, v->data.len, v->negative,
								   c->text, sizeof(c->text), &c->len, limbs))
			c->kind = MCAST_STRING;
	}
	return MARSHAL_OK;
}

/* Two digits at s (no sign). */
static bool
two(const uint8_t *s, int *v)
{
	if (!marshal_is_digit(s[0]) || !marshal_is_digit(s[1]))
		return false;
	*v = (s[0] - '0') * 10 + (s[1] - '0');
	return true;
}

/* Text without a digit: Date._parse finds no year, so Rails gives nil. */
static bool
no_digit(MarshalBytes s)
{
	for (size_t i = 0; i < s.len; i++)
		if (marshal_is_digit(s.ptr[i]))
			return false;
	return true;
}

/* "YYYY-MM-DD" at the start of s; *end after it. */
static bool
iso_date(MarshalBytes s, int64_t *y, int *m, int *d)
{
	int			hi;
	int			lo;

	if (s.len < 10 || !two(s.ptr, &hi) || !two(s.ptr + 2, &lo) ||
		s.ptr[4] != '-' || !two(s.ptr + 5, m) || s.ptr[7] != '-' ||
		!two(s.ptr + 8, d))
		return false;
	*y = hi * 100 + lo;
	return true;
}

static bool
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days(int64_t y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	return m == 2 && leap(y) ? 29 : days[m - 1];
}

static void
cast_date(const MarshalNode *v, MarshalCast *c)
{
	int64_t		y;
	int			m;
	int			d;

	if (v->type != MT_STRING || !marshal_plain_ascii(v->data))
		return;
	if (v->data.len == 0 || no_digit(v->data))
	{
		c->kind = MCAST_NULL;
		return;
	}
	if (v->data.len > 11 && (v->data.ptr[10] == ' ' || v->data.ptr[10] == 'T'))
	{
		/* a date and a time: Date._parse takes the date */
		MarshalBytes date = {v->data.ptr, 10};

		if (!iso_date(date, &y, &m, &d))
			return;
	}
	else if (v->data.len != 10 || !iso_date(v->data, &y, &m, &d))
		return;					/* Date._parse's other forms: not reproduced */
	if (m < 1 || m > 12 || d < 1 || d > month_days(y, m))
	{
		/* Date.new raises, and Date._parse reads the same fields: nil */
		c->kind = MCAST_NULL;
		return;
	}
	c->kind = MCAST_STRING;
	c->len = (size_t) snprintf(c->text, sizeof(c->text), "%04lld-%02d-%02d",
							   (long long) y, m, d);
}

/*
 * A datetime string: "YYYY-MM-DD", then optionally [T ]HH:MM, :SS, .frac
 * and Z or +HH[:MM].  zone_parse: Time.zone.parse's reading (the form path
 * of a TimeZoneConverter), else TimeValue#fast_string_to_time, whose
 * offset minutes do not take the hours' sign.
 */
static bool
parse_datetime(MarshalBytes s, bool zone_parse, MarshalInstant *t)
{
	int64_t		y;
	int			mo;
	int			d;
	int			h = 0;
	int			mi = 0;
	int			sec = 0;
	int64_t		nsec = 0;
	int64_t		offset = 0;
	size_t		i = 10;

	if (!iso_date(s, &y, &mo, &d))
		return false;
	if (i < s.len)
	{
		if ((s.ptr[i] != 'T' && s.ptr[i] != ' ') || i + 6 > s.len ||
			!two(s.ptr + i + 1, &h) || s.ptr[i + 3] != ':' || !two(s.ptr + i + 4, &mi))
			return false;
		i += 6;
		if (i < s.len && s.ptr[i] == ':')
		{
			if (i + 3 > s.len || !two(s.ptr + i + 1, &sec))
				return false;
			i += 3;
			if (i < s.len && s.ptr[i] == '.')
			{
				int64_t		scale = 100000000;

				i++;
				if (i >= s.len || !marshal_is_digit(s.ptr[i]))
					return false;
				while (i < s.len && marshal_is_digit(s.ptr[i]))
				{
					nsec += (s.ptr[i++] - '0') * scale;
					scale /= 10;
				}
			}
		}
		else if (!zone_parse)
			return false;
		if (i < s.len && s.ptr[i] == 'Z' && i + 1 == s.len)
			i++;
		else if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-'))
		{
			int			oh;
			int			om = 0;
			bool		neg = s.ptr[i] == '-';

			if (i + 3 > s.len || !two(s.ptr + i + 1, &oh))
				return false;
			i += 3;
			if (i < s.len && s.ptr[i] == ':')
				i++;
			if (i < s.len)
			{
				if (i + 2 != s.len || !two(s.ptr + i, &om))
					return false;
				i += 2;
			}
			if (zone_parse)
				offset = (neg ? -1 : 1) * (oh * 3600 + om * 60);
			else
				offset = (neg ? -oh : oh) * 3600 + om * 60;
		}
	}
	if (i != s.len)
		return false;
	/* Time.utc rolls days past the month's end over (Feb 30 is Mar 1) */
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59)
		return false;
	nsec -= nsec % 1000;		/* fast_string_to_time keeps microseconds */
	t->epoch = marshal_days_from_civil(y, mo, 1) * 86400 +
		(int64_t) (d - 1) * 86400 + h * 3600 + mi * 60 + sec - offset;
	t->nsec = nsec;
	return true;
}

static MarshalStatus
cast_datetime(const MarshalDoc *doc, const MarshalNode *v, const RecordType *t,
			  bool user, MarshalCast *c, MarshalError *err)
{
	MarshalInstant at;

	if (v->type == MT_STRING)
	{
		if (!marshal_plain_ascii(v->data))
			return MARSHAL_OK;
		if (v->data.len == 0 || no_digit(v->data))
		{
			c->kind = MCAST_NULL;
			return MARSHAL_OK;
		}
		if (!parse_datetime(v->data, t->tz && user, &at) &&
			!parse_datetime(v->data, true, &at))
			return MARSHAL_OK;
	}
	else
	{
		bool		ok;

		/* a Time (or TimeWithZone) keeps its zone unless converted */
		if (!t->tz && t->kind != TK_DATETIME_UTC)
			return MARSHAL_OK;
		TRY(marshal_instant(doc, v->pos, &at, &ok, err));
		if (!ok)
			return MARSHAL_OK;
	}
	if (t->has_precision && t->precision >= 0 && t->precision < 9)
	{
		int64_t		p = 1;

		for (int64_t k = 0; k < 9 - t->precision; k++)
			p *= 10;
		at.nsec -= at.nsec % p;
	}
	c->kind = MCAST_TIME;
	c->time = at;
	return MARSHAL_OK;
}

/*
 * Type::Time: the text's date (if any) replaced by 2000-01-01, then
 * HH:MM[:SS[.frac]] as a UTC Time, @precision applied.  Other forms and
 * non-String values are left as they are.
 */
static void
cast_time(const MarshalNode *v, const RecordType *t, MarshalCast *c)
{
	const uint8_t *s = v->data.ptr;
	size_t		n = v->data.len;
	size_t		i = 0;
	int64_t		f[3] = {0, 0, 0};
	int64_t		nsec = 0;

	if (v->type != MT_STRING || !marshal_plain_ascii(v->data))
		return;
	if (n == 0)
	{
		c->kind = MCAST_NULL;
		return;
	}
	if (n > 11 && s[4] == '-' && s[7] == '-' && (s[10] == ' ' || s[10] == 'T'))
		i = 11;
	for (int k = 0; k < 3; k++)
	{
		size_t		start = i;

		if (k > 0)
		{
			if (i >= n || s[i] != ':')
				break;
			start = ++i;
		}
		while (i < n && marshal_is_digit(s[i]) && i - start < 2)
			f[k] = f[k] * 10 + (s[i++] - '0');
		if (i - start != 2)
			return;
	}
	if (i < n && s[i] == '.')
	{
		int			digits = 0;

		for (i++; i < n && marshal_is_digit(s[i]); i++, digits++)
			if (digits < 9)
				nsec = nsec * 10 + (s[i] - '0');
		for (; digits < 9; digits++)
			nsec *= 10;
	}
	if (i != n || f[0] > 23 || f[1] > 59 || f[2] > 59)
		return;
	if (t->has_precision && t->precision >= 0 && t->precision < 9)
	{
		int64_t		p = 1;

		for (int64_t k = 0; k < 9 - t->precision; k++)
			p *= 10;
		nsec -= nsec % p;
	}
	c->kind = MCAST_TIME;
	c->time.epoch = INT64_C(946684800) + f[0] * 3600 + f[1] * 60 + f[2];
	c->time.nsec = nsec;
}

/*
 * OID::Interval: ActiveSupport::Duration.parse of ISO 8601 text
 * (P1Y2M3DT4H5M6.789S; a unit's number may be negative or have a fraction);
 * as_json is to_i of its seconds (a year 31556952 s, a month 2629746 s).
 */
static void
cast_interval(const MarshalNode *v, MarshalCast *c)
{
	static const struct
	{
		char		unit;
		bool		time;
		double		seconds;
	}			units[] = {
		{'Y', false, 31556952}, {'M', false, 2629746}, {'W', false, 604800},
		{'D', false, 86400}, {'H', true, 3600}, {'M', true, 60}, {'S', true, 1},
	};
	const uint8_t *s = v->data.ptr;
	size_t		n = v->data.len;
	size_t		i = 1;
	bool		time = false;
	int			next = 0;
	double		total = 0;
	bool		any = false;

	if (v->type != MT_STRING || n < 3 || s[0] != 'P' || !marshal_plain_ascii(v->data))
		return;
	while (i < n)
	{
		char		num[40];
		size_t		k = 0;
		double		x;
		int			u;

		if (s[i] == 'T' && !time)
		{
			time = true;
			i++;
			continue;
		}
		if (s[i] == '-' || s[i] == '+')
			num[k++] = (char) s[i++];
		while (i < n && k < sizeof(num) - 1 && (marshal_is_digit(s[i]) || s[i] == '.' || s[i] == ','))
			num[k++] = s[i] == ',' ? '.' : (char) s[i], i++;
		num[k] = '\0';
		if (i >= n || k == 0 || sscanf(num, "%lf", &x) != 1)
			return;
		for (u = next; u < 7; u++)
			if (units[u].unit == s[i] && units[u].time == time)
				break;
		if (u == 7)
			return;
		total += x * units[u].seconds;
		next = u + 1;
		any = true;
		i++;
	}
	if (!any || !isfinite(total) || fabs(total) > 9e18)
		return;
	c->kind = MCAST_INT;
	c->integer = (int64_t) trunc(total);
}

/*
 * OID::Money: "$1,234.56", "(1.00)", "1.234,56 €" to a decimal text as its
 * cast_value rewrites it (a comma before the last two digits is the
 * point), then the Decimal cast; any other value as it is (cast_value
 * returns what is not a String: a Float assigned stays a Float).
 */
static MarshalStatus
cast_money(const MarshalNode *v, const RecordType *t, MarshalCast *c)
{
	char		buf[100];
	size_t		n = 0;
	const uint8_t *s = v->data.ptr;
	size_t		len = v->data.len;
	bool		neg = false;
	bool		comma_point;
	MarshalNode made;

	if (v->type != MT_STRING)
	{
		c->kind = MCAST_RAW;
		return MARSHAL_OK;
	}
	if (!marshal_plain_ascii(v->data) || len + 2 >= sizeof(buf))
		return cast_decimal(v, t, c);
	if (len >= 2 && s[0] == '(' && s[len - 1] == ')')
		neg = true, s++, len -= 2;
	/* the decimal separator is the one before the last two digits */
	if (len < 3 || !marshal_is_digit(s[len - 1]) || !marshal_is_digit(s[len - 2]) ||
		(s[len - 3] != '.' && s[len - 3] != ','))
		return cast_decimal(v, t, c);
	comma_point = s[len - 3] == ',';
	if (neg)
		buf[n++] = '-';
	for (size_t i = 0; i < len; i++)
	{
		if (marshal_is_digit(s[i]) || s[i] == '-')
			buf[n++] = (char) s[i];
		else if (i == len - 3)
			buf[n++] = '.';
		else if ((s[i] == '.' && !comma_point) || (s[i] == ',' && comma_point))
			return cast_decimal(v, t, c);	/* a second point: not rewritten */
	}
	made = *v;
	made.data.ptr = (const uint8_t *) buf;
	made.data.len = n;
	return cast_decimal(&made, t, c);
}

/* OID::Uuid: 32 hex digits (with - or in {}) as lower-case 8-4-4-4-12, else nil */
static void
cast_uuid(const MarshalNode *v, MarshalCast *c)
{
	char		hex[32];
	int			nh = 0;
	size_t		i = 0;
	size_t		n = v->data.len;
	const uint8_t *s = v->data.ptr;

	if (v->type != MT_STRING)
		return;
	if (n >= 2 && s[0] == '{' && s[n - 1] == '}')
		i = 1, n--;
	for (; i < n; i++)
	{
		if (marshal_hex_digit(s[i]) >= 0 && nh < 32)
			hex[nh++] = (char) (s[i] >= 'A' && s[i] <= 'F' ? s[i] + 32 : s[i]);
		else if (s[i] != '-' || nh == 0 || nh % 4 != 0 || s[i - 1] == '-')
			nh = 99;
	}
	if (nh != 32)
	{
		c->kind = MCAST_NULL;
		return;
	}
	c->kind = MCAST_STRING;
	c->len = (size_t) snprintf(c->text, sizeof(c->text), "%.8s-%.4s-%.4s-%.4s-%.12s",
							   hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

/*
 * OID::Inet/Cidr: IPAddr.new(text).to_s, the address masked by its prefix
 * and printed without it (IPv6 as IPAddr#to_s compresses it).  Text
 * IPAddr would not read (a zone id, a netmask) is left as it is.
 */
static void
cast_inet(const MarshalNode *v, MarshalCast *c)
{
	const uint8_t *s = v->data.ptr;
	const uint8_t *slash;
	size_t		n;
	unsigned	part[4];
	int			prefix = -1;
	int			used = 0;
	char		text[64];

	if (v->type != MT_STRING || !marshal_plain_ascii(v->data) || v->data.len >= sizeof(text))
		return;
	slash = memchr(s, '/', v->data.len);
	n = slash ? (size_t) (slash - s) : v->data.len;
	if (slash)
	{
		memcpy(text, slash + 1, v->data.len - n - 1);
		text[v->data.len - n - 1] = '\0';
		if (sscanf(text, "%d%n", &prefix, &used) != 1 || used != (int) strlen(text))
			return;
	}
	memcpy(text, s, n);
	text[n] = '\0';
	if (memchr(s, ':', n) == NULL)
	{
		uint32_t	a;

		if (sscanf(text, "%u.%u.%u.%u%n", &part[0], &part[1], &part[2], &part[3], &used) != 4 ||
			used != (int) n || part[0] > 255 || part[1] > 255 || part[2] > 255 || part[3] > 255 ||
			prefix > 32)
			return;
		a = part[0] << 24 | part[1] << 16 | part[2] << 8 | part[3];
		if (prefix >= 0 && prefix < 32)
			a &= prefix == 0 ? 0 : ~(uint32_t) 0 << (32 - prefix);
		c->len = (size_t) snprintf(c->text, sizeof(c->text), "%u.%u.%u.%u",
								   a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255);
	}
	else
	{
		uint8_t		a[16];
		unsigned	g[8];

		if (prefix > 128 || inet_pton(AF_INET6, text, a) != 1)
			return;
		for (int i = 0; i < 16; i++)
			if (prefix >= 0 && i * 8 + 8 > prefix)
				a[i] &= i * 8 >= prefix ? 0 : (uint8_t) (0xff << (8 - (prefix - i * 8)));
		for (int i = 0; i < 8; i++)
			g[i] = (unsigned) a[2 * i] << 8 | a[2 * i + 1];
		c->len = marshal_ipv6_to_s(g, false, c->text, sizeof(c->text));
	}
	c->kind = MCAST_STRING;
}

/* PostgreSQL's hex bytea text: "\\x" and pairs of hex digits */
static bool
bytea_hex(MarshalBytes b)
{
	if (b.len < 2 || b.ptr[0] != '\\' || b.ptr[1] != 'x' || b.len % 2 != 0)
		return false;
	for (size_t i = 2; i < b.len; i++)
		if (marshal_hex_digit(b.ptr[i]) < 0)
			return false;
	return true;
}

/* The bytes of a String, or of a Binary::Data's @value; false if neither. */
static MarshalStatus
byte_string(const MarshalDoc *doc, const MarshalNode *v, MarshalBytes *b,
			size_t *pos, bool *ok, MarshalError *err)
{
	*ok = false;
	if (v->type == MT_STRING)
	{
		*b = v->data;
		*pos = v->pos;
		*ok = true;
	}
	else if (marshal_class_is(v, MC_BINARY_DATA))
	{
		size_t		p;
		MarshalNode s;

		TRY(marshal_find_ivar(doc, v->items, v->count, "@value", &p, err));
		if (p == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, p, &s, err));
		if (s.type != MT_STRING)
			return MARSHAL_OK;
		*b = s.data;
		*pos = p;
		*ok = true;
	}
	return MARSHAL_OK;
}

/*
 * The JSON of a new instance of serialize's class, for the classes whose
 * new instance the name decides; any other class is a plain object, which
 * Ruby gives no ivars until its initialize sets some (the bytes cannot
 * say).
 */
const char *
marshal_new_instance_json(MarshalBytes cls)
{
	if (cls.len == 0)
		return "null";
	if (marshal_bytes_eq(cls, "Array") || marshal_bytes_eq(cls, "Set"))
		return "[]";
	if (marshal_bytes_eq(cls, "String") || marshal_bytes_eq(cls, "ActiveSupport::SafeBuffer"))
		return "\"\"";
	if (marshal_bytes_eq(cls, "OpenStruct"))
		return "{\"table\": {}}";
	return "{}";
}

static void
new_instance(const RecordType *t, MarshalCast *c)
{
	const char *json = t->serial.store ? "{}" :
		marshal_new_instance_json(t->serial.object_class);

	c->kind = MCAST_JSON;
	c->bytes.ptr = (const uint8_t *) json;
	c->bytes.len = strlen(json);
}

/* JSON text that is null (Coders::JSON loads it as nil) */
static bool
json_null(MarshalBytes b)
{
	size_t		i = 0;
	size_t		n = b.len;

	while (i < n && marshal_is_space(b.ptr[i]))
		i++;
	while (n > i && marshal_is_space(b.ptr[n - 1]))
		n--;
	return n - i == 4 && memcmp(b.ptr + i, "null", 4) == 0;
}

MarshalStatus
marshal_yaml_column_check(const MarshalDoc *doc, MarshalBytes object_class,
						  bool *ok, bool *is_nil, MarshalError *err)
{
	MarshalNode n;
	MarshalBytes name;

	TRY(marshal_node(doc, MARSHAL_ROOT, &n, err));
	*is_nil = n.type == MT_NIL;
	*ok = true;
	if (object_class.len == 0 || *is_nil)
		return MARSHAL_OK;
	/* object_class === value: a Hash subclass is a Hash, and so on */
	if (marshal_bytes_eq(object_class, "Hash"))
		*ok = n.type == MT_HASH || n.type == MT_HASH_DEF;
	else if (marshal_bytes_eq(object_class, "Array"))
		*ok = n.type == MT_ARRAY;
	else if (marshal_bytes_eq(object_class, "String"))
		*ok = n.type == MT_STRING;
	else
	{
		name = marshal_class_name(&n);
		*ok = name.len == object_class.len && memcmp(name.ptr, object_class.ptr, name.len) == 0;
	}
	return MARSHAL_OK;
}

/* v (at its pos, or a made node) cast or deserialized by the type t */
static MarshalStatus
cast_by_type(const MarshalDoc *doc, const RecordType *tp, const MarshalNode *vp,
			 bool user, size_t at, MarshalCast *c, MarshalError *err)
{
	RecordType	t = *tp;
	MarshalNode v = *vp;

	if (v.type == MT_NIL)
	{
		if ((t.kind == TK_SERIAL_YAML || t.kind == TK_SERIAL_JSON || t.kind == TK_SERIAL_CODER) &&
			(t.serial.object_class.len > 0 || t.serial.store))
			new_instance(&t, c);	/* ColumnSerializer#load(nil), a store's {} */
		else
			c->kind = MCAST_NULL;
		return MARSHAL_OK;
	}
	switch (t.kind)
	{
		case TK_ARRAY:
			if (v.type == MT_STRUCT && v.cls.len > 13 &&
				memcmp(v.cls.ptr + v.cls.len - 13, "::Array::Data", 13) == 0)
			{
				/* after save: the Struct OID::Array::Data, values the Ruby elements */
				TRY(marshal_find_ivar(doc, v.items, v.count, "values", &at, err));
				if (at == 0)
					return MARSHAL_OK;
				TRY(marshal_node(doc, at, &v, err));
			}
			if ((v.type != MT_STRING || !marshal_utf8_valid(v.data.ptr, v.data.len, false)) &&
				v.type != MT_ARRAY)
				return MARSHAL_OK;
			c->kind = MCAST_PG_ARRAY;
			c->bytes = v.type == MT_STRING ? v.data : (MarshalBytes) {NULL, 0};
			c->pos = v.type == MT_ARRAY ? at : 0;
			c->subtype = t.subtype;
			c->delim = t.delim;
			c->user = user;
			return MARSHAL_OK;
		case TK_RANGE:
			if (v.type == MT_STRING && marshal_utf8_valid(v.data.ptr, v.data.len, false))
			{
				c->kind = MCAST_PG_RANGE;
				c->bytes = v.data;
				c->subtype = t.subtype;
			}
			return MARSHAL_OK;
		case TK_MONEY:
			return cast_money(&v, &t, c);
		case TK_POINT:
			if (v.type == MT_STRING && v.data.len >= 2 && v.data.ptr[0] == '(' &&
				v.data.ptr[v.data.len - 1] == ')' && marshal_plain_ascii(v.data))
			{
				c->kind = MCAST_POINT;
				c->bytes = v.data;
			}
			return MARSHAL_OK;
		case TK_HSTORE:
			if (v.type == MT_STRING && marshal_utf8_valid(v.data.ptr, v.data.len, false))
			{
				c->kind = MCAST_HSTORE;
				c->bytes = v.data;
			}
			return MARSHAL_OK;
		case TK_INTERVAL:
			cast_interval(&v, c);
			return MARSHAL_OK;
		case TK_INTEGER:
			cast_integer(&v, user, c);
			return MARSHAL_OK;
		case TK_FLOAT:
			return cast_float(&v, c);
		case TK_DECIMAL:
			return cast_decimal(&v, &t, c);
		case TK_BOOLEAN:
			cast_boolean(&v, c);
			return MARSHAL_OK;
		case TK_STRING:
			return cast_string(doc, &v, &t, c, err);
		case TK_DATE:
			cast_date(&v, c);
			return MARSHAL_OK;
		case TK_DATETIME:
		case TK_DATETIME_UTC:
			return cast_datetime(doc, &v, &t, user, c, err);
		case TK_TIME:
			cast_time(&v, &t, c);
			return MARSHAL_OK;
		case TK_UUID:
			cast_uuid(&v, c);
			return MARSHAL_OK;
		case TK_INET:
			cast_inet(&v, c);
			return MARSHAL_OK;
		case TK_BINARY:
		case TK_JSON:
		case TK_SERIAL_JSON:
		case TK_SERIAL_YAML:
		case TK_SERIAL_CODER:
			{
				MarshalBytes b;
				size_t		p;
				bool		ok;

				TRY(byte_string(doc, &v, &b, &p, &ok, err));
				if (!ok)
					return MARSHAL_OK;
				if (t.bytea && p == at && !user && bytea_hex(b))
				{
					/* the adapter's escaped text: PG::Connection.unescape_bytea */
					c->kind = MCAST_BYTEA;
					c->bytes.ptr = b.ptr + 2;
					c->bytes.len = b.len - 2;
					c->nested = t.kind == TK_SERIAL_CODER;
					if (c->nested && (b.len < 6 || memcmp(b.ptr + 2, "0408", 4) != 0))
						c->kind = MCAST_RAW;
					return MARSHAL_OK;
				}
				if (t.kind == TK_BINARY)
				{
					if (p != at)
					{
						c->kind = MCAST_VALUE;
						c->pos = p;
					}
					return MARSHAL_OK;
				}
				/* a form's value is cast by dumping and loading it: itself */
				if (user)
					return MARSHAL_OK;
				if (t.kind == TK_SERIAL_CODER)
				{
					if (b.len >= 2 && b.ptr[0] == 4 && b.ptr[1] == 8)
					{
						c->kind = MCAST_MARSHAL;
						c->bytes = b;
					}
					return MARSHAL_OK;
				}
				if (t.kind == TK_SERIAL_YAML)
				{
					/*
					 * 7.2 loads any text (6.1 kept text not starting "---"
					 * as it was)
					 */
					c->kind = MCAST_YAML;
					c->yaml = t.serial;
					c->yaml.text = b;
					return MARSHAL_OK;
				}
				if (t.kind == TK_SERIAL_JSON && marshal_plain_ascii(b) &&
					(marshal_blank(b) || json_null(b)))
				{
					/* Coders::JSON: blank is nil; then the class's new instance */
					if (t.serial.object_class.len > 0 || t.serial.store)
						new_instance(&t, c);
					else
						c->kind = MCAST_NULL;
					return MARSHAL_OK;
				}
				c->kind = MCAST_JSON;
				c->bytes = b;
				c->yaml.store = t.serial.store;
				/* Type::Json gives nil for bad JSON; Coders::JSON raises */
				c->json_invalid_null = t.kind == TK_JSON;
				return MARSHAL_OK;
			}
		default:
			return MARSHAL_OK;
	}
}

/*
 * A 7.1-format value for the database, loaded by the schema's type: where
 * the value's class names the type.  Binary::Data is a binary column's
 * String; OID::Array::Data's encoder names the elements' type.  Other
 * values (json, hstore, point, interval, inet text ...) are Strings a
 * string column could hold as well: left as they are.
 */
static MarshalStatus
cast_untyped(const MarshalDoc *doc, size_t at, MarshalCast *c, MarshalError *err)
{
	MarshalNode v;
	size_t		p;

	TRY(marshal_node(doc, at, &v, err));
	if (v.type == MT_OBJECT && v.cls.len >= 22 && memcmp(v.cls.ptr, "ActiveModel::Attribute", 22) == 0)
	{
		c->kind = MCAST_NULL;	/* to_yaml left out a nil value_before_type_cast */
		return MARSHAL_OK;
	}
	if (marshal_class_is(&v, MC_BINARY_DATA))
	{
		TRY(marshal_find_ivar(doc, v.items, v.count, "@value", &p, err));
		return string_at(doc, p, c, err);
	}
	if (v.type == MT_STRUCT && marshal_bytes_eq(v.cls, PG_OID "Array::Data"))
	{
		size_t		values;
		size_t		encoder;
		MarshalNode a;

		TRY(marshal_find_ivar(doc, v.items, v.count, "encoder", &encoder, err));
		TRY(marshal_find_ivar(doc, v.items, v.count, "values", &values, err));
		if (encoder == 0 || values == 0)
			return MARSHAL_OK;
		TRY(marshal_node(doc, values, &a, err));
		if (a.type != MT_ARRAY)
			return MARSHAL_OK;
		c->kind = MCAST_PG_ARRAY;
		c->pos = values;
		c->subtype = encoder;
		c->delim = ',';
	}
	return MARSHAL_OK;
}

MarshalStatus
marshal_record_cast(const MarshalDoc *doc, const MarshalEntry *e,
					MarshalCast *c, MarshalError *err)
{
	RecordType	t;
	MarshalNode v;

	memset(c, 0, sizeof(*c));
	c->kind = MCAST_RAW;
	if (e->cast == MARSHAL_CAST_UNTYPED)
		return cast_untyped(doc, e->value, c, err);
	if (e->cast == MARSHAL_CAST_NONE || e->type == 0)
		return MARSHAL_OK;
	TRY(marshal_record_type(doc, e->type, &t, err));
	if (t.kind == TK_NONE)
		return MARSHAL_OK;
	TRY(marshal_node(doc, e->value, &v, err));
	v.pos = e->value;
	return cast_by_type(doc, &t, &v, e->cast == MARSHAL_CAST_USER, e->value, c, err);
}

MarshalStatus
marshal_record_cast_element(const MarshalDoc *doc, size_t subtype, bool user,
							const MarshalNode *v, MarshalCast *c, MarshalError *err)
{
	RecordType	t;

	memset(c, 0, sizeof(*c));
	c->kind = MCAST_RAW;
	if (v->type == MT_ARRAY && v->pos)
	{
		/* OID::Array#type_cast_array: a nested Array's elements, the same way */
		c->kind = MCAST_PG_ARRAY;
		c->pos = v->pos;
		c->subtype = subtype;
		c->delim = ',';
		c->user = user;
		return MARSHAL_OK;
	}
	TRY(marshal_record_type(doc, subtype, &t, err));
	if (t.kind == TK_NONE)
		return MARSHAL_OK;
	return cast_by_type(doc, &t, v, user, v->pos, c, err);
}
