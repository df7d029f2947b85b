/*
 * fuzz_walk.c
 *		libFuzzer target for the codec's walkers and writers: everything a
 *		stored value goes through after validation, and the literal parser.
 *
 * For an input that validates:
 *   - the JSON walker (marshal_to_json_text, which must equal
 *     marshal_to_json_text_indexed byte for byte; the walk the jsonb cast makes,
 *     with a text sink) ends in OK or a clean error;
 *   - inspect ends in OK or a clean error;
 *   - re-encoding the root and every top-level element (the writer) gives
 *     a stream the reader accepts again, and re-encoding that is a fixed
 *     point (same bytes); a lazily indexed document (navigation's, which
 *     finds early symbols by skipping) gives the same bytes, and the same
 *     JSON walk (what ->> and a sub-value's jsonb are made of);
 *   - looking a key up in the root (-> 'k') finds the value of the last
 *     entry whose key text is k, whether the key was judged by its bytes
 *     or by its text.
 * For any input read as text, the Ruby literal parser either refuses it or
 * writes a stream the reader accepts.
 * Crashes, sanitizer reports and failed checks abort.
 */
#include "marshal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH 200

static void
die(const char *what, const uint8_t *buf, size_t len)
{
	fprintf(stderr, "fuzz_walk: %s (input of %zu bytes)\n", what, len);
	(void) buf;
	abort();
}

static void
check_stream(const uint8_t *buf, size_t len, const char *what)
{
	MarshalError err;

	if (marshal_validate(buf, len, NULL, DEPTH * 4, &err) != MARSHAL_OK)
	{
		fprintf(stderr, "fuzz_walk: %s: %s at %zu\n", what, err.detail, err.offset);
		die("written stream does not validate", buf, len);
	}
}

/* Re-encode a whole stream; NULL if refused (limits). */
static uint8_t *
reencode_stream(const uint8_t *buf, size_t len, size_t *outlen)
{
	MarshalDoc	doc;
	MarshalError err;
	uint8_t    *out = NULL;

	if (marshal_doc_open(&doc, buf, len, NULL, DEPTH * 4, &err) != MARSHAL_OK)
		die("re-encoded stream does not index", buf, len);
	if (marshal_reencode(&doc, MARSHAL_ROOT, NULL, &out, outlen, &err) != MARSHAL_OK)
		out = NULL;
	marshal_index_free(&doc.index, NULL);
	if (out)
		check_stream(out, *outlen, "re-encoded again");
	return out;
}

/*
 * Re-encode pos: the result validates, and so do its re-encodings, which
 * settle after one more round.  (Not after the first: like MRI's
 * dump(load(x)), a second round may share what the first wrote twice, such
 * as equal frozen Hash keys.)
 */
static void
reencode_at(const MarshalDoc *doc, size_t pos)
{
	MarshalError err;
	uint8_t    *out = NULL;
	uint8_t    *out2;
	uint8_t    *out3;
	size_t		outlen = 0;
	size_t		len2 = 0;
	size_t		len3 = 0;

	uint8_t		small[256];
	size_t		smalllen;
	bool		copied = marshal_reencode_small(doc, pos, small, sizeof(small), &smalllen);

	if (marshal_reencode(doc, pos, NULL, &out, &outlen, &err) != MARSHAL_OK)
	{
		/* the copy takes only what the re-encoder writes */
		if (copied)
			die("copied a value the re-encoder refuses", doc->buf, doc->len);
		return;					/* a clean refusal (limits) */
	}
	/*
	 * A small value copied: the re-encoder's bytes, which always validate
	 * (the server stores them without checking them again)
	 */
	if (copied && (smalllen != outlen || memcmp(small, out, outlen) != 0))
		die("copied re-encoding differs", doc->buf, doc->len);
	if (copied)
		check_stream(small, smalllen, "copied");

	/*
	 * MRI's own dump of a Regexp (or ivar-carrying String) whose ivars reach
	 * back to it links to it before it is built, and MRI cannot load that
	 * either ("dump format error (bad link)"): the same bytes are right, and
	 * the server refuses them as a result.  Any other failure is a bug.
	 */
	if (marshal_validate(out, outlen, NULL, DEPTH * 4, &err) != MARSHAL_OK &&
		strstr(err.detail, "that is not built yet") != NULL)
	{
		free(out);
		return;
	}
	check_stream(out, outlen, "re-encoded");
	out2 = reencode_stream(out, outlen, &len2);
	if (out2)
	{
		out3 = reencode_stream(out2, len2, &len3);
		if (out3 && (len3 != len2 || memcmp(out2, out3, len2) != 0))
			die("re-encoding does not settle", out2, len2);
		free(out3);
	}
	free(out2);
	free(out);
}

/* The same sub-value re-encoded from a lazy document: the same bytes. */
static void
reencode_lazy(const MarshalDoc *doc, MarshalDoc *lazy, size_t pos)
{
	MarshalError err;
	uint8_t    *a = NULL;
	uint8_t    *b = NULL;
	size_t		alen = 0;
	size_t		blen = 0;
	MarshalStatus sa = marshal_reencode(doc, pos, NULL, &a, &alen, &err);
	MarshalStatus sb = marshal_reencode(lazy, pos, NULL, &b, &blen, &err);

	if (sa != sb || (sa == MARSHAL_OK && (alen != blen || memcmp(a, b, alen) != 0)))
		die("lazy re-encoding differs", doc->buf, doc->len);
	free(a);
	free(b);
}

/*
 * The JSON walk's events, recorded as tagged bytes: what ->> and the jsonb
 * view of a sub-value are made of, compared between a lazy and an eager
 * document.
 */
typedef struct Rec
{
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
	char	   *conv[64];		/* transcoded texts, freed at the end */
	int			nconv;
} Rec;

#define REC_MAX (1 << 20)

static void
rec_put(void *ctx, char tag, const void *s, size_t n)
{
	Rec		   *r = ctx;

	if (r->len + 1 + sizeof(n) + n > REC_MAX)
		return;					/* both sides stop at the same event */
	if (r->len + 1 + sizeof(n) + n > r->cap)
	{
		size_t		cap = r->cap ? r->cap : 256;

		while (cap < r->len + 1 + sizeof(n) + n)
			cap *= 2;
		r->buf = realloc(r->buf, cap);
		if (r->buf == NULL)
			abort();
		r->cap = cap;
	}
	r->buf[r->len++] = (uint8_t) tag;
	memcpy(r->buf + r->len, &n, sizeof(n));
	r->len += sizeof(n);
	if (n)
		memcpy(r->buf + r->len, s, n);
	r->len += n;
}

static void rec_begin_object(void *c) { rec_put(c, 'O', NULL, 0); }
static void rec_end_object(void *c) { rec_put(c, 'o', NULL, 0); }
static void rec_begin_array(void *c) { rec_put(c, 'A', NULL, 0); }
static void rec_end_array(void *c) { rec_put(c, 'a', NULL, 0); }
static void rec_key(void *c, const char *s, size_t n, bool st) { rec_put(c, 'K', s, n); }
static void rec_string(void *c, const char *s, size_t n, bool st) { rec_put(c, 'S', s, n); }
static void rec_null(void *c) { rec_put(c, 'N', NULL, 0); }
static void rec_boolean(void *c, bool v) { rec_put(c, 'B', &v, 1); }
static void rec_integer(void *c, int64_t v) { rec_put(c, 'I', &v, sizeof(v)); }
static void rec_number(void *c, const char *s, size_t n) { rec_put(c, 'D', s, n); }

/* A stand-in for iconv: "<name>:<hex>", so a lost or wrong encoding shows. */
static bool
rec_transcode(void *c, const char *encname, const uint8_t *s, size_t len,
			  char **out, size_t *outlen)
{
	Rec		   *r = c;
	size_t		nl = strlen(encname);
	char	   *t;

	if (r->nconv == (int) (sizeof(r->conv) / sizeof(r->conv[0])) || len > 4096)
		return false;
	t = malloc(nl + 1 + 2 * len + 1);
	if (t == NULL)
		abort();
	memcpy(t, encname, nl);
	t[nl] = ':';
	for (size_t i = 0; i < len; i++)
		snprintf(t + nl + 1 + 2 * i, 3, "%02x", s[i]);
	t[nl + 1 + 2 * len] = '\0';
	r->conv[r->nconv++] = t;
	*out = t;
	*outlen = nl + 1 + 2 * len;
	return true;
}

static void
rec_free(Rec *r)
{
	for (int i = 0; i < r->nconv; i++)
		free(r->conv[i]);
	free(r->buf);
}

/* The jsonb view of the sub-value at pos from a lazy document: the same. */
static void
json_lazy(const MarshalDoc *doc, MarshalDoc *lazy, size_t pos)
{
	Rec			a = {0};
	Rec			b = {0};
	MarshalTranscoder transcoder = {rec_transcode, NULL};
	MarshalJsonSink sink = {
		NULL, rec_begin_object, rec_end_object, rec_begin_array, rec_end_array,
		rec_key, rec_string, rec_null, rec_boolean, rec_integer, rec_number,
		&transcoder, NULL, NULL
	};
	MarshalJsonOptions opts = {MARSHAL_DEFAULT_TIME_PRECISION, MARSHAL_DEFAULT_BINARY, DEPTH, 0};
	MarshalError err;
	MarshalStatus sa;
	MarshalStatus sb;

	sink.ctx = transcoder.ctx = &a;
	sa = marshal_to_json_at(doc, pos, &sink, &opts, NULL, &err);
	sink.ctx = transcoder.ctx = &b;
	sb = marshal_to_json_at(lazy, pos, &sink, &opts, NULL, &err);
	if (sa != sb || (sa == MARSHAL_OK && (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)))
		die("lazy JSON walk differs", doc->buf, doc->len);
	rec_free(&a);
	rec_free(&b);
}

/* Key text of an entry, copied out; false if it has none (or an encoding). */
static bool
entry_text(const MarshalDoc *doc, const MarshalEntry *e, char *out,
		   size_t *len)
{
	MarshalKeyText k;
	MarshalError err;
	char		buf[128];

	if (marshal_key_text(doc, e, buf, sizeof(buf), &k, &err) != MARSHAL_OK ||
		!k.ok || k.encoding == MENC_NAMED || k.text.len > 64)
		return false;
	memcpy(out, k.text.ptr, k.text.len);
	*len = k.text.len;
	return true;
}

/* -> 'k' for the first keys of the value at pos, checked against key text. */
static void
check_find(const MarshalDoc *doc, size_t pos)
{
	MarshalView view;
	MarshalViewIter it;
	MarshalEntry e;
	MarshalError err;
	bool		done;

	if (marshal_view(doc, pos, &view, &err) != MARSHAL_OK ||
		!MARSHAL_VIEW_IS_OBJECT(view.kind))
		return;
	marshal_view_iter(&view, &it);
	for (int i = 0; i < 8; i++)
	{
		char		key[64];
		size_t		keylen;
		size_t		want = 0;
		size_t		found = 0;
		MarshalViewIter all;
		MarshalEntry o;

		if (marshal_view_next(doc, &it, &e, &done, &err) != MARSHAL_OK || done)
			return;
		if (!entry_text(doc, &e, key, &keylen))
			continue;
		/* the last entry with this text */
		marshal_view_iter(&view, &all);
		for (;;)
		{
			char		other[64];
			size_t		otherlen;

			if (marshal_view_next(doc, &all, &o, &done, &err) != MARSHAL_OK || done)
				break;
			if (entry_text(doc, &o, other, &otherlen) && otherlen == keylen &&
				memcmp(other, key, keylen) == 0)
				want = o.value;
		}
		MarshalPathStep step = {key, keylen, 0};

		if (marshal_view_find(doc, &view, &step, NULL, &found, &err) == MARSHAL_OK &&
			found != want)
			die("-> finds another entry than its key text says", doc->buf, doc->len);
	}
}

static void
walk(const uint8_t *data, size_t size)
{
	MarshalDoc	doc;
	MarshalDoc	lazy;
	MarshalError err;
	MarshalJsonOptions opts;
	char	   *text = NULL;
	size_t		textlen = 0;
	MarshalNode n;

	memset(&opts, 0, sizeof(opts));
	opts.time_precision = (int) (size % 10);
	opts.max_depth = DEPTH;
	if (marshal_doc_open(&doc, data, size, NULL, DEPTH, &err) != MARSHAL_OK)
	{
		/* the one-pass text checks as it reads: it accepts no invalid stream */
		if (marshal_to_json_text(data, size, &opts, NULL, &text, &textlen, &err) == MARSHAL_OK)
			die("JSON text of a stream the reader refuses", data, size);
		return;
	}
	if (marshal_to_json_text(data, size, &opts, NULL, &text, &textlen, &err) == MARSHAL_OK)
	{
		char	   *walked = NULL;
		size_t		walkedlen = 0;
		MarshalError err2;

		/* the one-pass text is the indexed walk's, byte for byte */
		if (marshal_to_json_text_indexed(data, size, &opts, NULL, &walked, &walkedlen,
										 &err2) != MARSHAL_OK ||
			walkedlen != textlen || memcmp(walked, text, textlen) != 0)
			die("one-pass JSON text differs from the indexed walk's", data, size);
		free(walked);
		free(text);
	}
	/* jsonb's text in one pass (the json cast): OK or gives up, nothing else */
	if (marshal_to_jsonb_text(data, size, &opts, NULL, &text, &textlen))
		free(text);
	text = NULL;
	if (marshal_inspect(&doc, NULL, DEPTH, 1 << 20, &text, &textlen, &err) == MARSHAL_OK)
		free(text);

	marshal_doc_lazy(&lazy, data, size, NULL, DEPTH);
	reencode_at(&doc, MARSHAL_ROOT);
	reencode_lazy(&doc, &lazy, MARSHAL_ROOT);
	json_lazy(&doc, &lazy, MARSHAL_ROOT);
	check_find(&doc, MARSHAL_ROOT);
	check_find(&lazy, MARSHAL_ROOT);
	/* the elements of a top-level Array, as -> 0, -> 1 ... extract them */
	if (marshal_node(&doc, MARSHAL_ROOT, &n, &err) == MARSHAL_OK && n.type == MT_ARRAY)
	{
		size_t		p = n.items;

		for (uint32_t i = 0; i < n.count && i < 8; i++)
		{
			reencode_at(&doc, p);
			reencode_lazy(&doc, &lazy, p);
			json_lazy(&doc, &lazy, p);
			check_find(&lazy, p);
			if (marshal_skip(&doc, p, &p, &err) != MARSHAL_OK)
				break;
		}
	}
	marshal_index_free(&lazy.index, NULL);
	marshal_index_free(&doc.index, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	MarshalError err;
	uint8_t    *out = NULL;
	size_t		outlen = 0;

	walk(data, size);
	if (marshal_from_literal((const char *) data, size, NULL, DEPTH, &out, &outlen,
							 &err) == MARSHAL_OK)
	{
		check_stream(out, outlen, "literal");
		walk(out, outlen);
		free(out);
	}
	return 0;
}
