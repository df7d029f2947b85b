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
#include "miscadmin.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(rbmarshal_in);
PG_FUNCTION_INFO_V1(rbmarshal_out);
PG_FUNCTION_INFO_V1(rbmarshal_recv);
PG_FUNCTION_INFO_V1(rbmarshal_send);
PG_FUNCTION_INFO_V1(rbmarshal_from_bytea);
PG_FUNCTION_INFO_V1(rbmarshal_is_valid);
PG_FUNCTION_INFO_V1(rbmarshal_error);
PG_FUNCTION_INFO_V1(rbmarshal_from_text);
PG_FUNCTION_INFO_V1(rbmarshal_text_is_valid);
PG_FUNCTION_INFO_V1(rbmarshal_text_error);
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

/* The forms text input can take; rbmarshal_from_text names them. */
#define FORM_HEX		0x1
#define FORM_BASE64		0x2
#define FORM_LITERAL	0x4
#define FORM_ANY		(FORM_HEX | FORM_BASE64 | FORM_LITERAL)

/* "neither ... nor ...": the forms that were tried, for error messages. */
static const char *
forms_text(int forms)
{
	switch (forms)
	{
		case FORM_ANY:
			return "neither \"\\x\" and hex, Base64 of a Marshal stream nor a Ruby literal";
		case FORM_HEX | FORM_BASE64:
			return "neither \"\\x\" and hex nor Base64 of a Marshal stream";
		case FORM_HEX:
			return "not \"\\x\" and hex";
		case FORM_BASE64:
			return "not Base64 of a Marshal stream";
		default:
			return "not a Ruby literal";
	}
}

/*
 * A Ruby literal: the stream MRI's Marshal.dump(eval(literal)) writes,
 * nothing evaluated.
 */
static bytea *
literal_in(const char *str, int forms, Node *escontext)
{
	MarshalError err;
	uint8_t    *bytes;
	size_t		len;
	bytea	   *result;

	/* Ruby source is UTF-8: a LATIN1 database's "é" is one byte, not two */
	str = pg_server_to_any(str, strlen(str), PG_UTF8);
	if (marshal_from_literal(str, strlen(str), rbmarshal_hooks(),
							 (uint32_t) rbmarshal_max_depth, &bytes, &len,
							 &err) != MARSHAL_OK)
	{
		if (err.status == MARSHAL_ERR_SYNTAX)
			ereturn(escontext, NULL,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s: %s", "rbmarshal",
							forms_text(forms)),
					 errdetail("As a Ruby literal, at character %zu: %s.",
							   err.offset + 1, err.detail)));
		rbmarshal_report(&err, escontext, "rbmarshal");
		return NULL;
	}
	/* the parser's depth is not the stream's (wrappers, ivars count too) */
	if (!rbmarshal_check((const char *) bytes, len, escontext))
		return NULL;
	result = rbmarshal_value(bytes, len);
	pfree(bytes);
	return result;
}

/*
 * Text in one of forms: "\x" hex, Base64 of a stream (which always begins
 * "BA", the encoding of 04 08 ..), or a Ruby literal.  NULL after a soft
 * error.
 */
static bytea *
text_in(const char *str, int forms, Node *escontext)
{
	const char *p = str;
	size_t		len;
	int			form;
	bytea	   *result;
	size_t		outlen;
	size_t		errpos;
	MarshalTextStatus st;

	if (forms == FORM_LITERAL)
		return literal_in(str, forms, escontext);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	len = strlen(p);
	if (len >= 2 && p[0] == '\\' && p[1] == 'x')
	{
		form = FORM_HEX;
		p += 2;
		len -= 2;
	}
	else if (len >= 2 && p[0] == 'B' && p[1] == 'A')
		form = FORM_BASE64;
	else
		form = FORM_LITERAL;
	if (form == FORM_LITERAL && (forms & FORM_LITERAL))
		return literal_in(str, forms, escontext);
	if ((forms & form) == 0)
		ereturn(escontext, NULL,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: %s", "rbmarshal",
						forms_text(forms)),
				 (forms & FORM_LITERAL) == 0 ?
				 errhint("Ruby literals are read only when asked for: rbmarshal_from_text(value, 'literal').") : 0));

	result = palloc(VARHDRSZ + (form == FORM_HEX ? marshal_hex_decoded_max(len)
								: marshal_base64_decoded_max(len)));
	/* a cancel is honoured every megabyte of a huge text */
	st = form == FORM_HEX ?
		marshal_hex_decode_checked(p, len, (uint8_t *) VARDATA(result), &outlen, &errpos,
								   rbmarshal_hooks()) :
		marshal_base64_decode_checked(p, len, (uint8_t *) VARDATA(result), &outlen, &errpos,
									  rbmarshal_hooks());
	if (st != MARSHAL_TEXT_OK)
	{
		/* positions count from the start of the whole input */
		report_text_error(st, form == FORM_HEX ? "hexadecimal" : "Base64",
						  errpos + (size_t) (p - str), escontext);
		return NULL;
	}
	SET_VARSIZE(result, VARHDRSZ + outlen);
	if (!rbmarshal_check(VARDATA(result), outlen, escontext))
		return NULL;
	return result;
}

/* Text input: any of the three forms. */
Datum
rbmarshal_in(PG_FUNCTION_ARGS)
{
	bytea	   *result = text_in(PG_GETARG_CSTRING(0), FORM_ANY,
								 RBMARSHAL_INPUT_CONTEXT(fcinfo));

	if (result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(result);
}

/*
 * rbmarshal_from_text(value, form): text in the one form named; 'auto' is
 * hex or Base64, the forms Marshal data is stored in, never a literal.
 */
Datum
rbmarshal_from_text(PG_FUNCTION_ARGS)
{
	char	   *str = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *form = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			forms;

	if (strcmp(form, "auto") == 0)
		forms = FORM_HEX | FORM_BASE64;
	else if (strcmp(form, "hex") == 0)
		forms = FORM_HEX;
	else if (strcmp(form, "base64") == 0)
		forms = FORM_BASE64;
	else if (strcmp(form, "literal") == 0)
		forms = FORM_LITERAL;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("form must be auto, hex, base64 or literal, not \"%s\"", form)));
	PG_RETURN_BYTEA_P(text_in(str, forms, NULL));
}

/* An input error's message and detail, in rbmarshal_error(bytea)'s form. */
static char *
error_data_text(ErrorData *e)
{
	size_t		offset;
	int			start = 0;

	if (e->detail == NULL || e->detail[0] == '\0')
		return pstrdup(e->message);
	/* a codec error reads as rbmarshal_error(bytea) gives it */
	if (sscanf(e->detail, "At byte offset %zu: %n", &offset, &start) == 1 && start > 0)
	{
		size_t		len = strlen(e->detail + start);

		if (len > 0 && e->detail[start + len - 1] == '.')
			len--;
		return psprintf("%s at byte offset %zu: %.*s", e->message, offset,
						(int) len, e->detail + start);
	}
	return psprintf("%s: %s", e->message, e->detail);
}

/*
 * Why the text input would refuse t, as "message: detail"; NULL if it
 * would not.  No subtransaction: safe in a parallel worker.
 */
static char *
text_input_error(text *t)
{
	ErrorSaveContext escontext = {T_ErrorSaveContext, false, true, NULL};
	ErrorData  *e;

	(void) text_in(text_to_cstring(t), FORM_ANY, (Node *) &escontext);
	if (!escontext.error_occurred)
		return NULL;
	e = escontext.error_data;
	return rbmarshal_with_hint(error_data_text(e), e->hint);
}

/* rbmarshal_is_valid(text): would the text convert? */
Datum
rbmarshal_text_is_valid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(text_input_error(PG_GETARG_TEXT_PP(0)) == NULL);
}

/* rbmarshal_error(text): why would it not?  NULL when it would. */
Datum
rbmarshal_text_error(PG_FUNCTION_ARGS)
{
	char	   *msg = text_input_error(PG_GETARG_TEXT_PP(0));

	if (msg == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(msg));
}

/* Text output: "\x" and lowercase hex, lossless like bytea's. */
#define HEX_CHUNK ((size_t) 1 << 20)

Datum
rbmarshal_out(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	char	   *out = palloc(2 * len + 3);

	out[0] = '\\';
	out[1] = 'x';
	/* a megabyte at a time, a cancel honoured between */
	for (size_t done = 0; done < len; done += HEX_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		marshal_hex_encode((const uint8_t *) VARDATA_ANY(v) + done, Min(len - done, HEX_CHUNK),
						   out + 2 + 2 * done);
	}
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
