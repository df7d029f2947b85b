/*
 * test_writer.c
 *		Unit tests of the re-encoder (marshal_reencode.c).
 */
#include "unit.h"

/*
 * Re-encoding the root gives a valid stream that re-encodes to itself
 * (MRI's own dump(load(x)) is a fixed point after one round).
 */
/*
 * Every object of the stream that marshal_reencode_small copies: the bytes
 * marshal_reencode writes for it, valid.
 */
static void
test_reencode_small(MarshalDoc *doc, const char *name)
{
	for (int64_t k = -1; k < (int64_t) doc->index.nobjects; k++)
	{
		size_t		pos = k < 0 ? MARSHAL_ROOT : doc->index.obj_pos[k];
		uint8_t		small[256];
		size_t		n;
		uint8_t    *out;
		size_t		len;
		MarshalError err;
		MarshalStatus st;

		if (!marshal_reencode_small(doc, pos, small, sizeof(small), &n))
			continue;
		st = marshal_reencode(doc, pos, NULL, &out, &len, &err);
		check(st == MARSHAL_OK && len == n && memcmp(out, small, n) == 0,
			  "copied re-encoding differs", name);
		check(marshal_validate(small, n, NULL, 0, &err) == MARSHAL_OK,
			  "copied re-encoding does not validate", name);
		if (st == MARSHAL_OK)
			free(out);
	}
}

void
test_reencode(MarshalDoc *doc, const char *name)
{
	uint8_t    *once;
	uint8_t    *twice;
	size_t		n1;
	size_t		n2;
	MarshalError err;
	MarshalDoc	d2;

	test_reencode_small(doc, name);
	if (marshal_reencode(doc, MARSHAL_ROOT, NULL, &once, &n1, &err) != MARSHAL_OK)
	{
		check(0, err.detail, name);
		return;
	}
	if (marshal_doc_open(&d2, once, n1, NULL, 0, &err) != MARSHAL_OK)
	{
		check(0, "re-encoded stream is not valid", name);
		free(once);
		return;
	}
	check(marshal_reencode(&d2, MARSHAL_ROOT, NULL, &twice, &n2, &err) == MARSHAL_OK &&
		  n2 == n1 && memcmp(once, twice, n1) == 0,
		  "re-encoding is not a fixed point", name);
	marshal_index_free(&d2.index, NULL);
	free(twice);
	twice = NULL;

	/* a lazy document (indexed only as links ask) re-encodes the same */
	{
		MarshalDoc	lazy;

		marshal_doc_lazy(&lazy, doc->buf, doc->len, NULL, 0);
		check(marshal_reencode(&lazy, MARSHAL_ROOT, NULL, &twice, &n2, &err) == MARSHAL_OK &&
			  n2 == n1 && memcmp(once, twice, n1) == 0,
			  "lazy re-encoding differs", name);
		marshal_index_free(&lazy.index, NULL);
	}
	free(once);
	free(twice);
}
