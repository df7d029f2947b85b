/*
 * marshal_json_text.c
 *		A JSON sink that writes JSON text: the JSON view without a database,
 *		for the unit tests, the fuzzers and the benchmarks.
 *
 * Compact text (no spaces), keys in the order the walk gives them.  The
 * JSON speed work replaces this file; the walk does not depend on it.
 */
#include "marshal_json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TextSink
{
	JsonBuf		out;
	int			need_comma[MARSHAL_DEFAULT_MAX_DEPTH * 4 + 2];
	int			level;
	bool		after_key;
} TextSink;

bool
jbuf_grow(JsonBuf *t, size_t n)
{
	size_t		cap = t->cap ? t->cap : 256;
	char	   *nb;

	if (t->failed)
		return false;
	while (cap < t->len + n + 1)
		cap *= 2;
	nb = marshal_realloc(t->hooks, t->buf, cap);
	if (nb == NULL)
	{
		t->failed = true;
		return false;
	}
	t->buf = nb;
	t->cap = cap;
	return true;
}

const char jbuf_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

void
jbuf_integer(JsonBuf *t, int64_t v)
{
	const char *pairs = jbuf_digit_pairs;
	uint64_t	u = v < 0 ? -(uint64_t) v : (uint64_t) v;
	char		buf[48];
	char	   *end = buf + 24;
	char	   *p = end;

	/* the sign and up to 20 digits, from the right, then 24 bytes copied */
	if (!jbuf_reserve(t, 24))
		return;
	while (u >= 100)
	{
		p -= 2;
		memcpy(p, pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10)
	{
		p -= 2;
		memcpy(p, pairs + 2 * u, 2);
	}
	else
		*--p = (char) ('0' + u);
	if (v < 0)
		*--p = '-';
	memcpy(t->buf + t->len, p, 24);
	t->len += (size_t) (end - p);
}

bool
jbuf_quoted(JsonBuf *t, const uint8_t *s, size_t n, bool check_utf8, bool pg)
{
	static const char hex[] = "0123456789abcdef";
	size_t		start = t->len;
	size_t		i = 0;
	char	   *o;

	/* the text and its quotes; escapes reserve more as they come */
	if (!jbuf_reserve(t, n + 2))
		return true;
	o = t->buf + t->len;
	*o++ = '"';
	for (;;)
	{
		unsigned char c;
		size_t		run = i;

		/* text with nothing to look at, 8 bytes at a time */
		for (; i + 8 <= n; i += 8)
		{
			uint64_t	x;

			memcpy(&x, s + i, 8);
			if (needs_look8(x))
				break;
		}
		for (; i < n; i++)
		{
			c = s[i];
			if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
				break;
		}
		memcpy(o, s + run, i - run);
		o += i - run;
		if (i >= n)
			break;
		c = s[i];
		if (c >= 0x80)
		{
			size_t		k = marshal_utf8_seq(s + i, n - i);

			if (k == 0 && check_utf8)
			{
				t->len = start;
				return false;
			}
			if (k == 0)
				k = 1;
			memcpy(o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		if (c == 0 && check_utf8)
		{
			t->len = start;
			return false;
		}
		/* an escape: up to 6 bytes for 1, with the rest and the quote */
		t->len = (size_t) (o - t->buf);
		if (!jbuf_reserve(t, 6 + (n - i) + 1))
			return true;
		o = t->buf + t->len;
		*o++ = '\\';
		if (c == '"' || c == '\\')
			*o++ = (char) c;
		else if (c == '\n')
			*o++ = 'n';
		else if (c == '\t')
			*o++ = 't';
		else if (pg && c == '\b')
			*o++ = 'b';
		else if (pg && c == '\f')
			*o++ = 'f';
		else if (pg && c == '\r')
			*o++ = 'r';
		else
		{
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 0xf];
		}
		i++;
	}
	*o++ = '"';
	t->len = (size_t) (o - t->buf);
	return true;
}

static inline void
text_put(TextSink *t, const char *s, size_t n)
{
	jbuf_put(&t->out, s, n);
}

/* Separators: a comma before every element but the first of a container. */
static void
text_sep(TextSink *t)
{
	if (t->after_key)
	{
		t->after_key = false;
		return;
	}
	if (t->level > 0 && t->need_comma[t->level]++)
		text_put(t, ",", 1);
}

static void
text_quoted(TextSink *t, const char *s, size_t n)
{
	jbuf_quoted(&t->out, (const uint8_t *) s, n, false, false);
}

static void
text_open(void *ctx, const char *c)
{
	TextSink   *t = ctx;

	text_sep(t);
	text_put(t, c, 1);
	if ((size_t) t->level + 1 < sizeof(t->need_comma) / sizeof(int))
		t->level++;
	t->need_comma[t->level] = 0;
}

static void
text_close(void *ctx, const char *c)
{
	TextSink   *t = ctx;

	text_put(t, c, 1);
	if (t->level > 0)
		t->level--;
}

static void text_begin_object(void *ctx) { text_open(ctx, "{"); }
static void text_end_object(void *ctx) { text_close(ctx, "}"); }
static void text_begin_array(void *ctx) { text_open(ctx, "["); }
static void text_end_array(void *ctx) { text_close(ctx, "]"); }

static void
text_key(void *ctx, const char *s, size_t n, bool stable)
{
	TextSink   *t = ctx;

	(void) stable;
	text_sep(t);
	text_quoted(t, s, n);
	text_put(t, ":", 1);
	t->after_key = true;
}

static void
text_string(void *ctx, const char *s, size_t n, bool stable)
{
	(void) stable;
	text_sep(ctx);
	text_quoted(ctx, s, n);
}

static void
text_null(void *ctx)
{
	text_sep(ctx);
	text_put(ctx, "null", 4);
}

static void
text_boolean(void *ctx, bool v)
{
	text_sep(ctx);
	text_put(ctx, v ? "true" : "false", v ? 4 : 5);
}

static void
text_integer(void *ctx, int64_t v)
{
	TextSink   *t = ctx;

	text_sep(t);
	jbuf_integer(&t->out, v);
}

static void
text_number(void *ctx, const char *s, size_t n)
{
	text_sep(ctx);
	text_put(ctx, s, n);
}

MarshalStatus
marshal_to_json_text(const uint8_t *buf, size_t len,
					 const MarshalJsonOptions *opts, const MarshalHooks *hooks,
					 char **out, size_t *outlen, MarshalError *err)
{
	JsonBuf		fast = {NULL, 0, 0, false, hooks};

	*out = NULL;
	*outlen = 0;
	err->status = MARSHAL_OK;

	/*
	 * Written in one pass where it can be (no index, no nodes), which
	 * accepts only valid streams (marshal_json_fast.c checks as it reads,
	 * fuzz_walk holds it to marshal_validate); else by the indexed walk,
	 * which also says what is wrong.
	 */
	if (marshal_json_fast(buf, len, opts, hooks, false, &fast) && !fast.failed)
	{
		fast.buf[fast.len] = '\0';
		*out = fast.buf;
		*outlen = fast.len;
		return MARSHAL_OK;
	}
	marshal_free(hooks, fast.buf);
	return marshal_to_json_text_indexed(buf, len, opts, hooks, out, outlen, err);
}

MarshalStatus
marshal_to_json_text_indexed(const uint8_t *buf, size_t len,
							 const MarshalJsonOptions *opts,
							 const MarshalHooks *hooks, char **out,
							 size_t *outlen, MarshalError *err)
{
	MarshalDoc	doc;
	TextSink   *t;
	MarshalJsonSink sink = {
		NULL, text_begin_object, text_end_object, text_begin_array,
		text_end_array, text_key, text_string, text_null, text_boolean,
		text_integer, text_number, NULL, NULL, NULL
	};
	MarshalStatus st;

	*out = NULL;
	*outlen = 0;
	st = marshal_doc_open(&doc, buf, len, hooks, opts->max_depth, err);
	if (st != MARSHAL_OK)
		return st;
	t = marshal_alloc(hooks, sizeof(TextSink));
	if (t == NULL)
	{
		marshal_index_free(&doc.index, hooks);
		err->status = MARSHAL_ERR_NOMEM;
		return MARSHAL_ERR_NOMEM;
	}
	/* need_comma[] is set as each level opens: no need to clear it */
	t->out = (JsonBuf) {NULL, 0, 0, false, hooks};
	t->level = 0;
	t->need_comma[0] = 0;
	t->after_key = false;
	sink.ctx = t;
	st = marshal_to_json(&doc, &sink, opts, hooks, err);
	marshal_index_free(&doc.index, hooks);
	if (st == MARSHAL_OK && (t->out.failed || !jbuf_reserve(&t->out, 0)))
	{
		err->status = st = MARSHAL_ERR_NOMEM;
		snprintf(err->detail, sizeof(err->detail), "out of memory");
	}
	if (st == MARSHAL_OK)
	{
		t->out.buf[t->out.len] = '\0';
		*out = t->out.buf;
		*outlen = t->out.len;
	}
	else
		marshal_free(hooks, t->out.buf);
	marshal_free(hooks, t);
	return st;
}

bool
marshal_to_jsonb_text(const uint8_t *buf, size_t len,
					  const MarshalJsonOptions *opts, const MarshalHooks *hooks,
					  char **out, size_t *outlen)
{
	JsonBuf		t = {NULL, 0, 0, false, hooks};

	*out = NULL;
	*outlen = 0;
	if (!marshal_json_fast(buf, len, opts, hooks, true, &t) || t.failed)
	{
		marshal_free(hooks, t.buf);
		return false;
	}
	t.buf[t.len] = '\0';
	*out = t.buf;
	*outlen = t.len;
	return true;
}
