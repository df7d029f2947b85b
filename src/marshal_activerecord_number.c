/*
 * marshal_activerecord_number.c
 *		Text read as numbers the way MRI's String#to_i, #to_f and #to_d read
 *		it, and the BigDecimal arithmetic of Active Record's Decimal cast
 *		(the casts: marshal_activerecord.c).
 */
#include "marshal_internal.h"
#include "marshal_activerecord_number.h"
#include "marshal_to_s.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- text as MRI's String#to_i, #to_f and #to_d read it ------------------ */

/* Text that is ASCII and NUL-free: the parsers below read only that. */
bool
marshal_plain_ascii(MarshalBytes s)
{
	for (size_t i = 0; i < s.len; i++)
		if (s.ptr[i] == 0 || s.ptr[i] >= 0x80)
			return false;
	return true;
}

/* String#blank? for ASCII text: empty or whitespace only. */
bool
marshal_blank(MarshalBytes s)
{
	for (size_t i = 0; i < s.len; i++)
		if (!marshal_is_space(s.ptr[i]))
			return false;
	return true;
}

/*
 * Digits with single underscores between them, from *i: appended to out
 * (up to cap), counted in *n.  Stops before anything else, as MRI does.
 */
static void
scan_digits(MarshalBytes s, size_t *i, char *out, size_t cap, size_t *n)
{
	while (*i < s.len)
	{
		if (marshal_is_digit(s.ptr[*i]))
		{
			if (*n < cap)
				out[*n] = (char) s.ptr[*i];
			(*n)++;
			(*i)++;
		}
		else if (s.ptr[*i] == '_' && *n > 0 && *i + 1 < s.len &&
				 marshal_is_digit(s.ptr[*i + 1]) && marshal_is_digit(s.ptr[*i - 1]))
			(*i)++;
		else
			break;
	}
}

/*
 * String#to_i as decimal text ("-12", "0"); false if it has more digits
 * than fit the buffer.
 */
bool
marshal_string_to_i(MarshalBytes s, char *out, size_t cap, size_t *len)
{
	size_t		i = 0;
	size_t		n = 0;
	size_t		o = 0;
	char		digits[64];

	while (i < s.len && marshal_is_space(s.ptr[i]))
		i++;
	if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-'))
	{
		if (s.ptr[i] == '-')
			out[o++] = '-';
		i++;
	}
	scan_digits(s, &i, digits, sizeof(digits), &n);
	if (n > sizeof(digits) || n + 2 > cap)
		return false;
	{
		size_t		k = 0;

		while (k + 1 < n && digits[k] == '0')
			k++;
		if (n == 0 || (n - k == 1 && digits[k] == '0'))
			o = 0;				/* zero has no sign */
		if (n == 0)
			out[o++] = '0';
		else
		{
			memcpy(out + o, digits + k, n - k);
			o += n - k;
		}
	}
	*len = o;
	return true;
}

/*
 * A number's parts as String#to_f and BigDecimal.interpret_loosely read
 * them alike: blanks, a sign, digits, "." and digits, then an exponent
 * when digits came before it; anything after is ignored.  False when the
 * digits do not fit or the text is NaN/Infinity.
 */
#define NUM_DIGITS 64

typedef struct LooseNumber
{
	bool		sign;			/* a sign was written */
	bool		neg;
	char		ip[NUM_DIGITS];
	size_t		ni;
	char		fp[NUM_DIGITS];
	size_t		nf;
	int64_t		exp;
} LooseNumber;

static bool
scan_number(MarshalBytes s, LooseNumber *x)
{
	size_t		i = 0;

	memset(x, 0, sizeof(*x));
	while (i < s.len && marshal_is_space(s.ptr[i]))
		i++;
	if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-'))
	{
		x->sign = true;
		x->neg = s.ptr[i++] == '-';
	}
	if (i < s.len && (s.ptr[i] == 'N' || s.ptr[i] == 'I'))
		return false;
	scan_digits(s, &i, x->ip, NUM_DIGITS, &x->ni);
	if (i + 1 < s.len && s.ptr[i] == '.' && marshal_is_digit(s.ptr[i + 1]))
	{
		i++;
		scan_digits(s, &i, x->fp, NUM_DIGITS, &x->nf);
	}
	if (x->ni > NUM_DIGITS || x->nf > NUM_DIGITS)
		return false;
	if ((x->ni > 0 || x->nf > 0) && i + 1 < s.len && (s.ptr[i] == 'e' || s.ptr[i] == 'E'))
	{
		size_t		j = i + 1;
		bool		eneg = false;

		if (j < s.len && (s.ptr[j] == '+' || s.ptr[j] == '-'))
			eneg = s.ptr[j++] == '-';
		while (j < s.len && marshal_is_digit(s.ptr[j]))
		{
			if (x->exp > 100000)
				return false;	/* huge exponents: overflow rules */
			x->exp = x->exp * 10 + (s.ptr[j++] - '0');
		}
		if (eneg)
			x->exp = -x->exp;
	}
	return true;
}

/* String#to_f; false for text this does not reproduce. */
bool
marshal_string_to_f(MarshalBytes s, double *d)
{
	LooseNumber x;
	char		buf[2 * NUM_DIGITS + 32];

	if (!scan_number(s, &x))
		return false;
	if (x.ni + x.nf == 0)
	{
		*d = 0.0;
		return !x.sign;
	}
	snprintf(buf, sizeof(buf), "%s%.*s.%.*se%lld", x.neg ? "-" : "",
			 x.ni ? (int) x.ni : 1, x.ni ? x.ip : "0",
			 x.nf ? (int) x.nf : 1, x.nf ? x.fp : "0", (long long) x.exp);
	*d = strtod(buf, NULL);
	return isfinite(*d);
}

/* --- decimals: BigDecimal arithmetic for Decimal casts -------------------- */

static void
dec_trim(MarshalDec *x)
{
	int			k = 0;

	while (k < x->n && x->dig[k] == '0')
		k++;
	if (k > 0)
	{
		memmove(x->dig, x->dig + k, (size_t) (x->n - k));
		x->n -= k;
		x->exp -= k;
	}
	while (x->n > 0 && x->dig[x->n - 1] == '0')
		x->n--;
}

/* integer digits and fraction digits, then an exponent */
bool
marshal_dec_from_parts(MarshalDec *x, bool neg, const char *ip, size_t ni,
					   const char *fp, size_t nf, int64_t e)
{
	if (ni + nf > DEC_DIGITS)
		return false;
	x->neg = neg;
	memcpy(x->dig, ip, ni);
	memcpy(x->dig + ni, fp, nf);
	x->n = (int) (ni + nf);
	x->exp = (int64_t) ni + e;
	dec_trim(x);
	return true;
}

/* BigDecimal.interpret_loosely (String#to_d); false: not reproduced. */
bool
marshal_dec_from_string(MarshalBytes s, MarshalDec *x)
{
	LooseNumber n;

	return scan_number(s, &n) &&
		marshal_dec_from_parts(x, n.neg, n.ip, n.ni, n.fp, n.nf, n.exp);
}

/* Round half up to scale fraction digits (BigDecimal#round's default). */
void
marshal_dec_round(MarshalDec *x, int64_t scale)
{
	int64_t		keep = x->exp + scale;

	if (keep >= x->n)
		return;
	if (keep < 0)
	{
		x->n = 0;
		return;
	}
	if (x->dig[keep] >= '5')
	{
		int64_t		k = keep - 1;

		while (k >= 0 && x->dig[k] == '9')
			x->dig[k--] = '0';
		if (k >= 0)
			x->dig[k]++;
		else
		{
			memmove(x->dig + 1, x->dig, (size_t) keep);
			x->dig[0] = '1';
			keep++;
			x->exp++;
		}
	}
	x->n = (int) keep;
	dec_trim(x);
}

/* BigDecimal#to_s("F"), as ActiveSupport prints it: "12.5", "10.0", "-0.0". */
bool
marshal_dec_format(const MarshalDec *x, char *out, size_t cap, size_t *len)
{
	size_t		o = 0;

	if ((size_t) x->n + (size_t) (x->exp < 0 ? -x->exp : x->exp) + 6 > cap)
		return false;
	if (x->neg)
		out[o++] = '-';
	if (x->n == 0)
	{
		memcpy(out + o, "0.0", 3);
		o += 3;
	}
	else if (x->exp <= 0)
	{
		out[o++] = '0';
		out[o++] = '.';
		for (int64_t k = 0; k < -x->exp; k++)
			out[o++] = '0';
		memcpy(out + o, x->dig, (size_t) x->n);
		o += (size_t) x->n;
	}
	else
	{
		for (int64_t k = 0; k < x->exp; k++)
			out[o++] = k < x->n ? x->dig[k] : '0';
		out[o++] = '.';
		if (x->exp >= x->n)
			out[o++] = '0';
		else
		{
			memcpy(out + o, x->dig + x->exp, (size_t) (x->n - x->exp));
			o += (size_t) (x->n - x->exp);
		}
	}
	*len = o;
	return true;
}

/* Float#round(ndigits) for 0 < ndigits <= 14, as MRI's rb_float_round. */
double
marshal_float_round(double number, int ndigits)
{
	int			binexp;
	double		s;
	double		f;

	if (number == 0.0)
		return number;
	frexp(number, &binexp);
	if (ndigits >= 17 - (binexp > 0 ? binexp / 4 : binexp / 3 - 1))
		return number;
	if (ndigits < -(binexp > 0 ? binexp / 3 + 1 : binexp / 4))
		return 0.0;
	s = pow(10, ndigits);
	f = round(number * s);
	if (number > 0)
	{
		if ((double) ((f + 0.5) / s) <= number)
			f += 1;
	}
	else
	{
		if ((double) ((f - 0.5) / s) >= number)
			f -= 1;
	}
	return f / s;
}

/* BigDecimal(float, sig) (sig > 0: correctly rounded; 0: shortest). */
bool
marshal_dec_from_float(double d, int sig, MarshalDec *x)
{
	char		buf[64];
	char		digits[40];
	int			decpt;
	int			nd;

	if (!isfinite(d))
		return false;
	x->neg = signbit(d) != 0;
	if (d == 0.0)
	{
		x->n = 0;
		x->exp = 0;
		return true;
	}
	if (sig > 0)
	{
		char	   *e;
		size_t		o = 0;

		snprintf(buf, sizeof(buf), "%.*e", sig - 1, fabs(d));
		for (e = buf; *e && *e != 'e'; e++)
			if (marshal_is_digit((uint8_t) *e))
				digits[o++] = *e;
		nd = (int) o;
		decpt = atoi(e + 1) + 1;
	}
	else
		nd = marshal_shortest_digits(fabs(d), digits, &decpt);
	memcpy(x->dig, digits, (size_t) nd);
	x->n = nd;
	x->exp = decpt;
	dec_trim(x);
	return true;
}
