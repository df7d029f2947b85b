/*
 * yaml_bignum.c
 *		Rational(num, den) of two Bignums, as Ruby's Rational() makes it:
 *		both divided by their gcd, the sign on the numerator.
 *
 * The parts become 64-bit limbs (least significant first); the gcd is
 * binary (subtract and shift), the division by it exact (Jebelean's: one
 * multiplication by the odd divisor's inverse mod 2^64 per quotient limb).
 * Both take time quadratic in the limbs, so parts are limited to
 * YR_RATIONAL_MAX_BITS (MARSHAL_ERR_LIMIT past it: about a second at the
 * limit) and a cancel is looked for every few million limb operations.
 */
#include "yaml_internal.h"

#include <string.h>

/* A part of more bits than this is refused (157,827 decimal digits at the most) */
#define YR_RATIONAL_MAX_BITS (1 << 19)
#define INTERRUPT_WORK (1 << 22)

typedef struct Limbs
{
	uint64_t   *v;
	size_t		n;				/* without high zero limbs */
} Limbs;

/* count limb operations, looking for a cancel now and then */
static void
work(YState *st, uint64_t *done, size_t ops)
{
	const MarshalHooks *h = st->arena.hooks;

	*done += ops;
	if (*done >= INTERRUPT_WORK)
	{
		*done = 0;
		if (h && h->check_interrupts)
			h->check_interrupts(h->ctx);
	}
}

static void
trim(Limbs *x)
{
	while (x->n > 0 && x->v[x->n - 1] == 0)
		x->n--;
}

/* An Integer's magnitude (RV_INT, or RV_BIGINT: digits in base ival) */
static Limbs
limbs_of(YState *st, const YNode *n, const RVal *v, uint64_t *done)
{
	Limbs		x;

	if (v->kind == RV_INT)
	{
		x.v = yr_alloc(st, sizeof(uint64_t));
		x.v[0] = v->ival < 0 ? -(uint64_t) v->ival : (uint64_t) v->ival;
		x.n = 1;
		trim(&x);
		return x;
	}
	if (v->ival == 10)
	{
		/*
		 * Before the quadratic conversion: more digits than the largest
		 * number of MAX_BITS bits has (log10(2) = 0.30103) cannot fit; the
		 * bit count decides the rest.
		 */
		if (v->len > (size_t) (YR_RATIONAL_MAX_BITS * 0.30103) + 1)
			yr_fail_at(st, n, MARSHAL_ERR_LIMIT,
					   "a Rational of two Integers of more than %d bits", YR_RATIONAL_MAX_BITS);
		x.v = yr_alloc(st, (v->len / 19 + 2) * sizeof(uint64_t));
		x.n = 0;
		/* multiply and add nineteen digits at a time */
		for (size_t i = 0; i < v->len;)
		{
			uint64_t	chunk = 0;
			uint64_t	mul = 1;
			unsigned __int128 carry;

			for (int k = 0; k < 19 && i < v->len; k++, i++)
			{
				chunk = chunk * 10 + (uint64_t) (v->str[i] - '0');
				mul *= 10;
			}
			carry = chunk;
			for (size_t k = 0; k < x.n; k++)
			{
				unsigned __int128 t = (unsigned __int128) x.v[k] * mul + carry;

				x.v[k] = (uint64_t) t;
				carry = t >> 64;
			}
			if (carry)
				x.v[x.n++] = (uint64_t) carry;
			work(st, done, x.n);
		}
	}
	else
	{
		/* base 2, 8 or 16: each digit's bits from the least significant up */
		int			bits = v->ival == 16 ? 4 : v->ival == 8 ? 3 : 1;
		size_t		bit = 0;

		x.n = (v->len * (size_t) bits + 63) / 64 + 1;
		x.v = yr_alloc(st, x.n * sizeof(uint64_t));
		memset(x.v, 0, x.n * sizeof(uint64_t));
		for (size_t i = v->len; i-- > 0;)
		{
			int			c = (uint8_t) v->str[i];
			uint64_t	d = (uint64_t) (c <= '9' ? c - '0' : (c | 32) - 'a' + 10);

			for (int b = 0; b < bits; b++, bit++)
				x.v[bit / 64] |= (d >> b & 1) << (bit % 64);
		}
	}
	trim(&x);
	if (x.n > YR_RATIONAL_MAX_BITS / 64)
		yr_fail_at(st, n, MARSHAL_ERR_LIMIT,
				   "a Rational of two Integers of more than %d bits", YR_RATIONAL_MAX_BITS);
	return x;
}

static Limbs
copy(YState *st, Limbs x)
{
	Limbs		c;

	c.n = x.n;
	c.v = yr_alloc(st, (x.n + 1) * sizeof(uint64_t));
	memcpy(c.v, x.v, x.n * sizeof(uint64_t));
	return c;
}

/* trailing zero bits (x not 0) */
static size_t
ctz(Limbs x)
{
	size_t		i = 0;

	while (x.v[i] == 0)
		i++;
	return i * 64 + (size_t) __builtin_ctzll(x.v[i]);
}

/* x >>= s, in place */
static void
shift_right(Limbs *x, size_t s)
{
	size_t		w = s / 64;
	unsigned	b = (unsigned) (s % 64);

	if (w >= x->n)
	{
		x->n = 0;
		return;
	}
	for (size_t i = 0; i + w < x->n; i++)
	{
		uint64_t	lo = x->v[i + w] >> b;
		uint64_t	hi = b && i + w + 1 < x->n ? x->v[i + w + 1] << (64 - b) : 0;

		x->v[i] = lo | hi;
	}
	x->n -= w;
	trim(x);
}

static int
compare(Limbs a, Limbs b)
{
	if (a.n != b.n)
		return a.n < b.n ? -1 : 1;
	for (size_t i = a.n; i-- > 0;)
		if (a.v[i] != b.v[i])
			return a.v[i] < b.v[i] ? -1 : 1;
	return 0;
}

/* a -= b, a > b */
static void
subtract(Limbs *a, Limbs b)
{
	uint64_t	borrow = 0;

	for (size_t i = 0; i < a->n; i++)
	{
		uint64_t	s = i < b.n ? b.v[i] : 0;
		uint64_t	t = a->v[i] - s;
		uint64_t	nb = a->v[i] < s;

		a->v[i] = t - borrow;
		borrow = nb | (t < borrow);
		if (i >= b.n && !borrow)
			break;
	}
	trim(a);
}

/* the gcd's odd part (a and b odd, not 0), in a */
static Limbs
odd_gcd(YState *st, Limbs a, Limbs b, uint64_t *done)
{
	for (;;)
	{
		int			c = compare(a, b);

		if (c == 0)
			return a;
		if (c < 0)
		{
			Limbs		t = a;

			a = b;
			b = t;
		}
		subtract(&a, b);
		shift_right(&a, ctz(a));
		work(st, done, a.n);
	}
}

/* a / d, exact (d odd divides a): Jebelean's exact division, from the low end */
static Limbs
divide_exact(YState *st, Limbs a, Limbs d, uint64_t *done)
{
	Limbs		r = copy(st, a);
	Limbs		q;
	uint64_t	inv = d.v[0];

	/* Newton's iteration: 3 bits correct for an odd number, doubling each step */
	for (int i = 0; i < 5; i++)
		inv *= 2 - d.v[0] * inv;
	q.n = a.n >= d.n ? a.n - d.n + 1 : 0;
	q.v = yr_alloc(st, (q.n + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < q.n; i++)
	{
		uint64_t	qi = r.v[i] * inv;
		unsigned __int128 carry = 0;
		uint64_t	borrow = 0;
		size_t		k;

		q.v[i] = qi;
		/* r -= qi * d << (64 i) */
		for (k = 0; k < d.n && i + k < r.n; k++)
		{
			unsigned __int128 p = (unsigned __int128) qi * d.v[k] + carry;
			uint64_t	lo = (uint64_t) p;
			uint64_t	t = r.v[i + k];
			uint64_t	s = t - lo;
			uint64_t	nb = t < lo;

			carry = p >> 64;
			r.v[i + k] = s - borrow;
			borrow = nb | (s < borrow);
		}
		for (k += i; k < r.n && (carry || borrow); k++)
		{
			unsigned __int128 sub = carry + borrow;
			uint64_t	lo = (uint64_t) sub;
			uint64_t	t = r.v[k];

			r.v[k] = t - lo;
			carry = sub >> 64;
			borrow = t < lo;
		}
		work(st, done, d.n);
	}
	trim(&q);
	return q;
}

/* The Integer of a magnitude and a sign */
static RVal *
integer_of(YState *st, Limbs x, bool neg)
{
	char	   *hex = yr_alloc(st, x.n * 16 + 2);
	size_t		len = 0;

	for (size_t i = x.n; i-- > 0;)
		for (int s = 60; s >= 0; s -= 4)
			hex[len++] = "0123456789abcdef"[x.v[i] >> s & 15];
	if (len == 0)
		hex[len++] = '0';
	return yr_int_from_digits(st, neg, hex, len, 16);
}

/*
 * Rational(num, den) of two Integers, at least one a Bignum: [num, den]
 * reduced, the sign on num, pushed on arr.
 */
void
yr_rational_bignums(YState *st, const YNode *n, RVal *num, RVal *den, RVal *arr)
{
	uint64_t	done = 0;
	bool		neg = ((num->kind == RV_INT ? num->ival < 0 : num->enc != 0) !=
					   (den->kind == RV_INT ? den->ival < 0 : den->enc != 0));
	Limbs		a = limbs_of(st, n, num, &done);
	Limbs		b = limbs_of(st, n, den, &done);
	Limbs		g;
	size_t		za,
				zb,
				z;

	if (b.n == 0)
		yr_fail_at(st, n, MARSHAL_ERR_UNREPRESENTABLE, "divided by 0");
	if (a.n == 0)
	{
		/* Rational(0, d): 0/1 */
		RVal	   *one = yr_new(st, RV_INT);

		one->ival = 1;
		yr_push(st, &arr->items, yr_new(st, RV_INT));
		yr_push(st, &arr->items, one);
		return;
	}
	/* gcd = 2^min(za, zb) * the gcd of the odd parts */
	za = ctz(a);
	zb = ctz(b);
	z = za < zb ? za : zb;
	a = copy(st, a);
	b = copy(st, b);
	shift_right(&a, z);
	shift_right(&b, z);
	{
		Limbs		oa = copy(st, a);
		Limbs		ob = copy(st, b);

		shift_right(&oa, za - z);
		shift_right(&ob, zb - z);
		g = odd_gcd(st, oa, ob, &done);
	}
	yr_push(st, &arr->items, integer_of(st, divide_exact(st, a, g, &done), neg));
	yr_push(st, &arr->items, integer_of(st, divide_exact(st, b, g, &done), false));
}
