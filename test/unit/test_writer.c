/*
 * test_writer.c
 *		Unit tests of the re-encoder (marshal_reencode.c).
 */
#include "unit.h"

/*
 * Re-encoding the root gives a valid stream that re-encodes to itself
 * (MRI's own dump(load(x)) is a fixed point after one round).
 */
void
test_reencode(MarshalDoc *doc, const char *name)
{
	uint8_t    *once;
	uint8_t    *twice;
	size_t		n1;
	size_t		n2;
	MarshalError err;
	MarshalDoc	d2;

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
