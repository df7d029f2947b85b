/*
 * rbmarshal_nav.c
 *		Navigation: -> ->> #> #>> ? ?| ?&, and the functions of jsonb's shape.
 *
 * Every answer is the jsonb view's answer (v -> k behaves as v::jsonb -> k),
 * but found by walking the bytes to the target: the value is never
 * converted as a whole.  "->" gives the sub-value as a stream of its own,
 * as MRI's Marshal.dump(sub_value) writes it.
 */
#include "rbmarshal.h"
#include "marshal_to_s.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(rbmarshal_object_field);
PG_FUNCTION_INFO_V1(rbmarshal_object_field_text);
PG_FUNCTION_INFO_V1(rbmarshal_array_element);
PG_FUNCTION_INFO_V1(rbmarshal_array_element_text);
PG_FUNCTION_INFO_V1(rbmarshal_extract_path);
PG_FUNCTION_INFO_V1(rbmarshal_extract_path_text);
PG_FUNCTION_INFO_V1(rbmarshal_exists);
PG_FUNCTION_INFO_V1(rbmarshal_exists_any);
PG_FUNCTION_INFO_V1(rbmarshal_exists_all);
PG_FUNCTION_INFO_V1(rbmarshal_typeof);
PG_FUNCTION_INFO_V1(rbmarshal_class);
PG_FUNCTION_INFO_V1(rbmarshal_keys);
PG_FUNCTION_INFO_V1(rbmarshal_each);
PG_FUNCTION_INFO_V1(rbmarshal_each_text);
PG_FUNCTION_INFO_V1(rbmarshal_array_elements);
PG_FUNCTION_INFO_V1(rbmarshal_array_elements_text);
PG_FUNCTION_INFO_V1(rbmarshal_array_length);

/* A SQL key (server encoding) as the UTF-8 the stream's keys are in. */
static const char *
key_utf8(text *t, size_t *len)
{
	char	   *s = VARDATA_ANY(t);
	int			n = VARSIZE_ANY_EXHDR(t);
	char	   *u = pg_server_to_any(s, n, PG_UTF8);

	*len = u == s ? (size_t) n : strlen(u);
	return u;
}

/* An SQL function that passes its arguments on: call. */
#define ENTRY_POINT(name, call) \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return call; \
}

/* Keys in other Ruby encodings compare as the text they convert to. */
static const MarshalTranscoder transcoder = {rbmarshal_transcode, NULL};

/* The JSON view of the value at pos, with as_json's defaults. */
static JsonbValue *
json_at(const MarshalDoc *doc, size_t pos)
{
	return rbmarshal_json_value(doc, pos, MARSHAL_DEFAULT_TIME_PRECISION,
								MARSHAL_DEFAULT_BINARY);
}

/* A path element that names an array position by its digits. */
static bool
path_index(const char *key, size_t keylen, int64 *index)
{
	char	   *end;
	char		buf[32];

	if (keylen == 0 || keylen >= sizeof(buf))
		return false;
	memcpy(buf, key, keylen);
	buf[keylen] = '\0';
	errno = 0;
	*index = strtol(buf, &end, 10);
	return *end == '\0' && errno == 0;
}

/*
 * One step of a path from the value at *pos (whose view is given): a key,
 * or (text that parses as an integer, on arrays) an index, as jsonb's #>
 * takes them.  False if the step leads nowhere.
 */
static bool
step(MarshalDoc *doc, const MarshalView *view, size_t *pos, const char *key,
	 size_t keylen, bool by_index, int64 index)
{
	MarshalError err;
	size_t		found;

	if (!by_index && (view->kind == MV_ARRAY || view->kind == MV_SET))
	{
		if (!path_index(key, keylen, &index))
			return false;
		by_index = true;
	}
	rbmarshal_check_status(marshal_view_find(doc, view,
											 &(MarshalPathStep) {by_index ? NULL : key, keylen, index},
											 &transcoder, &found, &err), &err);
	if (!found)
		return false;
	*pos = found;
	return true;
}

/*
 * The objects the JSON view makes up ({"$binary": ..}, {"$class": ..,
 * "$dump": ..}) have no bytes of their own to walk: look the key up in
 * the made-up object.  NULL if it is not there.
 */
static JsonbValue *
jbv_field(JsonbValue *obj, const char *key, size_t keylen)
{
	JsonbValue *found = NULL;

	for (int i = 0; i < obj->val.object.nPairs; i++)
	{
		JsonbValue *k = &obj->val.object.pairs[i].key;

		if ((size_t) k->val.string.len == keylen &&
			memcmp(k->val.string.val, key, keylen) == 0)
			found = &obj->val.object.pairs[i].value;
	}
	return found;
}

/*
 * One step into a JSON value the view made up (a made-up object, or a
 * record attribute's cast value): a key of an object, or an index (its
 * digits, when the step is a path element) of an array.  NULL if none.
 */
static JsonbValue *
jbv_step(JsonbValue *v, const char *key, size_t keylen, bool by_index,
		 int64 index)
{
	if (v->type == jbvObject && !by_index)
		return jbv_field(v, key, keylen);
	if (v->type == jbvArray && !v->val.array.rawScalar)
	{
		int			n = v->val.array.nElems;

		if (!by_index && !path_index(key, keylen, &index))
			return NULL;
		if (index < 0)
			index += n;
		if (index < 0 || index >= n)
			return NULL;
		return &v->val.array.elems[index];
	}
	return NULL;
}

/*
 * A JSON value as ->> gives it: a string's text, NULL for null, numbers,
 * booleans and containers as jsonb prints them.
 */
static text *
jbv_text(JsonbValue *v)
{
	Jsonb	   *j;

	if (v->type == jbvString)
		return cstring_to_text_with_len(v->val.string.val, v->val.string.len);
	if (v->type == jbvNull)
		return NULL;
	j = JsonbValueToJsonb(v);
	return cstring_to_text(JsonbToCString(NULL, &j->root, VARSIZE(j)));
}

/*
 * A record attribute whose value the view casts (see marshal_activerecord.c)
 * has no bytes of its own: its JSON.  NULL when the value is used as it
 * is (then its bytes are the answer).
 */
static JsonbValue *
cast_value(MarshalDoc *doc, const MarshalEntry *e)
{
	MarshalCast c;
	MarshalError err;

	if (e->value == 0 || e->cast == MARSHAL_CAST_NONE)
		return NULL;
	rbmarshal_check_status(marshal_record_cast(doc, e, &c, &err), &err);
	if (c.kind == MCAST_RAW)
		return NULL;
	return rbmarshal_json_entry(doc, e, MARSHAL_DEFAULT_TIME_PRECISION,
								MARSHAL_DEFAULT_BINARY);
}

/* The attribute under key of a record view: cast_value's answer. */
static JsonbValue *
cast_field(MarshalDoc *doc, const MarshalView *view, const char *key,
		   size_t keylen, bool *found, size_t *pos)
{
	MarshalEntry e;
	MarshalError err;

	rbmarshal_check_status(marshal_view_find_entry(doc, view, &(MarshalPathStep) {key, keylen, 0}, &transcoder, &e, &err), &err);
	*found = e.value != 0;
	*pos = e.value;
	return cast_value(doc, &e);
}

/* The sub-value at pos as a stream of its own (Marshal.dump(sub_value)). */
static bytea *
value_at(MarshalDoc *doc, size_t pos)
{
	MarshalError err;
	MarshalLeaf leaf;
	bool		found;
	uint8_t    *out;
	size_t		len;
	bytea	   *result;

	/* the common small results: one copy, no writer */
	rbmarshal_check_status(marshal_leaf(doc, pos, &leaf, &found, &err), &err);
	if (found)
	{
		result = palloc(VARHDRSZ + MARSHAL_LEAF_SIZE(&leaf));
		SET_VARSIZE(result, VARHDRSZ + marshal_leaf_write(&leaf, (uint8_t *) VARDATA(result)));
		return result;
	}
	if (doc->buf[pos] == MT_FLOAT)
	{
		/* a Float (an Array of them): as the writer writes one, no more */
		MarshalNode n;
		MarshalWriter *w;
		double		d;

		rbmarshal_check_status(marshal_node(doc, pos, &n, &err), &err);
		if (marshal_parse_float(n.data.ptr, n.data.len, &d) &&
			(w = marshal_writer_new(rbmarshal_hooks())) != NULL)
		{
			marshal_write_float(w, d);
			if (marshal_writer_finish(w, &out, &len) == MARSHAL_OK)
			{
				result = rbmarshal_value(out, len);
				pfree(out);
				return result;
			}
		}
	}
	{
		uint8_t		small[256];

		/*
		 * Copied from the stored (validated) value's bytes, of the kinds of
		 * values that always read back: not validated again (fuzz_walk
		 * checks every copy validates)
		 */
		if (marshal_reencode_small(doc, pos, small, sizeof(small), &len))
			return rbmarshal_value(small, len);
	}
	rbmarshal_check_status(marshal_reencode(doc, pos, rbmarshal_hooks(), &out, &len, &err), &err);
	result = rbmarshal_written(out, len);
	pfree(out);
	return result;
}

/*
 * Whether the JSON view of node n is a string it takes from the bytes as
 * they are (a String or Symbol that is UTF-8 text): *s, *len.
 */
static bool
node_plain_string(const MarshalNode *n, const char **s, size_t *len)
{
	if ((n->type != MT_STRING && n->type != MT_SYMBOL) || n->uclass.len != 0 ||
		n->encoding == MENC_NAMED ||
		!marshal_utf8_valid(n->data.ptr, n->data.len, false))
		return false;
	*s = (const char *) n->data.ptr;
	*len = n->data.len;
	return true;
}

/* node_plain_string of the value at pos. */
static bool
plain_string(MarshalDoc *doc, size_t pos, const char **s, size_t *len)
{
	MarshalNode n;
	MarshalError err;

	rbmarshal_check_status(marshal_node(doc, pos, &n, &err), &err);
	return node_plain_string(&n, s, len);
}

static text *text_at(MarshalDoc *doc, size_t pos, ViewText *vt);

/* Open, walk the path, give the result as rbmarshal or text. */
typedef enum
{
	AS_RBMARSHAL,
	AS_TEXT
} ResultKind;

static Datum
navigate(FunctionCallInfo fcinfo, bytea *v, int nsteps, Datum *keys,
		 bool *nulls, bool by_index, int64 index, ResultKind kind)
{
	MarshalDoc	doc;
	MarshalView view;
	MarshalError err;
	size_t		pos = MARSHAL_ROOT;
	bool		ok = true;
	JsonbValue *made = NULL;	/* a value of a made-up object */
	struct varlena *result = NULL;

	rbmarshal_open_lazy(v, &doc);
	for (int i = by_index ? -1 : 0; ok && i < nsteps; i++)
	{
		size_t		len = 0;
		const char *k = NULL;

		if (i >= 0)
		{
			if (nulls && nulls[i])
			{
				ok = false;
				break;
			}
			k = key_utf8(DatumGetTextPP(keys[i]), &len);
		}
		if (made)
		{
			/* inside a cast attribute's value */
			made = jbv_step(made, k, len, i < 0, index);
			ok = made != NULL;
			continue;
		}
		rbmarshal_check_status(marshal_view(&doc, pos, &view, &err), &err);
		if (view.kind == MV_RECORD && i >= 0)
		{
			bool		found;

			made = cast_field(&doc, &view, k, len, &found, &pos);
			ok = found;
			continue;
		}
		if (view.kind == MV_SCALAR)
		{
			JsonbValue *jv = json_at(&doc, pos);

			/* only a made-up object, and only as the last step */
			ok = jv->type == jbvObject && i >= 0 && i == nsteps - 1;
			if (ok)
				made = jbv_field(jv, k, len);
			ok = made != NULL;
			break;
		}
		ok = step(&doc, &view, &pos, k, len, i < 0, index);
	}
	if (ok && made)
	{
		if (kind == AS_RBMARSHAL)
			result = (struct varlena *) rbmarshal_from_jsonb_value(made);
		else
			result = (struct varlena *) jbv_text(made);
	}
	else if (ok && kind == AS_RBMARSHAL)
		result = (struct varlena *) value_at(&doc, pos);
	else if (ok)
		result = (struct varlena *) text_at(&doc, pos, NULL);
	marshal_index_free(&doc.index, rbmarshal_hooks());
	if (result == NULL)
		PG_RETURN_NULL();
	return PointerGetDatum(result);
}

/* v[k1][k2]...: the subscripting fetch (rbmarshal_subs.c). */
Datum
rbmarshal_subscript_path(FunctionCallInfo fcinfo, bytea *v, int n,
						 Datum *keys, bool *nulls)
{
	return navigate(fcinfo, v, n, keys, nulls, false, 0, AS_RBMARSHAL);
}

Datum
rbmarshal_object_field(PG_FUNCTION_ARGS)
{
	Datum		key = PG_GETARG_DATUM(1);

	return navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), 1, &key, NULL, false, 0,
					AS_RBMARSHAL);
}

Datum
rbmarshal_object_field_text(PG_FUNCTION_ARGS)
{
	Datum		key = PG_GETARG_DATUM(1);

	return navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), 1, &key, NULL, false, 0,
					AS_TEXT);
}

ENTRY_POINT(rbmarshal_array_element,
			navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), 0, NULL, NULL, true,
					 PG_GETARG_INT32(1), AS_RBMARSHAL))
ENTRY_POINT(rbmarshal_array_element_text,
			navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), 0, NULL, NULL, true,
					 PG_GETARG_INT32(1), AS_TEXT))

/* The elements of the text[] second argument; a path has one dimension. */
static int
text_array_arg(FunctionCallInfo fcinfo, bool path, Datum **elems, bool **nulls)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	int			n;

	if (path && ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("wrong number of array subscripts")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, elems, nulls, &n);
	return n;
}

static Datum
extract_path(FunctionCallInfo fcinfo, ResultKind kind)
{
	Datum	   *keys;
	bool	   *nulls;
	int			n = text_array_arg(fcinfo, true, &keys, &nulls);

	return navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), n, keys, nulls, false, 0,
					kind);
}

ENTRY_POINT(rbmarshal_extract_path, extract_path(fcinfo, AS_RBMARSHAL))
ENTRY_POINT(rbmarshal_extract_path_text, extract_path(fcinfo, AS_TEXT))

/*
 * The sub-value at pos as ->> gives it: a JSON string's text, NULL for
 * null, else the jsonb text.  With vt (the set-returning functions, row
 * after row), a value whose view has no object is written by view_text,
 * without a JsonbValue.
 */
static text *
text_at(MarshalDoc *doc, size_t pos, ViewText *vt)
{
	MarshalLeaf leaf;
	MarshalError err;
	bool		found;
	const char *s;
	size_t		len;

	/* the commonest values need no JSON walk */
	rbmarshal_check_status(marshal_leaf(doc, pos, &leaf, &found, &err), &err);
	if (found && leaf.type == MT_NIL)
		return NULL;
	if (found && (leaf.type == MT_TRUE || leaf.type == MT_FALSE))
		return cstring_to_text(leaf.type == MT_TRUE ? "true" : "false");
	if (found && leaf.type == MT_FIXNUM)
	{
		char		buf[MAXINT8LEN + 1];

		return cstring_to_text_with_len(buf, pg_lltoa(leaf.ival, buf));
	}
	if (vt)
	{
		MarshalNode n;

		rbmarshal_check_status(marshal_node(doc, pos, &n, &err), &err);
		if (node_plain_string(&n, &s, &len))
			return rbmarshal_server_text(s, len);
		if (rbmarshal_latin1_text(doc, &n, &vt->copy))
			return rbmarshal_server_text(vt->copy.data, vt->copy.len);
	}
	else if (plain_string(doc, pos, &s, &len))
		return rbmarshal_server_text(s, len);
	if (vt && doc->buf[pos] == MT_FLOAT)
	{
		/* as the walk writes a Float: Float#to_s, null if not finite */
		MarshalNode n;
		double		d;
		char		buf[40];

		rbmarshal_check_status(marshal_node(doc, pos, &n, &err), &err);
		if (!marshal_parse_float(n.data.ptr, n.data.len, &d))
			return jbv_text(json_at(doc, pos));	/* the walk's error */
		if (!isfinite(d))
			return NULL;
		return cstring_to_text(rbmarshal_numeric_text(buf, marshal_format_float(d, buf)));
	}
	if (vt)
	{
		char		buf[80];
		bool		ok;

		rbmarshal_check_status(marshal_time_json_at(doc, pos, MARSHAL_DEFAULT_TIME_PRECISION,
													buf, &len, &ok, &err), &err);
		if (ok)
			return cstring_to_text_with_len(buf, (int) len);
	}
	if (vt && doc->buf[pos] != MT_HASH && doc->buf[pos] != MT_HASH_DEF)
	{
		rbmarshal_view_text(doc, pos, vt);
		if (!vt->redo)
			switch (vt->kind)
			{
				case VT_STRING:
					return rbmarshal_server_text(vt->s, vt->len);
				case VT_NULL:
					return NULL;
				case VT_BOOL:
					return cstring_to_text(vt->bval ? "true" : "false");
				case VT_INTEGER:
					{
						char		buf[MAXINT8LEN + 1];

						return cstring_to_text_with_len(buf, pg_lltoa(vt->ival, buf));
					}
				case VT_NUMBER:
					return cstring_to_text(rbmarshal_numeric_text(vt->s, vt->len));
				case VT_ARRAY:
					return cstring_to_text_with_len(vt->text.data, vt->text.len);
				case VT_NONE:
					break;
			}
	}
	return jbv_text(json_at(doc, pos));
}

/*
 * The keys read once for what an element would have to be to equal one:
 * the dates of those shaped like a date or time, the decimals of those
 * shaped like a BigDecimal's text.  A key that reads as neither cannot be
 * the text of an element read where its bytes stand (that text always
 * reads back), so it is left out.
 */
typedef struct KeyValues
{
	MarshalYmd *days;
	int			ndays;
	MarshalDecimal *decimals;
	int			ndecimals;
} KeyValues;

static void
key_values(const char **keys, const size_t *keylens, int nkeys, KeyValues *kv)
{
	kv->days = palloc(sizeof(MarshalYmd) * Max(nkeys, 1));
	kv->decimals = palloc(sizeof(MarshalDecimal) * Max(nkeys, 1));
	kv->ndays = kv->ndecimals = 0;
	for (int i = 0; i < nkeys; i++)
	{
		unsigned	sh;

		if (keys[i] == NULL)
			continue;
		sh = rbmarshal_key_shapes(keys[i], keylens[i]);
		if ((sh & (SHAPE_BIT(SHAPE_DATE) | SHAPE_BIT(SHAPE_TIME))) &&
			marshal_parse_ymd(keys[i], keylens[i], &kv->days[kv->ndays]))
			kv->ndays++;
		if (sh & SHAPE_BIT(SHAPE_DECIMAL))
		{
			/* read as a _dump payload is ("<maxprec>:<number>") */
			char	   *payload = psprintf("0:%.*s", (int) keylens[i], keys[i]);

			if (marshal_decimal_load((const uint8_t *) payload, strlen(payload),
									 palloc(strlen(payload) + 1),
									 &kv->decimals[kv->ndecimals]) &&
				kv->decimals[kv->ndecimals].kind == MDEC_FINITE)
				kv->ndecimals++;
		}
	}
}

/*
 * Whether the element at pos, of class shape shape, can equal no key; *end
 * where it ends, when that was read (else 0).
 */
static bool
no_key_fits(MarshalDoc *doc, size_t pos, Shape shape, const KeyValues *kv,
			size_t *end)
{
	MarshalError err;
	bool		excluded = false;

	*end = 0;
	if (shape == SHAPE_DATE || shape == SHAPE_TIME)
		rbmarshal_check_status(marshal_view_date_excludes(doc, pos, kv->days, kv->ndays,
														  &excluded, end, &err), &err);
	else if (shape == SHAPE_DECIMAL)
		rbmarshal_check_status(marshal_view_decimal_excludes(doc, pos, kv->decimals,
															 kv->ndecimals,
															 &excluded, &err), &err);
	return excluded;
}

/*
 * Whether the JSON view of the array element at pos is a string, and its
 * text (*s, *len: UTF-8, valid until the next element); *end, when not 0,
 * is where the element ends.  Decided by the element's type where that is
 * enough, as jw_emit_value decides: nil, true, false, numbers, Arrays,
 * Hashes and the objects the view makes containers of are never strings; a
 * String with no ivars but its encoding is its bytes (they equal a key,
 * which is UTF-8 text without NUL, only if they are text the view takes as
 * it is).  A class whose view has a fixed shape (class_shape) is not one
 * unless a key has that shape (shapes: key_shapes of all the keys); nor is
 * an ISO-8859-1 String whose text no key's length fits.  Anything else (a
 * Symbol, a Regexp, a String in another encoding...) is converted, as
 * v::jsonb converts it, into vt.
 */
static bool
element_string(MarshalDoc *doc, size_t pos, unsigned shapes,
			   const KeyValues *kv, const char **keys,
			   const size_t *keylens, int nkeys, ViewText *vt,
			   MemoryContext scratch, const char **s, size_t *len, size_t *end,
			   bool *made)
{
	MarshalLeaf leaf;
	MarshalNode n;
	MarshalView view;
	MarshalError err;
	bool		found;
	MemoryContext old;
	JsonbValue *v;
	bool		ok;

	*end = 0;
	*made = false;
	if (pos + 1 >= doc->len)
		return false;			/* the node below reports it */
	switch (doc->buf[pos])
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
			*end = pos + 1;
			return false;
		case MT_FIXNUM:
		case MT_FLOAT:
		case MT_BIGNUM:
		case MT_ARRAY:
		case MT_HASH:
		case MT_HASH_DEF:
			return false;		/* null, a boolean, a number, an array, an object */
		case MT_USERDEF:
		case MT_USRMARSHAL:
		case MT_IVAR:
			{
				Shape		shape = rbmarshal_class_shape(doc, pos);

				if (!(shapes & SHAPE_BIT(shape)) ||
					(shape != SHAPE_ANY && no_key_fits(doc, pos, shape, kv, end)))
					return false;
			}
			break;
	}
	rbmarshal_check_status(marshal_leaf(doc, pos, &leaf, &found, &err), &err);
	if (found)
	{
		*end = leaf.end;
		*s = (const char *) leaf.data.ptr;
		*len = leaf.data.len;
		return leaf.type == MT_STRING;
	}
	rbmarshal_check_status(marshal_node(doc, pos, &n, &err), &err);
	*end = n.next;				/* a flat value's end; 0 for a container */
	switch (n.type)
	{
		case MT_NIL:
		case MT_TRUE:
		case MT_FALSE:
		case MT_FIXNUM:
		case MT_BIGNUM:
		case MT_FLOAT:
		case MT_ARRAY:
		case MT_HASH:
		case MT_HASH_DEF:
			return false;
		case MT_STRING:
		case MT_SYMBOL:
			if (node_plain_string(&n, s, len))
				return true;
			if (n.type == MT_STRING && n.encoding == MENC_NAMED &&
				rbmarshal_latin1_no_key(&n, keylens, nkeys, keys))
				return false;
			break;
		case MT_STRUCT:
		case MT_OBJECT:
		case MT_USRMARSHAL:
		case MT_DATA:
			rbmarshal_check_status(marshal_view(doc, pos, &view, &err), &err);
			if (view.kind != MV_SCALAR)
				return false;
			break;
		default:
			break;
	}
	rbmarshal_check_status(marshal_time_json_at(doc, pos, MARSHAL_DEFAULT_TIME_PRECISION,
												vt->time, len, &ok, &err), &err);
	if (ok)
	{
		*s = vt->time;
		return true;
	}
	rbmarshal_view_text(doc, pos, vt);
	if (!vt->column)
	{
		*s = vt->s;
		*len = vt->len;
		return vt->kind == VT_STRING;
	}
	old = MemoryContextSwitchTo(scratch);
	v = json_at(doc, pos);
	MemoryContextSwitchTo(old);
	*made = true;
	if (v->type != jbvString)
		return false;
	*s = v->val.string.val;
	*len = (size_t) v->val.string.len;
	return true;
}

/*
 * The codec's allocations in one context whatever is current (ctx): a lazy
 * document's index, which grows as links ask, must outlive the scratch
 * context the JSON view of an element is made in.
 */
static void *
alloc_in(void *ctx, size_t size)
{
	return MemoryContextAllocHuge((MemoryContext) ctx, size);
}

/*
 * jsonb's ?, ?| and ?& at once: which of the keys (UTF-8, NULL for a NULL
 * key, which never exists) are a key of the top-level object, a string
 * element of the top-level array, or the top-level string itself.  found[i]
 * is set for each; returns the number found.  An array is walked once
 * whatever the number of keys, and stops when all are found (any is
 * enough when !all).
 */
static int
exists_in(MarshalDoc *doc, const char **keys, const size_t *keylens, int nkeys,
		  bool all, bool *found, MemoryContext scratch)
{
	MarshalView view;
	MarshalViewIter it;
	MarshalEntry e;
	MarshalError err;
	bool		done;
	size_t		pos;
	int			nfound = 0;
	int			want = 0;
	unsigned	shapes = 0;
	ViewText	vt;
	KeyValues	kv;

	for (int i = 0; i < nkeys; i++)
		want += keys[i] != NULL;
	if (want == 0)
		return 0;
	if (!all)
		want = 1;
	rbmarshal_check_status(marshal_view(doc, MARSHAL_ROOT, &view, &err), &err);
	if (MARSHAL_VIEW_IS_OBJECT(view.kind))
	{
		for (int i = 0; i < nkeys && nfound < want; i++)
		{
			size_t		at;

			CHECK_FOR_INTERRUPTS();
			if (keys[i] == NULL)
				continue;
			rbmarshal_check_status(marshal_view_find(doc, &view, &(MarshalPathStep) {keys[i], keylens[i], 0}, &transcoder, &at, &err), &err);
			if (at != 0)
			{
				found[i] = true;
				nfound++;
			}
			else if (all)
				break;
		}
		return nfound;
	}
	if (view.kind == MV_SCALAR)
	{
		JsonbValue *v = json_at(doc, MARSHAL_ROOT);

		for (int i = 0; i < nkeys && nfound < want; i++)
		{
			if (keys[i] == NULL)
				continue;
			found[i] = v->type == jbvObject ?
				jbv_field(v, keys[i], keylens[i]) != NULL :
				v->type == jbvString && (size_t) v->val.string.len == keylens[i] &&
				memcmp(v->val.string.val, keys[i], keylens[i]) == 0;
			nfound += found[i];
		}
		return nfound;
	}
	for (int i = 0; i < nkeys; i++)
		if (keys[i] != NULL)
			shapes |= rbmarshal_key_shapes(keys[i], keylens[i]);
	key_values(keys, keylens, nkeys, &kv);
	memset(&vt, 0, sizeof(vt));
	initStringInfo(&vt.copy);
	/* an Array's elements follow each other; a Set's are its @hash's keys */
	marshal_view_iter(&view, &it);
	pos = view.items;
	for (uint32 n = 0; n < view.count && nfound < want; n++)
	{
		const char *s;
		size_t		len;
		size_t		end;
		bool		made;

		CHECK_FOR_INTERRUPTS();
		if (view.kind == MV_SET)
		{
			rbmarshal_check_status(marshal_view_next(doc, &it, &e, &done, &err), &err);
			if (done)
				break;
			pos = e.value;
		}
		if (element_string(doc, pos, shapes, &kv, keys, keylens, nkeys, &vt, scratch,
						   &s, &len, &end, &made))
			for (int i = 0; i < nkeys; i++)
				if (!found[i] && keys[i] != NULL && keylens[i] == len &&
					memcmp(keys[i], s, len) == 0)
				{
					found[i] = true;
					nfound++;
				}
		if (made)
			MemoryContextReset(scratch);
		if (end == 0)
			rbmarshal_check_status(marshal_skip(doc, pos, &end, &err), &err);
		pos = end;
	}
	return nfound;
}

/* ?, ?| and ?&: whether one key, any or all of the keys exist. */
static Datum
exists_keys(FunctionCallInfo fcinfo, Datum *keys, bool *nulls, int n, bool all)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	MarshalHooks hooks;
	const char **k = palloc(sizeof(char *) * Max(n, 1));
	size_t	   *klen = palloc(sizeof(size_t) * Max(n, 1));
	bool	   *found = palloc0(sizeof(bool) * Max(n, 1));
	int			want = 0;
	int			nfound;
	MemoryContext scratch = AllocSetContextCreate(CurrentMemoryContext,
												  "rbmarshal exists",
												  ALLOCSET_SMALL_SIZES);

	for (int i = 0; i < n; i++)
	{
		/* as jsonb: NULL keys are ignored */
		k[i] = nulls && nulls[i] ? NULL : key_utf8(DatumGetTextPP(keys[i]), &klen[i]);
		want += k[i] != NULL;
	}
	hooks = *rbmarshal_hooks();
	hooks.alloc = alloc_in;
	hooks.ctx = CurrentMemoryContext;
	marshal_doc_lazy(&doc, (const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
					 &hooks, (uint32_t) rbmarshal_max_depth);
	nfound = exists_in(&doc, k, klen, n, all, found, scratch);
	marshal_index_free(&doc.index, rbmarshal_hooks());
	MemoryContextDelete(scratch);
	PG_RETURN_BOOL(all ? nfound == want : nfound > 0);
}

Datum
rbmarshal_exists(PG_FUNCTION_ARGS)
{
	Datum		key = PG_GETARG_DATUM(1);

	return exists_keys(fcinfo, &key, NULL, 1, false);
}

static Datum
exists_array(FunctionCallInfo fcinfo, bool all)
{
	Datum	   *keys;
	bool	   *nulls;
	int			n = text_array_arg(fcinfo, false, &keys, &nulls);

	return exists_keys(fcinfo, keys, nulls, n, all);
}

ENTRY_POINT(rbmarshal_exists_any, exists_array(fcinfo, false))
ENTRY_POINT(rbmarshal_exists_all, exists_array(fcinfo, true))

/* The view of the stored value's root (the first argument). */
static void
root_view(FunctionCallInfo fcinfo, MarshalDoc *doc, MarshalView *view)
{
	MarshalError err;

	rbmarshal_open_lazy(PG_GETARG_RBMARSHAL_PP(0), doc);
	rbmarshal_check_status(marshal_view(doc, MARSHAL_ROOT, view, &err), &err);
}

/* jsonb_typeof's names for the root of the JSON view. */
Datum
rbmarshal_typeof(PG_FUNCTION_ARGS)
{
	MarshalDoc	doc;
	MarshalView view;
	const char *name;

	root_view(fcinfo, &doc, &view);
	switch (view.kind)
	{
		case MV_ARRAY:
		case MV_SET:
			name = "array";
			break;
		case MV_HASH:
		case MV_STRUCT:
		case MV_IVARS:
		case MV_RECORD:
		case MV_TABLE:
			name = "object";
			break;
		default:
			{
				JsonbValue *j = json_at(&doc, MARSHAL_ROOT);

				name = j->type == jbvNull ? "null" :
					j->type == jbvString ? "string" :
					j->type == jbvNumeric ? "number" :
					j->type == jbvBool ? "boolean" :
					j->type == jbvArray && !j->val.array.rawScalar ? "array" :
					"object";
				break;
			}
	}
	PG_RETURN_TEXT_P(cstring_to_text(name));
}

/*
 * A class name from the stream as text in the database encoding: bytes
 * that are not UTF-8 text (a crafted stream's) as \xNN, never an invalid
 * text value.
 */
static char *
class_text(MarshalBytes name)
{
	char	   *out = palloc(4 * name.len + 1);

	marshal_printable(name.ptr, name.len, name.len, out, 4 * name.len + 1);
	return pg_any_to_server(out, (int) strlen(out), PG_UTF8);
}

/* Ruby's class name of a node (marshal_class_name) as text. */
char *
rbmarshal_class_name(const MarshalNode *n)
{
	return class_text(marshal_class_name(n));
}

Datum
rbmarshal_class(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	MarshalNode n;
	MarshalError err;

	rbmarshal_open_lazy(v, &doc);
	rbmarshal_check_status(marshal_node(&doc, MARSHAL_ROOT, &n, &err), &err);
	PG_RETURN_TEXT_P(cstring_to_text(rbmarshal_class_name(&n)));
}

/*
 * The set-returning functions: keys, each, each_text, elements(_text).
 *
 * Rows go to a tuplestore, which keeps work_mem in memory and spills the
 * rest to disk; each element's work runs in a context reset once its row
 * is stored, so memory does not grow with the number of elements.  An
 * object's keys are collected first: a later duplicate key (as the jsonb
 * view's text, where :a and "a" are one key) replaces the earlier one's
 * value in the earlier one's place, as Ruby's load keeps a Hash.
 */
typedef enum
{
	SRF_KEYS,
	SRF_EACH,
	SRF_EACH_TEXT,
	SRF_ELEMENTS,
	SRF_ELEMENTS_TEXT
} SrfKind;

typedef struct SrfState
{
	SrfKind		kind;
	MarshalDoc *doc;
	ReturnSetInfo *rsinfo;
	MemoryContext row_cxt;		/* reset after each row */
	ViewText	vt;				/* the _text functions' values' text */
} SrfState;

/*
 * One object entry: its key text (server encoding) and its value (a stream
 * is under 4 GB), 16 bytes per key of a large Hash.
 */
typedef struct SrfEntry
{
	const char *key;
	uint32		keylen;
	uint32		value;
} SrfEntry;

/* An object's entries; made[i], if any, is a value the view makes up. */
typedef struct SrfEntries
{
	SrfEntry   *items;
	JsonbValue **made;			/* NULL until a record's cast value */
	uint32		n;
	uint32		size;
} SrfEntries;

/*
 * Later duplicates: a key's hash (high 32 bits) and its entry's number,
 * sorted by hash (radix, stable, so entries with one hash stay in order);
 * only runs of equal hashes compare key bytes.  Sorting is linear and
 * reads memory in order, where a hash table's probes would miss the cache
 * once per key on a large Hash.
 */
static void
radix_sort(uint64 *a, uint64 *tmp, uint32 n)
{
	for (int shift = 32; shift < 64; shift += 8)
	{
		uint32		count[257] = {0};
		uint64	   *t;

		for (uint32 i = 0; i < n; i++)
		{
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			count[((a[i] >> shift) & 0xFF) + 1]++;
		}
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (uint32 i = 0; i < n; i++)
		{
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			tmp[count[(a[i] >> shift) & 0xFF]++] = a[i];
		}
		t = a;
		a = tmp;
		tmp = t;
	}
	/* an even number of passes: the result is back in a */
}

static bool
same_key(const SrfEntry *a, const SrfEntry *b)
{
	return a->keylen == b->keylen && memcmp(a->key, b->key, a->keylen) == 0;
}

/* Key bytes, then position: equal keys together, in stream order. */
static int
key_cmp(const void *x, const void *y, void *arg)
{
	const SrfEntry *items = arg;
	const SrfEntry *a = &items[*(const uint64 *) x & 0xFFFFFFFF];
	const SrfEntry *b = &items[*(const uint64 *) y & 0xFFFFFFFF];
	int			c = memcmp(a->key, b->key, Min(a->keylen, b->keylen));

	if (c != 0)
		return c;
	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	return *(const uint64 *) x < *(const uint64 *) y ? -1 : 1;
}

/*
 * In a run of entries with one key (in stream order), the first keeps its
 * place with the last one's value; the others are dropped (key NULL).
 */
static void
merge_run(SrfEntries *ents, const uint64 *run, uint32 n)
{
	uint32		first = run[0] & 0xFFFFFFFF;
	uint32		last = run[n - 1] & 0xFFFFFFFF;

	ents->items[first].value = ents->items[last].value;
	if (ents->made)
		ents->made[first] = ents->made[last];
	for (uint32 i = 1; i < n; i++)
		ents->items[run[i] & 0xFFFFFFFF].key = NULL;
}

static void
drop_duplicates(SrfEntries *ents)
{
	SrfEntry   *items = ents->items;
	uint32		n = ents->n;
	uint64	   *h = palloc_extended(sizeof(uint64) * (Size) n * 2, MCXT_ALLOC_HUGE);
	uint32		i = 0;

	for (uint32 k = 0; k < n; k++)
	{
		if ((k & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		h[k] = (uint64) hash_bytes((const unsigned char *) items[k].key,
								   (int) items[k].keylen) << 32 | k;
	}
	radix_sort(h, h + n, n);
	while (i < n)
	{
		uint32		j = i + 1;

		CHECK_FOR_INTERRUPTS();
		while (j < n && h[j] >> 32 == h[i] >> 32)
			j++;
		if (j - i > 1)
		{
			/* equal hashes: sort by key, then merge each run of one key */
			qsort_arg(h + i, j - i, sizeof(uint64), key_cmp, items);
			for (uint32 r = i; r < j;)
			{
				uint32		e = r + 1;

				while (e < j && same_key(&items[h[r] & 0xFFFFFFFF],
										 &items[h[e] & 0xFFFFFFFF]))
					e++;
				merge_run(ents, h + r, e - r);
				r = e;
			}
		}
		i = j;
	}
	pfree(h);
}

/* Store one row: the key (objects) and the value in the form kind asks. */
static void
put_row(SrfState *st, const char *key, uint32 keylen, size_t value,
		JsonbValue *made)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};
	int			col = 0;
	MemoryContext old = MemoryContextSwitchTo(st->row_cxt);

	if (key)
		values[col++] = PointerGetDatum(cstring_to_text_with_len(key, (int) keylen));
	if (st->kind == SRF_EACH || st->kind == SRF_ELEMENTS)
		values[col++] = PointerGetDatum(made ? rbmarshal_from_jsonb_value(made)
										: value_at(st->doc, value));
	else if (st->kind != SRF_KEYS)
	{
		text	   *t = made ? jbv_text(made) : text_at(st->doc, value, &st->vt);

		nulls[col] = t == NULL;
		values[col++] = PointerGetDatum(t);
	}
	tuplestore_putvalues(st->rsinfo->setResult, st->rsinfo->setDesc, values, nulls);
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->row_cxt);
}

/*
 * A key's text in the server encoding, in the row context (or in the
 * stream itself, when no conversion was needed).
 */
static const char *
entry_key(MarshalDoc *doc, const MarshalEntry *e, uint32 *keylen)
{
	MarshalKeyText k;
	MarshalError err;
	char		buf[MARSHAL_KEY_BUF];
	char	   *s;

	rbmarshal_check_status(marshal_key_text(doc, e, buf, sizeof(buf), &k, &err), &err);
	if (!k.ok || k.encoding == MENC_NAMED)
	{
		/* the jsonb view's own key text, transcoded or refused */
		JsonbValue *kv = rbmarshal_json_value(doc, e->key ? e->key : e->value,
											  MARSHAL_DEFAULT_TIME_PRECISION,
											  MBIN_ERROR);

		if (kv->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot convert Marshal hash key to text")));
		*keylen = kv->val.string.len;
		return kv->val.string.val;
	}
	s = pg_any_to_server((const char *) k.text.ptr, (int) k.text.len, PG_UTF8);
	if ((const uint8_t *) s == k.text.ptr)
	{
		*keylen = (uint32) k.text.len;
		return (const char *) k.text.ptr == buf ? pnstrdup(buf, k.text.len) : s;
	}
	*keylen = (uint32) strlen(s);
	return s;
}

/* An object's entries, each key once with its last value. */
static void
object_rows(SrfState *st, const MarshalView *view, MemoryContext keep)
{
	MarshalDoc *doc = st->doc;
	MarshalViewIter it;
	MarshalEntry e;
	MarshalError err;
	bool		done;
	SrfEntries	ents = {NULL, NULL, 0, Max(view->count, 8)};
	MemoryContext old;

	ents.items = MemoryContextAllocHuge(keep, sizeof(SrfEntry) * (Size) ents.size);
	marshal_view_iter(view, &it);
	for (;;)
	{
		SrfEntry   *en;
		const char *key;
		uint32		keylen;
		JsonbValue *made;

		CHECK_FOR_INTERRUPTS();
		rbmarshal_check_status(marshal_view_next(doc, &it, &e, &done, &err), &err);
		if (done)
			break;
		if (ents.n == ents.size)
		{
			ents.size *= 2;
			ents.items = repalloc_huge(ents.items, sizeof(SrfEntry) * (Size) ents.size);
			if (ents.made)
				ents.made = repalloc_huge(ents.made, sizeof(JsonbValue *) * (Size) ents.size);
		}
		old = MemoryContextSwitchTo(st->row_cxt);
		key = entry_key(doc, &e, &keylen);
		en = &ents.items[ents.n];
		MemoryContextSwitchTo(keep);
		/* keys outside the stream outlive the row context */
		en->key = (const uint8_t *) key >= doc->buf &&
			(const uint8_t *) key < doc->buf + doc->len ? key : pnstrdup(key, keylen);
		en->keylen = keylen;
		en->value = (uint32) e.value;
		made = cast_value(doc, &e);
		if (made && !ents.made)
			ents.made = MemoryContextAllocExtended(keep, sizeof(JsonbValue *) * (Size) ents.size,
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		if (ents.made)
			ents.made[ents.n] = made;
		ents.n++;
		MemoryContextSwitchTo(old);
		MemoryContextReset(st->row_cxt);
	}
	old = MemoryContextSwitchTo(keep);
	drop_duplicates(&ents);
	MemoryContextSwitchTo(old);
	for (uint32 i = 0; i < ents.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (ents.items[i].key)
			put_row(st, ents.items[i].key, ents.items[i].keylen, ents.items[i].value,
					ents.made ? ents.made[i] : NULL);
	}
}

/* An array's elements, one row at a time as the walk meets them. */
static void
array_rows(SrfState *st, const MarshalView *view)
{
	MarshalViewIter it;
	MarshalEntry e;
	MarshalError err;
	bool		done;

	marshal_view_iter(view, &it);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		rbmarshal_check_status(marshal_view_next(st->doc, &it, &e, &done, &err), &err);
		if (done)
			break;
		put_row(st, NULL, 0, e.value, NULL);
	}
}

static Datum
entries_srf(FunctionCallInfo fcinfo, SrfKind kind, const char *fname)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	bool		object = kind == SRF_KEYS || kind == SRF_EACH || kind == SRF_EACH_TEXT;
	MemoryContext keep = CurrentMemoryContext;
	MarshalDoc	doc;
	MarshalView view;
	MarshalError err;
	SrfState	st;
	MarshalHooks hooks;

	InitMaterializedSRF(fcinfo, object && kind != SRF_KEYS ? 0 : MAT_SRF_USE_EXPECTED_DESC);
	st.kind = kind;
	st.doc = &doc;
	st.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	st.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "rbmarshal SRF row",
									   ALLOCSET_DEFAULT_SIZES);
	memset(&st.vt, 0, sizeof(st.vt));
	st.vt.want_text = true;
	initStringInfo(&st.vt.text);
	initStringInfo(&st.vt.copy);

	/*
	 * Indexed as far as links ask (an Array of Dates links to one Float
	 * near its start; indexing all of it was 12% of the time), the index
	 * kept in this call's context whichever context is current when a link
	 * first needs it, the row context included.  The value was validated
	 * when it was stored.
	 */
	hooks = *rbmarshal_hooks();
	hooks.alloc = alloc_in;
	hooks.ctx = keep;
	marshal_doc_lazy(&doc, (const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
					 &hooks, (uint32_t) rbmarshal_max_depth);
	rbmarshal_check_status(marshal_view(&doc, MARSHAL_ROOT, &view, &err), &err);
	if (view.kind == MV_SCALAR && object)
	{
		/* a made-up object ({"$binary": ..}) lists its own pairs */
		JsonbValue *jv = json_at(&doc, MARSHAL_ROOT);

		if (jv->type == jbvObject)
		{
			for (int i = 0; i < jv->val.object.nPairs; i++)
			{
				JsonbValue *k = &jv->val.object.pairs[i].key;

				put_row(&st, k->val.string.val, k->val.string.len, 0,
						&jv->val.object.pairs[i].value);
			}
			return (Datum) 0;
		}
	}
	if (MARSHAL_VIEW_IS_OBJECT(view.kind) != object || view.kind == MV_SCALAR)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot call %s on a %s", fname,
						view.kind == MV_SCALAR ? "scalar" :
						object ? "non-object" : "non-array")));
	if (object)
		object_rows(&st, &view, keep);
	else
		array_rows(&st, &view);
	marshal_index_free(&doc.index, rbmarshal_hooks());
	MemoryContextDelete(st.row_cxt);
	return (Datum) 0;
}

/* the five SQL functions, each naming itself in its errors */
ENTRY_POINT(rbmarshal_keys, entries_srf(fcinfo, SRF_KEYS, "rbmarshal_keys"))
ENTRY_POINT(rbmarshal_each, entries_srf(fcinfo, SRF_EACH, "rbmarshal_each"))
ENTRY_POINT(rbmarshal_each_text, entries_srf(fcinfo, SRF_EACH_TEXT, "rbmarshal_each_text"))
ENTRY_POINT(rbmarshal_array_elements,
			entries_srf(fcinfo, SRF_ELEMENTS, "rbmarshal_array_elements"))
ENTRY_POINT(rbmarshal_array_elements_text,
			entries_srf(fcinfo, SRF_ELEMENTS_TEXT, "rbmarshal_array_elements_text"))

Datum
rbmarshal_array_length(PG_FUNCTION_ARGS)
{
	MarshalDoc	doc;
	MarshalView view;

	root_view(fcinfo, &doc, &view);
	if (view.kind != MV_ARRAY && view.kind != MV_SET)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot get array length of a %s",
						view.kind == MV_SCALAR ? "scalar" : "non-array")));
	PG_RETURN_INT32((int32) view.count);
}
