/*
 * rbmarshal_from_jsonb.c
 *		jsonb -> rbmarshal: Marshal.dump(JSON.parse(j::text)), byte for byte.
 *
 * The jsonb is walked with its own iterator and written through the codec's
 * writer.  What Ruby's JSON parser would make of j::text decides the Ruby
 * types: numbers printed with a '.' are Floats, others Integers; strings are
 * UTF-8; object keys are interned Strings (or Symbols with symbolize_names).
 */
#include "rbmarshal.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(rbmarshal_from_jsonb);
PG_FUNCTION_INFO_V1(jsonb_to_rbmarshal);

/* jsonb text is in the server encoding; Ruby's JSON strings are UTF-8. */
static const uint8_t *
utf8_of(JsonbValue *v, size_t *len)
{
	char	   *s = pg_server_to_any(v->val.string.val, v->val.string.len, PG_UTF8);

	*len = s == v->val.string.val ? (size_t) v->val.string.len : strlen(s);
	return (const uint8_t *) s;
}

static void
write_scalar(MarshalWriter *w, JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			marshal_write_nil(w);
			break;
		case jbvBool:
			marshal_write_bool(w, v->val.boolean);
			break;
		case jbvString:
			{
				size_t		len;
				const uint8_t *s = utf8_of(v, &len);

				marshal_write_string(w, s, len, MENC_UTF8);
				break;
			}
		case jbvNumeric:
			{
				/* the text j::text shows is what JSON.parse would read */
				char	   *text = DatumGetCString(DirectFunctionCall1(numeric_out,
																	   NumericGetDatum(v->val.numeric)));

				if (strchr(text, '.') != NULL)
					marshal_write_float(w, strtod(text, NULL));
				else
					marshal_write_decimal(w, text, strlen(text));
				pfree(text);
				break;
			}
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
}

/* Write a jsonb document as one value of a stream being written. */
void
rbmarshal_write_jsonb(MarshalWriter *w, Jsonb *j, bool symbolize)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	uint64		n = 0;

	it = JsonbIteratorInit(&j->root);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		if ((++n & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		switch (tok)
		{
			case WJB_BEGIN_ARRAY:
				/* a scalar document is a one-element "raw scalar" array */
				if (!v.val.array.rawScalar)
					marshal_write_array(w, (uint32_t) v.val.array.nElems);
				break;
			case WJB_BEGIN_OBJECT:
				marshal_write_hash(w, (uint32_t) v.val.object.nPairs);
				break;
			case WJB_KEY:
				{
					size_t		klen;
					const uint8_t *k = utf8_of(&v, &klen);

					if (symbolize)
						marshal_write_symbol(w, k, klen);
					else
						marshal_write_key(w, k, klen);
					break;
				}
			case WJB_VALUE:
			case WJB_ELEM:
				write_scalar(w, &v);
				break;
			default:
				break;
		}
	}
}

/* A finished writer's stream as an rbmarshal datum. */
bytea *
rbmarshal_finish(MarshalWriter *w)
{
	uint8_t    *bytes;
	size_t		len;
	bytea	   *result;
	MarshalStatus st = marshal_writer_finish(w, &bytes, &len);

	if (st == MARSHAL_ERR_UNREPRESENTABLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("value cannot be written as Marshal data")));
	if (st != MARSHAL_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while writing Marshal data")));
	result = rbmarshal_written(bytes, len);
	pfree(bytes);
	return result;
}

static bytea *
jsonb_to_marshal(Jsonb *j, bool symbolize)
{
	MarshalWriter *w = marshal_writer_new(rbmarshal_hooks());

	rbmarshal_write_jsonb(w, j, symbolize);
	return rbmarshal_finish(w);
}

/* A scalar JsonbValue as a stream (navigation's made-up values). */
bytea *
rbmarshal_from_jsonb_value(JsonbValue *v)
{
	return jsonb_to_marshal(JsonbValueToJsonb(v), false);
}

/* The jsonb -> rbmarshal cast. */
Datum
rbmarshal_from_jsonb(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(jsonb_to_marshal(PG_GETARG_JSONB_P(0), false));
}

/* jsonb_to_rbmarshal(j, symbolize_names) */
Datum
jsonb_to_rbmarshal(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(jsonb_to_marshal(PG_GETARG_JSONB_P(0), PG_GETARG_BOOL(1)));
}
