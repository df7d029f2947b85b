/*
 * fuzz_walk.c
 *		libFuzzer target for the codec's walkers and writers: everything a
 *		stored value goes through after validation, and the literal parser.
 *
 * For an input that validates:
 *   - the JSON walker (marshal_to_json_text, the walk the jsonb cast makes,
 *     with a text sink) ends in OK or a clean error;
 *   - inspect ends in OK or a clean error;
 *   - re-encoding the root and every top-level element (the writer) gives
 *     a stream the reader accepts again, and re-encoding that is a fixed
 *     point (same bytes); a lazily indexed document (navigation's, which
 *     finds early symbols by skipping) gives the same bytes;
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
	if (marshal_reencode(&doc, 2, NULL, &out, outlen, &err) != MARSHAL_OK)
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

	if (marshal_reencode(doc, pos, NULL, &out, &outlen, &err) != MARSHAL_OK)
		return;					/* a clean refusal (limits) */
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
		if (marshal_view_find(doc, &view, key, keylen, 0, false, NULL, &found,
							  &err) == MARSHAL_OK && found != want)
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

	if (marshal_doc_open(&doc, data, size, NULL, DEPTH, &err) != MARSHAL_OK)
		return;

	memset(&opts, 0, sizeof(opts));
	opts.time_precision = (int) (size % 10);
	opts.max_depth = DEPTH;
	if (marshal_to_json_text(data, size, &opts, NULL, &text, &textlen, &err) == MARSHAL_OK)
		free(text);
	text = NULL;
	if (marshal_inspect(&doc, NULL, DEPTH, 1 << 20, &text, &textlen, &err) == MARSHAL_OK)
		free(text);

	marshal_doc_lazy(&lazy, data, size, NULL, DEPTH);
	reencode_at(&doc, 2);
	reencode_lazy(&doc, &lazy, 2);
	check_find(&doc, 2);
	check_find(&lazy, 2);
	/* the elements of a top-level Array, as -> 0, -> 1 ... extract them */
	if (marshal_node(&doc, 2, &n, &err) == MARSHAL_OK && n.type == MT_ARRAY)
	{
		size_t		p = n.items;

		for (uint32_t i = 0; i < n.count && i < 8; i++)
		{
			reencode_at(&doc, p);
			reencode_lazy(&doc, &lazy, p);
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
