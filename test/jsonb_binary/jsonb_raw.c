/*
 * jsonb_raw.c -- test helper for test/jsonb_binary/run.sh (not installed):
 * jsonb_raw(jsonb) returns the datum's bytes after its varlena header, as
 * a bytea, so two jsonb values can be compared byte for byte (jsonb's own
 * = compares values, and jsonb_send sends text).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(jsonb_raw);

Datum
jsonb_raw(PG_FUNCTION_ARGS)
{
	Jsonb	   *j = PG_GETARG_JSONB_P(0);
	size_t		len = VARSIZE(j) - VARHDRSZ;
	bytea	   *out = palloc(VARHDRSZ + len);

	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), VARDATA(j), len);
	PG_RETURN_BYTEA_P(out);
}
