/*
 * yaml_dump.c
 *		The Ruby object graph -> Marshal bytes, as MRI's w_object walks it.
 *
 * Every heap object takes the next object number where MRI's writer takes
 * it (before its contents, but after the ivars for _dump objects such as
 * Time), and a second visit writes "@n".  Interned Strings (Hash keys) go
 * through the writer's fstring table; flonums through its float table.
 * Instance variables come out in the order of their class's index, which
 * MRI grows as names are first set on any object of the class: Time's
 * _dump string takes its ivars here, in time_mdump's order.
 */
#include "yaml_internal.h"
#include "marshal_internal.h"

#include <math.h>
#include <string.h>

static void dump(YState *st, MarshalWriter *w, RVal *v);

/* A heap object seen before is a link; else it takes the next number. */
static bool
linked(MarshalWriter *w, RVal *v)
{
	if (v->slot)
	{
		marshal_write_link(w, v->slot - 1);
		return true;
	}
	v->slot = marshal_writer_objects(w) + 1;
	return false;
}

static void
sym(MarshalWriter *w, const char *s, size_t len)
{
	marshal_write_symbol(w, (const uint8_t *) s, len);
}

/* ivars in their class's order (see yaml_ruby.c) */
static void
dump_ivars(YState *st, MarshalWriter *w, RVal *v, const char *cls)
{
	const YClassIvars *c = yr_class_ivars(st, cls);
	uint32_t	n = v->ivars.n;
	RIvar	   *sorted = n ? yr_alloc(st, n * sizeof(RIvar)) : NULL;
	int		   *rank = n ? yr_alloc(st, n * sizeof(int)) : NULL;

	for (uint32_t i = 0; i < n; i++)
	{
		int			r = yr_ivar_rank(c, v->ivars.v[i].name, v->ivars.v[i].len);
		uint32_t	j = i;

		if (r < 0)
			r = 1 << 30;
		while (j > 0 && rank[j - 1] > r)
		{
			sorted[j] = sorted[j - 1];
			rank[j] = rank[j - 1];
			j--;
		}
		sorted[j] = v->ivars.v[i];
		rank[j] = r;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		sym(w, sorted[i].name, sorted[i].len);
		dump(st, w, sorted[i].value);
	}
}

static void
dump_bigint(YState *st, MarshalWriter *w, RVal *v)
{
	int			base = (int) v->ival;
	bool		neg = v->enc != 0;
	size_t		n = v->len;
	int			bits = base == 16 ? 4 : base == 8 ? 3 : 1;
	uint8_t    *mag;
	size_t		nbytes = (n * (size_t) bits + 7) / 8 + 1;
	size_t		bit = 0;

	if (base == 10)
	{
		char	   *buf = yr_alloc(st, n + 1);

		/* the writer reads the sign from the text */
		buf[0] = neg ? '-' : '+';
		memcpy(buf + 1, v->str, n);
		marshal_write_decimal(w, buf, n + 1);
		return;
	}
	mag = yr_alloc(st, nbytes);
	memset(mag, 0, nbytes);
	/* digits from the least significant up, bits at a time */
	for (size_t i = n; i-- > 0;)
	{
		int			c = v->str[i];
		int			d = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;

		for (int b = 0; b < bits; b++, bit++)
			if (d >> b & 1)
				mag[bit / 8] |= (uint8_t) (1 << (bit % 8));
	}
	marshal_write_bignum(w, neg, mag, nbytes);
}

/* Time's _dump: 8 bytes (more for far years), then its ivars */
static void
dump_time(YState *st, MarshalWriter *w, RVal *v)
{
	RTime	   *t = v->time;
	uint8_t		payload[MARSHAL_TIME_DUMP_MAX];
	int64_t		usec = t->nsec / 1000;
	size_t		len = marshal_time_dump_bytes(t->epoch, (int32_t) usec, t->utc,
											  payload);
	int64_t		nsec = t->nsec % 1000;
	RIvar		iv[5];
	int			niv = 0;
	const YClassIvars *c;
	RVal	   *nano_num = NULL,
			   *nano_den = NULL,
			   *submicro = NULL,
			   *offset = NULL;

	/* time_mdump sets nano_num, nano_den, submicro, offset, zone */
	if (nsec || t->subnum)
	{
		nano_num = yr_new(st, RV_INT);
		nano_num->ival = nsec * t->subden + t->subnum;
		nano_den = yr_new(st, RV_INT);
		nano_den->ival = t->subden;
		iv[niv++] = (RIvar) {"nano_num", 8, nano_num};
		iv[niv++] = (RIvar) {"nano_den", 8, nano_den};
	}
	if (nsec)
	{
		char	   *buf = yr_alloc(st, 2);
		int64_t		x = nsec;

		/* packed BCD of the digits below the microsecond */
		buf[1] = (char) ((x % 10) << 4);
		x /= 10;
		buf[0] = (char) (x % 10);
		x /= 10;
		buf[0] |= (char) ((x % 10) << 4);
		submicro = yr_string(st, buf, buf[1] == 0 ? 1 : 2, MENC_BINARY);
		iv[niv++] = (RIvar) {"submicro", 8, submicro};
	}
	if (!t->utc)
	{
		offset = yr_new(st, RV_INT);
		offset->ival = t->offset;
		iv[niv++] = (RIvar) {"offset", 6, offset};
	}
	/* zone: "UTC" in UTC mode, else the zone String or nil */
	iv[niv++] = (RIvar) {"zone", 4, t->utc ? NULL : (t->zone ? t->zone : st->nil)};
	/* the _dump String's class index grows as these are set */
	{
		RVal		tmp;

		memset(&tmp, 0, sizeof(tmp));
		tmp.kind = RV_STRING;
		for (int i = 0; i < niv; i++)
			yr_ivar_set(st, &tmp, iv[i].name, iv[i].len, st->nil);
	}
	c = yr_class_ivars(st, "String");
	for (int i = 1; i < niv; i++)
		for (int j = i; j > 0 &&
			 yr_ivar_rank(c, iv[j - 1].name, iv[j - 1].len) >
			 yr_ivar_rank(c, iv[j].name, iv[j].len); j--)
		{
			RIvar		x = iv[j];

			iv[j] = iv[j - 1];
			iv[j - 1] = x;
		}
	marshal_write_ivar_wrapper(w);
	marshal_write_userdef(w, (const uint8_t *) "Time", 4, payload, len);
	marshal_write_ivar_count(w, (uint32_t) niv);
	for (int i = 0; i < niv; i++)
	{
		sym(w, iv[i].name, iv[i].len);
		/* zone names are interned Strings */
		if (iv[i].value == NULL)
			(void) marshal_write_fstring(w, (const uint8_t *) "UTC", 3, MENC_USASCII);
		else if (iv[i].value->kind == RV_STRING && iv[i].len == 4)
			(void) marshal_write_fstring(w, (const uint8_t *) iv[i].value->str,
										 iv[i].value->len, (MarshalEncoding) iv[i].value->enc);
		else
			dump(st, w, iv[i].value);
	}
	v->slot = marshal_write_remember(w) + 1;
}

static void
dump_string(YState *st, MarshalWriter *w, RVal *v)
{
	bool		wrap = v->enc != MENC_BINARY || v->ivars.n > 0;

	if (v->frozen && v->ivars.n == 0 && v->cls == NULL)
	{
		(void) marshal_write_fstring(w, (const uint8_t *) v->str, v->len,
									 (MarshalEncoding) v->enc);
		return;
	}
	if (linked(w, v))
		return;
	if (!wrap && v->cls == NULL)
	{
		marshal_write_string(w, (const uint8_t *) v->str, v->len, MENC_BINARY);
		return;
	}
	if (wrap)
		marshal_write_ivar_wrapper(w);
	if (v->cls)
		marshal_write_uclass(w, (const uint8_t *) v->cls, strlen(v->cls));
	marshal_write_string_bytes(w, (const uint8_t *) v->str, v->len);
	if (wrap)
	{
		marshal_write_ivar_count(w, v->ivars.n + (v->enc != MENC_BINARY));
		if (v->enc != MENC_BINARY)
			marshal_write_encoding(w, (MarshalEncoding) v->enc, NULL, 0);
		dump_ivars(st, w, v, v->cls ? v->cls : "String");
	}
}

static void
dump(YState *st, MarshalWriter *w, RVal *v)
{
	const MarshalHooks *h = st->arena.hooks;

	if (++st->depth > st->opts->max_depth + 8)
		yr_fail(st, MARSHAL_ERR_DEPTH, 0, 0, 0, "nesting deeper than %u",
				  st->opts->max_depth);
	/* only containers recurse */
	if (v->kind >= RV_ARRAY && h && h->check_stack)
		h->check_stack(h->ctx);
	if (++st->tick >= 4096)
	{
		st->tick = 0;
		if (h && h->check_interrupts)
			h->check_interrupts(h->ctx);
	}
	switch ((RKind) v->kind)
	{
		case RV_NIL:
			marshal_write_nil(w);
			break;
		case RV_TRUE:
		case RV_FALSE:
			marshal_write_bool(w, v->kind == RV_TRUE);
			break;
		case RV_INT:
			/* past 62 bits an Integer is a heap Bignum: one object */
			if ((v->ival >= (INT64_C(1) << 62) || v->ival < -(INT64_C(1) << 62)) &&
				linked(w, v))
				break;
			marshal_write_int(w, v->ival);
			break;
		case RV_BIGINT:
			if (!linked(w, v))
				dump_bigint(st, w, v);
			break;
		case RV_FLOAT:
			if (marshal_is_flonum(v->dval) || !linked(w, v))
				marshal_write_float(w, v->dval);
			break;
		case RV_STRING:
			dump_string(st, w, v);
			break;
		case RV_SYMBOL:
			sym(w, v->str, v->len);
			break;
		case RV_ARRAY:
		case RV_HASH:
			if (linked(w, v))
				break;
			/* I (ivars), C (a subclass), then [ or { or } */
			if (v->ivars.n)
				marshal_write_ivar_wrapper(w);
			if (v->cls)
				marshal_write_uclass(w, (const uint8_t *) v->cls, strlen(v->cls));
			if (v->kind == RV_ARRAY)
				marshal_write_array(w, v->items.n);
			else if (v->dflt)
				marshal_write_hash_with_default(w, v->items.n / 2);
			else
				marshal_write_hash(w, v->items.n / 2);
			for (uint32_t i = 0; i < v->items.n; i++)
				dump(st, w, v->items.v[i]);
			if (v->dflt)
				dump(st, w, v->dflt);
			if (v->ivars.n)
			{
				marshal_write_ivar_count(w, v->ivars.n);
				dump_ivars(st, w, v, v->cls ? v->cls : v->kind == RV_ARRAY ? "Array" : "Hash");
			}
			break;
		case RV_OBJECT:
			if (linked(w, v))
				break;
			marshal_write_named(w, MT_OBJECT, (const uint8_t *) v->cls,
								strlen(v->cls), v->ivars.n);
			dump_ivars(st, w, v, v->cls);
			break;
		case RV_STRUCT:
			if (linked(w, v))
				break;
			marshal_write_named(w, MT_STRUCT, (const uint8_t *) v->cls,
								strlen(v->cls), v->ivars.n);
			for (uint32_t i = 0; i < v->ivars.n; i++)
			{
				sym(w, v->ivars.v[i].name, v->ivars.v[i].len);
				dump(st, w, v->ivars.v[i].value);
			}
			break;
		case RV_USERDEF:
			if (v->slot)
			{
				marshal_write_link(w, v->slot - 1);
				break;
			}
			if (v->enc != MENC_BINARY)
				marshal_write_ivar_wrapper(w);
			marshal_write_userdef(w, (const uint8_t *) v->cls, strlen(v->cls),
								  (const uint8_t *) v->str, v->len);
			if (v->enc != MENC_BINARY)
			{
				marshal_write_ivar_count(w, 1);
				marshal_write_encoding(w, (MarshalEncoding) v->enc, NULL, 0);
			}
			v->slot = marshal_write_remember(w) + 1;
			break;
		case RV_USRMARSHAL:
			if (linked(w, v))
				break;
			marshal_write_named(w, MT_USRMARSHAL, (const uint8_t *) v->cls,
								strlen(v->cls), 0);
			dump(st, w, v->data);
			break;
		case RV_REGEXP:
			if (linked(w, v))
				break;
			marshal_write_ivar_wrapper(w);
			marshal_write_regexp(w, (const uint8_t *) v->str, v->len, (int) v->ival);
			marshal_write_ivar_count(w, 1);
			marshal_write_encoding(w, (MarshalEncoding) v->enc, NULL, 0);
			break;
		case RV_CLASS:
		case RV_MODULE:
			if (linked(w, v))
				break;
			marshal_write_class(w, v->kind == RV_CLASS ? MT_CLASS : MT_MODULE,
								(const uint8_t *) v->str, v->len);
			break;
		case RV_TIME:
			if (v->slot)
				marshal_write_link(w, v->slot - 1);
			else
				dump_time(st, w, v);
			break;
	}
	st->depth--;
}

void
yr_dump(YState *st, MarshalWriter *w, RVal *root)
{
	st->depth = 0;
	dump(st, w, root);
}
