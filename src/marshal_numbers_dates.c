/*
 * marshal_numbers_dates.c
 *		Numbers and dates as Ruby reads and prints them.
 *
 * Float text in a stream is whatever some Ruby wrote (MRI: shortest
 * round-trip digits; Ruby 1.8: %.17g plus a binary mantissa tail), so floats
 * are parsed to doubles and printed again in Ruby's own layouts.  Calendar
 * arithmetic is proleptic and exact over int64 days.
 */
#include "marshal_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Ruby 1.8 appended binary mantissa bits after a NUL to make %.17g text
 * exact (MRI's load_mantissa reads them still): the bytes are big-endian
 * groups of 32 bits continuing the mantissa below DECIMAL_MANT = 37 bits.
 */
static double
apply_mantissa_tail(double d, const uint8_t *tail, size_t len)
{
	int			exp;
	int			shift = 0;
	double		m;
	bool		neg = d < 0;

	if (len == 0)
		return d;
	m = floor(ldexp(frexp(fabs(d), &exp), 37));
	while (len > 0)
	{
		uint32_t	chunk = 0;
		size_t		n = len < 4 ? len : 4;

		for (size_t i = 0; i < n; i++)
			chunk = chunk << 8 | tail[i];
		shift -= (int) (8 * n);
		m += ldexp((double) chunk, shift);
		tail += n;
		len -= n;
	}
	m = ldexp(m, exp - 37);
	return neg ? -m : m;
}

/*
 * Float text that is an integer of at most 15 digits ("2299161", a Date's
 * calendar reform day): exactly its double, as strtod reads it, without
 * strtod.
 */
static bool
integer_text(const uint8_t *text, size_t n, double *out)
{
	bool		neg = text[0] == '-';
	int64_t		v = 0;

	if (n == (size_t) neg)
		return false;
	for (size_t i = neg; i < n; i++)
	{
		if (text[i] < '0' || text[i] > '9')
			return false;
		v = v * 10 + (text[i] - '0');
	}
	*out = neg ? -(double) v : (double) v;
	return true;
}

bool
marshal_parse_float(const uint8_t *text, size_t len, double *out)
{
	char		buf[64];
	char	   *end;
	size_t		n = 0;

	if (len == 3 && memcmp(text, "nan", 3) == 0)
	{
		*out = NAN;
		return true;
	}
	if (len == 3 && memcmp(text, "inf", 3) == 0)
	{
		*out = INFINITY;
		return true;
	}
	if (len == 4 && memcmp(text, "-inf", 4) == 0)
	{
		*out = -INFINITY;
		return true;
	}
	/* the number part ends at a NUL or the end of the text */
	while (n < len && text[n] != '\0')
		n++;
	if (n == 0 || n >= sizeof(buf))
	{
		/* longer than any double needs: let strtod see all of it */
		char	   *big;

		if (n == 0)
			return false;
		big = malloc(n + 1);
		if (big == NULL)
			return false;
		memcpy(big, text, n);
		big[n] = '\0';
		*out = strtod(big, &end);
		free(big);
	}
	else if (n <= 15 && n + 1 >= len && integer_text(text, n, out))
		return true;
	else
	{
		memcpy(buf, text, n);
		buf[n] = '\0';
		*out = strtod(buf, &end);
		if (end != buf + n)
			return false;
	}
	if (n + 1 < len)
		*out = apply_mantissa_tail(*out, text + n + 1, len - n - 1);
	return true;
}

/* The host's generator of the same digits, if it gave one. */
static MarshalShortestDigits host_shortest;

void
marshal_set_shortest_digits(MarshalShortestDigits fn)
{
	host_shortest = fn;
}

int
marshal_shortest_digits(double d, char *digits, int *decpt)
{
	char		buf[40];

	if (fabs(d) < 1e15 && fabs(d) >= 1 && d == floor(d))
	{
		/* an integer: its digits (no shorter decimal is within 0.5 of it) */
		int64_t		v = (int64_t) fabs(d);
		int			nd = 0;
		char		rev[20];

		while (v > 0)
		{
			rev[nd++] = (char) ('0' + v % 10);
			v /= 10;
		}
		*decpt = nd;
		for (int i = 0; i < nd; i++)
			digits[i] = rev[nd - 1 - i];
		while (nd > 1 && digits[nd - 1] == '0')
			nd--;
		digits[nd] = '\0';
		return nd;
	}
	if (host_shortest != NULL && fabs(d) >= DBL_MIN && isfinite(d))
	{
		int			nd = host_shortest(fabs(d), digits, decpt);

		if (nd > 0)
			return nd;
	}

	/*
	 * The fewest significant digits that read back as the same double.  A
	 * normal double is within 2^-53 of its value, far less than half the
	 * spacing of 15-digit decimals: any decimal of 15 digits or fewer that
	 * reads back as d is d rounded to 15 digits, trailing zeros dropped.  So
	 * 15 digits, else 16, else 17 (at most three tries, usually one).  A
	 * subnormal has fewer bits, and many short decimals read back as it:
	 * search from one digit up.
	 */
	for (int prec = fabs(d) >= DBL_MIN ? 15 : 1; prec <= 17; prec++)
	{
		char	   *e;
		int			nd = 0;

		snprintf(buf, sizeof(buf), "%.*e", prec - 1, fabs(d));
		if (prec < 17 && strtod(buf, NULL) != fabs(d))
			continue;
		/* buf is "d.ddde[+-]xx": collect digits, then the exponent */
		for (char *p = buf; *p && *p != 'e'; p++)
			if (*p >= '0' && *p <= '9')
				digits[nd++] = *p;
		e = strchr(buf, 'e');
		*decpt = atoi(e + 1) + 1;
		/* drop trailing zeros (e.g. 1e+20 printed at precision 1 is "1") */
		while (nd > 1 && digits[nd - 1] == '0')
			nd--;
		digits[nd] = '\0';
		return nd;
	}
	return 0;					/* not reached */
}

size_t
marshal_format_float(double d, char *out)
{
	char		digits[20];
	int			decpt;
	int			nd;
	char	   *p = out;

	if (isnan(d))
		return (size_t) sprintf(out, "NaN");
	if (isinf(d))
		return (size_t) sprintf(out, d < 0 ? "-Infinity" : "Infinity");
	if (signbit(d))
		*p++ = '-';
	if (d == 0)
	{
		strcpy(p, "0.0");
		return (size_t) (p - out) + 3;
	}
	nd = marshal_shortest_digits(d, digits, &decpt);
	return (size_t) (p - out) + marshal_format_digits(digits, nd, decpt, p);
}

size_t
marshal_format_digits(const char *digits, int nd, int decpt, char *out)
{
	char	   *p = out;

	if (decpt > 0 && decpt <= DBL_DIG)
	{
		/* 123.45, 1.0, 1200.0 */
		for (int i = 0; i < decpt; i++)
			*p++ = i < nd ? digits[i] : '0';
		*p++ = '.';
		if (decpt >= nd)
			*p++ = '0';
		for (int i = decpt; i < nd; i++)
			*p++ = digits[i];
	}
	else if (decpt <= 0 && decpt > -4)
	{
		/* 0.001 */
		*p++ = '0';
		*p++ = '.';
		for (int i = 0; i < -decpt; i++)
			*p++ = '0';
		for (int i = 0; i < nd; i++)
			*p++ = digits[i];
	}
	else
	{
		/* 1.0e+20, 1.5e-05 */
		*p++ = digits[0];
		*p++ = '.';
		if (nd == 1)
			*p++ = '0';
		for (int i = 1; i < nd; i++)
			*p++ = digits[i];
		p += sprintf(p, "e%+03d", decpt - 1);
	}
	*p = '\0';
	return (size_t) (p - out);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
int64_t
marshal_days_from_civil(int64_t y, int m, int d)
{
	int64_t		era;
	int64_t		yoe;
	int64_t		doy;
	int64_t		doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void
marshal_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t		era;
	int64_t		doe;
	int64_t		yoe;
	int64_t		doy;
	int64_t		mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

void
marshal_civil_from_epoch(int64_t secs, MarshalTimeParts *parts)
{
	int64_t		days = marshal_floor_div(secs, 86400);
	int64_t		s = secs - days * 86400;

	marshal_civil_from_days(days, &parts->year, &parts->month, &parts->day);
	parts->hour = (int) (s / 3600);
	parts->minute = (int) (s / 60 % 60);
	parts->second = (int) (s % 60);
}

/* A Julian Day Number in the Julian calendar (for dates before the reform). */
void
marshal_julian_from_jd(int64_t jd, int64_t *y, int *m, int *d)
{
	int64_t		c = jd + 32082;
	int64_t		dd = (4 * c + 3) / 1461;
	int64_t		e = c - (1461 * dd) / 4;
	int64_t		mm = (5 * e + 2) / 153;

	if (c < 0)
	{
		/* shift by whole 4-year cycles so the divisions stay non-negative */
		int64_t		cycles = (-c) / 1461 + 1;

		marshal_julian_from_jd(jd + cycles * 1461, y, m, d);
		*y -= cycles * 4;
		return;
	}
	*d = (int) (e - (153 * mm + 2) / 5 + 1);
	*m = (int) (mm + 3 - 12 * (mm / 10));
	*y = dd - 4800 + mm / 10;
}

/* "%Y" as Ruby's strftime prints it: at least 4 digits, sign if negative. */
size_t
marshal_format_year(int64_t y, char *out)
{
	if (y >= 0 && y <= 9999)
	{
		marshal_put_digits(out, y, 4);
		out[4] = '\0';
		return 4;
	}
	if (y < 0)
		return (size_t) sprintf(out, "-%04lld", (long long) -y);
	return (size_t) sprintf(out, "%04lld", (long long) y);
}

bool
marshal_bignum_decimal(const uint8_t *mag, size_t len, bool negative,
					   char *out, size_t size, size_t *outlen,
					   uint32_t *limbs)
{
	size_t		nlimbs = (len + 3) / 4;
	size_t		top;
	size_t		nd = 0;

	/* 2.41 digits per byte, a sign and a NUL */
	if (len * 3 + 3 > size)
		return false;
	memset(limbs, 0, nlimbs * sizeof(uint32_t));
	for (size_t i = 0; i < len; i++)
		limbs[i / 4] |= (uint32_t) mag[i] << (8 * (i % 4));
	top = nlimbs;
	while (top > 0 && limbs[top - 1] == 0)
		top--;
	while (top > 0)
	{
		uint64_t	rem = 0;

		for (size_t i = top; i-- > 0;)
		{
			uint64_t	cur = rem << 32 | limbs[i];

			limbs[i] = (uint32_t) (cur / 1000000000u);
			rem = cur % 1000000000u;
		}
		while (top > 0 && limbs[top - 1] == 0)
			top--;
		for (int k = 0; k < 9 && (top > 0 || rem > 0); k++)
		{
			out[nd++] = (char) ('0' + rem % 10);
			rem /= 10;
		}
	}
	if (nd == 0)
		out[nd++] = '0';
	if (negative && !(nd == 1 && out[0] == '0'))
		out[nd++] = '-';
	for (size_t i = 0; i < nd / 2; i++)
	{
		char		t = out[i];

		out[i] = out[nd - 1 - i];
		out[nd - 1 - i] = t;
	}
	out[nd] = '\0';
	*outlen = nd;
	return true;
}

