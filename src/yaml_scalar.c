/*
 * yaml_scalar.c
 *		Plain scalars as Psych 4's ScalarScanner#tokenize reads them, and
 *		the numbers and times of the scalar tags.
 *
 * Each rule follows scalar_scanner.rb in order.  Its regular expressions
 * use Ruby's ^ and $, which match at every line: a scalar with a line
 * break is tested line by line where that changes the answer ("o\nno" is
 * false).  Times follow parse_time (Time.utc, Time.at, Time.new with an
 * offset; a time without an offset is read in UTC, as a process with
 * TZ=UTC), dates Date.strptime in the Julian/Gregorian calendar of
 * Date::ITALY.  What Ruby refuses with ArgumentError stays a String, as
 * there; what raises anything else is an error, as loading fails there.
 * Last, the names !ruby/encoding finds.
 */
#include "yaml_internal.h"
#include "marshal_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IS_DIGIT(c) ((c) >= '0' && (c) <= '9')

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* [[:alpha:]_\s!@#$%\^&*(){}<>|/\\~;=]: bytes over 0x7f count as letters */
static bool
is_word_class(uint8_t c)
{
	if (c >= 0x80)
		return true;
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return strchr("_ \t\n\v\f\r!@#$%^&*(){}<>|/\\~;=", c) != NULL && c != '\0';
}

/* ^[^\d.:-]?[class]+ at one line start */
static bool
word_at(const char *s, size_t len, size_t p)
{
	uint8_t		c = (uint8_t) s[p];
	size_t		next;

	if (is_word_class(c))
		return true;
	if (IS_DIGIT(c) || c == '.' || c == ':' || c == '-')
		return false;
	/* one character, then one of the class */
	next = p + 1;
	if (c >= 0x80)
		while (next < len && ((uint8_t) s[next] & 0xC0) == 0x80)
			next++;
	return next < len && is_word_class((uint8_t) s[next]);
}

/*
 * Does s[p..end) equal word under Ruby's /i?  It folds by Unicode: U+017F
 * (long s) matches "s" and U+FB00 (the ligature ff) "ff"; no other
 * character folds to letters of the null and boolean words.
 */
static bool
word_eq(const char *s, size_t p, size_t end, const char *word)
{
	for (; *word; word++)
	{
		if (p < end && lower((uint8_t) s[p]) == *word)
			p++;
		else if (*word == 's' && end - p >= 2 && memcmp(s + p, "\xC5\xBF", 2) == 0)
			p += 2;
		else if (*word == 'f' && word[1] == 'f' && end - p >= 3 &&
				 memcmp(s + p, "\xEF\xAC\x80", 3) == 0)
			p += 3, word++;
		else
			return false;
	}
	return p == end;
}

/* Does a line of s equal word, ignoring case (^word$ with /i)? */
static bool
line_is(const char *s, size_t len, const char *word)
{
	for (size_t p = 0; p <= len;)
	{
		const char *nl = memchr(s + p, '\n', len - p);
		size_t		end = nl ? (size_t) (nl - s) : len;

		if (word_eq(s, p, end, word))
			return true;
		if (!nl)
			break;
		p = end + 1;
	}
	return false;
}

static size_t
utf8_length(const char *s, size_t len)
{
	size_t		n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((uint8_t) s[i] & 0xC0) != 0x80;
	return n;
}

/* The first branch of tokenize: words, null, booleans (else a String). */
static YTokenKind
word_kind(const char *s, size_t len)
{
	/* /^[^ytonf~]/i at any line start */
	for (size_t p = 0; p < len; p++)
		if (p == 0 || s[p - 1] == '\n')
		{
			if (!strchr("ytonfYTONF~", s[p]) || s[p] == '\0')
				return YT_STRING;
		}
	if (utf8_length(s, len) > 5)
		return YT_STRING;
	if ((len == 1 && s[0] == '~') || line_is(s, len, "null"))
		return YT_NIL;
	if (line_is(s, len, "yes") || line_is(s, len, "true") || line_is(s, len, "on"))
		return YT_TRUE;
	if (line_is(s, len, "no") || line_is(s, len, "false") || line_is(s, len, "off"))
		return YT_FALSE;
	return YT_STRING;
}

/* --- integers ------------------------------------------------------------ */

/* An Integer from digits (no sign, no separators) in base 2, 8, 10, 16. */
RVal *
yr_int_from_digits(YState *st, bool neg, const char *d, size_t n, int base)
{
	RVal	   *v;
	uint64_t	x = 0;
	size_t		i = 0;

	while (n > 1 && d[0] == '0')
		d++, n--;
	for (; i < n; i++)
	{
		int			dv = IS_DIGIT(d[i]) ? d[i] - '0' : lower((uint8_t) d[i]) - 'a' + 10;

		if (x > (UINT64_MAX - (uint64_t) dv) / (uint64_t) base)
			break;
		x = x * (uint64_t) base + (uint64_t) dv;
	}
	if (i == n && x <= (uint64_t) INT64_MAX)
	{
		v = yr_new(st, RV_INT);
		v->ival = neg ? -(int64_t) x : (int64_t) x;
		return v;
	}
	if (st->opts->max_digits && n > st->opts->max_digits)
		yr_fail(st, MARSHAL_ERR_LIMIT, 0, 0, 0, "an Integer of more than %zu digits",
				st->opts->max_digits);
	v = yr_new(st, RV_BIGINT);
	v->ival = base;
	v->enc = neg;				/* the sign */
	v->str = d;
	v->len = n;
	return v;
}

RVal *
yr_int_from_text(YState *st, const char *s, size_t len)
{
	bool		neg = len > 0 && s[0] == '-';
	size_t		i = len > 0 && (s[0] == '-' || s[0] == '+');

	return yr_int_from_digits(st, neg, s + i, len - i, 10);
}

/*
 * Integer(string.gsub(/[,_]/, '')) for a string INTEGER matched: NULL when
 * Integer() raises ("0b_").
 */
static RVal *
parse_int(YState *st, const char *s, size_t len)
{
	char	   *clean = yr_alloc(st, len + 1);
	size_t		n = 0;
	size_t		i = 0;
	bool		neg = false;
	int			base = 10;

	for (size_t k = 0; k < len; k++)
		if (s[k] != ',' && s[k] != '_')
			clean[n++] = s[k];
	if (i < n && (clean[i] == '-' || clean[i] == '+'))
		neg = clean[i++] == '-';
	if (n - i >= 2 && clean[i] == '0' && (lower((uint8_t) clean[i + 1]) == 'x' ||
										  lower((uint8_t) clean[i + 1]) == 'b'))
	{
		base = lower((uint8_t) clean[i + 1]) == 'x' ? 16 : 2;
		i += 2;
		if (i == n)
			return NULL;
	}
	else if (n - i >= 2 && clean[i] == '0')
	{
		base = 8;
		i++;
	}
	return yr_int_from_digits(st, neg, clean + i, n - i, base);
}

/* The INTEGER expression of scalar_scanner.rb. */
static bool
match_integer(const char *s, size_t len)
{
	size_t		i = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i >= len)
		return false;
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'x'))
	{
		bool		hex = s[i + 1] == 'x';

		for (i += 2; i < len; i++)
			if (!(s[i] == '_' || s[i] == ',' || s[i] == '0' || s[i] == '1' ||
				  (hex && (IS_DIGIT(s[i]) || (lower((uint8_t) s[i]) >= 'a' &&
											  lower((uint8_t) s[i]) <= 'f')))))
				return false;
		return true;
	}
	if (s[i] == '0')
	{
		if (i + 1 == len)
			return true;
		for (i++; i < len; i++)
			if (!((s[i] >= '0' && s[i] <= '7') || s[i] == '_' || s[i] == ','))
				return false;
		return true;
	}
	if (s[i] < '1' || s[i] > '9')
		return false;
	for (i++; i < len; i++)
	{
		if (IS_DIGIT(s[i]))
			continue;
		if ((s[i] == ',' || s[i] == '_') && i + 1 < len && IS_DIGIT(s[i + 1]))
		{
			i++;
			continue;
		}
		return false;
	}
	return true;
}

/* --- floats ---------------------------------------------------------------- */

/*
 * Ruby's Float(string) for what the FLOAT rule leaves after its gsub:
 * [sign] digits? [. digits] [e sign digits]; false where Float() raises.
 */
bool
yr_ruby_float(const char *s, size_t len, double *out)
{
	char		buf[512];
	size_t		i = 0;
	size_t		nd = 0;
	char	   *end;

	if (len >= sizeof(buf))
		return false;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	while (i < len && IS_DIGIT(s[i]))
		i++, nd++;
	if (i < len && s[i] == '.')
	{
		size_t		f = 0;

		for (i++; i < len && IS_DIGIT(s[i]); i++)
			f++;
		if (f == 0)
			return false;
		nd += f;
	}
	if (nd == 0)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		size_t		e = 0;

		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		for (; i < len && IS_DIGIT(s[i]); i++)
			e++;
		if (e == 0)
			return false;
	}
	if (i != len)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return true;
}

RVal *
yr_float(YState *st, double d)
{
	RVal	   *v;

	/*
	 * Float::NAN is one object; an infinity computed (Float("1e400"),
	 * -Float::INFINITY) is a new one each time, as any Float outside the
	 * flonum range is: yr_dump links it only where it is the same object.
	 */
	if (isnan(d))
		return st->nan;
	v = yr_new(st, RV_FLOAT);
	v->dval = d;
	return v;
}

static bool
match_float(const char *s, size_t len)
{
	size_t		i = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i < len && IS_DIGIT(s[i]))
		for (i++; i < len && (IS_DIGIT(s[i]) || s[i] == '_' || s[i] == ','); i++)
			;
	if (i >= len || s[i] != '.')
		return false;
	for (i++; i < len && IS_DIGIT(s[i]); i++)
		;
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		i++;
		if (i >= len || (s[i] != '-' && s[i] != '+'))
			return false;
		i++;
		if (i >= len || !IS_DIGIT(s[i]))
			return false;
		while (i < len && IS_DIGIT(s[i]))
			i++;
	}
	return i == len;
}

/* Float(string.gsub(/[,_]|\.([Ee]|$)/, '\1')) */
static RVal *
parse_float(YState *st, const YNode *n, const char *s, size_t len)
{
	char	   *clean = yr_alloc(st, len + 1);
	size_t		k = 0;
	double		d;

	for (size_t i = 0; i < len; i++)
	{
		if (s[i] == ',' || s[i] == '_')
			continue;
		if (s[i] == '.' && (i + 1 == len || s[i + 1] == 'e' || s[i + 1] == 'E'))
			continue;
		clean[k++] = s[i];
	}
	if (!yr_ruby_float(clean, k, &d))
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					 "invalid value for Float(): \"%.*s\"", (int) (k > 60 ? 60 : k), clean);
	return yr_float(st, d);
}

/*
 * String#to_i of one sexagesimal part: sign, digits, single underscores
 * between digits, stopping at anything else.  The digits go to out (no
 * leading zeros); returns their count.
 */
static size_t
ruby_to_i(const char *s, size_t len, bool *neg, char *out)
{
	size_t		i = 0;
	size_t		n = 0;

	*neg = false;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		*neg = s[i++] == '-';
	for (; i < len; i++)
	{
		if (IS_DIGIT(s[i]))
		{
			if (n > 0 || s[i] != '0')
				out[n++] = s[i];
		}
		else if (!(s[i] == '_' && i > 0 && IS_DIGIT(s[i - 1]) && i + 1 < len && IS_DIGIT(s[i + 1])))
			break;
	}
	return n;
}

/*
 * String#to_f of one sexagesimal part, as rb_cstr_to_dbl reads it: strtod,
 * and where that stops early (at an underscore) the text again without its
 * underscores, but only the first DBL_DIG * 4 = 60 characters of it (a
 * longer mantissa loses digits, and magnitude, as in Ruby).
 */
static double
ruby_to_f(YState *st, const char *s, size_t len)
{
	char	   *t = yr_strdup(st, s, len);
	char	   *end;
	char		buf[15 * 4 + 10];
	char	   *n = buf;
	char	   *e = buf + 15 * 4;
	char		prev = 0;
	int			dot_seen = 0;
	const char *p = t;
	double		d = strtod(t, &end);

	if (*end == '\0')
		return d;
	if (*p == '+' || *p == '-')
		prev = *n++ = *p++;
	if (*p == '0')
	{
		prev = *n++ = '0';
		while (*++p == '0')
			;
	}
	while (p < end && n < e)
		prev = *n++ = *p++;
	while (*p)
	{
		/* an underscore between digits goes; anything else ends it */
		if (*p == '_')
		{
			if (n == buf || !IS_DIGIT(prev) || (++p, !IS_DIGIT(*p)))
				break;
		}
		prev = *p++;
		if (prev == '.' ? dot_seen++ : !IS_DIGIT(prev))
			break;
		if (n < e)
			*n++ = prev;
	}
	*n = '\0';
	return strtod(buf, NULL);
}

/*
 * ^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$ and the same with \.[0-9_]* after:
 * 1 integer, 2 float, 0 neither.
 */
static int
match_sexagesimal(const char *s, size_t len)
{
	size_t		i = 0;
	int			parts = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i >= len || !IS_DIGIT(s[i]))
		return 0;
	while (i < len && (IS_DIGIT(s[i]) || s[i] == '_'))
		i++;
	while (i < len && s[i] == ':')
	{
		size_t		d = 0;

		for (i++; i < len && IS_DIGIT(s[i]); i++)
			d++;
		if (d == 0 || d > 2 || (d == 2 && s[i - 2] > '5'))
			return 0;
		parts++;
	}
	if (parts < 1 || parts > 2)
		return 0;
	if (i == len)
		return 1;
	if (s[i] != '.')
		return 0;
	for (i++; i < len && (IS_DIGIT(s[i]) || s[i] == '_'); i++)
		;
	return i == len ? 2 : 0;
}

static RVal *
sexagesimal(YState *st, const char *s, size_t len, bool isfloat)
{
	size_t		start[3];
	size_t		end[3];
	int			np = 0;
	char	   *first = yr_alloc(st, len + 1);
	char	   *r;
	char		part[8];
	bool		neg;
	bool		pneg;
	size_t		nd;
	size_t		rn = 0;
	uint32_t	carry = 0;
	int64_t		add = 0;

	start[0] = 0;
	for (size_t k = 0; k < len; k++)
		if (s[k] == ':')
		{
			end[np++] = k;
			start[np] = k + 1;
		}
	end[np++] = len;
	/* i += n.to_i (to_f) * 60 ** (e - 2).abs: 3600, 60, 1 (two parts: h:m) */
	if (isfloat)
	{
		double		f = 0;

		for (int e = 0; e < np; e++)
			f += ruby_to_f(st, s + start[e], end[e] - start[e]) * (e == 0 ? 3600.0 : e == 1 ? 60.0 : 1.0);
		return yr_float(st, f);
	}
	/* the later parts are 0..59 */
	for (int e = 1; e < np; e++)
	{
		size_t		pn = ruby_to_i(s + start[e], end[e] - start[e], &pneg, part);
		int64_t		x = 0;

		for (size_t k = 0; k < pn; k++)
			x = x * 10 + (part[k] - '0');
		add += x * (e == 1 ? 60 : 1);
	}
	/* the first of any size: |first| * 3600 in decimal, then -/+ the rest */
	nd = ruby_to_i(s, end[0], &neg, first);
	neg = neg && nd > 0;
	if (neg)
		add = -add;
	r = yr_alloc(st, nd + 16);
	for (size_t k = nd; k-- > 0;)
	{
		uint32_t	x = (uint32_t) (first[k] - '0') * 3600 + carry;

		r[rn++] = (char) ('0' + x % 10);
		carry = x / 10;
	}
	for (; carry; carry /= 10)
		r[rn++] = (char) ('0' + carry % 10);
	/* least significant digit first; |add| < 3600 <= the magnitude if neg */
	for (size_t k = 0; add != 0; k++)
	{
		int64_t		d = (k < rn ? r[k] - '0' : 0) + add % 10;

		add /= 10;
		if (d < 0)
			d += 10, add--;
		else if (d > 9)
			d -= 10, add++;
		if (k >= rn)
			r[rn++] = '0';
		r[k] = (char) ('0' + d);
	}
	while (rn > 0 && r[rn - 1] == '0')
		rn--;
	if (rn == 0)
		r[rn++] = '0';
	for (size_t k = 0; k < rn / 2; k++)
	{
		char		t = r[k];

		r[k] = r[rn - 1 - k];
		r[rn - 1 - k] = t;
	}
	return yr_int_from_digits(st, neg && !(rn == 1 && r[0] == '0'), r, rn, 10);
}

/* --- times and dates -------------------------------------------------------- */

static int
days_in_month(int64_t y, int m, bool julian)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool		leap = julian ? y % 4 == 0 :
		(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));

	return m == 2 && leap ? 29 : dm[m - 1];
}

/* Julian Day of a date of the Julian calendar */
static int64_t
julian_jd(int64_t y, int m, int d)
{
	int64_t		a = (14 - m) / 12;
	int64_t		yy = y + 4800 - a;
	int64_t		mm = m + 12 * a - 3;

	return d + (153 * mm + 2) / 5 + 365 * yy + (yy >= 0 ? yy / 4 : (yy - 3) / 4) - 32083;
}

/* Julian Day of a civil date in Date::ITALY's calendar; -1 if none */
static int64_t
italy_jd(int64_t y, int m, int d)
{
	if (m < 1 || m > 12 || d < 1)
		return -1;
	if (y > 1582 || (y == 1582 && (m > 10 || (m == 10 && d >= 15))))
	{
		if (d > days_in_month(y, m, false))
			return -1;
		return marshal_days_from_civil(y, m, d) + 2440588;
	}
	if (y == 1582 && m == 10 && d > 4)
		return -1;
	if (d > days_in_month(y, m, true))
		return -1;
	return julian_jd(y, m, d);
}

static int
read_num(const char *s, size_t len, size_t *i, int64_t *out, int maxdigits)
{
	int			n = 0;

	*out = 0;
	while (*i < len && IS_DIGIT(s[*i]) && (maxdigits == 0 || n < maxdigits))
	{
		if (*out < INT64_MAX / 100)
			*out = *out * 10 + (s[*i] - '0');
		(*i)++;
		n++;
	}
	return n;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The TIME expression of scalar_scanner.rb. */
static bool
match_time(const char *s, size_t len)
{
	size_t		i = 0;
	int64_t		v;

	if (i < len && s[i] == '-')
		i++;
	if (read_num(s, len, &i, &v, 0) != 4 || i >= len || s[i++] != '-')
		return false;
	if ((unsigned) (read_num(s, len, &i, &v, 0) - 1) > 1u || i >= len || s[i++] != '-')
		return false;
	if ((unsigned) (read_num(s, len, &i, &v, 0) - 1) > 1u || i >= len)
		return false;
	if (s[i] == 'T' || s[i] == 't')
		i++;
	else if (is_space(s[i]))
		while (i < len && is_space(s[i]))
			i++;
	else
		return false;
	if ((unsigned) (read_num(s, len, &i, &v, 0) - 1) > 1u || i >= len || s[i++] != ':')
		return false;
	if (read_num(s, len, &i, &v, 0) != 2 || i >= len || s[i++] != ':')
		return false;
	if (read_num(s, len, &i, &v, 0) != 2)
		return false;
	if (i < len && s[i] == '.')
		for (i++; i < len && IS_DIGIT(s[i]); i++)
			;
	while (i < len && is_space(s[i]))
		i++;
	if (i < len && s[i] == 'Z')
		i++;
	else if (i < len && (s[i] == '-' || s[i] == '+'))
	{
		i++;
		if (read_num(s, len, &i, &v, 2) < 1)
			return false;
		if (i < len && s[i] == ':')
			i++;
		if (i < len && IS_DIGIT(s[i]))
		{
			if (read_num(s, len, &i, &v, 2) != 2)
				return false;
		}
	}
	/* the regex backtracks over the spaces when nothing follows them */
	return i == len;
}

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b)
	{
		int64_t		t = a % b;

		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

/*
 * ScalarScanner#parse_time; NULL where Ruby raises ArgumentError (the
 * scalar stays a String).
 */
RVal *
yr_parse_time(YState *st, const YNode *n, const char *s, size_t len)
{
	size_t		i = 0;
	bool		yneg = false;
	int64_t		yy,
				mo,
				dd,
				hh,
				mi,
				ss;
	int64_t		nsec = 0;
	int64_t		subnum = 0;
	int64_t		subden = 1;
	bool		has_tz = false;
	bool		zulu = false;
	int64_t		offset = 0;
	int64_t		days;
	int64_t		epoch;
	size_t		k;
	RVal	   *v;
	RTime	   *t;

	/* date, time = *(string.split(/[ tT]/, 2)) */
	for (k = 0; k < len && s[k] != ' ' && s[k] != 't' && s[k] != 'T'; k++)
		;
	if (k == len)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "undefined method `match' for nil (parse_time)");
	/* date.match(/^(-?\d{4})-(\d{1,2})-(\d{1,2})/), else NoMethodError */
	if (s[i] == '-')
		yneg = true, i++;
	if (read_num(s, k, &i, &yy, 4) != 4 || i >= k || s[i++] != '-' ||
		read_num(s, k, &i, &mo, 2) < 1 || i >= k || s[i++] != '-' ||
		read_num(s, k, &i, &dd, 2) < 1)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "undefined method `captures' for nil (parse_time)");
	if (yneg)
		yy = -yy;

	/*
	 * time.match(/(\d+:\d+:\d+)(?:\.(\d*))?\s*(Z|[-+]\d+(:\d\d)?)?/): the
	 * first run of digits that starts "h:m:s", else NoMethodError
	 */
	for (i = k + 1; i < len; i++)
	{
		size_t		j = i;

		if (!IS_DIGIT(s[i]) || (i > k + 1 && IS_DIGIT(s[i - 1])))
			continue;
		while (j < len && IS_DIGIT(s[j]))
			j++;
		if (j + 1 < len && s[j] == ':' && IS_DIGIT(s[j + 1]))
		{
			for (j++; j < len && IS_DIGIT(s[j]); j++)
				;
			if (j + 1 < len && s[j] == ':' && IS_DIGIT(s[j + 1]))
				break;
		}
	}
	if (i >= len)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "undefined method `[]' for nil (parse_time)");
	read_num(s, len, &i, &hh, 0);
	i++;
	read_num(s, len, &i, &mi, 0);
	i++;
	read_num(s, len, &i, &ss, 0);
	if (i < len && s[i] == '.')
	{
		size_t		start;
		size_t		end;

		/* md[2] may be "": Rational("0.") is 0 */
		i++;
		for (start = i; i < len && IS_DIGIT(s[i]); i++)
			;
		/* trailing zeros change nothing: the rest is nanoseconds + a fraction */
		for (end = i; end > start && s[end - 1] == '0'; end--)
			;
		for (size_t d = 0; d < 9; d++)
			nsec = nsec * 10 + (start + d < end ? s[start + d] - '0' : 0);
		/* nano_num = nsec % 1000 * subden + subnum must fit 64 bits */
		if (end > start + 9 + 15)
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					   "time fraction with more than 24 significant digits");
		for (size_t d = start + 9; d < end; d++)
		{
			subnum = subnum * 10 + (s[d] - '0');
			subden *= 10;
		}
	}
	while (i < len && is_space(s[i]))
		i++;
	if (i < len && s[i] == 'Z')
		zulu = true;
	else if (i + 1 < len && (s[i] == '-' || s[i] == '+') && IS_DIGIT(s[i + 1]))
	{
		/*
		 * md[3] is [-+]\d+(:\d\d)?, then read by
		 * /^([+\-]?\d{1,2})\:?(\d{1,2})?$/: NoMethodError unless it matches
		 */
		bool		neg = s[i] == '-';
		int64_t		h,
					m = 0;
		size_t		j = i + 1;
		int			digits = 0;

		while (j + digits < len && IS_DIGIT(s[j + digits]))
			digits++;
		if (j + digits + 2 < len && s[j + digits] == ':' &&
			IS_DIGIT(s[j + digits + 1]) && IS_DIGIT(s[j + digits + 2]))
		{
			if (digits > 2)
				yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						   "undefined method `[]' for nil (parse_time's offset)");
			read_num(s, len, &j, &h, 2);
			j++;
			read_num(s, len, &j, &m, 2);
		}
		else
		{
			if (digits > 4)
				yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
						   "undefined method `[]' for nil (parse_time's offset)");
			read_num(s, len, &j, &h, 2);
			read_num(s, len, &j, &m, 2);
		}
		if (neg)
			h = -h;
		offset = h * 3600;
		offset += offset < 0 ? -m * 60 : m * 60;
		has_tz = true;
	}
	if (subnum)
	{
		int64_t		g = gcd64(subnum, subden);

		subnum /= g;
		subden /= g;
	}
	else
		subden = 1;
	/* Time.utc's and Time.new's ranges; days past a month's end roll on */
	if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 24 || mi > 59 || ss > 60 ||
		(hh == 24 && (mi || ss || nsec || subnum)))
		return NULL;
	if (has_tz && (offset <= -86400 || offset >= 86400))
		return NULL;
	days = marshal_days_from_civil(yy, (int) mo, 1);
	epoch = (days + dd - 1) * 86400 + hh * 3600 + mi * 60 + ss - offset;
	v = yr_new(st, RV_TIME);
	t = v->time = yr_alloc(st, sizeof(RTime));
	memset(t, 0, sizeof(RTime));
	t->epoch = epoch;
	t->nsec = nsec;
	t->subnum = subnum;
	t->subden = subden;
	if (zulu)
		t->utc = true;
	else if (has_tz)
		t->offset = (int32_t) offset;
	else
		t->zone = yr_string(st, "UTC", 3, MENC_USASCII);
	return v;
}

/* Time#to_datetime: U :DateTime [nth, jd, df, sf, of, sg] */
RVal *
yr_datetime(YState *st, RVal *time)
{
	RTime	   *t = time->time;
	int64_t		offset = t->utc ? 0 : t->offset;
	int64_t		local = t->epoch + offset;
	int64_t		days = (local >= 0 ? local / 86400 : -((-local + 86399) / 86400));
	int64_t		y,
				jd,
				sod;
	int			m,
				d;
	int64_t		vals[5];
	RVal	   *arr = yr_new(st, RV_ARRAY);
	RVal	   *v = yr_new(st, RV_USRMARSHAL);

	/*
	 * Time#to_datetime: the Time's local date read in Date::ITALY's
	 * calendar (c_civil_to_jd: Julian where the Gregorian day falls before
	 * 1582-10-15), then the day and second of UTC
	 */
	jd = days + 2440588;
	if (jd < 2299161)
	{
		marshal_civil_from_days(days, &y, &m, &d);
		jd = julian_jd(y, m, d);
	}
	sod = local - days * 86400 - offset;
	jd += sod >= 0 ? sod / 86400 : -((-sod + 86399) / 86400);
	sod -= (sod >= 0 ? sod / 86400 : -((-sod + 86399) / 86400)) * 86400;
	vals[0] = 0;
	vals[1] = jd;
	vals[2] = sod;
	vals[3] = t->nsec;
	vals[4] = offset;
	for (int k = 0; k < 5; k++)
	{
		RVal	   *e = yr_new(st, RV_INT);

		e->ival = vals[k];
		yr_push(st, &arr->items, e);
	}
	if (t->subnum)
		yr_fail(st, MARSHAL_ERR_UNREPRESENTABLE, 0, 0, 0,
				  "DateTime with a fraction below the nanosecond");
	yr_push(st, &arr->items, yr_float(st, 2299161.0));
	v->cls = "DateTime";
	v->data = arr;
	return v;
}

/* ^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$ */
static bool
match_date(const char *s, size_t len, int64_t *y, int64_t *m, int64_t *d)
{
	size_t		i = 0;
	int			n;

	if (read_num(s, len, &i, y, 0) != 4 || i >= len || s[i++] != '-')
		return false;
	n = read_num(s, len, &i, m, 0);
	if (n < 1 || n > 2 || (n == 2 && s[i - 2] != '0' && *m > 12) || i >= len || s[i++] != '-')
		return false;
	n = read_num(s, len, &i, d, 0);
	if (n < 1 || n > 2 || (n == 2 && *d > 31 && s[i - 2] != '0') || i != len)
		return false;
	return true;
}

/* ^\+?\.inf$, ^-\.inf$, ^\.nan$ with /i */
static int
match_special(const char *s, size_t len)
{
	size_t		i = 0;
	int			sign = 1;

	if (i < len && s[i] == '+')
		i++;
	else if (i < len && s[i] == '-')
		sign = -1, i++;
	if (len - i != 4 || s[i] != '.')
		return 0;
	if (lower((uint8_t) s[i + 1]) == 'i' && lower((uint8_t) s[i + 2]) == 'n' &&
		lower((uint8_t) s[i + 3]) == 'f')
		return sign;
	if (i == 0 && lower((uint8_t) s[1]) == 'n' && lower((uint8_t) s[2]) == 'a' &&
		lower((uint8_t) s[3]) == 'n')
		return 2;
	return 0;
}

/*
 * The first rules of ScalarScanner#tokenize, which decide most scalars
 * without building anything: YT_INT (a plain decimal Integer that fits,
 * in *ival), YT_STRING (text that starts like a word and is no null or
 * boolean: the String of s itself), YT_NIL, YT_TRUE, YT_FALSE, or YT_OTHER
 * (the later rules decide: yr_tokenize).
 */
YTokenKind
yr_tokenize_quick(const char *s, size_t len, int64_t *ival)
{
	bool		word;

	if (len == 0)
		return YT_NIL;
	/* the commonest numbers: a plain decimal Integer that fits */
	if (len < 19 && IS_DIGIT(s[0]) && (s[0] != '0' || len == 1))
	{
		int64_t		x = 0;
		size_t		i;

		for (i = 0; i < len && IS_DIGIT(s[i]); i++)
			x = x * 10 + (s[i] - '0');
		if (i == len)
		{
			*ival = x;
			return YT_INT;
		}
	}
	/* the common case first: text that starts like a word, or has lines */
	word = word_at(s, len, 0) || memchr(s, '\n', len) != NULL;
	if (!word)
		return YT_OTHER;
	return word_kind(s, len);
}

/* ScalarScanner#tokenize: a scalar without tag and quotes. */
RVal *
yr_tokenize(YState *st, const YNode *n, const char *s, size_t len)
{
	RVal	   *v;
	int64_t		y,
				m,
				d;
	int			k;

	switch (yr_tokenize_quick(s, len, &y))
	{
		case YT_INT:
			v = yr_new(st, RV_INT);
			v->ival = y;
			return v;
		case YT_STRING:
			return yr_string(st, s, len, MENC_UTF8);
		case YT_NIL:
			return st->nil;
		case YT_TRUE:
			return st->rtrue;
		case YT_FALSE:
			return st->rfalse;
		case YT_OTHER:
			break;
	}
	if (match_time(s, len))
	{
		yr_permit(st, n, "Time");
		v = yr_parse_time(st, n, s, len);
		return v ? v : yr_string(st, s, len, MENC_UTF8);
	}
	if (match_date(s, len, &y, &m, &d))
	{
		int64_t		jd;

		yr_permit(st, n, "Date");
		jd = italy_jd(y, (int) m, (int) d);
		if (jd < 0)
			return yr_string(st, s, len, MENC_UTF8);
		v = yr_new(st, RV_USRMARSHAL);
		v->cls = "Date";
		v->data = yr_new(st, RV_ARRAY);
		for (int e = 0; e < 5; e++)
		{
			RVal	   *x = yr_new(st, RV_INT);

			x->ival = e == 1 ? jd : 0;
			yr_push(st, &v->data->items, x);
		}
		yr_push(st, &v->data->items, yr_float(st, 2299161.0));
		return v;
	}
	k = match_special(s, len);
	if (k)
		/* .nan, .inf: Float::NAN, Float::INFINITY; -.inf: -Float::INFINITY, a new Float */
		return k == 2 ? st->nan : k > 0 ? st->inf : yr_float(st, -__builtin_inf());
	if (len >= 2 && s[0] == ':')
	{
		const char *name = s + 1;
		size_t		nl = len - 1;

		/* /^:(["'])(.*)\1/: the last matching quote */
		if (s[1] == '"' || s[1] == '\'')
		{
			for (size_t e = len; e-- > 2;)
				if (s[e] == s[1])
				{
					name = s + 2;
					nl = e - 2;
					break;
				}
		}
		/* $2.sub(/^:/, ''), or string.sub(/^:/, '') (the ':' already gone) */
		if (name != s + 1 && nl > 0 && name[0] == ':')
			name++, nl--;
		return yr_symbol(st, n, name, nl);
	}
	k = match_sexagesimal(s, len);
	if (k)
		return sexagesimal(st, s, len, k == 2);
	if (match_float(s, len))
	{
		if (len <= 2 && s[len - 1] == '.' && (len == 1 || s[0] == '-' || s[0] == '+'))
			return yr_string(st, s, len, MENC_UTF8);
		return parse_float(st, n, s, len);
	}
	if (match_integer(s, len))
	{
		v = parse_int(st, s, len);
		if (v == NULL)
		{
			/* Ruby's message quotes what Integer() was given: no , or _ */
			char		shown[61];
			size_t		k = 0;

			for (size_t i = 0; i < len && k < 60; i++)
				if (s[i] != ',' && s[i] != '_')
					shown[k++] = s[i];
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					   "invalid value for Integer(): \"%.*s\"", (int) k, shown);
		}
		return v;
	}
	return yr_string(st, s, len, MENC_UTF8);
}

/*
 * A Bignum's magnitude (RV_BIGINT: digits in base ival) divided by m (1 or
 * more): the remainder; quotient not NULL: the quotient, exact, an Integer
 * with the sign neg.
 */
static uint64_t
bigint_divide(YState *st, const RVal *big, uint64_t m, bool neg, RVal **quotient)
{
	char	   *q = yr_alloc(st, big->len + 1);
	size_t		nq = 0;
	unsigned __int128 r = 0;

	for (size_t i = 0; i < big->len; i++)
	{
		char		c = big->str[i];
		int			dv = IS_DIGIT(c) ? c - '0' : lower((uint8_t) c) - 'a' + 10;
		int			qd;

		r = r * (unsigned) big->ival + (unsigned) dv;
		qd = (int) (r / m);
		q[nq++] = (char) (qd < 10 ? '0' + qd : 'a' + qd - 10);
		r %= m;
	}
	if (quotient)
		*quotient = yr_int_from_digits(st, neg, q, nq, (int) big->ival);
	return (uint64_t) r;
}

/*
 * Rational(num, den) of a Bignum and a small Integer (YAML.dump of
 * Rational(10**20, 3)), reduced, the sign on num (two Bignums:
 * yr_rational_bignums).
 */
static RVal *
rational_of_bignum(YState *st, const YNode *n, RVal *num, RVal *den, RVal *arr)
{
	bool		big_num = num->kind == RV_BIGINT;
	RVal	   *big = big_num ? num : den;
	int64_t		small = big_num ? den->ival : num->ival;
	bool		neg = (big->enc != 0) != (small < 0);
	uint64_t	m = small < 0 ? -(uint64_t) small : (uint64_t) small;
	uint64_t	g;
	RVal	   *q;
	RVal	   *a = yr_new(st, RV_INT);

	if ((num->kind != RV_INT && num->kind != RV_BIGINT) ||
		(den->kind != RV_INT && den->kind != RV_BIGINT))
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					 "a Rational of other than Integers");
	if (num->kind == den->kind)
	{
		yr_rational_bignums(st, n, num, den, arr);
		return arr;
	}
	if (m == 0 && !big_num)
	{
		/* Rational(0, big): 0/1 */
		a->ival = 1;
		q = yr_new(st, RV_INT);
		yr_push(st, &arr->items, q);
		yr_push(st, &arr->items, a);
		return arr;
	}
	if (m == 0)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "divided by 0");
	g = m;
	for (uint64_t r = bigint_divide(st, big, m, false, NULL), t; r != 0; g = r, r = t)
		t = g % r;
	/* Bignum/g: the rest; the small Integer's magnitude/g */
	(void) bigint_divide(st, big, g, big_num && neg, &q);
	a->ival = (int64_t) (m / g);
	if (!big_num && neg)
		a->ival = -a->ival;
	yr_push(st, &arr->items, big_num ? q : a);
	yr_push(st, &arr->items, big_num ? a : q);
	return arr;
}

/* Rational(num, den) of two Integers, reduced, the sign on num */
RVal *
yr_rational(YState *st, const YNode *n, RVal *num, RVal *den)
{
	RVal	   *v = yr_new(st, RV_USRMARSHAL);
	RVal	   *arr = yr_new(st, RV_ARRAY);

	if (num->kind != RV_INT || den->kind != RV_INT)
		rational_of_bignum(st, n, num, den, arr);
	else if (den->ival == 0)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "divided by 0");
	else
	{
		int64_t		g = gcd64(num->ival, den->ival);
		RVal	   *a = yr_new(st, RV_INT);
		RVal	   *b = yr_new(st, RV_INT);

		if (g == 0)
			g = 1;
		a->ival = num->ival / g;
		b->ival = den->ival / g;
		if (b->ival < 0)
			a->ival = -a->ival, b->ival = -b->ival;
		yr_push(st, &arr->items, a);
		yr_push(st, &arr->items, b);
	}
	v->cls = "Rational";
	v->data = arr;
	return v;
}

/*
 * BigDecimal._load(text)._dump: "<prec>:<to_s>".  _load reads the value
 * at max(the precision asked, the digits' own) units of nine digits, then
 * caps it at one unit over the one asked (bigdecimal.c BigDecimal_load,
 * VpAlloc); to_s is "0.<digits>e<exponent>".
 */
RVal *
yr_bigdecimal(YState *st, const YNode *n, const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	uint64_t	m = 0;
	size_t		i;
	size_t		ni = 0,
				nf = 0;
	bool		neg = false;
	int64_t		exp10 = 0;
	char	   *digits;
	size_t		nd = 0;
	size_t		lead;
	uint64_t	units;
	uint64_t	prec;
	char	   *out;
	size_t		olen;
	RVal	   *v;
	const char *val;
	size_t		vlen;

	if (colon == NULL)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "load failed: invalid character in the marshaled string");
	for (i = 0; s + i < colon; i++)
	{
		if (!IS_DIGIT(s[i]))
			yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
					   "load failed: invalid character in the marshaled string");
		if (m < UINT64_C(1) << 40)
			m = m * 10 + (uint64_t) (s[i] - '0');
	}
	if (m > UINT64_C(1) << 32)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "BigDecimal precision too large");
	val = colon + 1;
	vlen = len - (size_t) (colon + 1 - s);
	if (m > 9)
		m -= 9;
	out = yr_alloc(st, vlen + 64);
	v = yr_new(st, RV_USERDEF);
	v->cls = "BigDecimal";
	v->str = out;
	if ((vlen == 3 && memcmp(val, "NaN", 3) == 0) ||
		(vlen == 8 && memcmp(val, "Infinity", 8) == 0) ||
		(vlen == 9 && memcmp(val, "+Infinity", 9) == 0) ||
		(vlen == 9 && memcmp(val, "-Infinity", 9) == 0))
	{
		v->len = (size_t) snprintf(out, vlen + 64, "9:%.*s", (int) (vlen - (val[0] == '+')),
								   val + (val[0] == '+'));
		return v;
	}
	digits = yr_alloc(st, vlen + 1);
	i = 0;
	if (i < vlen && (val[i] == '-' || val[i] == '+'))
		neg = val[i++] == '-';
	for (; i < vlen && IS_DIGIT(val[i]); i++, ni++)
		digits[nd++] = val[i];
	if (i < vlen && val[i] == '.')
		for (i++; i < vlen && IS_DIGIT(val[i]); i++, nf++)
			digits[nd++] = val[i];
	if (i < vlen && (val[i] == 'e' || val[i] == 'E'))
	{
		bool		eneg = false;
		int			ed = 0;

		i++;
		if (i < vlen && (val[i] == '-' || val[i] == '+'))
			eneg = val[i++] == '-';
		for (; i < vlen && IS_DIGIT(val[i]); i++, ed++)
			if (exp10 < 100000000)
				exp10 = exp10 * 10 + (val[i] - '0');
		if (ed == 0)
			i = vlen + 1;
		if (eneg)
			exp10 = -exp10;
	}
	if (i != vlen || nd == 0)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE,
				   "a BigDecimal other than <precision>:<digits>[e<exponent>]");
	units = (m + 8) / 9;
	if (units == 0)
		units = 1;
	prec = (ni + nf + 8) / 9 + 1;
	if (prec < units)
		prec = units;
	if (m / 9 && prec > m / 9)
		prec = m / 9 + 1;
	/* significant digits: the exponent counts from the first of them */
	for (lead = 0; lead < nd && digits[lead] == '0'; lead++)
		;
	while (nd > lead && digits[nd - 1] == '0')
		nd--;
	if (lead == nd)
		olen = (size_t) snprintf(out, vlen + 64, "%llu:%s0.0",
								 (unsigned long long) (prec * 9), neg ? "-" : "");
	else
	{
		exp10 += (int64_t) ni - (int64_t) lead;
		olen = (size_t) snprintf(out, vlen + 64, "%llu:%s0.",
								 (unsigned long long) (prec * 9), neg ? "-" : "");
		memcpy(out + olen, digits + lead, nd - lead);
		olen += nd - lead;
		olen += (size_t) snprintf(out + olen, 32, "e%lld", (long long) exp10);
	}
	v->len = olen;
	return v;
}

/* --- !ruby/encoding ---------------------------------------------------------- */

/*
 * Ruby 3.1's encodings: each name, then its aliases (Encoding.list and
 * Encoding.aliases, test/yaml/generate.rb checks every one).  "locale",
 * "external" and "filesystem" follow the process: a UTF-8 one, as Rails
 * runs.
 */
static const char *const encodings[] = {
	"ASCII-8BIT BINARY",
	"UTF-8 CP65001 external filesystem locale",
	"US-ASCII 646 ANSI_X3.4-1968 ASCII",
	"UTF-16BE UCS-2BE",
	"UTF-16LE",
	"UTF-32BE UCS-4BE",
	"UTF-32LE UCS-4LE",
	"UTF-16",
	"UTF-32",
	"UTF8-MAC UTF-8-HFS UTF-8-MAC",
	"EUC-JP eucJP",
	"Windows-31J CP932 PCK SJIS csWindows31J",
	"Big5",
	"Big5-HKSCS Big5-HKSCS:2008",
	"Big5-UAO",
	"CESU-8",
	"CP949",
	"Emacs-Mule",
	"EUC-KR eucKR",
	"EUC-TW eucTW",
	"GB18030",
	"GBK CP936",
	"ISO-8859-1 ISO8859-1",
	"ISO-8859-2 ISO8859-2",
	"ISO-8859-3 ISO8859-3",
	"ISO-8859-4 ISO8859-4",
	"ISO-8859-5 ISO8859-5",
	"ISO-8859-6 ISO8859-6",
	"ISO-8859-7 ISO8859-7",
	"ISO-8859-8 ISO8859-8",
	"ISO-8859-9 ISO8859-9",
	"ISO-8859-10 ISO8859-10",
	"ISO-8859-11 ISO8859-11",
	"ISO-8859-13 ISO8859-13",
	"ISO-8859-14 ISO8859-14",
	"ISO-8859-15 ISO8859-15",
	"ISO-8859-16 ISO8859-16",
	"KOI8-R CP878",
	"KOI8-U",
	"Shift_JIS",
	"Windows-1250 CP1250",
	"Windows-1251 CP1251",
	"Windows-1252 CP1252",
	"Windows-1253 CP1253",
	"Windows-1254 CP1254",
	"Windows-1257 CP1257",
	"IBM437 CP437",
	"IBM720 CP720",
	"IBM737 CP737",
	"IBM775 CP775",
	"CP850 IBM850",
	"IBM852",
	"CP852",
	"IBM855",
	"CP855",
	"IBM857 CP857",
	"IBM860 CP860",
	"IBM861 CP861",
	"IBM862 CP862",
	"IBM863 CP863",
	"IBM864 CP864",
	"IBM865 CP865",
	"IBM866 CP866",
	"IBM869 CP869",
	"Windows-1258 CP1258",
	"GB1988",
	"macCentEuro",
	"macCroatian",
	"macCyrillic",
	"macGreek",
	"macIceland",
	"macRoman",
	"macRomania",
	"macThai",
	"macTurkish",
	"macUkraine",
	"CP950",
	"CP951",
	"IBM037 ebcdic-cp-us",
	"stateless-ISO-2022-JP",
	"eucJP-ms euc-jp-ms",
	"CP51932",
	"EUC-JIS-2004 EUC-JISX0213",
	"GB2312 EUC-CN eucCN",
	"GB12345",
	"ISO-2022-JP ISO2022-JP",
	"ISO-2022-JP-2 ISO2022-JP2",
	"CP50220",
	"CP50221",
	"Windows-1256 CP1256",
	"Windows-1255 CP1255",
	"TIS-620",
	"Windows-874 CP874",
	"MacJapanese MacJapan",
	"UTF-7 CP65000",
	"UTF8-DoCoMo",
	"SJIS-DoCoMo",
	"UTF8-KDDI",
	"SJIS-KDDI",
	"ISO-2022-JP-KDDI",
	"stateless-ISO-2022-JP-KDDI",
	"UTF8-SoftBank",
	"SJIS-SoftBank",
};

/* Equal but for the case of ASCII letters (st_locale_insensitive_strcasecmp) */
static bool
ascii_case_eq(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (lower((uint8_t) a[i]) != lower((uint8_t) b[i]))
			return false;
	return true;
}

/*
 * Encoding.find(name): the encoding's own name (what Encoding#_dump
 * writes, *outlen bytes of the result), matching names and aliases without
 * regard to case; "" for "internal" (Encoding.default_internal: nil in a
 * process without Rails), NULL when Ruby has none (ArgumentError)
 */
const char *
yr_encoding_name(const char *name, size_t len, size_t *outlen)
{
	*outlen = 0;
	if (len == 8 && ascii_case_eq(name, "internal", 8))
		return "";
	for (size_t e = 0; e < sizeof(encodings) / sizeof(encodings[0]); e++)
	{
		const char *p = encodings[e];

		while (*p)
		{
			size_t		n = strcspn(p, " ");

			if (n == len && ascii_case_eq(p, name, len))
			{
				*outlen = strcspn(encodings[e], " ");
				return encodings[e];
			}
			p += n + (p[n] == ' ');
		}
	}
	return NULL;
}
