/*
 * rbmarshal_io.c
 *		Text and binary I/O of the rbmarshal type, and the bytea casts.
 *
 * Every path into the type validates the whole stream; the stored bytes are
 * exactly the input's, never re-encoded.
 */
#include "rbmarshal.h"

#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(rbmarshal_in);
PG_FUNCTION_INFO_V1(rbmarshal_out);
PG_FUNCTION_INFO_V1(rbmarshal_recv);
PG_FUNCTION_INFO_V1(rbmarshal_send);
PG_FUNCTION_INFO_V1(rbmarshal_from_bytea);
PG_FUNCTION_INFO_V1(rbmarshal_is_valid);
PG_FUNCTION_INFO_V1(rbmarshal_error);
PG_FUNCTION_INFO_V1(rbmarshal_inspect);

/* Report a hex/Base64 decoding failure (22P02). */
static void
report_text_error(MarshalTextStatus st, const char *form, size_t pos,
				  Node *escontext)
{
	const char *what;

	switch (st)
	{
		case MARSHAL_TEXT_BAD_DIGIT:
			what = "invalid %s digit at position %zu";
			break;
		case MARSHAL_TEXT_ODD_LENGTH:
			what = "incomplete %s data at position %zu";
			break;
		default:
			what = "misplaced %s padding at position %zu";
			break;
	}
	errsave(escontext,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s", "rbmarshal"),
			 errdetail_internal(what, form, pos)));
}

/*
 * A Ruby literal: the stream MRI's Marshal.dump(eval(literal)) writes,
 * nothing evaluated.
 */
static Datum
literal_in(const char *str, Node *escontext)
{
	MarshalError err;
	uint8_t    *bytes;
	size_t		len;
	bytea	   *result;

	if (marshal_from_literal(str, strlen(str), rbmarshal_hooks(),
							 (uint32_t) rbmarshal_max_depth, &bytes, &len,
							 &err) != MARSHAL_OK)
	{
		if (err.status == MARSHAL_ERR_SYNTAX)
			ereturn(escontext, (Datum) 0,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s", "rbmarshal"),
					 errdetail("At character %zu: %s.", err.offset + 1, err.detail),
					 errhint("Input is \"\\x\" and hex, Base64 of a Marshal stream, or a Ruby literal.")));
		rbmarshal_report(&err, escontext, "rbmarshal");
		return (Datum) 0;
	}
	/* the parser's depth is not the stream's (wrappers, ivars count too) */
	if (!rbmarshal_check((const char *) bytes, len, escontext))
		return (Datum) 0;
	result = rbmarshal_value(bytes, len);
	pfree(bytes);
	return PointerGetDatum(result);
}

/*
 * Text input: "\x" hex, Base64 of a stream (which always begins "BA", the
 * encoding of 04 08 ..), or a Ruby literal.
 */
Datum
rbmarshal_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Node	   *escontext = fcinfo->context;
	const char *p = str;
	size_t		len;
	bool		hex;
	bytea	   *result;
	size_t		outlen;
	size_t		errpos;
	MarshalTextStatus st;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	len = strlen(p);
	if (len >= 2 && p[0] == '\\' && p[1] == 'x')
	{
		hex = true;
		p += 2;
		len -= 2;
	}
	else if (len >= 2 && p[0] == 'B' && p[1] == 'A')
		hex = false;
	else
		return literal_in(str, escontext);

	result = palloc(VARHDRSZ + (hex ? marshal_hex_decoded_max(len)
								: marshal_base64_decoded_max(len)));
	st = hex ? marshal_hex_decode(p, len, (uint8_t *) VARDATA(result), &outlen, &errpos)
		: marshal_base64_decode(p, len, (uint8_t *) VARDATA(result), &outlen, &errpos);
	if (st != MARSHAL_TEXT_OK)
	{
		/* positions count from the start of the whole input */
		report_text_error(st, hex ? "hexadecimal" : "Base64",
						  errpos + (size_t) (p - str), escontext);
		PG_RETURN_NULL();
	}
	SET_VARSIZE(result, VARHDRSZ + outlen);
	if (!rbmarshal_check(VARDATA(result), outlen, escontext))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(result);
}

/* Text output: "\x" and lowercase hex, lossless like bytea's. */
Datum
rbmarshal_out(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	char	   *out = palloc(2 * len + 3);

	out[0] = '\\';
	out[1] = 'x';
	marshal_hex_encode((const uint8_t *) VARDATA_ANY(v), len, out + 2);
	out[2 * len + 2] = '\0';
	PG_RETURN_CSTRING(out);
}

/* Binary input: the raw stream, validated like text input. */
Datum
rbmarshal_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			n = buf->len - buf->cursor;
	bytea	   *result = palloc(VARHDRSZ + n);

	SET_VARSIZE(result, VARHDRSZ + n);
	pq_copymsgbytes(buf, VARDATA(result), n);
	rbmarshal_check(VARDATA(result), n, NULL);
	PG_RETURN_BYTEA_P(result);
}

/* Binary output: the raw stream, so binary clients can Marshal.load it. */
Datum
rbmarshal_send(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* bytea -> rbmarshal: the same bytes, once they are known to be valid. */
Datum
rbmarshal_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	rbmarshal_check(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), NULL);
	PG_RETURN_BYTEA_P(b);
}

/* For migrations: would this bytea convert? */
Datum
rbmarshal_is_valid(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	MarshalError err;
	MarshalStatus st;

	st = marshal_validate((const uint8_t *) VARDATA_ANY(b),
						  VARSIZE_ANY_EXHDR(b), rbmarshal_hooks(),
						  (uint32_t) rbmarshal_max_depth, &err);
	PG_FREE_IF_COPY(b, 0);
	PG_RETURN_BOOL(st == MARSHAL_OK);
}

/* For migrations: why would it not?  NULL when it is valid. */
Datum
rbmarshal_error(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	MarshalError err;

	if (marshal_validate((const uint8_t *) VARDATA_ANY(b),
						 VARSIZE_ANY_EXHDR(b), rbmarshal_hooks(),
						 (uint32_t) rbmarshal_max_depth, &err) == MARSHAL_OK)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(rbmarshal_error_text(&err)));
}

/* Ruby's inspect of the value (Ruby 4.0's, objects without addresses). */
Datum
rbmarshal_inspect(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	MarshalError err;
	char	   *out;
	size_t		len;
	char	   *conv;

	rbmarshal_open_lazy(v, &doc);
	if (marshal_inspect(&doc, rbmarshal_hooks(), (uint32_t) rbmarshal_max_depth,
						0, &out, &len, &err) != MARSHAL_OK)
		rbmarshal_report(&err, NULL, "text");
	conv = pg_any_to_server(out, (int) len, PG_UTF8);
	PG_RETURN_TEXT_P(conv == out ? cstring_to_text_with_len(out, (int) len)
					 : cstring_to_text(conv));
}
