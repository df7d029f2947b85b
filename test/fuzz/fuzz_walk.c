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
 *     point (same bytes).
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

	memset(&doc, 0, sizeof(doc));
	doc.buf = buf;
	doc.len = len;
	if (marshal_index(buf, len, NULL, DEPTH * 4, &doc.index, &err) != MARSHAL_OK)
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

static void
walk(const uint8_t *data, size_t size)
{
	MarshalDoc	doc;
	MarshalError err;
	MarshalJsonOptions opts;
	char	   *text = NULL;
	size_t		textlen = 0;
	MarshalNode n;

	memset(&doc, 0, sizeof(doc));
	doc.buf = data;
	doc.len = size;
	if (marshal_index(data, size, NULL, DEPTH, &doc.index, &err) != MARSHAL_OK)
		return;

	memset(&opts, 0, sizeof(opts));
	opts.time_precision = (int) (size % 10);
	opts.max_depth = DEPTH;
	if (marshal_to_json_text(data, size, &opts, NULL, &text, &textlen, &err) == MARSHAL_OK)
		free(text);
	text = NULL;
	if (marshal_inspect(&doc, NULL, DEPTH, 1 << 20, &text, &textlen, &err) == MARSHAL_OK)
		free(text);

	reencode_at(&doc, 2);
	/* the elements of a top-level Array, as -> 0, -> 1 ... extract them */
	if (marshal_node(&doc, 2, &n, &err) == MARSHAL_OK && n.type == MT_ARRAY)
	{
		size_t		p = n.items;

		for (uint32_t i = 0; i < n.count && i < 8; i++)
		{
			reencode_at(&doc, p);
			if (marshal_skip(&doc, p, &p, &err) != MARSHAL_OK)
				break;
		}
	}
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
