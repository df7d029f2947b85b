/*
 * marshal_activerecord_number.h
 *		Number text and decimals for Active Record's casts
 *		(marshal_activerecord_number.c).
 */
#ifndef RBMARSHAL_MARSHAL_ACTIVERECORD_NUMBER_H
#define RBMARSHAL_MARSHAL_ACTIVERECORD_NUMBER_H

#include "marshal.h"

#define DEC_DIGITS 64

/* sign, digits d1d2..dn without leading zeros, value 0.d1d2..dn * 10^exp */
typedef struct MarshalDec
{
	bool		neg;
	char		dig[DEC_DIGITS + 2];
	int			n;
	int64_t		exp;
} MarshalDec;

/* text MRI's parsers read: ASCII and NUL-free; String#blank? of such text */
extern bool marshal_plain_ascii(MarshalBytes s);
extern bool marshal_blank(MarshalBytes s);

/* String#to_i as decimal digits; String#to_f */
extern bool marshal_string_to_i(MarshalBytes s, char *out, size_t cap, size_t *len);
extern bool marshal_string_to_f(MarshalBytes s, double *d);

/* BigDecimal: from digits, from text (#to_d), rounded to scale, as to_s */
extern bool marshal_dec_from_parts(MarshalDec *x, bool neg, const char *ip,
								   size_t ni, const char *fp, size_t nf,
								   int64_t exp);
extern bool marshal_dec_from_string(MarshalBytes s, MarshalDec *x);
extern void marshal_dec_round(MarshalDec *x, int64_t scale);
extern bool marshal_dec_format(const MarshalDec *x, char *out, size_t cap,
							   size_t *len);

/* Float#round(ndigits); BigDecimal(float, sig) */
extern double marshal_float_round(double number, int ndigits);
extern bool marshal_dec_from_float(double d, int sig, MarshalDec *x);

#endif
