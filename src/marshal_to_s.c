/*
 * marshal_to_s.c
 *		Ruby's to_s of the values whose to_s the bytes decide, as ActiveSupport
 *		writes them as Hash keys (key.to_s) and Range ends; and BigDecimal's
 *		_dump payload read as BigDecimal._load reads it, so that every
 *		conversion refuses what MRI refuses instead of printing another number.
 */
#include "marshal_internal.h"
#include "marshal_class.h"
#include "marshal_to_s.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Digits with single '_' between them, appended to out (when not NULL).
 * trailing_ok: one '_' may end the run (BigDecimal accepts "1_" but not
 * "1.5_").  Returns the count of digits read; *i moves past them.
 */
static size_t
digit_run(const uint8_t *s, size_t len, size_t *i, bool trailing_ok,
		  char *out, size_t *nout, bool *bad)
{
	size_t		n = 0;

	while (*i < len && marshal_is_digit(s[*i]))
	{
		if (out)
			out[(*nout)++] = (char) s[*i];
		n++;
		(*i)++;
		if (*i < len && s[*i] == '_')
		{
			if (*i + 1 < len && marshal_is_digit(s[*i + 1]))
				(*i)++;
			else if (trailing_ok && (*i + 1 == len || marshal_is_space(s[*i + 1])))
				(*i)++;
			else
				*bad = true;
		}
	}
	return n;
}

bool
marshal_decimal_load(const uint8_t *s, size_t len, char *digits, MarshalDecimal *d)
{
	size_t		i = 0;
	size_t		nd = 0;
	size_t		nint;
	size_t		lead = 0;
	int64_t		exp = 0;
	bool		bad = false;

	memset(d, 0, sizeof(*d));
	d->digits = digits;
	/* "<maxprec>:" of decimal digits */
	while (i < len && s[i] != ':')
		if (!marshal_is_digit(s[i++]))
			return false;
	if (i++ >= len || memchr(s, '\0', len))
		return false;
	while (i < len && marshal_is_space(s[i]))
		i++;
	while (len > i && marshal_is_space(s[len - 1]))
		len--;
	if (len - i == 3 && memcmp(s + i, "NaN", 3) == 0)
	{
		d->kind = MDEC_NAN;
		return true;
	}
	if (i < len && (s[i] == '+' || s[i] == '-'))
		d->neg = s[i++] == '-';
	if (len - i == 8 && memcmp(s + i, "Infinity", 8) == 0)
	{
		d->kind = MDEC_INFINITY;
		return true;
	}
	nint = digit_run(s, len, &i, true, digits, &nd, &bad);
	if (i < len && s[i] == '.')
	{
		i++;
		if (digit_run(s, len, &i, false, digits, &nd, &bad) == 0)
			return false;
	}
	else if (nint == 0)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E' || s[i] == 'd' || s[i] == 'D'))
	{
		bool		eneg = false;
		size_t		start;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		start = i;
		if (digit_run(s, len, &i, false, NULL, NULL, &bad) == 0)
			return false;
		for (size_t k = start; k < i; k++)
		{
			if (s[k] == '_')
				continue;
			if (exp > 10 * (int64_t) MARSHAL_DECIMAL_MAX_EXP)
				return false;	/* too large to print */
			exp = exp * 10 + (s[k] - '0');
		}
		if (eneg)
			exp = -exp;
	}
	if (bad || i != len)
		return false;
	/* 0.<digits> * 10**exp: the point moves past the integer digits */
	exp += (int64_t) nint;
	while (lead < nd && digits[lead] == '0')
		lead++, exp--;
	while (nd > lead && digits[nd - 1] == '0')
		nd--;
	d->digits = digits + lead;
	d->ndigits = nd - lead;
	if (d->ndigits == 0)
		exp = 0;
	if (exp > MARSHAL_DECIMAL_MAX_EXP || exp < -MARSHAL_DECIMAL_MAX_EXP)
		return false;
	d->exp = exp;
	return true;
}

size_t
marshal_decimal_text_size(const MarshalDecimal *d)
{
	return d->ndigits + (size_t) (d->exp < 0 ? -d->exp : d->exp) + 32;
}

size_t
marshal_decimal_to_s(const MarshalDecimal *d, bool plain, char *out)
{
	size_t		o = 0;

	if (d->kind == MDEC_NAN)
		return (size_t) sprintf(out, "NaN");
	if (d->neg)
		out[o++] = '-';
	if (d->kind == MDEC_INFINITY)
		return o + (size_t) sprintf(out + o, "Infinity");
	if (d->ndigits == 0)
	{
		memcpy(out + o, "0.0", 3);
		return o + 3;
	}
	if (!plain)
	{
		/* Ruby's own to_s: "0.12345e3" */
		memcpy(out + o, "0.", 2);
		memcpy(out + o + 2, d->digits, d->ndigits);
		o += 2 + d->ndigits;
		return o + (size_t) sprintf(out + o, "e%lld", (long long) d->exp);
	}
	if (d->exp <= 0)
	{
		out[o++] = '0';
		out[o++] = '.';
		memset(out + o, '0', (size_t) -d->exp);
		o += (size_t) -d->exp;
		memcpy(out + o, d->digits, d->ndigits);
		return o + d->ndigits;
	}
	for (int64_t k = 0; k < d->exp; k++)
		out[o++] = (size_t) k < d->ndigits ? d->digits[k] : '0';
	out[o++] = '.';
	if ((size_t) d->exp >= d->ndigits)
		out[o++] = '0';
	else
	{
		memcpy(out + o, d->digits + d->exp, d->ndigits - (size_t) d->exp);
		o += d->ndigits - (size_t) d->exp;
	}
	return o;
}

/* copy text into buf if it fits and is UTF-8 */
static bool
put_text(const MarshalBytes *t, char *buf, size_t size, size_t *len)
{
	if (t->len >= size || !marshal_utf8_valid(t->ptr, t->len, false))
		return false;
	memcpy(buf, t->ptr, t->len);
	buf[t->len] = '\0';
	*len = t->len;
	return true;
}

/* The text of a String ivar: *t empty and *present false when absent or nil. */
static MarshalStatus
ivar_text(const MarshalDoc *doc, const MarshalNode *n, const char *name,
		  MarshalBytes *t, bool *present, bool *ok, MarshalError *err)
{
	size_t		v;
	MarshalNode x;

	t->ptr = NULL;
	t->len = 0;
	*present = false;
	TRY(marshal_find_ivar(doc, n->items, n->count, name, &v, err));
	if (!v)
		return MARSHAL_OK;
	TRY(marshal_node(doc, v, &x, err));
	if (x.type == MT_NIL)
		return MARSHAL_OK;
	if (x.type != MT_STRING || !marshal_utf8_valid(x.data.ptr, x.data.len, false))
		*ok = false;
	*t = x.data;
	*present = true;
	return MARSHAL_OK;
}

static bool
append(char *buf, size_t size, size_t *len, const void *s, size_t n)
{
	if (*len + n >= size)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
	return true;
}

/* URI::Generic#to_s from its ivars (scheme, userinfo, host, port, path, ...) */
static MarshalStatus
uri_to_s(const MarshalDoc *doc, const MarshalNode *n, char *buf, size_t size,
		 size_t *len, bool *ok, MarshalError *err)
{
	static const struct
	{
		const char *cls;
		int64_t		port;
	}			defaults[] = {
		{"URI::HTTP", 80}, {"URI::HTTPS", 443}, {"URI::FTP", 21}, {"URI::LDAP", 389},
		{"URI::LDAPS", 636}, {"URI::WS", 80}, {"URI::WSS", 443},
	};
	MarshalBytes scheme, user, password, host, path, query, opaque, fragment;
	bool		has_scheme, has_user, has_password, has_host, has_path, has_query,
				has_opaque, has_fragment;
	size_t		pv;
	int64_t		port = -1;
	int64_t		dflt = -1;
	bool		fits = true;

	*len = 0;
	buf[0] = '\0';
	TRY(ivar_text(doc, n, "@scheme", &scheme, &has_scheme, ok, err));
	TRY(ivar_text(doc, n, "@user", &user, &has_user, ok, err));
	TRY(ivar_text(doc, n, "@password", &password, &has_password, ok, err));
	TRY(ivar_text(doc, n, "@host", &host, &has_host, ok, err));
	TRY(ivar_text(doc, n, "@path", &path, &has_path, ok, err));
	TRY(ivar_text(doc, n, "@query", &query, &has_query, ok, err));
	TRY(ivar_text(doc, n, "@opaque", &opaque, &has_opaque, ok, err));
	TRY(ivar_text(doc, n, "@fragment", &fragment, &has_fragment, ok, err));
	TRY(marshal_find_ivar(doc, n->items, n->count, "@port", &pv, err));
	if (pv)
	{
		MarshalNode p;

		TRY(marshal_node(doc, pv, &p, err));
		if (p.type == MT_FIXNUM)
			port = p.ival;
		else if (p.type != MT_NIL)
			*ok = false;
	}
	if (!*ok)
		return MARSHAL_OK;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (marshal_bytes_eq(n->cls, defaults[i].cls))
			dflt = defaults[i].port;
	if (has_scheme)
		fits = append(buf, size, len, scheme.ptr, scheme.len) && append(buf, size, len, ":", 1);
	if (has_opaque)
		fits = fits && append(buf, size, len, opaque.ptr, opaque.len);
	else
	{
		if (has_host || (has_scheme && (marshal_bytes_eq(scheme, "file") ||
										marshal_bytes_eq(scheme, "postgres"))))
			fits = fits && append(buf, size, len, "//", 2);
		if (has_user)
		{
			fits = fits && append(buf, size, len, user.ptr, user.len);
			if (has_password)
				fits = fits && append(buf, size, len, ":", 1) &&
					append(buf, size, len, password.ptr, password.len);
			fits = fits && append(buf, size, len, "@", 1);
		}
		if (has_host)
			fits = fits && append(buf, size, len, host.ptr, host.len);
		if (port >= 0 && port != dflt)
		{
			char		num[24];

			fits = fits && append(buf, size, len, num,
								  (size_t) snprintf(num, sizeof(num), ":%lld", (long long) port));
		}
		fits = fits && append(buf, size, len, path.ptr, path.len);
		if (has_query)
			fits = fits && append(buf, size, len, "?", 1) &&
				append(buf, size, len, query.ptr, query.len);
	}
	if (has_fragment)
		fits = fits && append(buf, size, len, "#", 1) &&
			append(buf, size, len, fragment.ptr, fragment.len);
	*ok = fits;
	return MARSHAL_OK;
}

/* an Integer (fixnum or bignum) as up to 128 bits */
static MarshalStatus
read_u128(const MarshalDoc *doc, size_t pos, uint64_t *hi, uint64_t *lo, bool *ok,
		  MarshalError *err)
{
	MarshalNode x;

	*hi = *lo = 0;
	TRY(marshal_node(doc, pos, &x, err));
	if (x.type == MT_FIXNUM && x.ival >= 0)
		*lo = (uint64_t) x.ival;
	else if (x.type == MT_BIGNUM && !x.negative && x.data.len <= 16)
	{
		for (size_t i = x.data.len; i-- > 0;)
		{
			*hi = *hi << 8 | *lo >> 56;
			*lo = *lo << 8 | x.data.ptr[i];
		}
	}
	else
		*ok = false;
	return MARSHAL_OK;
}

/*
 * IPAddr#to_s of an IPv6 address (eight 16-bit groups): the first of its
 * longest runs of two or more zero groups as "::", ::a.b.c.d and
 * ::ffff:a.b.c.d for the IPv4-compatible and mapped forms (not with a zone
 * id, which follows).  buf holds at least 64 bytes.
 */
size_t
marshal_ipv6_to_s(const unsigned g[8], bool zone, char *buf, size_t size)
{
	int			best = -1;
	int			bestlen = 1;
	size_t		o = 0;

	for (int i = 0; i < 8; i++)
	{
		int			k = i;

		while (k < 8 && g[k] == 0)
			k++;
		if (k - i > bestlen)
			best = i, bestlen = k - i;
		if (k > i)
			i = k - 1;
	}
	if (best == 0 && bestlen >= 5 && !zone &&
		(bestlen == 6 || (bestlen == 5 && g[5] == 0xffff)))
		return (size_t) snprintf(buf, size, "::%s%u.%u.%u.%u", bestlen == 5 ? "ffff:" : "",
								 g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255);
	for (int i = 0; i < 8; i++)
	{
		if (i == best)
		{
			o += (size_t) snprintf(buf + o, size - o, "::");
			i += bestlen - 1;
			continue;
		}
		o += (size_t) snprintf(buf + o, size - o, "%x%s", g[i],
							   i < 7 && i + 1 != best ? ":" : "");
	}
	return o;
}

/* IPAddr#to_s: dotted IPv4, or IPv6 as marshal_ipv6_to_s writes it */
static MarshalStatus
ipaddr_to_s(const MarshalDoc *doc, const MarshalNode *n, char *buf, size_t size,
			size_t *len, bool *ok, MarshalError *err)
{
	size_t		fv;
	size_t		av;
	MarshalNode fam;
	uint64_t	hi;
	uint64_t	lo;
	MarshalBytes zone;
	bool		has_zone;
	unsigned	g[8];

	TRY(marshal_find_ivar(doc, n->items, n->count, "@family", &fv, err));
	TRY(marshal_find_ivar(doc, n->items, n->count, "@addr", &av, err));
	if (!fv || !av || size < 64)
	{
		*ok = false;
		return MARSHAL_OK;
	}
	TRY(marshal_node(doc, fv, &fam, err));
	TRY(read_u128(doc, av, &hi, &lo, ok, err));
	TRY(ivar_text(doc, n, "@zone_id", &zone, &has_zone, ok, err));
	if (!*ok || fam.type != MT_FIXNUM)
	{
		*ok = false;
		return MARSHAL_OK;
	}
	if (fam.ival == 2)
	{
		/* Socket::AF_INET */
		*len = (size_t) snprintf(buf, size, "%u.%u.%u.%u", (unsigned) (lo >> 24 & 255),
								 (unsigned) (lo >> 16 & 255), (unsigned) (lo >> 8 & 255),
								 (unsigned) (lo & 255));
		return MARSHAL_OK;
	}
	for (int i = 0; i < 8; i++)
		g[i] = (unsigned) ((i < 4 ? hi >> (16 * (3 - i)) : lo >> (16 * (7 - i))) & 0xffff);
	*len = marshal_ipv6_to_s(g, has_zone, buf, size);
	if (has_zone)
		*ok = append(buf, size, len, zone.ptr, zone.len);
	return MARSHAL_OK;
}

/* one byte of a text being measured (out NULL) or written */
static inline void
put_or_count(char *out, size_t *o, char c)
{
	if (out)
		out[*o] = c;
	(*o)++;
}

/* Regexp#to_s: "(?ix-m:source)", an unescaped '/' escaped; out NULL: its length. */
size_t
marshal_regexp_to_s(const MarshalNode *n, char *out)
{
	static const struct
	{
		int			bit;
		char		c;
	}			flags[] = {{4, 'm'}, {1, 'i'}, {2, 'x'}};
	size_t		o = 0;
	bool		escaped = false;

	put_or_count(out, &o, '(');
	put_or_count(out, &o, '?');
	for (int i = 0; i < 3; i++)
		if (n->regexp_options & flags[i].bit)
			put_or_count(out, &o, flags[i].c);
	if ((n->regexp_options & 7) != 7)
	{
		put_or_count(out, &o, '-');
		for (int i = 0; i < 3; i++)
			if (!(n->regexp_options & flags[i].bit))
				put_or_count(out, &o, flags[i].c);
	}
	put_or_count(out, &o, ':');
	for (size_t i = 0; i < n->data.len; i++)
	{
		uint8_t		c = n->data.ptr[i];

		if (c == '/' && !escaped)
			put_or_count(out, &o, '\\');
		escaped = c == '\\' && !escaped;
		put_or_count(out, &o, (char) c);
	}
	put_or_count(out, &o, ')');
	if (out)
		out[o] = '\0';
	return o;
}

/* Rational "1/3" and Complex "1+2i" from their [a, b] data */
static MarshalStatus
pair_to_s(const MarshalDoc *doc, const MarshalNode *n, bool complex, char *buf,
		  size_t size, size_t *len, bool *ok, MarshalError *err, int depth);

static MarshalStatus
to_s(const MarshalDoc *doc, size_t pos, char *buf, size_t size, size_t *len,
	 bool *ok, MarshalError *err, int depth)
{
	MarshalNode n;
	MarshalClassId id;

	*ok = true;
	*len = 0;
	buf[0] = '\0';
	if (size < 64 || depth > 2)
	{
		*ok = false;
		return MARSHAL_OK;
	}
	TRY(marshal_node(doc, pos, &n, err));
	id = n.type == MT_OBJECT || n.type == MT_USRMARSHAL || n.type == MT_USERDEF ?
		marshal_class_id(&n) : MC_NONE;
	switch (n.type)
	{
		case MT_NIL:
			return MARSHAL_OK;
		case MT_TRUE:
		case MT_FALSE:
			*len = (size_t) snprintf(buf, size, n.type == MT_TRUE ? "true" : "false");
			return MARSHAL_OK;
		case MT_FIXNUM:
			*len = (size_t) snprintf(buf, size, "%lld", (long long) n.ival);
			return MARSHAL_OK;
		case MT_FLOAT:
			{
				double		v;

				if (!marshal_parse_float(n.data.ptr, n.data.len, &v))
					return marshal_error(err, MARSHAL_ERR_FORMAT, n.pos, "unreadable float");
				*len = marshal_format_float(v, buf);
				return MARSHAL_OK;
			}
		case MT_BIGNUM:
			{
				uint32_t	limbs[64];

				*ok = n.data.len <= 4 * 64 && n.data.len * 3 + 3 < size &&
					marshal_bignum_decimal(n.data.ptr, n.data.len, n.negative,
										   buf, size, len, limbs);
				return MARSHAL_OK;
			}
		case MT_STRING:
		case MT_SYMBOL:
			*ok = put_text(&n.data, buf, size, len);
			return MARSHAL_OK;
		case MT_ARRAY:
			/* groupdate's [status, Date] keys: Array#to_s is its inspect */
			return marshal_inspect_key(doc, pos, buf, size, len, ok, err);
		case MT_REGEXP:
			*ok = marshal_regexp_to_s(&n, NULL) < size;
			if (*ok)
				*len = marshal_regexp_to_s(&n, buf);
			*ok = *ok && marshal_utf8_valid((const uint8_t *) buf, *len, false);
			return MARSHAL_OK;
		case MT_CLASS:
		case MT_MODULE:
		case MT_MODULE_OLD:
			/* Module#to_s: its name */
			*ok = put_text(&n.data, buf, size, len);
			return MARSHAL_OK;
		default:
			break;
	}
	switch (id)
	{
		case MC_TIME:
			return marshal_time_to_s(doc, &n, buf, len, err);
		case MC_TIME_WITH_ZONE:
			return marshal_time_with_zone_to_s(doc, &n, buf, len, err);
		case MC_DATE:
		case MC_DATETIME:
			/* to_s is xmlschema without a fraction; Date's is its as_json */
			return marshal_date_json(doc, &n, id == MC_DATETIME, 0, buf, len, err);
		case MC_RATIONAL:
		case MC_COMPLEX:
			return pair_to_s(doc, &n, id == MC_COMPLEX, buf, size, len, ok, err, depth);
		case MC_BIGDECIMAL:
			{
				MarshalDecimal d;
				char		digits[512];

				if (n.data.len > sizeof(digits) ||
					!marshal_decimal_load(n.data.ptr, n.data.len, digits, &d))
				{
					if (n.data.len > sizeof(digits))
					{
						*ok = false;
						return MARSHAL_OK;
					}
					return marshal_error(err, MARSHAL_ERR_FORMAT, n.pos,
										 "a BigDecimal payload that BigDecimal._load refuses");
				}
				if (marshal_decimal_text_size(&d) > size)
				{
					*ok = false;
					return MARSHAL_OK;
				}
				*len = marshal_decimal_to_s(&d, true, buf);
				buf[*len] = '\0';
				return MARSHAL_OK;
			}
		case MC_DURATION:
			{
				size_t		v;

				TRY(marshal_find_ivar(doc, n.items, n.count, "@value", &v, err));
				if (v)
					return to_s(doc, v, buf, size, len, ok, err, depth + 1);
				*ok = false;
				return MARSHAL_OK;
			}
		case MC_URI:
			return uri_to_s(doc, &n, buf, size, len, ok, err);
		case MC_IPADDR:
			return ipaddr_to_s(doc, &n, buf, size, len, ok, err);
		case MC_PATHNAME:
		case MC_CHARS:
			{
				MarshalBytes t;
				bool		present;

				TRY(ivar_text(doc, &n, id == MC_PATHNAME ? "@path" : "@wrapped_string",
							  &t, &present, ok, err));
				*ok = *ok && present && append(buf, size, len, t.ptr, t.len);
				return MARSHAL_OK;
			}
		case MC_RANGE:
			{
				size_t		vb;
				size_t		ve;
				size_t		vx;
				size_t		bl;
				MarshalNode x;

				TRY(marshal_find_ivar(doc, n.items, n.count, "begin", &vb, err));
				TRY(marshal_find_ivar(doc, n.items, n.count, "end", &ve, err));
				TRY(marshal_find_ivar(doc, n.items, n.count, "excl", &vx, err));
				if (!vb || !ve || !vx)
				{
					*ok = false;
					return MARSHAL_OK;
				}
				TRY(marshal_node(doc, vx, &x, err));
				TRY(to_s(doc, vb, buf, size / 2, &bl, ok, err, depth + 1));
				if (!*ok)
					return MARSHAL_OK;
				bl += (size_t) snprintf(buf + bl, size - bl, "%s",
										x.type == MT_TRUE ? "..." : "..");
				TRY(to_s(doc, ve, buf + bl, size - bl, len, ok, err, depth + 1));
				*len += bl;
				return MARSHAL_OK;
			}
		default:
			break;
	}
	if (n.type == MT_OBJECT && id == MC_NONE)
	{
		/* Exception#to_s: its message (a String), else its class name */
		MarshalBytes t;
		bool		present;
		size_t		v;

		TRY(marshal_find_ivar(doc, n.items, n.count, "mesg", &v, err));
		if (v)
		{
			TRY(ivar_text(doc, &n, "mesg", &t, &present, ok, err));
			*ok = *ok && put_text(present ? &t : &n.cls, buf, size, len);
			return MARSHAL_OK;
		}
	}
	/* a Hash, object...: to_s is an inspect text with an address */
	*ok = false;
	return MARSHAL_OK;
}

static MarshalStatus
pair_to_s(const MarshalDoc *doc, const MarshalNode *n, bool complex, char *buf,
		  size_t size, size_t *len, bool *ok, MarshalError *err, int depth)
{
	MarshalNode arr;
	size_t		p;
	size_t		al;
	size_t		bl;
	char	   *b;

	TRY(marshal_node(doc, n->items, &arr, err));
	if (arr.type != MT_ARRAY || arr.count != 2)
	{
		*ok = false;
		return MARSHAL_OK;
	}
	p = arr.items;
	TRY(to_s(doc, p, buf, size / 2, &al, ok, err, depth + 1));
	if (!*ok)
		return MARSHAL_OK;
	TRY(marshal_skip(doc, p, &p, err));
	b = buf + al + 1;
	TRY(to_s(doc, p, b, size - al - 2, &bl, ok, err, depth + 1));
	if (!*ok)
		return MARSHAL_OK;
	if (!complex)
	{
		buf[al] = '/';
		*len = al + 1 + bl;
		return MARSHAL_OK;
	}
	{
		/* imaginary part: its sign, then its magnitude; not finite: "*i" */
		bool		neg = b[0] == '-';
		char		mag[200];
		bool		finite;

		if (bl >= sizeof(mag))
		{
			*ok = false;
			return MARSHAL_OK;
		}
		memcpy(mag, neg ? b + 1 : b, neg ? bl : bl + 1);
		finite = strcmp(mag, "NaN") != 0 && strcmp(mag, "Infinity") != 0;
		*len = al + (size_t) snprintf(buf + al, size - al, "%c%s%si", neg ? '-' : '+',
									  mag, finite ? "" : "*");
	}
	return MARSHAL_OK;
}

MarshalStatus
marshal_to_s(const MarshalDoc *doc, size_t pos, char *buf, size_t size,
			 size_t *len, bool *ok, MarshalError *err)
{
	return to_s(doc, pos, buf, size, len, ok, err, 0);
}

MarshalStatus
marshal_view_decimal_excludes(const MarshalDoc *doc, size_t pos,
							  const MarshalDecimal *keys, int nkeys,
							  bool *excluded, MarshalError *err)
{
	MarshalBytes name;
	size_t		p;
	int64_t		n;
	char		digits[64];
	MarshalDecimal d;

	*excluded = false;
	if (pos + 1 >= doc->len || doc->buf[pos] != MT_USERDEF)
		return MARSHAL_OK;
	TRY(marshal_symbol(doc, pos + 1, &name, NULL, NULL, &p, err));
	if (!marshal_bytes_eq(name, "BigDecimal") ||
		!marshal_decode_long(doc->buf, doc->len, &p, &n) || n < 0 ||
		(uint64_t) n > doc->len - p || (size_t) n > sizeof(digits) ||
		!marshal_decimal_load(doc->buf + p, (size_t) n, digits, &d) ||
		d.kind != MDEC_FINITE)
		return MARSHAL_OK;
	/* its text is to_s("F") of d, which reads back as d */
	for (int i = 0; i < nkeys; i++)
		if (keys[i].neg == d.neg && keys[i].exp == d.exp &&
			keys[i].ndigits == d.ndigits &&
			memcmp(keys[i].digits, d.digits, d.ndigits) == 0)
			return MARSHAL_OK;
	*excluded = true;
	return MARSHAL_OK;
}
