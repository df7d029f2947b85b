/*
 * marshal_time_fraction.c
 *		A Time's sub-second as Ruby keeps it: time_mload adds the Rational
 *		nano_num/nano_den (nanoseconds) to the payload's microseconds, and
 *		inspect shows the sum, when it is no whole number of nanoseconds, as
 *		a reduced fraction of a second ("1/3000000").  Either number may be
 *		a Bignum (Time.at(0, Rational(1, 2**70)), a Float's exact value), so
 *		the arithmetic here is exact on integers of up to MAX_BITS bits.
 */
#include "marshal_internal.h"
#include "marshal_to_s.h"

#include <string.h>

#define MAX_LIMBS 64			/* an input's 2048 bits */
#define LIMBS (MAX_LIMBS + 8)	/* room for the products below */

/* a non-negative integer: little-endian 32-bit limbs, n of them used */
typedef struct Big
{
	uint32_t	d[LIMBS];
	int			n;
} Big;

static void
big_trim(Big *a)
{
	while (a->n > 0 && a->d[a->n - 1] == 0)
		a->n--;
}

static void
big_set(Big *a, uint64_t v)
{
	a->d[0] = (uint32_t) v;
	a->d[1] = (uint32_t) (v >> 32);
	a->n = 2;
	big_trim(a);
}

static int
big_cmp(const Big *a, const Big *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = a->n; i-- > 0;)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

/* a -= b, b <= a */
static void
big_sub(Big *a, const Big *b)
{
	int64_t		borrow = 0;

	for (int i = 0; i < a->n; i++)
	{
		int64_t		x = (int64_t) a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;

		borrow = x < 0;
		a->d[i] = (uint32_t) (x + (borrow ? INT64_C(1) << 32 : 0));
	}
	big_trim(a);
}

/* a = a * m + add; false past LIMBS */
static bool
big_mul_add(Big *a, uint32_t m, uint32_t add)
{
	uint64_t	carry = add;

	for (int i = 0; i < a->n; i++)
	{
		uint64_t	x = (uint64_t) a->d[i] * m + carry;

		a->d[i] = (uint32_t) x;
		carry = x >> 32;
	}
	if (carry)
	{
		if (a->n == LIMBS)
			return false;
		a->d[a->n++] = (uint32_t) carry;
	}
	big_trim(a);
	return true;
}

/* a += b; false past LIMBS */
static bool
big_add(Big *a, const Big *b)
{
	uint64_t	carry = 0;
	int			n = a->n > b->n ? a->n : b->n;

	for (int i = 0; i < n; i++)
	{
		uint64_t	x = (uint64_t) (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0) + carry;

		a->d[i] = (uint32_t) x;
		carry = x >> 32;
	}
	a->n = n;
	if (carry)
	{
		if (n == LIMBS)
			return false;
		a->d[a->n++] = 1;
	}
	return true;
}

static bool
big_bit(const Big *a, int i)
{
	return i / 32 < a->n && (a->d[i / 32] >> (i % 32) & 1);
}

static int
big_bits(const Big *a)
{
	int			b = a->n * 32;

	while (b > 0 && !big_bit(a, b - 1))
		b--;
	return b;
}

static void
big_shr(Big *a, int k)
{
	for (int i = 0; i < a->n; i++)
	{
		uint64_t	hi = i + 1 < a->n ? a->d[i + 1] : 0;

		a->d[i] = (uint32_t) ((((uint64_t) hi << 32) | a->d[i]) >> k);
	}
	big_trim(a);
}

/* q = a / d (d not zero), by long division a bit at a time */
static void
big_div(const Big *a, const Big *d, Big *q)
{
	Big			r = {.n = 0};

	memset(q, 0, sizeof(*q));
	q->n = a->n;
	for (int i = big_bits(a); i-- > 0;)
	{
		(void) big_mul_add(&r, 2, big_bit(a, i));
		if (big_cmp(&r, d) >= 0)
		{
			big_sub(&r, d);
			q->d[i / 32] |= UINT32_C(1) << (i % 32);
		}
	}
	big_trim(q);
}

/* the greatest common divisor of a and b (not both zero), Stein's way */
static void
big_gcd(const Big *x, const Big *y, Big *g)
{
	Big			a = *x;
	Big			b = *y;
	int			shift = 0;

	if (a.n == 0 || b.n == 0)
	{
		*g = a.n == 0 ? b : a;
		return;
	}
	while (!big_bit(&a, 0) && !big_bit(&b, 0))
	{
		big_shr(&a, 1);
		big_shr(&b, 1);
		shift++;
	}
	while (!big_bit(&a, 0))
		big_shr(&a, 1);
	while (b.n > 0)
	{
		while (!big_bit(&b, 0))
			big_shr(&b, 1);
		if (big_cmp(&a, &b) > 0)
		{
			Big			t = a;

			a = b;
			b = t;
		}
		big_sub(&b, &a);
	}
	*g = a;
	while (shift-- > 0)
		(void) big_mul_add(g, 2, 0);
}

/* x /= gcd(x, y), y /= the same */
static void
big_reduce(Big *x, Big *y)
{
	Big			g;
	Big			q;

	big_gcd(x, y, &g);
	if (g.n == 1 && g.d[0] == 1)
		return;
	big_div(x, &g, &q);
	*x = q;
	big_div(y, &g, &q);
	*y = q;
}

/* A non-negative Integer at pos, of up to MAX_LIMBS limbs; *ok false if not. */
static MarshalStatus
big_read(const MarshalDoc *doc, size_t pos, Big *a, bool *ok, MarshalError *err)
{
	MarshalNode n;

	TRY(marshal_node(doc, pos, &n, err));
	*ok = true;
	if (n.type == MT_FIXNUM && n.ival >= 0)
		big_set(a, (uint64_t) n.ival);
	else if (n.type == MT_BIGNUM && !n.negative && n.data.len <= MAX_LIMBS * 4)
	{
		memset(a, 0, sizeof(*a));
		for (size_t i = 0; i < n.data.len; i++)
			a->d[i / 4] |= (uint32_t) n.data.ptr[i] << (8 * (i % 4));
		a->n = (int) (n.data.len + 3) / 4;
		big_trim(a);
	}
	else
		*ok = false;
	return MARSHAL_OK;
}

/* decimal digits of a into out (cap bytes); 0 if they do not fit */
static size_t
big_decimal(const Big *a, char *out, size_t cap)
{
	uint8_t		mag[LIMBS * 4];
	uint32_t	limbs[LIMBS + 1];
	size_t		len;

	for (int i = 0; i < a->n; i++)
		for (int k = 0; k < 4; k++)
			mag[4 * i + k] = (uint8_t) (a->d[i] >> (8 * k));
	if (a->n == 0)
		return cap > 1 ? (size_t) (out[0] = '0', 1) : 0;
	if ((size_t) a->n * 4 * 3 + 3 > cap ||
		!marshal_bignum_decimal(mag, (size_t) a->n * 4, false, out, cap, &len, limbs))
		return 0;
	return len;
}

MarshalStatus
marshal_time_nano(const MarshalDoc *doc, size_t vnum, size_t vden, int64_t usec,
				  int64_t *nsec, char *frac, size_t cap, size_t *fraclen,
				  bool *ok, MarshalError *err)
{
	Big			num;
	Big			den;
	Big			whole;
	Big			thousand;
	bool		ok2;

	if (fraclen)
		*fraclen = 0;
	*nsec = 0;
	TRY(big_read(doc, vnum, &num, ok, err));
	TRY(big_read(doc, vden, &den, &ok2, err));
	*ok = *ok && ok2 && den.n > 0;
	if (!*ok)
		return MARSHAL_OK;
	/* the Rational Ruby makes of them, below a microsecond as MRI writes it */
	big_reduce(&num, &den);
	big_set(&thousand, 1000);
	big_div(&num, &den, &whole);
	if (big_cmp(&whole, &thousand) >= 0)
	{
		*ok = false;
		return MARSHAL_OK;
	}
	*nsec = whole.n ? whole.d[0] : 0;
	if (frac == NULL || (den.n == 1 && den.d[0] == 1))
		return MARSHAL_OK;
	/* (usec * 1000 + num / den) / 10**9 = (usec * 1000 * den + num) / (den * 10**9) */
	{
		Big			top = den;
		size_t		n;
		size_t		m;

		/* usec is the payload's 20 bits: usec * 1000 fits 32 */
		if (usec < 0 || usec >= (1 << 20) ||
			!big_mul_add(&top, (uint32_t) (usec * 1000), 0) || !big_add(&top, &num) ||
			!big_mul_add(&den, 1000000000, 0))
		{
			*ok = false;
			return MARSHAL_OK;
		}
		big_reduce(&top, &den);
		n = big_decimal(&top, frac, cap);
		if (n == 0 || n + 2 >= cap)
		{
			*ok = false;
			return MARSHAL_OK;
		}
		frac[n++] = '/';
		m = big_decimal(&den, frac + n, cap - n);
		if (m == 0)
		{
			*ok = false;
			return MARSHAL_OK;
		}
		*fraclen = n + m;
	}
	return MARSHAL_OK;
}
