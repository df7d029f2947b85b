/*
 * rbmarshal_to_jsonb.c
 *		rbmarshal -> jsonb: the codec's JSON view fed into jsonb's own builder.
 *
 * The codec walks the value and calls this sink, which assembles the
 * JsonbValue tree with pushJsonbValue (numbers as numeric, strings in the
 * server encoding) exactly as hstore_to_jsonb does; JsonbValueToJsonb then
 * serialises it.  All intermediate memory lives in a private context.
 */
#include "rbmarshal.h"

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(rbmarshal_jsonb);
PG_FUNCTION_INFO_V1(rbmarshal_to_jsonb);
PG_FUNCTION_INFO_V1(rbmarshal_json);

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

/*
 * A serialized column's JSON text as the value it parses to: checked with
 * the JSON parser first (false if invalid, so the codec decides), then
 * built by jsonb_in and pushed token by token where the value belongs.
 */
static void push_jsonb(JsonbSink *s, Jsonb *j);

static bool
sink_json(void *ctx, const char *str, size_t len, bool hash_only)
{
	JsonbSink  *s = ctx;
	char	   *conv = pg_any_to_server(str, (int) len, PG_UTF8);
	JsonLexContext *lex;
	Jsonb	   *j;

	if (conv == str)
		conv = pnstrdup(str, len);
	lex = makeJsonLexContextCstringLen(conv, (int) strlen(conv),
									   GetDatabaseEncoding(), true);
	if (pg_parse_json(lex, &nullSemAction) != JSON_SUCCESS)
		return false;
	j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(conv)));
	if (hash_only && !JB_ROOT_IS_OBJECT(j))
		j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	push_jsonb(s, j);
	return true;
}

/* A serialized column's YAML text, when it loads as YAMLColumn would load it. */
static bool
sink_yaml(void *ctx, const MarshalYamlColumn *col)
{
	Jsonb	   *j = rbmarshal_yaml_to_jsonb(col);

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
	static const MarshalTranscoder transcoder = {rbmarshal_transcode, NULL};
	MarshalJsonSink sink = {
		&s, sink_begin_object, sink_end_object, sink_begin_array,
		sink_end_array, sink_key, sink_string, sink_null, sink_boolean,
		sink_integer, sink_number, &transcoder, sink_json, sink_yaml
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

/* The JSON view as a JsonbValue tree by the one-pass emitter, or NULL. */
static JsonbValue *
json_value_fast(bytea *v, int time_precision, MarshalBinaryMode binary)
{
	MarshalJsonOptions opts;
	JsonbSink	s = {NULL, NULL};
	MarshalJsonSink sink = {
		&s, sink_begin_object, sink_end_object, sink_begin_array,
		sink_end_array, sink_key, sink_string, sink_null, sink_boolean,
		sink_integer, sink_number, NULL, NULL, NULL
	};

	if (time_precision < 0 || time_precision > 9)
		return NULL;			/* the walk's error */
	memset(&opts, 0, sizeof(opts));
	opts.time_precision = time_precision;
	opts.binary = binary;
	opts.max_depth = (uint32_t) rbmarshal_max_depth;
	if (!marshal_to_json_fast((const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
							  &opts, &sink, rbmarshal_hooks()))
		return NULL;
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
	 * Written in jsonb's binary format straight from the one-pass emitter
	 * where it reads the value and the text is UTF-8 already.
	 */
	if (time_precision >= 0 && time_precision <= 9 && server_is_utf8())
	{
		MarshalJsonOptions opts;

		memset(&opts, 0, sizeof(opts));
		opts.time_precision = time_precision;
		opts.binary = binary;
		opts.max_depth = (uint32_t) rbmarshal_max_depth;
		result = rbmarshal_jsonb_binary(v, &opts);
		if (result)
			return JsonbPGetDatum(result);
	}

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
	/*
	 * In one pass without an index where the codec can; else (having
	 * pushed a part, left to the context) by the indexed walk.
	 */
	memset(&doc, 0, sizeof(doc));
	root = json_value_fast(v, time_precision, binary);
	if (root == NULL)
	{
		rbmarshal_open_lazy(v, &doc);
		root = rbmarshal_json_value(&doc, MARSHAL_ROOT, time_precision, binary);
	}
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

	return marshal_jsonb(v, MARSHAL_DEFAULT_TIME_PRECISION, MARSHAL_DEFAULT_BINARY);
}

/* rbmarshal_to_jsonb(value, time_precision, binary) */
Datum
rbmarshal_to_jsonb(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);

	return marshal_jsonb(v, PG_GETARG_INT32(1), binary_mode(PG_GETARG_TEXT_PP(2)));
}

/*
 * The rbmarshal -> json cast: the jsonb view's text, as jsonb's own cast
 * to json gives it.  In C, so that nothing resolves through the caller's
 * search_path (a generated column using it must restore from pg_dump).
 */
Datum
rbmarshal_json(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalJsonOptions opts = MARSHAL_JSON_DEFAULTS;
	char	   *out;
	size_t		len;
	Jsonb	   *j;

	/*
	 * Written in one pass where the codec can (the same text, checked in
	 * sql/json_text.sql), else the jsonb and its text.  UTF-8 databases
	 * only: the text is UTF-8.
	 */
	opts.max_depth = (uint32_t) rbmarshal_max_depth;
	if (server_is_utf8() &&
		marshal_to_jsonb_text((const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
							  &opts, rbmarshal_hooks(), &out, &len))
	{
		text	   *t = cstring_to_text_with_len(out, (int) len);

		pfree(out);
		PG_RETURN_TEXT_P(t);
	}
	j = DatumGetJsonbP(marshal_jsonb(v, MARSHAL_DEFAULT_TIME_PRECISION,
									 MARSHAL_DEFAULT_BINARY));
	PG_RETURN_TEXT_P(cstring_to_text(JsonbToCString(NULL, &j->root, VARSIZE(j))));
}
