/*
 * marshal_rails_cache.c
 *		Rails cache entries: the envelopes ActiveSupport::Cache writes.
 *
 * One column can mix formats during an upgrade, so the bytes say which:
 *   04 08 o :ActiveSupport::Cache::Entry   Rails 6.1 (an Entry object)
 *   04 08 ...                              plain Marshal (other DB stores)
 *   00 11 ...                              Rails 7.1+ (ActiveSupport::Cache::Coder)
 *   00 / 01 ...                            Rails 7.0 (Marshal / zlib of [value, expires_at, version])
 *   1f 8b ...                              gzip of plain Marshal
 * MessagePack payloads and encrypted entries are recognised and refused:
 * nothing is guessed.  zlib is the system library; what it inflates is
 * bounded by max_inflated.
 */
#include "marshal_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static MarshalStatus
fail(MarshalError *err, MarshalStatus st, size_t offset, const char *what)
{
	return marshal_error(err, st, offset, "%s", what);
}

/*
 * zlib allocates through the hooks, as the rest of the codec does: in the
 * server an error raised between two zlib calls (out of memory, a cancel)
 * unwinds past inflateEnd, and its state must go with the memory context
 * rather than leak from malloc.
 */
static voidpf
zlib_alloc(voidpf opaque, uInt items, uInt size)
{
	if (size != 0 && items > SIZE_MAX / size)
		return Z_NULL;
	return marshal_alloc((const MarshalHooks *) opaque, (size_t) items * size);
}

static void
zlib_free(voidpf opaque, voidpf ptr)
{
	marshal_free((const MarshalHooks *) opaque, ptr);
}

#define INFLATE_STEP	((size_t) 1 << 20)

/* zlib (or gzip) to a buffer of at most max bytes. */
static MarshalStatus
inflate_bounded(const uint8_t *src, size_t len, bool gzip, size_t max,
				const MarshalHooks *hooks, uint8_t **out, size_t *outlen,
				size_t offset, MarshalError *err)
{
	z_stream	z;
	size_t		cap = len * 4 + 256;
	uint8_t    *buf;
	int			rc;

	if (cap > max)
		cap = max;
	buf = marshal_alloc(hooks, cap + 1);
	if (buf == NULL)
		return fail(err, MARSHAL_ERR_NOMEM, offset, "out of memory");
	memset(&z, 0, sizeof(z));
	z.zalloc = zlib_alloc;
	z.zfree = zlib_free;
	z.opaque = (voidpf) hooks;
	if (inflateInit2(&z, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK)
	{
		marshal_free(hooks, buf);
		return fail(err, MARSHAL_ERR_NOMEM, offset, "zlib could not start");
	}
	z.next_in = (Bytef *) src;
	z.avail_in = (uInt) len;
	for (;;)
	{
		/* a megabyte at a time, so that a cancel is seen within one */
		z.next_out = buf + z.total_out;
		z.avail_out = (uInt) (cap - z.total_out > INFLATE_STEP ? INFLATE_STEP
							  : cap - z.total_out);
		if (hooks && hooks->check_interrupts)
			hooks->check_interrupts(hooks->ctx);
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
		{
			inflateEnd(&z);
			marshal_free(hooks, buf);
			return fail(err, MARSHAL_ERR_FORMAT, offset,
						gzip ? "corrupt gzip data" : "corrupt zlib data");
		}
		if (z.avail_out == 0 && z.total_out < cap)
			continue;			/* the step is full, not the buffer */
		if (z.avail_out == 0)
		{
			/* more room, within the bound */
			uint8_t    *nb;

			if (cap >= max)
			{
				inflateEnd(&z);
				marshal_free(hooks, buf);
				return fail(err, MARSHAL_ERR_LIMIT, offset,
							MARSHAL_INFLATE_LIMIT_DETAIL);
			}
			cap = cap * 2 > max ? max : cap * 2;
			nb = marshal_realloc(hooks, buf, cap + 1);
			if (nb == NULL)
			{
				inflateEnd(&z);
				marshal_free(hooks, buf);
				return fail(err, MARSHAL_ERR_NOMEM, offset, "out of memory");
			}
			buf = nb;
		}
		else if (rc == Z_BUF_ERROR)
		{
			/* input ended before the stream did */
			inflateEnd(&z);
			marshal_free(hooks, buf);
			return fail(err, MARSHAL_ERR_FORMAT, offset, "truncated compressed data");
		}
	}
	*outlen = z.total_out;
	inflateEnd(&z);
	*out = buf;
	return MARSHAL_OK;
}

/* One entry being read: where it goes, the caller's hooks and limits. */
typedef struct CacheRead
{
	MarshalCacheEntry *e;
	const MarshalHooks *hooks;
	uint32_t	max_depth;
	size_t		max_inflated;
	MarshalError *err;
} CacheRead;

/* The value is a Marshal stream of its own: validate it and keep it. */
static MarshalStatus
take_stream(CacheRead *c, uint8_t *bytes, size_t len, bool owned, size_t offset)
{
	MarshalStatus st = marshal_validate(bytes, len, c->hooks, c->max_depth, c->err);

	if (st != MARSHAL_OK)
	{
		c->err->offset += offset;
		if (owned)
			marshal_free(c->hooks, bytes);
		return st;
	}
	if (!owned)
	{
		uint8_t    *copy = marshal_alloc(c->hooks, len ? len : 1);

		if (copy == NULL)
			return fail(c->err, MARSHAL_ERR_NOMEM, offset, "out of memory");
		memcpy(copy, bytes, len);
		bytes = copy;
	}
	c->e->value = bytes;
	c->e->value_len = len;
	return MARSHAL_OK;
}

/* The value at pos of an indexed stream, written as a stream of its own. */
static MarshalStatus
take_subvalue(CacheRead *c, const MarshalDoc *doc, size_t pos)
{
	return marshal_reencode(doc, pos, c->hooks, &c->e->value, &c->e->value_len, c->err);
}

/*
 * A Float or Integer at pos as a double (ok false for nil); anything else is
 * a corrupt entry, not a value without expiry.
 */
static MarshalStatus
number_at(const MarshalDoc *doc, size_t pos, double *d, bool *ok,
		  MarshalError *err)
{
	MarshalNode n;

	*ok = false;
	TRY(marshal_node(doc, pos, &n, err));
	if (n.type == MT_FLOAT)
		*ok = marshal_parse_float(n.data.ptr, n.data.len, d) && isfinite(*d);
	else if (n.type == MT_FIXNUM)
	{
		*d = (double) n.ival;
		*ok = true;
	}
	else if (n.type != MT_NIL)
		return fail(err, MARSHAL_ERR_FORMAT, pos,
					"a cache entry's expiry that is not a number");
	return MARSHAL_OK;
}

/* A String at pos as the version (its bytes); nil means none. */
static MarshalStatus
version_at(MarshalCacheEntry *e, const MarshalDoc *doc, size_t pos,
		   MarshalError *err)
{
	MarshalNode n;

	TRY(marshal_node(doc, pos, &n, err));
	if (n.type == MT_STRING)
	{
		e->has_version = true;
		e->version = n.data.ptr;
		e->version_len = n.data.len;
	}
	return MARSHAL_OK;
}

/* Rails 6.1: an ActiveSupport::Cache::Entry object. */
static MarshalStatus
entry_61(CacheRead *c, const MarshalDoc *doc, const MarshalNode *n)
{
	size_t		value;
	size_t		version;
	size_t		created;
	size_t		expires;
	size_t		compressed;
	bool		ok1;
	bool		ok2;
	double		t0;
	double		dt;
	MarshalNode flag;

	c->e->format = "6.1";
	TRY(marshal_find_ivar(doc, n->items, n->count, "@value", &value, c->err));
	TRY(marshal_find_ivar(doc, n->items, n->count, "@version", &version, c->err));
	TRY(marshal_find_ivar(doc, n->items, n->count, "@created_at", &created, c->err));
	TRY(marshal_find_ivar(doc, n->items, n->count, "@expires_in", &expires, c->err));
	TRY(marshal_find_ivar(doc, n->items, n->count, "@compressed", &compressed, c->err));
	if (!value)
		return fail(c->err, MARSHAL_ERR_FORMAT, n->pos, "cache entry without @value");
	if (version)
		TRY(version_at(c->e, doc, version, c->err));
	if (created && expires)
	{
		/* created_at + expires_in (7.x writers of 6.1 put 0.0 + the expiry) */
		TRY(number_at(doc, created, &t0, &ok1, c->err));
		TRY(number_at(doc, expires, &dt, &ok2, c->err));
		if (ok1 && ok2)
		{
			c->e->has_expires = true;
			c->e->expires_at = t0 + dt;
		}
	}
	if (compressed)
	{
		TRY(marshal_node(doc, compressed, &flag, c->err));
		if (flag.type == MT_TRUE)
		{
			/* @value holds zlib of Marshal.dump(value) */
			MarshalNode v;
			uint8_t    *bytes;
			size_t		len;

			TRY(marshal_node(doc, value, &v, c->err));
			if (v.type != MT_STRING)
				return fail(c->err, MARSHAL_ERR_FORMAT, value, "compressed @value is not a String");
			TRY(inflate_bounded(v.data.ptr, v.data.len, false, c->max_inflated, c->hooks,
								&bytes, &len, value, c->err));
			return take_stream(c, bytes, len, true, 0);
		}
	}
	return take_subvalue(c, doc, value);
}

/* Rails 7.0: Marshal.dump([value, expires_at, version]), nils trimmed. */
static MarshalStatus
entry_70(CacheRead *c, const uint8_t *buf, size_t len, size_t offset)
{
	MarshalDoc	doc;
	MarshalNode arr;
	size_t		p;
	MarshalStatus st;

	if ((st = marshal_doc_open(&doc, buf, len, c->hooks, c->max_depth, c->err)) != MARSHAL_OK)
	{
		c->err->offset += offset;
		return st;
	}
	st = marshal_node(&doc, MARSHAL_ROOT, &arr, c->err);
	if (st == MARSHAL_OK && (arr.type != MT_ARRAY || arr.count > 3))
		st = fail(c->err, MARSHAL_ERR_FORMAT, offset, "a 7.0 cache entry is not [value, expires_at, version]");
	p = arr.items;
	if (st == MARSHAL_OK && arr.count == 0)
	{
		/* Entry#pack trims trailing nils: [] is a nil value */
		static const uint8_t nil_stream[] = {4, 8, '0'};

		st = take_stream(c, (uint8_t *) nil_stream, sizeof(nil_stream), false, 0);
	}
	else if (st == MARSHAL_OK)
		st = take_subvalue(c, &doc, p);
	if (st == MARSHAL_OK && arr.count >= 2)
	{
		bool		ok;

		st = marshal_skip(&doc, p, &p, c->err);
		if (st == MARSHAL_OK)
			st = number_at(&doc, p, &c->e->expires_at, &ok, c->err);
		c->e->has_expires = st == MARSHAL_OK && ok;
	}
	if (st == MARSHAL_OK && arr.count == 3)
	{
		st = marshal_skip(&doc, p, &p, c->err);
		if (st == MARSHAL_OK)
			st = version_at(c->e, &doc, p, c->err);
		if (st == MARSHAL_OK && c->e->has_version)
		{
			/* the version points into a buffer we may free: copy it */
			uint8_t    *v = marshal_alloc(c->hooks, c->e->version_len + 1);

			if (v == NULL)
				st = fail(c->err, MARSHAL_ERR_NOMEM, offset, "out of memory");
			else
			{
				memcpy(v, c->e->version, c->e->version_len);
				c->e->version = v;
				c->e->version_owned = true;
			}
		}
	}
	marshal_index_free(&doc.index, c->hooks);
	return st;
}

static uint64_t
le64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Rails 7.1+: ActiveSupport::Cache::Coder's header and payload. */
static MarshalStatus
entry_71(CacheRead *c, const uint8_t *buf, size_t len)
{
	int			type;
	uint64_t	bits;
	double		expires;
	int32_t		vlen;
	size_t		pos = 15;
	uint8_t    *payload;
	size_t		plen;
	bool		owned = false;

	c->e->format = "7.1";
	if (len < 15)
		return fail(c->err, MARSHAL_ERR_FORMAT, len, "a 7.1 cache entry needs a 15-byte header");
	type = buf[2];
	bits = le64(buf + 3);
	memcpy(&expires, &bits, 8);
	vlen = (int32_t) ((uint32_t) buf[11] | (uint32_t) buf[12] << 8 |
					  (uint32_t) buf[13] << 16 | (uint32_t) buf[14] << 24);
	if (expires != -1.0)
	{
		if (!isfinite(expires))
			return fail(c->err, MARSHAL_ERR_FORMAT, 3, "expiry is not a finite time");
		c->e->has_expires = true;
		c->e->expires_at = expires;
	}
	if (vlen >= 0)
	{
		if ((size_t) vlen > len - pos)
			return fail(c->err, MARSHAL_ERR_FORMAT, 11, "version longer than the entry");
		c->e->has_version = true;
		c->e->version = buf + pos;
		c->e->version_len = (size_t) vlen;
		c->e->version_marshaled = vlen >= 2 && buf[pos] == 4 && buf[pos + 1] == 8;
		pos += (size_t) vlen;
	}
	else if (vlen != -1)
		return fail(c->err, MARSHAL_ERR_FORMAT, 11, "bad version length");
	payload = (uint8_t *) buf + pos;
	plen = len - pos;
	if (type & 0x80)
	{
		TRY(inflate_bounded(payload, plen, false, c->max_inflated, c->hooks, &payload,
							&plen, pos, c->err));
		owned = true;
	}
	switch (type & 0x7F)
	{
		case 0x01:
			if (plen >= 2 && payload[0] == 0xCC && payload[1] == 0x80)
			{
				if (owned)
					marshal_free(c->hooks, payload);
				return fail(c->err, MARSHAL_ERR_UNSUPPORTED, pos,
							"a MessagePack cache payload (serializer: :message_pack)");
			}
			return take_stream(c, payload, plen, owned, pos);
		case 0x02:
		case 0x03:
		case 0x04:
			{
				/* a String stored raw: written as the Ruby String it was */
				MarshalWriter *w = marshal_writer_new(c->hooks);
				MarshalStatus st;

				if (w == NULL)
					return fail(c->err, MARSHAL_ERR_NOMEM, pos, "out of memory");
				marshal_write_string(w, payload, plen,
									 (type & 0x7F) == 0x02 ? MENC_UTF8 :
									 (type & 0x7F) == 0x04 ? MENC_USASCII : MENC_BINARY);
				if (owned)
					marshal_free(c->hooks, payload);
				st = marshal_writer_finish(w, &c->e->value, &c->e->value_len);
				return st == MARSHAL_OK ? st : fail(c->err, st, pos, "out of memory");
			}
		default:
			if (owned)
				marshal_free(c->hooks, payload);
			return fail(c->err, MARSHAL_ERR_FORMAT, MARSHAL_ROOT,
						"a 7.1 cache payload type 01 to 04 (optionally | 80 for zlib)");
	}
}

/*
 * ActiveRecord encryption's message {"p": payload, "h": headers}: as JSON, or
 * as Solid Cache's MessagePack (the cc 80 prefix, then a map whose first key
 * is "p").
 */
static bool
looks_encrypted(const uint8_t *buf, size_t len)
{
	if (len >= 5 && memcmp(buf, "{\"p\":", 5) == 0)
		return true;
	return len >= 5 && buf[0] == 0xCC && buf[1] == 0x80 &&
		buf[2] >= 0x81 && buf[2] <= 0x8F && buf[3] == 0xA1 && buf[4] == 'p';
}

MarshalStatus
marshal_cache_entry(const uint8_t *buf, size_t len, const MarshalHooks *hooks,
					uint32_t max_depth, size_t max_inflated,
					MarshalCacheEntry *e, MarshalError *err)
{
	CacheRead	c = {e, hooks, max_depth, max_inflated, err};

	memset(e, 0, sizeof(*e));
	err->status = MARSHAL_OK;
	if (len >= 2 && buf[0] == 4 && buf[1] == 8)
	{
		MarshalDoc	doc;
		MarshalNode n;
		MarshalStatus st;

		TRY(marshal_doc_open(&doc, buf, len, hooks, max_depth, err));
		st = marshal_node(&doc, MARSHAL_ROOT, &n, err);
		if (st == MARSHAL_OK && marshal_class_is(&n, MC_CACHE_ENTRY))
			st = entry_61(&c, &doc, &n);
		else if (st == MARSHAL_OK)
		{
			e->format = "marshal";
			st = take_stream(&c, (uint8_t *) buf, len, false, 0);
		}
		/* a 6.1 version points into buf, which the caller keeps */
		marshal_index_free(&doc.index, hooks);
		return st;
	}
	if (len >= 2 && buf[0] == 0x00 && buf[1] == 0x11)
		return entry_71(&c, buf, len);
	if (len >= 3 && buf[0] == 0x00 && buf[1] == 4 && buf[2] == 8)
	{
		e->format = "7.0";
		return entry_70(&c, buf + 1, len - 1, 1);
	}
	if (len >= 2 && buf[0] == 0x01 && (buf[1] == 0x78))
	{
		uint8_t    *bytes;
		size_t		blen;
		MarshalStatus st;

		e->format = "7.0";
		TRY(inflate_bounded(buf + 1, len - 1, false, max_inflated, hooks, &bytes,
							&blen, 1, err));
		st = entry_70(&c, bytes, blen, 0);
		marshal_free(hooks, bytes);
		return st;
	}
	if (len >= 2 && buf[0] == 0x1F && buf[1] == 0x8B)
	{
		uint8_t    *bytes;
		size_t		blen;

		e->format = "gzip";
		TRY(inflate_bounded(buf, len, true, max_inflated, hooks, &bytes, &blen, 0, err));
		return take_stream(&c, bytes, blen, true, 0);
	}
	if (looks_encrypted(buf, len))
		return fail(err, MARSHAL_ERR_UNSUPPORTED, 0,
					"an encrypted cache entry (ActiveRecord encryption needs the application's keys)");
	if (len >= 2 && buf[0] == 0xCC && buf[1] == 0x80)
		return fail(err, MARSHAL_ERR_UNSUPPORTED, 0,
					"a MessagePack cache payload (serializer: :message_pack)");
	return fail(err, MARSHAL_ERR_FORMAT, 0,
				"not a Rails cache entry (expected 04 08, 00 11, 00, 01 or gzip)");
}

void
marshal_cache_entry_free(MarshalCacheEntry *e, const MarshalHooks *hooks)
{
	marshal_free(hooks, e->value);
	if (e->version_owned)
		marshal_free(hooks, (void *) e->version);
	memset(e, 0, sizeof(*e));
}
