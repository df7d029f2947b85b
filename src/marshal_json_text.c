/*
 * marshal_json_text.c
 *		A JSON sink that writes JSON text: the JSON view without a database,
 *		for the unit tests, the fuzzers and the benchmarks.
 *
 * Compact text (no spaces), keys in the order the walk gives them.  The
 * JSON speed work replaces this file; the walk does not depend on it.
 */
#include "marshal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TextSink
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		failed;
	const MarshalHooks *hooks;
	int			need_comma[MARSHAL_DEFAULT_MAX_DEPTH * 4 + 2];
	int			level;
	bool		after_key;
} TextSink;

/* Room for n more bytes and the final NUL; false once out of memory. */
static bool
text_grow(TextSink *t, size_t n)
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

static inline void
text_put(TextSink *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap && !text_grow(t, n))
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
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

/* Whether any of the 8 bytes in x needs escaping: < 0x20, '"' or '\\'. */
static inline bool
needs_escape8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t high = 0x8080808080808080ULL;
	uint64_t	q = x ^ (ones * '"');
	uint64_t	b = x ^ (ones * '\\');

	/* exact for the word as a whole (bytes >= 0x80 never match) */
	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}

static void
text_quoted(TextSink *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t		start = 0;
	size_t		i = 0;

	text_put(t, "\"", 1);
	for (;;)
	{
		unsigned char c;
		char		esc[6] = {'\\', 'u', '0', '0'};
		size_t		elen = 2;

		/* text with nothing to escape, 8 bytes at a time */
		for (; i + 8 <= n; i += 8)
		{
			uint64_t	x;

			memcpy(&x, s + i, 8);
			if (needs_escape8(x))
				break;
		}
		for (; i < n; i++)
		{
			c = (unsigned char) s[i];
			if (c < 0x20 || c == '"' || c == '\\')
				break;
		}
		if (i >= n)
			break;
		c = (unsigned char) s[i];
		text_put(t, s + start, i - start);
		if (c == '"' || c == '\\')
			esc[1] = (char) c;
		else if (c == '\n')
			esc[1] = 'n';
		else if (c == '\t')
			esc[1] = 't';
		else
		{
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			elen = 6;
		}
		text_put(t, esc, elen);
		start = ++i;
	}
	text_put(t, s + start, n - start);
	text_put(t, "\"", 1);
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
	char		buf[24];
	char	   *p = buf + sizeof(buf);
	uint64_t	u = v < 0 ? -(uint64_t) v : (uint64_t) v;

	do
	{
		*--p = (char) ('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	text_sep(ctx);
	text_put(ctx, p, (size_t) (buf + sizeof(buf) - p));
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
	t->buf = NULL;
	t->len = t->cap = 0;
	t->failed = false;
	t->level = 0;
	t->need_comma[0] = 0;
	t->after_key = false;
	t->hooks = hooks;
	sink.ctx = t;
	st = marshal_to_json(&doc, &sink, opts, hooks, err);
	marshal_index_free(&doc.index, hooks);
	if (st == MARSHAL_OK && t->failed)
	{
		err->status = st = MARSHAL_ERR_NOMEM;
		snprintf(err->detail, sizeof(err->detail), "out of memory");
	}
	if (st == MARSHAL_OK)
	{
		text_put(t, "", 0);
		t->buf[t->len] = '\0';
		*out = t->buf;
		*outlen = t->len;
	}
	else
		marshal_free(hooks, t->buf);
	marshal_free(hooks, t);
	return st;
}
