/*
 * rbmarshal_jsonb.c
 *		rbmarshal -> jsonb: the codec's JSON view fed into jsonb's own builder.
 *
 * The codec walks the value and calls this sink, which assembles the
 * JsonbValue tree with pushJsonbValue (numbers as numeric, strings in the
 * server encoding) exactly as hstore_to_jsonb does; JsonbValueToJsonb then
 * serialises it.  All intermediate memory lives in a private context.
 */
#include "rbmarshal.h"

#include "catalog/namespace.h"
#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(rbmarshal_jsonb);
PG_FUNCTION_INFO_V1(rbmarshal_to_jsonb);

typedef struct JsonbSink
{
	JsonbParseState *state;
	JsonbValue *result;			/* the finished root */
} JsonbSink;

/* Push a scalar where it belongs: array element, object value or root. */
static void
push_scalar(JsonbSink *s, JsonbValue *v)
{
	if (s->state == NULL)
	{
		/* a scalar root; JsonbValueToJsonb wraps it itself */
		s->result = palloc(sizeof(JsonbValue));
		*s->result = *v;
	}
	else if (s->state->contVal.type == jbvArray)
		(void) pushJsonbValue(&s->state, WJB_ELEM, v);
	else
		(void) pushJsonbValue(&s->state, WJB_VALUE, v);
}

static void
sink_begin_object(void *ctx)
{
	JsonbSink  *s = ctx;

	(void) pushJsonbValue(&s->state, WJB_BEGIN_OBJECT, NULL);
}

static void
sink_begin_array(void *ctx)
{
	JsonbSink  *s = ctx;

	(void) pushJsonbValue(&s->state, WJB_BEGIN_ARRAY, NULL);
}

static void
sink_end(JsonbSink *s, JsonbIteratorToken tok)
{
	JsonbValue *v = pushJsonbValue(&s->state, tok, NULL);

	if (s->state == NULL)
		s->result = v;
}

static void
sink_end_object(void *ctx)
{
	sink_end(ctx, WJB_END_OBJECT);
}

static void
sink_end_array(void *ctx)
{
	sink_end(ctx, WJB_END_ARRAY);
}

/* The database encoding never changes in a session: ask once. */
static bool
server_is_utf8(void)
{
	static int	utf8 = -1;

	if (utf8 < 0)
		utf8 = GetDatabaseEncoding() == PG_UTF8;
	return utf8 == 1;
}

/* UTF-8 text as a jbvString in the server encoding, copied unless stable. */
static void
make_string(JsonbValue *v, const char *s, size_t len, bool stable)
{
	char	   *conv;

	if (len > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("string too long to represent as jsonb string"),
				 errdetail("Due to an implementation restriction, jsonb strings cannot exceed %d bytes.",
						   JENTRY_OFFLENMASK)));
	/* the codec has checked the UTF-8 already: a UTF-8 database takes it as is */
	if (server_is_utf8())
		conv = (char *) s;
	else
		conv = pg_any_to_server(s, (int) len, PG_UTF8);
	if (conv != s)
		len = strlen(conv);		/* converted: a new NUL-free string */
	else if (!stable)
		conv = pnstrdup(s, len);
	v->type = jbvString;
	v->val.string.val = conv;
	v->val.string.len = (int) len;
}

static void
sink_key(void *ctx, const char *str, size_t len, bool stable)
{
	JsonbSink  *s = ctx;
	JsonbValue	v;

	make_string(&v, str, len, stable);
	(void) pushJsonbValue(&s->state, WJB_KEY, &v);
}

static void
sink_string(void *ctx, const char *str, size_t len, bool stable)
{
	JsonbValue	v;

	make_string(&v, str, len, stable);
	push_scalar(ctx, &v);
}

static void
sink_null(void *ctx)
{
	JsonbValue	v;

	v.type = jbvNull;
	push_scalar(ctx, &v);
}

static void
sink_boolean(void *ctx, bool value)
{
	JsonbValue	v;

	v.type = jbvBool;
	v.val.boolean = value;
	push_scalar(ctx, &v);
}

static void
sink_integer(void *ctx, int64_t value)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(value);
	push_scalar(ctx, &v);
}

/* Decimal text (bignums, Float#to_s) through numeric_in, as jsonb_in does. */
static void
sink_number(void *ctx, const char *text, size_t len)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(pnstrdup(text, len)),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1)));
	push_scalar(ctx, &v);
}

/* Ruby's names for encodings PostgreSQL spells differently. */
static int
ruby_encoding_to_pg(const char *name)
{
	static const struct
	{
		const char *ruby;
		int			pg;
	}			map[] = {
		{"Windows-31J", PG_SJIS},
		{"CP932", PG_SJIS},
		{"SJIS", PG_SJIS},
		{"MacJapanese", PG_SJIS},
		{"CP51932", PG_EUC_JP},
		{"eucJP-ms", PG_EUC_JP},
		{"EUC-JIS-2004", PG_EUC_JIS_2004},
		{"IBM866", PG_WIN866},
		{"CP866", PG_WIN866},
		{"CP949", PG_UHC},
		{"CP936", PG_GBK},
		{"GB2312", PG_EUC_CN},
		{"ISO-8859-9", PG_LATIN5},
		{"ISO-8859-10", PG_LATIN6},
		{"ISO-8859-13", PG_LATIN7},
		{"ISO-8859-14", PG_LATIN8},
		{"ISO-8859-15", PG_LATIN9},
		{"ISO-8859-16", PG_LATIN10},
	};

	for (size_t i = 0; i < lengthof(map); i++)
		if (pg_strcasecmp(name, map[i].ruby) == 0)
			return map[i].pg;
	/* PostgreSQL's own aliases cover Shift_JIS, EUC-JP, ISO-8859-1, ... */
	return pg_char_to_encoding(name);
}

/* UTF-16 and UTF-32, which PostgreSQL has no encodings for. */
static bool
decode_utf16_32(const char *name, const uint8_t *s, size_t len,
				char **out, size_t *outlen)
{
	int			width;
	bool		big;
	StringInfoData buf;

	if (pg_strcasecmp(name, "UTF-16LE") == 0)
		width = 2, big = false;
	else if (pg_strcasecmp(name, "UTF-16BE") == 0)
		width = 2, big = true;
	else if (pg_strcasecmp(name, "UTF-32LE") == 0)
		width = 4, big = false;
	else if (pg_strcasecmp(name, "UTF-32BE") == 0)
		width = 4, big = true;
	else
		return false;
	if (len % width != 0)
		return false;
	initStringInfo(&buf);
	for (size_t i = 0; i < len; i += width)
	{
		uint32		cp = 0;
		unsigned char utf8[8];

		for (int k = 0; k < width; k++)
			cp |= (uint32) s[i + (big ? width - 1 - k : k)] << (8 * k);
		if (width == 2 && cp >= 0xD800 && cp <= 0xDBFF)
		{
			uint32		lo = 0;

			if (i + 3 >= len)
				return false;
			for (int k = 0; k < 2; k++)
				lo |= (uint32) s[i + 2 + (big ? 1 - k : k)] << (8 * k);
			if (lo < 0xDC00 || lo > 0xDFFF)
				return false;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			i += 2;
		}
		else if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return false;
		unicode_to_utf8((pg_wchar) cp, utf8);
		appendBinaryStringInfo(&buf, (char *) utf8, pg_utf_mblen(utf8));
	}
	*out = buf.data;
	*outlen = buf.len;
	return true;
}

/*
 * PostgreSQL's SJIS and EUC_JP tables follow Microsoft's CP932, where Ruby's
 * Shift_JIS and EUC-JP follow JIS X 0208: seven characters differ (checked
 * over every double-byte code).  Ruby's mapping, by source bytes.
 */
static const struct
{
	uint16		sjis;
	uint16		eucjp;
	const char *utf8;
}			jis_differences[] = {
	{0x815C, 0xA1BD, "\xE2\x80\x94"},	/* U+2014 EM DASH */
	{0x8160, 0xA1C1, "\xE3\x80\x9C"},	/* U+301C WAVE DASH */
	{0x8161, 0xA1C2, "\xE2\x80\x96"},	/* U+2016 DOUBLE VERTICAL LINE */
	{0x817C, 0xA1DD, "\xE2\x88\x92"},	/* U+2212 MINUS SIGN */
	{0x8191, 0xA1F1, "\xC2\xA2"},	/* U+00A2 CENT SIGN */
	{0x8192, 0xA1F2, "\xC2\xA3"},	/* U+00A3 POUND SIGN */
	{0x81CA, 0xA2CC, "\xC2\xAC"},	/* U+00AC NOT SIGN */
};

static bool
convert_run(Oid proc, int enc, const uint8_t *s, size_t len, StringInfo out)
{
	unsigned char *dest;
	int			converted;

	if (len == 0)
		return true;
	dest = palloc(len * MAX_CONVERSION_GROWTH + 1);
	converted = pg_do_encoding_conversion_buf(proc, enc, PG_UTF8,
											  (unsigned char *) s, (int) len,
											  dest, (int) (len * MAX_CONVERSION_GROWTH + 1),
											  true);
	if (converted != (int) len)
		return false;
	appendStringInfoString(out, (char *) dest);
	pfree(dest);
	return true;
}

/* Convert with PostgreSQL, swapping in Ruby's mapping where JIS asks. */
static bool
convert_text(Oid proc, int enc, bool jis, const uint8_t *s, size_t len,
			 StringInfo out)
{
	size_t		run = 0;
	size_t		i = 0;

	while (jis && i < len)
	{
		int			n = pg_encoding_mblen(enc, (const char *) s + i);
		const char *ruby = NULL;

		if (n == 2 && i + 2 <= len)
		{
			uint16		code = (uint16) (s[i] << 8 | s[i + 1]);

			for (size_t k = 0; k < lengthof(jis_differences); k++)
				if (code == (enc == PG_SJIS ? jis_differences[k].sjis : jis_differences[k].eucjp))
					ruby = jis_differences[k].utf8;
		}
		if (ruby)
		{
			if (!convert_run(proc, enc, s + run, i - run, out))
				return false;
			appendStringInfoString(out, ruby);
			run = i + 2;
		}
		i += n;
	}
	return convert_run(proc, enc, s + run, len - run, out);
}

/*
 * A string in a named Ruby encoding to UTF-8 with PostgreSQL's conversion
 * procedures; false (so the codec applies the binary policy) when the
 * encoding is unknown here or the bytes are not valid in it.
 */
bool
rbmarshal_transcode(void *ctx, const char *encname, const uint8_t *s, size_t len,
					char **out, size_t *outlen)
{
	int			enc = ruby_encoding_to_pg(encname);
	Oid			proc;
	StringInfoData buf;

	if (enc < 0)
		return decode_utf16_32(encname, s, len, out, outlen);
	if (len > MaxAllocSize / MAX_CONVERSION_GROWTH - 1)
		return false;
	if (!pg_verify_mbstr(enc, (const char *) s, (int) len, true))
		return false;
	if (enc == PG_UTF8 || enc == PG_SQL_ASCII)
	{
		*out = (char *) s;
		*outlen = len;
		return true;
	}
	proc = FindDefaultConversionProc(enc, PG_UTF8);
	if (!OidIsValid(proc))
		return false;
	initStringInfo(&buf);
	if (!convert_text(proc, enc,
					  pg_strcasecmp(encname, "Shift_JIS") == 0 ||
					  pg_strcasecmp(encname, "EUC-JP") == 0 ||
					  pg_strcasecmp(encname, "eucJP") == 0,
					  s, len, &buf))
		return false;
	*out = buf.data;
	*outlen = buf.len;
	return true;
}

/*
 * A serialized column's JSON text as the value it parses to: checked with
 * the JSON parser first (false if invalid, so the codec decides), then
 * built by jsonb_in and pushed token by token where the value belongs.
 */
static void push_jsonb(JsonbSink *s, Jsonb *j);

static bool
sink_json(void *ctx, const char *str, size_t len)
{
	JsonbSink  *s = ctx;
	char	   *conv = pg_any_to_server(str, (int) len, PG_UTF8);
	JsonLexContext *lex;

	if (conv == str)
		conv = pnstrdup(str, len);
	lex = makeJsonLexContextCstringLen(conv, (int) strlen(conv),
									   GetDatabaseEncoding(), true);
	if (pg_parse_json(lex, &nullSemAction) != JSON_SUCCESS)
		return false;
	push_jsonb(s, DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(conv))));
	return true;
}

/* A serialized column's YAML text, when it loads as Psych would load it. */
static bool
sink_yaml(void *ctx, const char *str, size_t len)
{
	Jsonb	   *j = rbmarshal_yaml_to_jsonb(str, len);

	if (j == NULL)
		return false;
	push_jsonb(ctx, j);
	return true;
}

/* A jsonb value pushed token by token where the sink's value belongs. */
static void
push_jsonb(JsonbSink *s, Jsonb *j)
{
	if (JB_ROOT_IS_SCALAR(j))
	{
		JsonbValue	v;

		(void) JsonbExtractScalar(&j->root, &v);
		push_scalar(s, &v);
	}
	else
	{
		JsonbIterator *it = JsonbIteratorInit(&j->root);
		JsonbValue	v;
		JsonbIteratorToken tok;

		while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
		{
			if (tok == WJB_BEGIN_OBJECT || tok == WJB_BEGIN_ARRAY)
				(void) pushJsonbValue(&s->state, tok, NULL);
			else if (tok == WJB_END_OBJECT || tok == WJB_END_ARRAY)
				sink_end(s, tok);
			else
				(void) pushJsonbValue(&s->state, tok, &v);
		}
	}
}

static MarshalBinaryMode
binary_mode(text *t)
{
	char	   *s = text_to_cstring(t);

	if (strcmp(s, "base64") == 0)
		return MBIN_BASE64;
	if (strcmp(s, "error") == 0)
		return MBIN_ERROR;
	if (strcmp(s, "replace") == 0)
		return MBIN_REPLACE;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for binary: \"%s\"", s),
			 errhint("Use \"base64\", \"error\" or \"replace\".")));
	return MBIN_BASE64;			/* keep compiler quiet */
}

/*
 * The JSON view of the value at pos of an open document, as a JsonbValue
 * tree in the current memory context.
 */
JsonbValue *
rbmarshal_json_value(const MarshalDoc *doc, size_t pos, int time_precision,
					 MarshalBinaryMode binary)
{
	MarshalEntry e = {.value = pos};

	return rbmarshal_json_entry(doc, &e, time_precision, binary);
}

/* The same for a view entry: a record attribute's value comes out cast. */
JsonbValue *
rbmarshal_json_entry(const MarshalDoc *doc, const MarshalEntry *e,
					 int time_precision, MarshalBinaryMode binary)
{
	MarshalError err;
	MarshalJsonOptions opts;
	JsonbSink	s = {NULL, NULL};
	MarshalJsonSink sink = {
		&s, sink_begin_object, sink_end_object, sink_begin_array,
		sink_end_array, sink_key, sink_string, sink_null, sink_boolean,
		sink_integer, sink_number, rbmarshal_transcode, sink_json, sink_yaml
	};

	if (time_precision < 0 || time_precision > 9)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time_precision must be between 0 and 9")));
	memset(&opts, 0, sizeof(opts));
	opts.time_precision = time_precision;
	opts.binary = binary;
	opts.max_depth = (uint32_t) rbmarshal_max_depth;
	if (marshal_to_json_entry(doc, e, &sink, &opts, rbmarshal_hooks(), &err) != MARSHAL_OK)
		rbmarshal_report(&err, NULL, "jsonb");
	return s.result;
}

static Datum
marshal_jsonb(bytea *v, int time_precision, MarshalBinaryMode binary)
{
	MemoryContext work = NULL;
	MemoryContext old = NULL;
	MarshalDoc	doc;
	JsonbValue *root;
	Jsonb	   *result;

	/*
	 * The tree of a large value lives in a context of its own, freed once
	 * converted; a small one's few kilobytes go where jsonb_in's would,
	 * sparing a context per row.
	 */
	if (VARSIZE_ANY_EXHDR(v) > 2048)
	{
		work = AllocSetContextCreate(CurrentMemoryContext, "rbmarshal to jsonb",
									 ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(work);
	}
	rbmarshal_open_lazy(v, &doc);
	root = rbmarshal_json_value(&doc, 2, time_precision, binary);
	if (work)
		MemoryContextSwitchTo(old);
	result = JsonbValueToJsonb(root);
	if (work)
		MemoryContextDelete(work);
	else
		marshal_index_free(&doc.index, rbmarshal_hooks());
	return JsonbPGetDatum(result);
}

/* The rbmarshal -> jsonb cast: the defaults of rbmarshal_to_jsonb. */
Datum
rbmarshal_jsonb(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);

	return marshal_jsonb(v, 3, MBIN_BASE64);
}

/* rbmarshal_to_jsonb(value, time_precision, binary) */
Datum
rbmarshal_to_jsonb(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);

	return marshal_jsonb(v, PG_GETARG_INT32(1), binary_mode(PG_GETARG_TEXT_PP(2)));
}
