/*
 * marshal_writer.c
 *		The Marshal writer: bytes as MRI's Marshal.dump writes them.
 *
 * One writer serves every producer (jsonb -> rbmarshal, Ruby literals,
 * builders).  It keeps MRI's bookkeeping: the symbol table (";n" for a
 * symbol seen before), the object counter (every String, Float, Bignum,
 * Array and Hash takes a slot, big fixnums too), "@n" links for repeated
 * flonum values (equal flonums are one VALUE in 64-bit MRI) and for hash
 * keys that JSON.parse interned.  Errors are sticky: the producer writes on
 * and checks once at the end.
 */
#include "marshal_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open-addressing map from byte strings to slot numbers. */
typedef struct MapEntry
{
	uint64_t	hash;
	uint32_t	off;			/* key bytes at keys + off */
	uint32_t	len;
	uint32_t	value;
	bool		used;
} MapEntry;

typedef struct Map
{
	MapEntry   *entries;
	size_t		cap;			/* power of two */
	size_t		count;
	uint8_t    *keys;
	size_t		keylen;
	size_t		keycap;
} Map;

struct MarshalWriter
{
	const MarshalHooks *hooks;
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
	MarshalStatus status;
	uint32_t	nobjects;
	uint32_t	nsymbols;
	Map			symbols;		/* symbol name -> symbol index */
	Map			flonums;		/* 8 bytes of a double -> object slot */
	Map			keys;			/* interned strings (an encoding byte, then
								 * the text) -> object slot */
	Map			encodings;		/* encoding name -> slot of its String */
};

/* Room for need bytes in *buf, growing it by doubling from 256. */
static bool
reserve(MarshalWriter *w, uint8_t **buf, size_t *cap, size_t need)
{
	size_t		c;
	uint8_t    *b;

	if (need <= *cap)
		return true;
	for (c = *cap ? *cap : 256; c < need; c *= 2)
		;
	b = marshal_realloc(w->hooks, *buf, c);
	if (b == NULL)
		return false;
	*buf = b;
	*cap = c;
	return true;
}

static uint64_t
hash_bytes(const uint8_t *s, size_t n)
{
	uint64_t	h = 1469598103934665603ULL;	/* FNV-1a */

	for (size_t i = 0; i < n; i++)
	{
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static bool
map_grow(MarshalWriter *w, Map *m)
{
	size_t		cap = m->cap ? m->cap * 2 : 64;
	MapEntry   *e = marshal_realloc(w->hooks, NULL, cap * sizeof(MapEntry));

	if (e == NULL)
		return false;
	memset(e, 0, cap * sizeof(MapEntry));
	for (size_t i = 0; i < m->cap; i++)
	{
		if (m->entries[i].used)
		{
			size_t		j = m->entries[i].hash & (cap - 1);

			while (e[j].used)
				j = (j + 1) & (cap - 1);
			e[j] = m->entries[i];
		}
	}
	marshal_free(w->hooks, m->entries);
	m->entries = e;
	m->cap = cap;
	return true;
}

/* Look key up; if absent and value != NULL-marker, insert it.  */
static bool
map_find(Map *m, const uint8_t *key, size_t len, uint64_t h, uint32_t *value)
{
	if (m->cap == 0)
		return false;
	for (size_t j = h & (m->cap - 1); m->entries[j].used; j = (j + 1) & (m->cap - 1))
	{
		MapEntry   *e = &m->entries[j];

		if (e->hash == h && e->len == len &&
			(len == 0 || memcmp(m->keys + e->off, key, len) == 0))
		{
			*value = e->value;
			return true;
		}
	}
	return false;
}

static bool
map_put(MarshalWriter *w, Map *m, const uint8_t *key, size_t len, uint64_t h,
		uint32_t value)
{
	size_t		j;

	if ((m->count + 1) * 2 > m->cap && !map_grow(w, m))
		return false;
	if (!reserve(w, &m->keys, &m->keycap, m->keylen + len))
		return false;
	if (len > 0)
		memcpy(m->keys + m->keylen, key, len);
	for (j = h & (m->cap - 1); m->entries[j].used; j = (j + 1) & (m->cap - 1))
		;
	m->entries[j].used = true;
	m->entries[j].hash = h;
	m->entries[j].off = (uint32_t) m->keylen;
	m->entries[j].len = (uint32_t) len;
	m->entries[j].value = value;
	m->keylen += len;
	m->count++;
	return true;
}

static void
map_free(MarshalWriter *w, Map *m)
{
	marshal_free(w->hooks, m->entries);
	marshal_free(w->hooks, m->keys);
}

static void
put_grow(MarshalWriter *w, const void *p, size_t n)
{
	if (w->status != MARSHAL_OK)
		return;
	if (!reserve(w, &w->buf, &w->cap, w->len + n))
	{
		w->status = MARSHAL_ERR_NOMEM;
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

/*
 * Every byte written comes through here: the common case (room left, no
 * error: an error leaves cap at len or below) stays in line, without a call.
 */
static inline void
put(MarshalWriter *w, const void *p, size_t n)
{
	if (w->status == MARSHAL_OK && n <= w->cap - w->len)
	{
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		return;
	}
	put_grow(w, p, n);
}

static inline void
put_byte(MarshalWriter *w, int c)
{
	uint8_t		b = (uint8_t) c;

	put(w, &b, 1);
}

/* MRI's w_long: the packed form of lengths, counts and small Integers. */
static void
put_long(MarshalWriter *w, int64_t x)
{
	uint8_t		buf[9];

	put(w, buf, marshal_encode_long(x, buf));
}

static void
put_bytes(MarshalWriter *w, const void *p, size_t n)
{
	put_long(w, (int64_t) n);
	put(w, p, n);
}

MarshalWriter *
marshal_writer_new(const MarshalHooks *hooks)
{
	MarshalWriter *w;

	w = marshal_alloc(hooks, sizeof(MarshalWriter));
	if (w == NULL)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->hooks = hooks;
	put_byte(w, MARSHAL_MAJOR);
	put_byte(w, MARSHAL_MINOR);
	return w;
}

void
marshal_writer_free(MarshalWriter *w)
{
	if (w == NULL)
		return;
	map_free(w, &w->symbols);
	map_free(w, &w->flonums);
	map_free(w, &w->keys);
	map_free(w, &w->encodings);
	marshal_free(w->hooks, w->buf);
	marshal_free(w->hooks, w);
}

MarshalStatus
marshal_writer_finish(MarshalWriter *w, uint8_t **out, size_t *len)
{
	MarshalStatus st = w->status;

	if (st == MARSHAL_OK)
	{
		*out = w->buf;
		*len = w->len;
		w->buf = NULL;
	}
	marshal_writer_free(w);
	return st;
}

void
marshal_write_nil(MarshalWriter *w)
{
	put_byte(w, MT_NIL);
}

void
marshal_write_bool(MarshalWriter *w, bool v)
{
	put_byte(w, v ? MT_TRUE : MT_FALSE);
}

/* A bignum from its magnitude in little-endian bytes (MRI's w_bignum). */
static void
put_bignum(MarshalWriter *w, bool negative, const uint8_t *mag, size_t n)
{
	size_t		shorts;

	while (n > 0 && mag[n - 1] == 0)
		n--;
	shorts = (n + 1) / 2;
	put_byte(w, MT_BIGNUM);
	put_byte(w, negative ? '-' : '+');
	put_long(w, (int64_t) shorts);
	put(w, mag, n);
	if (n % 2)
		put_byte(w, 0);
	w->nobjects++;
}

void
marshal_write_int(MarshalWriter *w, int64_t v)
{
	uint8_t		mag[8];
	uint64_t	m;

	/* a Fixnum fits in 31 bits on the wire; anything else is 'l' */
	if (v >= -(INT64_C(1) << 30) && v < (INT64_C(1) << 30))
	{
		put_byte(w, MT_FIXNUM);
		put_long(w, v);
		return;
	}
	m = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
	for (int i = 0; i < 8; i++)
		mag[i] = (uint8_t) (m >> (8 * i));
	put_bignum(w, v < 0, mag, 8);
}

/*
 * Limb multiply-adds between two calls of the hooks' interrupt check while
 * a long decimal is converted (quadratic in its digits: a million digits
 * are about 1.4e9 of them).
 */
#define DECIMAL_INTERRUPT_WORK (UINT64_C(1) << 24)

void
marshal_write_decimal(MarshalWriter *w, const char *digits, size_t len)
{
	bool		negative = false;
	uint64_t   *limbs;
	size_t		nlimbs = 0;
	uint8_t    *mag;
	size_t		i = 0;
	int64_t		small = 0;
	uint64_t	work = 0;

	if (len > 0 && (digits[0] == '-' || digits[0] == '+'))
	{
		negative = digits[0] == '-';
		i = 1;
	}
	/* short enough for int64: the common case */
	if (len - i <= 18)
	{
		for (size_t k = i; k < len; k++)
			small = small * 10 + (digits[k] - '0');
		marshal_write_int(w, negative ? -small : small);
		return;
	}
	/* 64-bit limbs, multiply-and-add nineteen digits at a time */
	limbs = marshal_realloc(w->hooks, NULL, ((len / 19) + 2) * sizeof(uint64_t));
	if (limbs == NULL)
	{
		w->status = MARSHAL_ERR_NOMEM;
		return;
	}
	while (i < len)
	{
		uint64_t	chunk = 0;
		uint64_t	mul = 1;
		unsigned __int128 carry;

		for (int k = 0; k < 19 && i < len; k++, i++)
		{
			chunk = chunk * 10 + (uint64_t) (digits[i] - '0');
			mul *= 10;
		}
		carry = chunk;
		for (size_t k = 0; k < nlimbs; k++)
		{
			unsigned __int128 t = (unsigned __int128) limbs[k] * mul + carry;

			limbs[k] = (uint64_t) t;
			carry = t >> 64;
		}
		if (carry)
			limbs[nlimbs++] = (uint64_t) carry;
		work += nlimbs;
		if (work >= DECIMAL_INTERRUPT_WORK)
		{
			work = 0;
			if (w->hooks && w->hooks->check_interrupts)
				w->hooks->check_interrupts(w->hooks->ctx);
		}
	}
	mag = marshal_realloc(w->hooks, NULL, nlimbs * 8 + 1);
	if (mag == NULL)
	{
		marshal_free(w->hooks, limbs);
		w->status = MARSHAL_ERR_NOMEM;
		return;
	}
	for (size_t k = 0; k < nlimbs * 8; k++)
		mag[k] = (uint8_t) (limbs[k / 8] >> (8 * (k % 8)));
	/* numbers within a fixnum's reach still go through the fixnum rule */
	if (nlimbs <= 1 && !(nlimbs == 1 && (limbs[0] >> 63)))
	{
		int64_t		v = (int64_t) (nlimbs > 0 ? limbs[0] : 0);

		marshal_write_int(w, negative ? -v : v);
	}
	else
		put_bignum(w, negative, mag, nlimbs * 8);
	marshal_free(w->hooks, mag);
	marshal_free(w->hooks, limbs);
}

/* w_float's text: shortest round-trip digits in MRI's own layout. */
size_t
marshal_float_text(double d, char *out)
{
	char		digits[20];
	int			decpt;
	int			nd;
	char	   *p = out;

	if (isnan(d))
		return (size_t) sprintf(out, "nan");
	if (isinf(d))
		return (size_t) sprintf(out, d < 0 ? "-inf" : "inf");
	if (d == 0)
		return (size_t) sprintf(out, signbit(d) ? "-0" : "0");
	if (d < 0)
		*p++ = '-';
	nd = marshal_shortest_digits(d, digits, &decpt);
	if (decpt < -3 || decpt > nd)
	{
		*p++ = digits[0];
		if (nd > 1)
		{
			*p++ = '.';
			memcpy(p, digits + 1, (size_t) nd - 1);
			p += nd - 1;
		}
		p += sprintf(p, "e%d", decpt - 1);
	}
	else if (decpt > 0)
	{
		memcpy(p, digits, (size_t) decpt);
		p += decpt;
		if (decpt < nd)
		{
			*p++ = '.';
			memcpy(p, digits + decpt, (size_t) (nd - decpt));
			p += nd - decpt;
		}
	}
	else
	{
		*p++ = '0';
		*p++ = '.';
		for (int i = 0; i < -decpt; i++)
			*p++ = '0';
		memcpy(p, digits, (size_t) nd);
		p += nd;
	}
	*p = '\0';
	return (size_t) (p - out);
}

void
marshal_write_float(MarshalWriter *w, double d)
{
	char		text[40];
	size_t		n;

	if (marshal_is_flonum(d))
	{
		uint64_t	h = hash_bytes((const uint8_t *) &d, 8);
		uint32_t	slot;

		if (map_find(&w->flonums, (const uint8_t *) &d, 8, h, &slot))
		{
			put_byte(w, MT_LINK);
			put_long(w, slot);
			return;
		}
		if (!map_put(w, &w->flonums, (const uint8_t *) &d, 8, h, w->nobjects))
			w->status = MARSHAL_ERR_NOMEM;
	}
	n = marshal_float_text(d, text);
	put_byte(w, MT_FLOAT);
	put_bytes(w, text, n);
	w->nobjects++;
}

void
marshal_write_symbol(MarshalWriter *w, const uint8_t *name, size_t len)
{
	MarshalBytes none = {NULL, 0};
	bool		ascii = true;

	/* as Ruby source names are: US-ASCII if they can be, else UTF-8 */
	for (size_t i = 0; i < len; i++)
		ascii &= name[i] < 0x80;
	marshal_write_symbol_enc(w, name, len, ascii ? MENC_USASCII : MENC_UTF8, none);
}

void
marshal_write_symbol_enc(MarshalWriter *w, const uint8_t *name, size_t len,
						 MarshalEncoding enc, MarshalBytes encname)
{
	uint64_t	h = hash_bytes(name, len);
	uint32_t	idx;
	bool		ascii = true;

	/*
	 * "E" and "encoding" name an encoding only untagged or US-ASCII (MRI's
	 * sym2encidx reads the name's own encoding); tagged otherwise (crafted
	 * streams) they are ordinary ivar names, so they keep their tag, are
	 * written in full each time and are never linked to the real ones.
	 */
	bool		tagged_name = (enc == MENC_UTF8 || enc == MENC_NAMED) &&
		((len == 1 && name[0] == 'E') || (len == 8 && memcmp(name, "encoding", 8) == 0));

	if (!tagged_name && map_find(&w->symbols, name, len, h, &idx))
	{
		put_byte(w, MT_SYMLINK);
		put_long(w, idx);
		return;
	}
	if (!tagged_name && !map_put(w, &w->symbols, name, len, h, w->nsymbols))
		w->status = MARSHAL_ERR_NOMEM;
	w->nsymbols++;
	for (size_t i = 0; i < len; i++)
		ascii &= name[i] < 0x80;
	/* UTF-16/32 and the dummy encodings are not ASCII-compatible: never ASCII */
	if (enc == MENC_NAMED && encname.len >= 5 &&
		(memcmp(encname.ptr, "UTF-1", 5) == 0 || memcmp(encname.ptr, "UTF-3", 5) == 0 ||
		 memcmp(encname.ptr, "UCS-", 4) == 0 || memcmp(encname.ptr, "UTF-7", 5) == 0 ||
		 (encname.len >= 11 && memcmp(encname.ptr, "ISO-2022-JP", 11) == 0)))
		ascii = false;
	/*
	 * An ASCII symbol is US-ASCII whatever it says (but for the names
	 * above and encodings that are not ASCII-compatible); others carry theirs, but bytes that are not UTF-8 (a class
	 * name copied from a binary symbol) stay binary, so the stream reads
	 * back.
	 */
	if ((ascii && !tagged_name) || enc == MENC_BINARY ||
		(enc == MENC_UTF8 && !marshal_utf8_valid(name, len, true)))
	{
		put_byte(w, MT_SYMBOL);
		put_bytes(w, name, len);
		return;
	}
	put_byte(w, MT_IVAR);
	put_byte(w, MT_SYMBOL);
	put_bytes(w, name, len);
	put_long(w, 1);
	marshal_write_encoding(w, enc, encname.ptr, encname.len);
}

void
marshal_write_string(MarshalWriter *w, const uint8_t *s, size_t len,
					 MarshalEncoding enc)
{
	if (enc != MENC_BINARY)
		put_byte(w, MT_IVAR);
	put_byte(w, MT_STRING);
	put_bytes(w, s, len);
	w->nobjects++;
	if (enc != MENC_BINARY)
	{
		put_long(w, 1);
		marshal_write_symbol(w, (const uint8_t *) "E", 1);
		put_byte(w, enc == MENC_UTF8 ? MT_TRUE : MT_FALSE);
	}
}

uint32_t
marshal_write_fstring(MarshalWriter *w, const uint8_t *s, size_t len,
					  MarshalEncoding enc)
{
	uint8_t		stack[128];
	uint8_t    *key = len < sizeof(stack) ? stack : marshal_realloc(w->hooks, NULL, len + 1);
	uint64_t	h;
	uint32_t	slot;

	if (key == NULL)
	{
		w->status = MARSHAL_ERR_NOMEM;
		return 0;
	}
	/* one frozen String per text and encoding, as MRI's fstring table */
	key[0] = (uint8_t) enc;
	if (len > 0)
		memcpy(key + 1, s, len);
	h = hash_bytes(key, len + 1);
	if (map_find(&w->keys, key, len + 1, h, &slot))
		marshal_write_link(w, slot);
	else
	{
		slot = w->nobjects;
		if (!map_put(w, &w->keys, key, len + 1, h, slot))
			w->status = MARSHAL_ERR_NOMEM;
		marshal_write_string(w, s, len, enc);
	}
	if (key != stack)
		marshal_free(w->hooks, key);
	return slot;
}

void
marshal_write_key(MarshalWriter *w, const uint8_t *s, size_t len)
{
	/* Hash String keys are frozen, deduplicated strings (rb_hash_key_str) */
	(void) marshal_write_fstring(w, s, len, MENC_UTF8);
}

void
marshal_write_array(MarshalWriter *w, uint32_t count)
{
	put_byte(w, MT_ARRAY);
	put_long(w, count);
	w->nobjects++;
}

void
marshal_write_hash(MarshalWriter *w, uint32_t count)
{
	put_byte(w, MT_HASH);
	put_long(w, count);
	w->nobjects++;
}

/* --- the rest of w_object's cases, for re-encoding any value ----------- */

uint32_t
marshal_writer_objects(const MarshalWriter *w)
{
	return w->nobjects;
}

uint32_t
marshal_write_remember(MarshalWriter *w)
{
	return w->nobjects++;
}

void
marshal_write_link(MarshalWriter *w, uint32_t slot)
{
	put_byte(w, MT_LINK);
	put_long(w, slot);
}

void
marshal_write_ivar_wrapper(MarshalWriter *w)
{
	put_byte(w, MT_IVAR);
}

void
marshal_write_ivar_count(MarshalWriter *w, uint32_t count)
{
	put_long(w, count);
}

void
marshal_write_extended(MarshalWriter *w, const uint8_t *module, size_t len)
{
	put_byte(w, MT_EXTENDED);
	marshal_write_symbol(w, module, len);
}

void
marshal_write_uclass(MarshalWriter *w, const uint8_t *cls, size_t len)
{
	put_byte(w, MT_UCLASS);
	marshal_write_symbol(w, cls, len);
}

void
marshal_write_hash_with_default(MarshalWriter *w, uint32_t count)
{
	put_byte(w, MT_HASH_DEF);
	put_long(w, count);
	w->nobjects++;
}

void
marshal_write_string_bytes(MarshalWriter *w, const uint8_t *s, size_t len)
{
	put_byte(w, MT_STRING);
	put_bytes(w, s, len);
	w->nobjects++;
}

void
marshal_write_regexp(MarshalWriter *w, const uint8_t *src, size_t len,
					 int options)
{
	w->nobjects++;
	put_byte(w, MT_REGEXP);
	put_bytes(w, src, len);
	put_byte(w, options);
}

void
marshal_write_class(MarshalWriter *w, int type, const uint8_t *name,
					size_t len)
{
	w->nobjects++;
	put_byte(w, type);
	put_bytes(w, name, len);
}

void
marshal_write_named(MarshalWriter *w, int type, const uint8_t *cls,
					size_t len, uint32_t count)
{
	/* o and S take their slot first; U and d too, before their data */
	w->nobjects++;
	put_byte(w, type);
	marshal_write_symbol(w, cls, len);
	if (type == MT_OBJECT || type == MT_STRUCT)
		put_long(w, count);
}

void
marshal_write_userdef(MarshalWriter *w, const uint8_t *cls, size_t clen,
					  const uint8_t *data, size_t len)
{
	/* the slot is taken after its ivars: marshal_write_remember */
	put_byte(w, MT_USERDEF);
	marshal_write_symbol(w, cls, clen);
	put_bytes(w, data, len);
}

void
marshal_write_bignum(MarshalWriter *w, bool negative, const uint8_t *mag,
					 size_t len)
{
	size_t		n = len;
	uint64_t	m = 0;

	while (n > 0 && mag[n - 1] == 0)
		n--;
	/* what fits a long is a Fixnum to MRI, whatever the stream said */
	if (n <= 8)
	{
		for (size_t i = n; i-- > 0;)
			m = m << 8 | mag[i];
		if (m <= (uint64_t) INT64_MAX)
		{
			marshal_write_int(w, negative ? -(int64_t) m : (int64_t) m);
			return;
		}
	}
	put_bignum(w, negative, mag, n);
}

void
marshal_write_encoding(MarshalWriter *w, MarshalEncoding enc,
					   const uint8_t *name, size_t len)
{
	if (enc == MENC_UTF8 || enc == MENC_USASCII)
	{
		marshal_write_symbol(w, (const uint8_t *) "E", 1);
		put_byte(w, enc == MENC_UTF8 ? MT_TRUE : MT_FALSE);
	}
	else
	{
		uint64_t	h = hash_bytes(name, len);
		uint32_t	slot;

		/* encoding_name(): one name String per encoding per dump */
		marshal_write_symbol(w, (const uint8_t *) "encoding", 8);
		if (map_find(&w->encodings, name, len, h, &slot))
			marshal_write_link(w, slot);
		else
		{
			if (!map_put(w, &w->encodings, name, len, h, w->nobjects))
				w->status = MARSHAL_ERR_NOMEM;
			marshal_write_string_bytes(w, name, len);
		}
	}
}

/*
 * Time's _dump bytes (MRI's time_mdump) for a time epoch + usec, UTC or
 * not: 8 bytes, then, for years outside 1900..1900+0xffff, the year's
 * extension.  out has room for MARSHAL_TIME_DUMP_MAX bytes; returns the
 * length.
 */
size_t
marshal_time_dump_bytes(int64_t epoch, int32_t usec, bool utc, uint8_t *out)
{
	MarshalTimeParts c;
	int64_t		field;
	int64_t		ext = 0;
	uint32_t	p;
	uint32_t	s;
	size_t		n = 8;

	marshal_civil_from_epoch(epoch, &c);
	field = c.year - 1900;
	if (field < 0)
	{
		ext = -field;
		field = 0;
	}
	else if (field > 0xffff)
	{
		ext = field - 0xffff;
		field = 0xffff;
	}
	p = 1u << 31 | (utc ? 1u << 30 : 0) | (uint32_t) field << 14 |
		(uint32_t) (c.month - 1) << 10 | (uint32_t) c.day << 5 | (uint32_t) c.hour;
	s = (uint32_t) c.minute << 26 | (uint32_t) c.second << 20 | (uint32_t) usec;
	for (int i = 0; i < 4; i++)
	{
		out[i] = (uint8_t) (p >> (8 * i));
		out[4 + i] = (uint8_t) (s >> (8 * i));
	}
	if (ext > 0)
	{
		uint8_t		bytes[8];
		int			nb = 0;

		while (ext > 0)
		{
			bytes[nb++] = (uint8_t) ext;
			ext >>= 8;
		}
		out[n++] = (uint8_t) (nb + 5);	/* w_long of a small count */
		memcpy(out + n, bytes, (size_t) nb);
		n += (size_t) nb;
	}
	return n;
}

void
marshal_write_time_utc(MarshalWriter *w, int64_t epoch, int32_t usec)
{
	uint8_t		payload[MARSHAL_TIME_DUMP_MAX];
	size_t		n = marshal_time_dump_bytes(epoch, usec, true, payload);
	static const uint8_t utc[] = "UTC";

	/* I u :Time <payload> {zone: "UTC"}, the Time registered after */
	put_byte(w, MT_IVAR);
	put_byte(w, MT_USERDEF);
	marshal_write_symbol(w, (const uint8_t *) "Time", 4);
	put_bytes(w, payload, n);
	put_long(w, 1);
	marshal_write_symbol(w, (const uint8_t *) "zone", 4);
	(void) marshal_write_fstring(w, utc, 3, MENC_USASCII);
	w->nobjects++;
}

void
marshal_write_date(MarshalWriter *w, int64_t jd)
{
	/* Date#marshal_dump: [nth, jd, df, sf, of, sg], sg = Date::ITALY */
	w->nobjects++;
	put_byte(w, MT_USRMARSHAL);
	marshal_write_symbol(w, (const uint8_t *) "Date", 4);
	marshal_write_array(w, 6);
	marshal_write_int(w, 0);
	marshal_write_int(w, jd);
	marshal_write_int(w, 0);
	marshal_write_int(w, 0);
	marshal_write_int(w, 0);
	marshal_write_float(w, 2299161.0);
}

void
marshal_write_bigdecimal(MarshalWriter *w, const char *text, size_t len)
{
	size_t		i = 0;
	bool		neg = false;
	size_t		ni = 0;
	size_t		nf = 0;
	char		digits[1024];
	size_t		nd = 0;
	int64_t		exp10;
	size_t		lead = 0;
	char	   *payload;
	size_t		plen;

	/* BigDecimal(text)._dump: "<precision>:<sign>0.<digits>e<exponent>" */
	if (i < len && (text[i] == '-' || text[i] == '+'))
		neg = text[i++] == '-';
	for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, ni++)
		if (nd < sizeof(digits))
			digits[nd++] = text[i];
	if (i < len && text[i] == '.')
		for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++, nf++)
			if (nd < sizeof(digits))
				digits[nd++] = text[i];
	if (nd >= sizeof(digits) || i != len || ni == 0)
	{
		w->status = MARSHAL_ERR_UNREPRESENTABLE;
		return;
	}
	/* significant digits: no leading or trailing zeros */
	while (lead < nd && digits[lead] == '0')
		lead++;
	while (nd > lead && digits[nd - 1] == '0')
		nd--;
	exp10 = (int64_t) ni - (int64_t) lead;
	payload = marshal_realloc(w->hooks, NULL, nd + 64);
	if (payload == NULL)
	{
		w->status = MARSHAL_ERR_NOMEM;
		return;
	}
	/* the precision BigDecimal allocates for a string of that shape */
	plen = (size_t) sprintf(payload, "%zu:%s0.", ((ni + nf + 8) / 9 + 1) * 9,
							neg ? "-" : "");
	if (lead == nd)
		payload[plen++] = '0';	/* zero: "0.0" */
	else
	{
		memcpy(payload + plen, digits + lead, nd - lead);
		plen += nd - lead;
		plen += (size_t) sprintf(payload + plen, "e%lld", (long long) exp10);
	}
	put_byte(w, MT_USERDEF);
	marshal_write_symbol(w, (const uint8_t *) "BigDecimal", 10);
	put_bytes(w, payload, plen);
	w->nobjects++;
	marshal_free(w->hooks, payload);
}
