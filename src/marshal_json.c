/*
 * marshal_json.c
 *		The JSON view: JSON.parse(ActiveSupport::JSON.encode(Marshal.load(b))).
 *
 * A recursive walk over the cursor that maps each Ruby value as Rails'
 * as_json does (Rails 7 where versions differ) and reports it to a sink.
 * Shared references expand; a reference back into a container still being
 * converted is a cycle and is refused, and the total output is budgeted so a
 * small input cannot expand without bound.
 */
#include "marshal_internal.h"
#include "marshal_json_walk.h"
#include "marshal_to_s.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A value's Ruby class name as an error message shows it (\xNN for non-text) */
const char *
jw_class_text(const MarshalNode *n, char buf[CLASS_SHOWN])
{
	MarshalBytes cls = marshal_class_name(n);

	marshal_printable(cls.ptr, cls.len, PATH_KEY_SHOWN, buf, CLASS_SHOWN);
	return buf;
}

/* "$.a[3].b" for path[1..depth], for error messages. */
static void
format_path(const MarshalPathStep *path, uint32_t depth, char *out, size_t size)
{
	size_t		n = (size_t) snprintf(out, size, "$");

	for (uint32_t i = 1; i <= depth && i < PATH_STEPS && n < size; i++)
	{
		const MarshalPathStep *s = &path[i];

		if (s->key && n + 1 < size)
		{
			out[n++] = '.';
			n += marshal_printable((const uint8_t *) s->key, s->keylen, PATH_KEY_SHOWN, out + n, size - n);
		}
		else if (s->index >= 0)
			n += (size_t) snprintf(out + n, size - n, "[%lld]",
								   (long long) s->index);
	}
	if (depth > PATH_STEPS && n < size)
		snprintf(out + n, size - n, "...");
}

void
marshal_error_locate(MarshalError *err, const MarshalPathStep *path,
					 uint32_t depth)
{
	char	   *d = err->detail;
	size_t		size = sizeof(err->detail);
	size_t		n = strlen(d);

	/* where in the value, if it fits: " (at $.a[3])" */
	if (n + 6 < size)
	{
		memcpy(d + n, " (at ", 5);
		format_path(path, depth, d + n + 5, size - n - 6);
		n = strlen(d);
		d[n] = ')';
		d[n + 1] = '\0';
	}
}

MarshalStatus
jw_fail(Walk *w, MarshalStatus status, size_t offset, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	marshal_verror(w->err, status, offset, fmt, ap);
	va_end(ap);
	marshal_error_locate(w->err, w->path, w->depth);
	return status;
}

/* A time decoder's refusal gets the walk's place, as jw_fail() gives it. */
MarshalStatus
jw_located(Walk *w, MarshalStatus st)
{
	if (st == MARSHAL_ERR_UNREPRESENTABLE)
		marshal_error_locate(w->err, w->path, w->depth);
	return st;
}

/* Charge the budget for one value and len bytes of text. */
MarshalStatus
jw_charge(Walk *w, size_t pos, size_t len)
{
	w->cost += 1 + len / 16;
	if (w->cost > w->opts.max_cost)
		return jw_fail(w, MARSHAL_ERR_LIMIT, pos,
					"expanding shared references exceeds the budget of %llu",
					(unsigned long long) w->opts.max_cost);
	if (++w->steps % 4096 == 0 && w->hooks && w->hooks->check_interrupts)
		w->hooks->check_interrupts(w->hooks->ctx);
	return MARSHAL_OK;
}

/*
 * Text of a String or Symbol in its Ruby encoding, for a key or a value.
 * Valid UTF-8 passes as is; named encodings go through the sink's
 * transcoder; anything else follows the binary mode.
 */
MarshalStatus
jw_emit_text(Walk *w, size_t pos, const uint8_t *s, size_t len,
		  MarshalEncoding enc, MarshalBytes encname, bool is_key)
{
	const MarshalJsonSink *k = w->sink;
	char	   *conv = NULL;
	size_t		convlen;

	TRY(jw_charge(w, pos, len));
	if (enc == MENC_NAMED && !marshal_bytes_eq(encname, "UTF-8") &&
		!marshal_bytes_eq(encname, "US-ASCII") && !marshal_bytes_eq(encname, "ASCII-8BIT") &&
		!marshal_bytes_eq(encname, "BINARY"))
	{
		if (marshal_transcode(k->transcoder, encname, s, len, &conv, &convlen) &&
			marshal_utf8_valid((const uint8_t *) conv, convlen, false))
		{
			if (is_key)
				k->key(k->ctx, conv, convlen, true);
			else
				k->string(k->ctx, conv, convlen, true);
			return MARSHAL_OK;
		}
	}
	else if (marshal_utf8_valid(s, len, false))
	{
		if (is_key)
			k->key(k->ctx, (const char *) s, len, true);
		else
			k->string(k->ctx, (const char *) s, len, true);
		return MARSHAL_OK;
	}

	/* bytes that are not text in any encoding we can read */
	switch (w->opts.binary)
	{
		case MBIN_ERROR:
			return jw_fail(w, MARSHAL_ERR_ENCODING, pos,
						"string holds bytes that are not valid text");
		case MBIN_REPLACE:
			{
				/* each invalid byte becomes U+FFFD (3 bytes) */
				char	   *out = marshal_alloc(w->hooks, 3 * len + 1);
				size_t		o = 0;

				if (out == NULL)
					return jw_fail(w, MARSHAL_ERR_NOMEM, pos, "out of memory");
				for (size_t i = 0; i < len;)
				{
					size_t		n = marshal_utf8_seq(s + i, len - i);

					if (n == 0)
					{
						memcpy(out + o, "\xEF\xBF\xBD", 3);
						o += 3;
						i++;
					}
					else
					{
						memcpy(out + o, s + i, n);
						o += n;
						i += n;
					}
				}
				if (is_key)
					k->key(k->ctx, out, o, false);
				else
					k->string(k->ctx, out, o, false);
				marshal_free(w->hooks, out);
				return MARSHAL_OK;
			}
		default:
			{
				char	   *out;
				size_t		n;

				if (is_key)
					return jw_fail(w, MARSHAL_ERR_ENCODING, pos,
								"hash key holds bytes that are not valid text");
				out = marshal_alloc(w->hooks, MARSHAL_BASE64_LEN(len) + 1);
				if (out == NULL)
					return jw_fail(w, MARSHAL_ERR_NOMEM, pos, "out of memory");
				n = marshal_base64_encode(s, len, out);
				k->begin_object(k->ctx);
				k->key(k->ctx, "$binary", 7, true);
				k->string(k->ctx, out, n, false);
				k->end_object(k->ctx);
				marshal_free(w->hooks, out);
				return MARSHAL_OK;
			}
	}
}

/*
 * Decimal digits of a bignum (scratch from the hooks; free *out).  A JSON
 * number has at most MARSHAL_JSON_MAX_DIGITS digits (jsonb's numeric holds
 * no more): a Bignum surely longer is refused before its quadratic
 * conversion, one found longer after it.
 */
static MarshalStatus
bignum_text(Walk *w, size_t pos, const MarshalNode *n, char **out, size_t *outlen)
{
	size_t		size = n->data.len * 3 + 3;
	size_t		len = n->data.len;
	uint32_t   *limbs;
	char	   *digits;
	uint64_t	bits;

	while (len > 0 && n->data.ptr[len - 1] == 0)
		len--;
	bits = len ? 8 * (uint64_t) (len - 1) + (uint64_t) (32 - __builtin_clz(n->data.ptr[len - 1])) : 0;
	/* at least floor((bits - 1) log10 2) + 1 digits; log10 2 > 0.30102 */
	if (bits > 1 && (bits - 1) * 30102 / 100000 + 1 > MARSHAL_JSON_MAX_DIGITS)
		return jw_fail(w, MARSHAL_ERR_LIMIT, pos, "an Integer of more than %d digits (a JSON number's limit)",
					   MARSHAL_JSON_MAX_DIGITS);
	limbs = marshal_alloc(w->hooks, (n->data.len + 3) / 4 * sizeof(uint32_t) + 4);
	digits = marshal_alloc(w->hooks, size);
	if (limbs == NULL || digits == NULL)
		return jw_fail(w, MARSHAL_ERR_NOMEM, pos, "out of memory");
	marshal_bignum_decimal(n->data.ptr, n->data.len, n->negative, digits, size,
						   outlen, limbs);
	marshal_free(w->hooks, limbs);
	if (*outlen - (n->negative ? 1 : 0) > MARSHAL_JSON_MAX_DIGITS)
	{
		marshal_free(w->hooks, digits);
		return jw_fail(w, MARSHAL_ERR_LIMIT, pos, "an Integer of more than %d digits (a JSON number's limit)",
					   MARSHAL_JSON_MAX_DIGITS);
	}
	*out = digits;
	return MARSHAL_OK;
}

/* A time's as_json text, or its decoder's refusal at this place. */
MarshalStatus
jw_emit_time_text(Walk *w, MarshalStatus st, const char *text, size_t len)
{
	if (st != MARSHAL_OK)
		return jw_located(w, st);
	w->sink->string(w->sink->ctx, text, len, false);
	return MARSHAL_OK;
}

/* An entry's key: key.to_s of a Hash key, or a member/ivar name. */
static OWN_FRAME MarshalStatus
emit_key(Walk *w, const MarshalEntry *e, const MarshalLeaf *leaf)
{
	MarshalKeyText k;
	char		buf[MARSHAL_KEY_BUF];
	size_t		at = e->key ? e->key : e->value;
	MarshalBytes none = {NULL, 0};

	if (leaf && leaf->type == MT_STRING)
	{
		/* the usual String key, read from its bytes already */
		if (w->depth < PATH_STEPS)
		{
			w->path[w->depth].key = (const char *) leaf->data.ptr;
			w->path[w->depth].keylen = leaf->data.len;
		}
		return jw_emit_text(w, at, leaf->data.ptr, leaf->data.len, leaf->encoding,
						 none, true);
	}
	TRY(marshal_key_text(w->doc, e, buf, sizeof(buf), &k, w->err));
	if (!k.ok)
	{
		MarshalNode n;

		/* the error is the Hash's: its path, not the previous pair's key */
		if (w->depth < PATH_STEPS)
		{
			w->path[w->depth].key = NULL;
			w->path[w->depth].index = -1;
		}
		TRY(marshal_node(w->doc, e->key, &n, w->err));
		{
			char		name[CLASS_SHOWN];

			return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, at,
						"a hash key of class %s cannot be converted", jw_class_text(&n, name));
		}
	}
	if (w->depth < PATH_STEPS)
	{
		MarshalPathStep *s = &w->path[w->depth];

		/* buf is gone once the value is walked: keep what a message shows */
		s->keylen = k.text.len;
		s->key = (const char *) k.text.ptr;
		if (k.text.ptr == (const uint8_t *) buf)
		{
			/* only what was copied: a message reads no further */
			s->keylen = k.text.len < PATH_KEY_SHOWN ? k.text.len : PATH_KEY_SHOWN;
			memcpy(w->scratch[w->depth], buf, s->keylen);
			s->key = w->scratch[w->depth];
		}
	}
	if (k.text.ptr == (const uint8_t *) buf)
	{
		/* the text of a number or nil: ASCII scratch */
		TRY(jw_charge(w, at, 0));
		w->sink->key(w->sink->ctx, buf, k.text.len, false);
		return MARSHAL_OK;
	}
	return jw_emit_text(w, at, k.text.ptr, k.text.len, k.encoding, k.encname, true);
}

/* A Hash pair whose key text is known before its value is walked. */
typedef struct KeyedPair
{
	MarshalLeaf key;			/* type MT_STRING: data and encoding */
	size_t		pos;			/* of the key */
	size_t		value;
} KeyedPair;

/* Hashes up to this size hand jsonb their keys in its order. */
#define PRESORT_MAX 256

static bool
pair_before(const KeyedPair *a, const KeyedPair *b)
{
	if (a->key.data.len != b->key.data.len)
		return a->key.data.len < b->key.data.len;
	return memcmp(a->key.data.ptr, b->key.data.ptr, a->key.data.len) < 0;
}

/*
 * jsonb keeps an object's keys sorted (by length, then bytes) and sorts them
 * when the object ends; given them in that order, its sort is one pass.
 * This is only a hint (jsonb still sorts and keeps the last of equal keys,
 * and the insertion here is stable), so a key whose text is not simply its
 * bytes (*ok false: another encoding, not a String or Symbol) leaves the
 * pairs in stream order.  Sorted into pairs[]; *end after the last pair.
 */
static MarshalStatus
presort_pairs(Walk *w, const MarshalView *view, KeyedPair *pairs,
			  size_t *end, bool *ok)
{
	const MarshalDoc *doc = w->doc;
	size_t		pos = view->items;

	*ok = false;
	for (uint32_t i = 0; i < view->count; i++)
	{
		KeyedPair	p;
		bool		found;
		uint32_t	j;

		p.pos = pos;
		TRY(marshal_leaf(doc, pos, &p.key, &found, w->err));
		if (found && p.key.type == MT_STRING)
			p.value = p.key.end;
		else if (pos < doc->len &&
				 (doc->buf[pos] == MT_SYMBOL || doc->buf[pos] == MT_SYMLINK))
		{
			MarshalBytes encname;

			TRY(marshal_symbol(doc, pos, &p.key.data, &p.key.encoding, &encname,
							   &p.value, w->err));
			if (p.key.encoding == MENC_NAMED)
				return MARSHAL_OK;
			p.key.type = MT_STRING;
		}
		else
			return MARSHAL_OK;
		TRY(marshal_skip(doc, p.value, &pos, w->err));
		for (j = i; j > 0 && pair_before(&p, &pairs[j - 1]); j--)
			pairs[j] = pairs[j - 1];
		pairs[j] = p;
	}
	*end = pos;
	*ok = true;
	return MARSHAL_OK;
}

/*
 * A plain Hash's pairs: in jsonb's key order when presort_pairs can, else in
 * one pass (a key read as a leaf ends where its value starts, and each
 * value's walk ends where the next key starts).
 */
static MarshalStatus
emit_pairs(Walk *w, const MarshalView *view, size_t *end)
{
	size_t		pos = view->items;
	KeyedPair	few[4];			/* more from the heap: this frame is per level */

	if (view->count > 1 && view->count <= PRESORT_MAX)
	{
		KeyedPair  *pairs = few;
		bool		ok;
		MarshalStatus st;

		if (view->count > lengthof(few) &&
			(pairs = marshal_alloc(w->hooks, view->count * sizeof(KeyedPair))) == NULL)
			return jw_fail(w, MARSHAL_ERR_NOMEM, pos, "out of memory");
		st = presort_pairs(w, view, pairs, end, &ok);
		if (st == MARSHAL_OK && ok)
		{
			w->sink->begin_object(w->sink->ctx);
			for (uint32_t i = 0; i < view->count && st == MARSHAL_OK; i++)
			{
				MarshalEntry e = {.key = pairs[i].pos, .value = pairs[i].value};
				size_t		ignored;

				if ((st = emit_key(w, &e, &pairs[i].key)) == MARSHAL_OK)
					st = jw_emit_value(w, e.value, &ignored);
			}
			if (st == MARSHAL_OK)
				w->sink->end_object(w->sink->ctx);
		}
		if (pairs != few)
			marshal_free(w->hooks, pairs);
		if (st != MARSHAL_OK || ok)
			return st;
	}

	w->sink->begin_object(w->sink->ctx);
	for (uint32_t i = 0; i < view->count; i++)
	{
		MarshalEntry e = {.key = pos};
		MarshalLeaf leaf;
		bool		found;

		TRY(marshal_leaf(w->doc, pos, &leaf, &found, w->err));
		if (found)
			e.value = leaf.end;
		else
			TRY(marshal_skip(w->doc, pos, &e.value, w->err));
		TRY(emit_key(w, &e, found ? &leaf : NULL));
		TRY(jw_emit_value(w, e.value, &pos));
	}
	w->sink->end_object(w->sink->ctx);
	*end = pos;
	return MARSHAL_OK;
}

static MarshalStatus walk_init(Walk *w, const MarshalDoc *doc,
							   const MarshalJsonSink *sink,
							   const MarshalJsonOptions *opts,
							   const MarshalHooks *hooks, MarshalError *err);
static void walk_done(Walk *w);

/*
 * A nested Marshal stream (a serialized column's coder output) as its own
 * JSON view: untrusted bytes, so validated first, then walked as part of
 * this walk (its depth, its budget, its path for errors).
 */
static MarshalStatus
emit_nested(Walk *w, size_t pos, MarshalBytes b)
{
	MarshalDoc	doc;
	Walk	   *nw;
	size_t		end;
	MarshalStatus st;

	if (w->depth + 2 > w->opts.max_depth)
		return jw_fail(w, MARSHAL_ERR_DEPTH, pos, "nesting deeper than %u levels",
					w->opts.max_depth);
	TRY(jw_charge(w, pos, b.len));
	st = marshal_doc_open(&doc, b.ptr, b.len, w->hooks,
						  w->opts.max_depth - w->depth - 1, w->err);
	if (st != MARSHAL_OK)
	{
		char		detail[sizeof(w->err->detail)];

		memcpy(detail, w->err->detail, sizeof(detail));
		return jw_fail(w, st, pos, "serialized attribute: %.200s", detail);
	}
	/*
	 * The walk's state is kilobytes (its path for errors): on the heap, so
	 * that streams nested in streams do not cost the stack that much each.
	 */
	nw = marshal_alloc(w->hooks, sizeof(Walk));
	if (nw == NULL)
		st = jw_fail(w, MARSHAL_ERR_NOMEM, pos, "out of memory");
	else if ((st = walk_init(nw, &doc, w->sink, &w->opts, w->hooks, w->err)) == MARSHAL_OK)
	{
		nw->cost = w->cost;
		nw->steps = w->steps;
		nw->depth = w->depth;
		memcpy(nw->path, w->path, sizeof(nw->path));
		st = jw_emit_value(nw, MARSHAL_ROOT, &end);
		w->cost = nw->cost;
		w->steps = nw->steps;
		walk_done(nw);
	}
	if (nw)
		marshal_free(w->hooks, nw);
	marshal_index_free(&doc.index, w->hooks);
	return st;
}

static MarshalStatus emit_pg_array(Walk *w, const MarshalCast *c, size_t at);

/* A node for text that is not in the stream (an element of a column's text): pos 0 */
static void
made_string(MarshalNode *v, const uint8_t *s, size_t len)
{
	memset(v, 0, sizeof(*v));
	v->type = MT_STRING;
	v->encoding = MENC_UTF8;
	v->data.ptr = s;
	v->data.len = len;
}
static MarshalStatus emit_hstore(Walk *w, const MarshalCast *c, size_t at);
static MarshalStatus emit_pg_range(Walk *w, const MarshalCast *c, size_t at);

/*
 * A cast value (marshal_activerecord.c).  Where it is the raw value: the
 * value at raw, or (an array element's text, raw 0) the text as a String.
 */
static MarshalStatus
emit_cast_value(Walk *w, const MarshalCast *c, size_t raw, MarshalBytes text)
{
	const MarshalJsonSink *k = w->sink;
	size_t		ignored;

	switch (c->kind)
	{
		case MCAST_VALUE:
			return jw_emit_value(w, c->pos, &ignored);
		case MCAST_NULL:
			k->null(k->ctx);
			break;
		case MCAST_BOOL:
			k->boolean(k->ctx, c->boolean);
			break;
		case MCAST_INT:
			k->integer(k->ctx, c->integer);
			break;
		case MCAST_NUMBER:
			k->number(k->ctx, c->text, c->len);
			break;
		case MCAST_STRING:
			k->string(k->ctx, c->text, c->len, false);
			break;
		case MCAST_TIME:
			{
				char		buf[80];
				size_t		len = marshal_format_wall(c->time.epoch, c->time.nsec,
											  w->opts.time_precision, buf);

				buf[len++] = 'Z';
				k->string(k->ctx, buf, len, false);
				break;
			}
		case MCAST_MARSHAL:
			return emit_nested(w, raw, c->bytes);
		case MCAST_PG_ARRAY:
			return emit_pg_array(w, c, raw);
		case MCAST_HSTORE:
			return emit_hstore(w, c, raw);
		case MCAST_PG_RANGE:
			return emit_pg_range(w, c, raw);
		case MCAST_POINT:
			{
				/* ActiveRecord::Point.new(x.to_f, y.to_f) */
				const uint8_t *comma = memchr(c->bytes.ptr, ',', c->bytes.len);
				char		num[64];
				double		xy[2];

				if (comma == NULL)
					goto raw_value;
				for (int i = 0; i < 2; i++)
				{
					const uint8_t *b = i == 0 ? c->bytes.ptr + 1 : comma + 1;
					size_t		bl = i == 0 ? (size_t) (comma - b) :
						(size_t) (c->bytes.ptr + c->bytes.len - 1 - b);

					if (bl >= sizeof(num))
						goto raw_value;
					memcpy(num, b, bl);
					num[bl] = '\0';
					xy[i] = strtod(num, NULL);	/* String#to_f of the adapter's digits */
				}
				k->begin_object(k->ctx);
				for (int i = 0; i < 2; i++)
				{
					char		buf[40];

					k->key(k->ctx, i == 0 ? "x" : "y", 1, true);
					if (isfinite(xy[i]))
						k->number(k->ctx, buf, marshal_format_float(xy[i], buf));
					else
						k->null(k->ctx);
				}
				k->end_object(k->ctx);
				break;
			}
		case MCAST_BYTEA:
			{
				/* decoded into a buffer of its own, then a String or a stream */
				size_t		n = c->bytes.len / 2;
				uint8_t    *b = marshal_alloc(w->hooks, n + 1);
				MarshalStatus st;
				MarshalBytes none = {NULL, 0};

				if (b == NULL)
					return jw_fail(w, MARSHAL_ERR_NOMEM, raw, "out of memory");
				for (size_t i = 0; i < n; i++)
					b[i] = (uint8_t) (marshal_hex_digit(c->bytes.ptr[2 * i]) << 4 |
									  marshal_hex_digit(c->bytes.ptr[2 * i + 1]));
				if (c->nested)
				{
					/*
					 * The nested walk hands the sink keys and strings as
					 * stable pointers into its stream: the decoded bytes
					 * stay with the caller's memory (PostgreSQL: the
					 * function's context), as a stream read from the
					 * value does.
					 */
					return emit_nested(w, raw, (MarshalBytes) {b, n});
				}
				else if (marshal_utf8_valid(b, n, false))
				{
					st = jw_charge(w, raw, n);
					if (st == MARSHAL_OK)
						k->string(k->ctx, (const char *) b, n, false);
				}
				else
					st = jw_emit_text(w, raw, b, n, MENC_BINARY, none, false);
				marshal_free(w->hooks, b);
				return st;
			}
		case MCAST_JSON:
			TRY(jw_charge(w, raw, c->bytes.len));
			if (k->json && marshal_utf8_valid(c->bytes.ptr, c->bytes.len, false) &&
				k->json(k->ctx, (const char *) c->bytes.ptr, c->bytes.len, c->yaml.store))
				break;
			if (k->json && c->json_invalid_null)
			{
				k->null(k->ctx);
				break;
			}
			/* no JSON parser here, or text Rails' coder would refuse */
			goto raw_value;
		case MCAST_YAML:
			/* aliases may expand it: the sink stops at 1000 + 4 * len nodes */
			TRY(jw_charge(w, raw, 64 * (1000 + c->yaml.text.len)));
			if (k->yaml && marshal_utf8_valid(c->yaml.text.ptr, c->yaml.text.len, false) &&
				k->yaml(k->ctx, &c->yaml))
				break;
			/* YAML this does not load as Psych would: its text */
			goto raw_value;
		default:
			goto raw_value;
	}
	return MARSHAL_OK;
raw_value:
	if (raw)
		return jw_emit_value(w, raw, &ignored);
	/* the element's text lives in a buffer the next element reuses: copied */
	TRY(jw_charge(w, 0, text.len));
	k->string(k->ctx, (const char *) text.ptr, text.len, false);
	return MARSHAL_OK;
}

static MarshalStatus
emit_cast(Walk *w, const MarshalEntry *e, size_t *end)
{
	MarshalCast c;
	MarshalBytes none = {NULL, 0};

	TRY(marshal_record_cast(w->doc, e, &c, w->err));
	if (c.kind == MCAST_RAW)
		return jw_emit_value(w, e->value, end);
	TRY(jw_charge(w, e->value, c.len));
	TRY(marshal_skip(w->doc, e->value, end, w->err));
	return emit_cast_value(w, &c, e->value, none);
}

/* One element's text (made node, pos 0) or Ruby value, cast by the array's subtype. */
static MarshalStatus
emit_pg_element(Walk *w, const MarshalCast *arr, const MarshalNode *v, MarshalBytes text)
{
	MarshalCast c;

	TRY(marshal_record_cast_element(w->doc, arr->subtype, arr->user, v, &c, w->err));
	return emit_cast_value(w, &c, v->pos, text);
}

/*
 * PostgreSQL's array text, as PG::TextDecoder::Array reads it: {a,"b c",NULL,
 * {1,2}}, an optional [1:2]= dimension prefix; each element cast by the
 * subtype (OID::Array#deserialize).  *i moves past the array at s[*i].
 */
static MarshalStatus
emit_pg_array_text(Walk *w, const MarshalCast *arr, const uint8_t *s, size_t n,
				   size_t *i, char *buf, int depth, bool dry, bool *bad)
{
	const MarshalJsonSink *k = w->sink;
	bool		first = true;

	if (depth > 16 || *i >= n || s[*i] != '{')
	{
		*bad = true;
		return MARSHAL_OK;
	}
	(*i)++;
	if (!dry)
		k->begin_array(k->ctx);
	for (;;)
	{
		size_t		len = 0;
		bool		quoted = false;
		size_t		end_of_text;
		MarshalNode v;

		while (*i < n && marshal_is_space(s[*i]))
			(*i)++;
		if (*i < n && s[*i] == '}' && first)
		{
			(*i)++;
			break;
		}
		if (*i < n && s[*i] == '{')
			TRY(emit_pg_array_text(w, arr, s, n, i, buf, depth + 1, dry, bad));
		else
		{
			if (*i < n && s[*i] == '"')
			{
				quoted = true;
				for ((*i)++; *i < n && s[*i] != '"'; (*i)++)
				{
					if (s[*i] == '\\' && *i + 1 < n)
						(*i)++;
					buf[len++] = (char) s[*i];
				}
				if (*i >= n)
				{
					*bad = true;
					return MARSHAL_OK;
				}
				(*i)++;
			}
			else
			{
				for (; *i < n && s[*i] != arr->delim && s[*i] != '}'; (*i)++)
				{
					if (s[*i] == '\\' && *i + 1 < n)
						(*i)++;
					buf[len++] = (char) s[*i];
				}
				while (len > 0 && marshal_is_space((uint8_t) buf[len - 1]))
					len--;
			}
			made_string(&v, (const uint8_t *) buf, len);
			if (!quoted && len == 4 && (buf[0] | 32) == 'n' && (buf[1] | 32) == 'u' &&
				(buf[2] | 32) == 'l' && (buf[3] | 32) == 'l')
				v.type = MT_NIL;
			if (!dry)
				TRY(emit_pg_element(w, arr, &v, v.data));
		}
		if (*bad)
			return MARSHAL_OK;
		first = false;
		while (*i < n && marshal_is_space(s[*i]))
			(*i)++;
		end_of_text = *i;
		if (end_of_text < n && s[end_of_text] == arr->delim)
		{
			(*i)++;
			continue;
		}
		if (end_of_text < n && s[end_of_text] == '}')
		{
			(*i)++;
			break;
		}
		*bad = true;
		return MARSHAL_OK;
	}
	if (!dry)
		k->end_array(k->ctx);
	return MARSHAL_OK;
}

/*
 * One "quoted" hstore word (or NULL, unquoted) at s[*i] into buf; *null for
 * NULL.  False if it is neither.
 */
static bool
hstore_word(const uint8_t *s, size_t n, size_t *i, char *buf, size_t *len, bool *null)
{
	*len = 0;
	*null = false;
	while (*i < n && marshal_is_space(s[*i]))
		(*i)++;
	if (*i + 4 <= n && memcmp(s + *i, "NULL", 4) == 0)
	{
		*i += 4;
		*null = true;
		return true;
	}
	if (*i >= n || s[*i] != '"')
		return false;
	for ((*i)++; *i < n && s[*i] != '"'; (*i)++)
	{
		if (s[*i] == '\\' && *i + 1 < n)
			(*i)++;
		buf[(*len)++] = (char) s[*i];
	}
	if (*i >= n)
		return false;
	(*i)++;
	return true;
}

/*
 * hstore text as OID::Hstore#deserialize reads it: "k"=>"v", "n"=>NULL, as
 * a Hash of Strings (a later key wins).  Read once to know it is one; text
 * that is not stays a String.
 */
static MarshalStatus
emit_hstore(Walk *w, const MarshalCast *c, size_t at)
{
	const uint8_t *s = c->bytes.ptr;
	size_t		n = c->bytes.len;
	char	   *buf = marshal_alloc(w->hooks, 2 * n + 2);
	MarshalBytes none = {NULL, 0};
	MarshalStatus st = MARSHAL_OK;

	if (buf == NULL)
		return jw_fail(w, MARSHAL_ERR_NOMEM, at, "out of memory");
	TRY(jw_charge(w, at, n));
	for (int pass = 0; pass < 2; pass++)
	{
		size_t		i = 0;
		bool		ok = true;

		if (pass == 1)
			w->sink->begin_object(w->sink->ctx);
		while (ok)
		{
			size_t		kl;
			size_t		vl;
			bool		knull;
			bool		vnull;

			while (i < n && marshal_is_space(s[i]))
				i++;
			if (i == n)
				break;
			ok = hstore_word(s, n, &i, buf, &kl, &knull) && !knull;
			while (ok && i < n && marshal_is_space(s[i]))
				i++;
			ok = ok && i + 1 < n && s[i] == '=' && s[i + 1] == '>';
			i += 2;
			ok = ok && hstore_word(s, n, &i, buf + n + 1, &vl, &vnull);
			if (ok && pass == 1)
			{
				w->sink->key(w->sink->ctx, buf, kl, false);
				if (vnull)
					w->sink->null(w->sink->ctx);
				else
					w->sink->string(w->sink->ctx, buf + n + 1, vl, false);
			}
			while (ok && i < n && marshal_is_space(s[i]))
				i++;
			if (ok && i < n)
				ok = s[i++] == ',';
		}
		if (pass == 1)
			w->sink->end_object(w->sink->ctx);
		else if (!ok)
		{
			st = jw_emit_text(w, at, s, n, MENC_UTF8, none, false);
			break;
		}
	}
	marshal_free(w->hooks, buf);
	return st;
}

/*
 * One end of a range, deserialized by the subtype, as its to_s into out
 * (200 bytes); *numeric: what (-Float::INFINITY..Float::INFINITY) covers (a
 * number, a Date; not a Time or a String).
 */
static MarshalStatus
range_end_to_s(Walk *w, size_t subtype, const uint8_t *s, size_t len, char *out,
			   size_t *outlen, bool *numeric, bool *ok)
{
	MarshalNode v;
	MarshalCast c;
	bool		tok;

	*numeric = false;
	*ok = true;
	made_string(&v, s, len);
	TRY(marshal_record_cast_element(w->doc, subtype, false, &v, &c, w->err));
	switch (c.kind)
	{
		case MCAST_INT:
			*numeric = true;
			*outlen = (size_t) snprintf(out, 200, "%lld", (long long) c.integer);
			return MARSHAL_OK;
		case MCAST_NUMBER:
		case MCAST_STRING:
			if (c.len >= 200)
				break;
			memcpy(out, c.text, c.len);
			*outlen = c.len;
			/* a Decimal's text ("1.5") and a Date's ("2024-01-01") */
			*numeric = true;
			for (size_t i = 0; i < c.len && *numeric; i++)
				*numeric = marshal_is_digit((uint8_t) c.text[i]) || c.text[i] == '.' ||
					c.text[i] == '-';
			return MARSHAL_OK;
		case MCAST_TIME:
			{
				/* Time#to_s of a UTC Time: no fraction */
				size_t		n = marshal_format_wall(c.time.epoch, 0, 0, out);
				char	   *tee = memchr(out, 'T', n);

				if (tee)
					*tee = ' ';
				memcpy(out + n, " UTC", 4);
				*outlen = n + 4;
				return MARSHAL_OK;
			}
		case MCAST_VALUE:
			TRY(marshal_to_s(w->doc, c.pos, out, 200, outlen, &tok, w->err));
			*ok = tok;
			return MARSHAL_OK;
		case MCAST_RAW:
			if (len >= 200)
				break;
			memcpy(out, s, len);
			*outlen = len;
			return MARSHAL_OK;
		default:
			break;
	}
	*ok = false;
	return MARSHAL_OK;
}

/*
 * A range type's text as OID::Range#cast_value makes a Range of it: "empty"
 * is nil, the ends are split at the first comma, unquoted ("" and \\) and
 * deserialized by the subtype, an empty or infinite end is a Float
 * infinity unless the other end is not a number (then nil); its to_s.  A
 * Range Ruby cannot make (an excluded finite beginning) keeps its text.
 */
static MarshalStatus
emit_pg_range(Walk *w, const MarshalCast *c, size_t at)
{
	const uint8_t *s = c->bytes.ptr;
	size_t		n = c->bytes.len;
	const uint8_t *comma;
	char		ends[2][200];
	size_t		lens[2];
	bool		numeric[2];
	bool		infinite[2];
	char	   *unq;
	char		out[420];
	MarshalBytes none = {NULL, 0};

	if ((n == 5 && memcmp(s, "empty", 5) == 0) || n == 0)
	{
		w->sink->null(w->sink->ctx);
		return MARSHAL_OK;
	}
	comma = n >= 2 ? memchr(s + 1, ',', n - 2) : NULL;
	if (comma == NULL || (s[0] != '[' && s[0] != '(') || (s[n - 1] != ']' && s[n - 1] != ')') ||
		n > 390 || (unq = marshal_alloc(w->hooks, n + 1)) == NULL)
		return jw_emit_text(w, at, s, n, MENC_UTF8, none, false);
	for (int e = 0; e < 2; e++)
	{
		const uint8_t *b = e == 0 ? s + 1 : comma + 1;
		size_t		bl = e == 0 ? (size_t) (comma - s - 1) : (size_t) (s + n - 1 - comma - 1);
		size_t		ul = 0;
		bool		ok = true;

		infinite[e] = bl == 0 || (e == 0 && bl == 9 && memcmp(b, "-infinity", 9) == 0) ||
			(e == 1 && bl == 8 && memcmp(b, "infinity", 8) == 0);
		numeric[e] = false;
		if (infinite[e])
			continue;
		if (bl >= 2 && b[0] == '"' && b[bl - 1] == '"')
		{
			/* unquote: "" is ", \\ is \ */
			for (size_t i = 1; i + 1 < bl; i++)
			{
				unq[ul++] = (char) b[i];
				if ((b[i] == '"' && b[i + 1] == '"') || (b[i] == '\\' && b[i + 1] == '\\'))
					i++;
			}
			b = (const uint8_t *) unq;
			bl = ul;
		}
		TRY(range_end_to_s(w, c->subtype, b, bl, ends[e], &lens[e], &numeric[e], &ok));
		if (!ok)
		{
			marshal_free(w->hooks, unq);
			return jw_emit_text(w, at, s, n, MENC_UTF8, none, false);
		}
	}
	marshal_free(w->hooks, unq);
	if (s[0] == '(' && !infinite[0])
		return jw_emit_text(w, at, s, n, MENC_UTF8, none, false);
	for (int e = 0; e < 2; e++)
	{
		/* sanitize_bounds: an infinity stays where the other end is a number */
		if (!infinite[e])
			continue;
		if (infinite[1 - e] || numeric[1 - e])
			lens[e] = (size_t) snprintf(ends[e], 200, "%s", e == 0 ? "-Infinity" : "Infinity");
		else
			lens[e] = 0;
	}
	memcpy(out, ends[0], lens[0]);
	memcpy(out + lens[0], s[n - 1] == ')' ? "..." : "..", s[n - 1] == ')' ? 3 : 2);
	memcpy(out + lens[0] + (s[n - 1] == ')' ? 3 : 2), ends[1], lens[1]);
	w->sink->string(w->sink->ctx, out, lens[0] + (s[n - 1] == ')' ? 3 : 2) + lens[1], false);
	return MARSHAL_OK;
}

static MarshalStatus
emit_pg_array(Walk *w, const MarshalCast *c, size_t at)
{
	const uint8_t *s = c->bytes.ptr;
	size_t		n = c->bytes.len;
	size_t		i = 0;
	bool		bad = false;
	char	   *buf;
	MarshalStatus st;

	if (c->pos)
	{
		/* a Ruby Array (form input): each element cast by the subtype */
		MarshalNode arr;
		size_t		p;
		MarshalBytes none = {NULL, 0};

		TRY(marshal_node(w->doc, c->pos, &arr, w->err));
		w->sink->begin_array(w->sink->ctx);
		p = arr.items;
		for (uint32_t k = 0; k < arr.count; k++)
		{
			MarshalNode v;

			TRY(marshal_node(w->doc, p, &v, w->err));
			v.pos = p;
			TRY(emit_pg_element(w, c, &v, none));
			TRY(marshal_skip(w->doc, p, &p, w->err));
		}
		w->sink->end_array(w->sink->ctx);
		return MARSHAL_OK;
	}
	if (n > 0 && s[0] == '[')
	{
		/* [1:2]={...}: bounds other than 1 */
		const uint8_t *eq = memchr(s, '=', n);

		if (eq)
			i = (size_t) (eq - s) + 1;
	}
	if ((buf = marshal_alloc(w->hooks, n + 1)) == NULL)
		return jw_fail(w, MARSHAL_ERR_NOMEM, at, "out of memory");
	/* read it once to know it is one; text that is not stays a String */
	{
		size_t		j = i;

		st = emit_pg_array_text(w, c, s, n, &j, buf, 0, true, &bad);
		if (st == MARSHAL_OK && !bad && j == n)
			st = emit_pg_array_text(w, c, s, n, &i, buf, 0, false, &bad);
		else if (st == MARSHAL_OK)
		{
			MarshalBytes none = {NULL, 0};

			st = jw_emit_text(w, at, s, n, MENC_UTF8, none, false);
		}
	}
	marshal_free(w->hooks, buf);
	return st;
}

/*
 * The entries of a container view: an array's elements or an object's
 * pairs.  *end receives where the entries end.
 */
static MarshalStatus
emit_entries(Walk *w, const MarshalView *view, size_t *end)
{
	const MarshalJsonSink *k = w->sink;
	bool		object = MARSHAL_VIEW_IS_OBJECT(view->kind);
	MarshalViewIter it;
	MarshalEntry e;
	bool		done;
	int64_t		i = 0;

	if (view->kind == MV_HASH)
		return emit_pairs(w, view, end);
	if (object)
		k->begin_object(k->ctx);
	else
		k->begin_array(k->ctx);
	marshal_view_iter(view, &it);
	for (;;)
	{
		size_t		vend;

		TRY(marshal_view_next(w->doc, &it, &e, &done, w->err));
		if (done)
			break;
		if (object)
			TRY(emit_key(w, &e, NULL));
		else if (w->depth < PATH_STEPS)
		{
			w->path[w->depth].key = NULL;
			w->path[w->depth].index = i++;
		}
		if (e.cast != MARSHAL_CAST_NONE)
			TRY(emit_cast(w, &e, &vend));
		else
			TRY(jw_emit_value(w, e.value, &vend));
		if (view->kind != MV_SET)
			marshal_view_value_end(&it, vend);
	}
	if (object)
		k->end_object(k->ctx);
	else
		k->end_array(k->ctx);
	*end = it.pos;
	return MARSHAL_OK;
}

/* Skip an I wrapper's ivar block that follows a container's elements. */
static MarshalStatus
skip_trailing_ivars(Walk *w, const MarshalNode *n, size_t pos, size_t *end)
{
	int64_t		count;

	if (!n->has_ivars)
	{
		*end = pos;
		return MARSHAL_OK;
	}
	TRY(marshal_long(w->doc, pos, &count, &pos, w->err));
	return marshal_for_each_ivar(w->doc, pos, (uint32_t) (count > 0 ? count : 0), NULL,
								 NULL, end, w->err);
}

/*
 * A container value at pos (not a link): its view decides what it is.
 * *end receives the offset after the whole value.
 */
static MarshalStatus
emit_container(Walk *w, size_t pos, size_t *end)
{
	MarshalView view;
	size_t		p;

	TRY(marshal_view(w->doc, pos, &view, w->err));
	/* no step below this value yet: an error names the value itself */
	if (w->depth < PATH_STEPS)
	{
		w->path[w->depth].key = NULL;
		w->path[w->depth].index = -1;
	}
	if (view.kind == MV_SCALAR)
		TRY(jw_emit_scalar_object(w, &view.node));
	else
		TRY(emit_entries(w, &view, &p));

	/* where the value ends: after the entries, when they are its own */
	if (view.node.pos == pos && view.kind != MV_SCALAR && view.kind != MV_SET &&
		view.kind != MV_RECORD && view.node.type != MT_USRMARSHAL)
	{
		if (view.node.type == MT_HASH_DEF)
			TRY(marshal_skip(w->doc, p, &p, w->err));	/* the default */
		return skip_trailing_ivars(w, &view.node, p, end);
	}
	return marshal_skip(w->doc, pos, end, w->err);
}

/* A flat value: scalars, strings, symbols, regexps, u objects, classes. */
MarshalStatus
jw_emit_flat(Walk *w, const MarshalNode *n)
{
	const MarshalJsonSink *k = w->sink;

	switch (n->type)
	{
		case MT_NIL:
			k->null(k->ctx);
			return MARSHAL_OK;
		case MT_TRUE:
		case MT_FALSE:
			k->boolean(k->ctx, n->type == MT_TRUE);
			return MARSHAL_OK;
		case MT_FIXNUM:
			k->integer(k->ctx, n->ival);
			return MARSHAL_OK;
		case MT_BIGNUM:
			{
				char	   *t = NULL;
				size_t		tl;
				uint64_t	mag = 0;

				/* one that fits 63 bits (a timestamp, an id) as an integer */
				if (n->data.len <= 8)
				{
					for (size_t i = n->data.len; i-- > 0;)
						mag = mag << 8 | n->data.ptr[i];
					if (mag < ((uint64_t) 1 << 63))
					{
						k->integer(k->ctx, n->negative ? -(int64_t) mag : (int64_t) mag);
						return MARSHAL_OK;
					}
				}
				TRY(jw_charge(w, n->pos, n->data.len * 3));
				TRY(bignum_text(w, n->pos, n, &t, &tl));
				k->number(k->ctx, t, tl);
				marshal_free(w->hooks, t);
				return MARSHAL_OK;
			}
		case MT_FLOAT:
			{
				double		d;
				char		buf[40];

				if (!marshal_parse_float(n->data.ptr, n->data.len, &d))
					return jw_fail(w, MARSHAL_ERR_FORMAT, n->pos, "unreadable float");
				if (!isfinite(d))
					k->null(k->ctx);
				else
					k->number(k->ctx, buf, marshal_format_float(d, buf));
				return MARSHAL_OK;
			}
		case MT_STRING:
		case MT_SYMBOL:
			return jw_emit_text(w, n->pos, n->data.ptr, n->data.len, n->encoding,
							 n->encname, false);
		case MT_REGEXP:
			return jw_emit_regexp(w, n);
		case MT_CLASS:
		case MT_MODULE:
		case MT_MODULE_OLD:
			return jw_emit_text(w, n->pos, n->data.ptr, n->data.len,
							 n->encoding == MENC_BINARY ? MENC_UTF8 : n->encoding,
							 n->encname, false);
		case MT_USERDEF:
			if (marshal_class_is(n, MC_TIME))
			{
				char		buf[80];
				size_t		len;
				MarshalStatus st = marshal_time_json(w->doc, n, w->opts.time_precision,
													 buf, &len, w->err);

				return jw_emit_time_text(w, st, buf, len);
			}
			if (marshal_class_is(n, MC_BIGDECIMAL))
				return jw_emit_bigdecimal(w, n);
			if (marshal_class_is(n, MC_ENCODING))
			{
				k->begin_object(k->ctx);
				k->end_object(k->ctx);
				return MARSHAL_OK;
			}
			{
				/* a _dump class we do not know: keep its bytes */
				char	   *b64 = marshal_alloc(w->hooks, MARSHAL_BASE64_LEN(n->data.len) + 1);
				size_t		bl;
				MarshalBytes none = {NULL, 0};

				if (b64 == NULL)
					return jw_fail(w, MARSHAL_ERR_NOMEM, n->pos, "out of memory");
				TRY(jw_charge(w, n->pos, n->data.len));
				bl = marshal_base64_encode(n->data.ptr, n->data.len, b64);
				k->begin_object(k->ctx);
				k->key(k->ctx, "$class", 6, true);
				TRY(jw_emit_text(w, n->pos, n->cls.ptr, n->cls.len, MENC_UTF8, none, false));
				k->key(k->ctx, "$dump", 5, true);
				k->string(k->ctx, b64, bl, false);
				k->end_object(k->ctx);
				marshal_free(w->hooks, b64);
				return MARSHAL_OK;
			}
		default:
			return jw_fail(w, MARSHAL_ERR_FORMAT, n->pos, "unexpected value");
	}
}

/* The commonest values, read from their bytes alone (marshal_leaf). */
static MarshalStatus
emit_leaf(Walk *w, size_t pos, size_t *next, bool *done)
{
	const MarshalJsonSink *k = w->sink;
	MarshalLeaf leaf;
	MarshalBytes none = {NULL, 0};

	TRY(marshal_leaf(w->doc, pos, &leaf, done, w->err));
	if (!*done)
		return MARSHAL_OK;
	*next = leaf.end;
	switch (leaf.type)
	{
		case MT_NIL:
			k->null(k->ctx);
			return MARSHAL_OK;
		case MT_TRUE:
		case MT_FALSE:
			k->boolean(k->ctx, leaf.type == MT_TRUE);
			return MARSHAL_OK;
		case MT_FIXNUM:
			k->integer(k->ctx, leaf.ival);
			return MARSHAL_OK;
		default:
			return jw_emit_text(w, pos, leaf.data.ptr, leaf.data.len, leaf.encoding,
							 none, false);
	}
}

MarshalStatus
jw_emit_value(Walk *w, size_t pos, size_t *next)
{
	MarshalNode n;
	MarshalStatus st;
	size_t		target;
	bool		done;

	TRY(jw_charge(w, pos, 0));
	/* every value counts a level, leaves too, as the reader counts them */
	if (w->depth + 1 > w->opts.max_depth)
		return jw_fail(w, MARSHAL_ERR_DEPTH, pos, "nesting deeper than %u levels",
					w->opts.max_depth);
	TRY(emit_leaf(w, pos, next, &done));
	if (done)
		return MARSHAL_OK;
	TRY(marshal_node(w->doc, pos, &n, w->err));
	if (n.next && n.type != MT_ARRAY && n.type != MT_HASH &&
		n.type != MT_HASH_DEF && n.type != MT_STRUCT && n.type != MT_OBJECT &&
		n.type != MT_USRMARSHAL && n.type != MT_DATA)
	{
		/* flat values; a link's next is just past the link */
		TRY(jw_emit_flat(w, &n));
		*next = n.next;
		return MARSHAL_OK;
	}

	for (uint32_t i = 0; i < w->nactive; i++)
		if (w->active[i] == n.pos)
		{
			char		name[CLASS_SHOWN];

			return jw_fail(w, MARSHAL_ERR_UNREPRESENTABLE, pos,
						"%s contains itself (object link to offset %zu)",
						jw_class_text(&n, name), n.pos);
		}
	if (++w->depth % 8 == 0 && w->hooks && w->hooks->check_stack)
		w->hooks->check_stack(w->hooks->ctx);
	if (w->nactive == w->activecap)
	{
		/* deeper than the inline stack: move it to the heap, doubling */
		size_t	   *bigger = marshal_alloc(w->hooks, 2 * w->activecap * sizeof(size_t));

		if (bigger == NULL)
			return jw_fail(w, MARSHAL_ERR_NOMEM, pos, "out of memory");
		memcpy(bigger, w->active, w->nactive * sizeof(size_t));
		if (w->active != w->active_inline)
			marshal_free(w->hooks, w->active);
		w->active = bigger;
		w->activecap *= 2;
	}
	w->active[w->nactive++] = n.pos;

	/* a link to a container: convert the target, continue after the link */
	target = n.pos;
	if (n.next)
	{
		size_t		ignored;

		st = emit_container(w, target, &ignored);
		*next = n.next;
	}
	else
		st = emit_container(w, target, next);
	w->nactive--;
	w->depth--;
	return st;
}

static MarshalStatus
walk_init(Walk *w, const MarshalDoc *doc, const MarshalJsonSink *sink,
		  const MarshalJsonOptions *opts, const MarshalHooks *hooks,
		  MarshalError *err)
{
	static const MarshalJsonOptions defaults = MARSHAL_JSON_DEFAULTS;

	memset(w, 0, offsetof(Walk, scratch));
	w->doc = doc;
	w->sink = sink;
	w->opts = opts ? *opts : defaults;
	if (w->opts.max_depth == 0)
		w->opts.max_depth = MARSHAL_DEFAULT_MAX_DEPTH;
	if (w->opts.max_cost == 0)
		w->opts.max_cost = MARSHAL_DEFAULT_COST(doc->len);
	if (w->opts.time_precision < 0)
		w->opts.time_precision = 0;
	if (w->opts.time_precision > 9)
		w->opts.time_precision = 9;
	w->hooks = hooks;
	w->err = err;
	err->status = MARSHAL_OK;
	w->active = w->active_inline;
	w->activecap = sizeof(w->active_inline) / sizeof(w->active_inline[0]);
	return MARSHAL_OK;
}

static void
walk_done(Walk *w)
{
	if (w->active != w->active_inline)
		marshal_free(w->hooks, w->active);
}

MarshalStatus
marshal_to_json_at(const MarshalDoc *doc, size_t pos,
				   const MarshalJsonSink *sink, const MarshalJsonOptions *opts,
				   const MarshalHooks *hooks, MarshalError *err)
{
	Walk		w;
	size_t		end;
	MarshalStatus st;

	TRY(walk_init(&w, doc, sink, opts, hooks, err));
	st = jw_emit_value(&w, pos, &end);
	walk_done(&w);
	return st;
}

MarshalStatus
marshal_to_json_entry(const MarshalDoc *doc, const MarshalEntry *e,
					  const MarshalJsonSink *sink,
					  const MarshalJsonOptions *opts,
					  const MarshalHooks *hooks, MarshalError *err)
{
	Walk		w;
	size_t		end;
	MarshalStatus st;

	TRY(walk_init(&w, doc, sink, opts, hooks, err));
	st = e->cast != MARSHAL_CAST_NONE ? emit_cast(&w, e, &end)
		: jw_emit_value(&w, e->value, &end);
	walk_done(&w);
	return st;
}

MarshalStatus
marshal_to_json(const MarshalDoc *doc, const MarshalJsonSink *sink,
				const MarshalJsonOptions *opts, const MarshalHooks *hooks,
				MarshalError *err)
{
	Walk		w;
	size_t		end;
	MarshalStatus st;

	TRY(walk_init(&w, doc, sink, opts, hooks, err));
	st = jw_emit_value(&w, MARSHAL_ROOT, &end);
	if (st == MARSHAL_OK && end != doc->len)
		st = jw_fail(&w, MARSHAL_ERR_FORMAT, end, "value ends before the stream");
	walk_done(&w);
	return st;
}
