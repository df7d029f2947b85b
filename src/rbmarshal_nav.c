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

#include "catalog/pg_type.h"
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

/* Keys in other Ruby encodings compare as the text they convert to. */
static const MarshalJsonSink transcoder = {
	.transcode = rbmarshal_transcode
};

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
	rbmarshal_check_status(marshal_view_find(doc, view, key, keylen, index, by_index,
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
made_up_field(JsonbValue *obj, const char *key, size_t keylen)
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
made_step(JsonbValue *v, const char *key, size_t keylen, bool by_index,
		  int64 index)
{
	if (v->type == jbvObject && !by_index)
		return made_up_field(v, key, keylen);
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
made_text(JsonbValue *v)
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
 * A record attribute whose value the view casts (see marshal_record.c)
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
	return rbmarshal_json_entry(doc, e, 3, MBIN_BASE64);
}

/* The attribute under key of a record view: cast_value's answer. */
static JsonbValue *
cast_field(MarshalDoc *doc, const MarshalView *view, const char *key,
		   size_t keylen, bool *found, size_t *pos)
{
	MarshalEntry e;
	MarshalError err;

	rbmarshal_check_status(marshal_view_find_entry(doc, view, key, keylen, &transcoder, &e, &err), &err);
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
	rbmarshal_check_status(marshal_reencode(doc, pos, rbmarshal_hooks(), &out, &len, &err), &err);
	result = rbmarshal_value(out, len);
	pfree(out);
	return result;
}

/*
 * The sub-value at pos as ->> gives it: a JSON string's text, NULL for
 * null, else the jsonb text.
 */
static text *
text_at(MarshalDoc *doc, size_t pos)
{
	MarshalNode n;
	MarshalError err;

	/* the common case, a String or Symbol that is text: no JSON walk */
	rbmarshal_check_status(marshal_node(doc, pos, &n, &err), &err);
	if ((n.type == MT_STRING || n.type == MT_SYMBOL) && n.uclass.len == 0 &&
		n.encoding != MENC_NAMED &&
		marshal_utf8_valid(n.data.ptr, n.data.len, false))
	{
		const char *s = (const char *) n.data.ptr;
		char	   *conv = pg_any_to_server(s, (int) n.data.len, PG_UTF8);

		return conv == s ? cstring_to_text_with_len(s, (int) n.data.len)
			: cstring_to_text(conv);
	}
	return made_text(rbmarshal_json_value(doc, pos, 3, MBIN_BASE64));
}

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
	size_t		pos = 2;
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
			made = made_step(made, k, len, i < 0, index);
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
			JsonbValue *jv = rbmarshal_json_value(&doc, pos, 3, MBIN_BASE64);

			/* only a made-up object, and only as the last step */
			ok = jv->type == jbvObject && i >= 0 && i == nsteps - 1;
			if (ok)
				made = made_up_field(jv, k, len);
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
			result = (struct varlena *) made_text(made);
	}
	else if (ok && kind == AS_RBMARSHAL)
		result = (struct varlena *) value_at(&doc, pos);
	else if (ok)
		result = (struct varlena *) text_at(&doc, pos);
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

Datum
rbmarshal_array_element(PG_FUNCTION_ARGS)
{
	return navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), 0, NULL, NULL, true,
					PG_GETARG_INT32(1), AS_RBMARSHAL);
}

Datum
rbmarshal_array_element_text(PG_FUNCTION_ARGS)
{
	return navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), 0, NULL, NULL, true,
					PG_GETARG_INT32(1), AS_TEXT);
}

static Datum
extract_path(FunctionCallInfo fcinfo, ResultKind kind)
{
	ArrayType  *path = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *keys;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(path) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("wrong number of array subscripts")));
	deconstruct_array(path, TEXTOID, -1, false, TYPALIGN_INT, &keys, &nulls, &n);
	return navigate(fcinfo, PG_GETARG_RBMARSHAL_PP(0), n, keys, nulls, false, 0,
					kind);
}

Datum
rbmarshal_extract_path(PG_FUNCTION_ARGS)
{
	return extract_path(fcinfo, AS_RBMARSHAL);
}

Datum
rbmarshal_extract_path_text(PG_FUNCTION_ARGS)
{
	return extract_path(fcinfo, AS_TEXT);
}

/*
 * jsonb's ?: a key of an object, or a string element of an array, or the
 * string itself, at the top level.
 */
static bool
exists(MarshalDoc *doc, const char *key, size_t keylen)
{
	MarshalView view;
	MarshalViewIter it;
	MarshalEntry e;
	MarshalError err;
	bool		done;
	size_t		found;

	rbmarshal_check_status(marshal_view(doc, 2, &view, &err), &err);
	if (MARSHAL_VIEW_IS_OBJECT(view.kind))
	{
		rbmarshal_check_status(marshal_view_find(doc, &view, key, keylen, 0, false, &transcoder, &found, &err), &err);
		return found != 0;
	}
	if (view.kind == MV_SCALAR)
	{
		JsonbValue *v = rbmarshal_json_value(doc, 2, 3, MBIN_BASE64);

		if (v->type == jbvObject)
			return made_up_field(v, key, keylen) != NULL;
		return v->type == jbvString && (size_t) v->val.string.len == keylen &&
			memcmp(v->val.string.val, key, keylen) == 0;
	}
	marshal_view_iter(&view, &it);
	for (;;)
	{
		JsonbValue *v;

		rbmarshal_check_status(marshal_view_next(doc, &it, &e, &done, &err), &err);
		if (done)
			return false;
		v = rbmarshal_json_value(doc, e.value, 3, MBIN_BASE64);
		if (v->type == jbvString && (size_t) v->val.string.len == keylen &&
			memcmp(v->val.string.val, key, keylen) == 0)
			return true;
	}
}

/* ?, ?| and ?&: how many of the keys must exist (1, any, all). */
static Datum
exists_keys(FunctionCallInfo fcinfo, Datum *keys, bool *nulls, int n, bool all)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	bool		result = all;

	rbmarshal_open_lazy(v, &doc);
	for (int i = 0; i < n; i++)
	{
		bool		found;
		size_t		len;
		const char *k;

		if (nulls && nulls[i])
			continue;			/* as jsonb: NULL keys are ignored */
		k = key_utf8(DatumGetTextPP(keys[i]), &len);
		found = exists(&doc, k, len);
		if (found != all)
		{
			result = found;
			break;
		}
	}
	marshal_index_free(&doc.index, rbmarshal_hooks());
	PG_RETURN_BOOL(result);
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
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *keys;
	bool	   *nulls;
	int			n;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &keys, &nulls, &n);
	return exists_keys(fcinfo, keys, nulls, n, all);
}

Datum
rbmarshal_exists_any(PG_FUNCTION_ARGS)
{
	return exists_array(fcinfo, false);
}

Datum
rbmarshal_exists_all(PG_FUNCTION_ARGS)
{
	return exists_array(fcinfo, true);
}

/* jsonb_typeof's names for the root of the JSON view. */
Datum
rbmarshal_typeof(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	MarshalView view;
	MarshalError err;
	const char *name;

	rbmarshal_open_lazy(v, &doc);
	rbmarshal_check_status(marshal_view(&doc, 2, &view, &err), &err);
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
			name = "object";
			break;
		default:
			{
				JsonbValue *j = rbmarshal_json_value(&doc, 2, 3, MBIN_BASE64);

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
	rbmarshal_check_status(marshal_node(&doc, 2, &n, &err), &err);
	PG_RETURN_TEXT_P(cstring_to_text(rbmarshal_class_name(&n)));
}

/*
 * The entries of the root's view for the set-returning functions: key
 * (NULL for arrays) and value position, later duplicates replacing earlier
 * ones in place, as a Ruby Hash keeps its first key's position.
 */
typedef struct Entry
{
	char	   *key;
	size_t		keylen;
	size_t		value;
	JsonbValue *made;			/* a made-up object's value, else NULL */
} Entry;

static List *
root_entries(MarshalDoc *doc, bool want_object, const char *fname)
{
	MarshalView view;
	MarshalViewIter it;
	MarshalEntry e;
	MarshalError err;
	bool		done;
	bool		object;
	List	   *entries = NIL;
	char		buf[128];

	rbmarshal_check_status(marshal_view(doc, 2, &view, &err), &err);
	object = MARSHAL_VIEW_IS_OBJECT(view.kind);
	if (view.kind == MV_SCALAR && want_object)
	{
		/* a made-up object ({"$binary": ..}) lists its own pairs */
		JsonbValue *jv = rbmarshal_json_value(doc, 2, 3, MBIN_BASE64);

		if (jv->type == jbvObject)
		{
			for (int i = 0; i < jv->val.object.nPairs; i++)
			{
				Entry	   *en = palloc0(sizeof(Entry));
				JsonbValue *k = &jv->val.object.pairs[i].key;

				en->key = k->val.string.val;
				en->keylen = k->val.string.len;
				en->made = &jv->val.object.pairs[i].value;
				entries = lappend(entries, en);
			}
			return entries;
		}
	}
	if (object != want_object || view.kind == MV_SCALAR)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot call %s on a %s", fname,
						view.kind == MV_SCALAR ? "scalar" :
						object ? "non-array" : "non-object")));
	marshal_view_iter(&view, &it);
	for (;;)
	{
		Entry	   *en;
		MarshalKeyText k;
		ListCell   *lc;
		bool		replaced = false;

		rbmarshal_check_status(marshal_view_next(doc, &it, &e, &done, &err), &err);
		if (done)
			break;
		CHECK_FOR_INTERRUPTS();
		en = palloc0(sizeof(Entry));
		en->value = e.value;
		en->made = cast_value(doc, &e);
		if (object)
		{
			rbmarshal_check_status(marshal_key_text(doc, &e, buf, sizeof(buf), &k, &err), &err);
			if (!k.ok || k.encoding == MENC_NAMED)
			{
				/* the jsonb view's own key text, transcoded or refused */
				JsonbValue *kv = rbmarshal_json_value(doc, e.key ? e.key : e.value, 3, MBIN_ERROR);

				if (kv->type != jbvString)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("cannot convert Marshal hash key to text")));
				en->key = pnstrdup(kv->val.string.val, kv->val.string.len);
				en->keylen = kv->val.string.len;
			}
			else
			{
				char	   *s = pg_any_to_server((const char *) k.text.ptr, (int) k.text.len, PG_UTF8);

				en->keylen = (const uint8_t *) s == k.text.ptr ? k.text.len : strlen(s);
				en->key = pnstrdup(s, en->keylen);
			}
			foreach(lc, entries)
			{
				Entry	   *old = lfirst(lc);

				if (old->keylen == en->keylen && memcmp(old->key, en->key, en->keylen) == 0)
				{
					old->value = en->value;
					old->made = en->made;
					replaced = true;
					break;
				}
			}
		}
		if (!replaced)
			entries = lappend(entries, en);
	}
	return entries;
}

/* The set-returning functions: keys, each, each_text, elements(_text). */
typedef enum
{
	SRF_KEYS,
	SRF_EACH,
	SRF_EACH_TEXT,
	SRF_ELEMENTS,
	SRF_ELEMENTS_TEXT
} SrfKind;

static Datum
entries_srf(FunctionCallInfo fcinfo, SrfKind kind, const char *fname)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	List	   *entries;
	ListCell   *lc;
	bool		object = kind == SRF_KEYS || kind == SRF_EACH || kind == SRF_EACH_TEXT;

	InitMaterializedSRF(fcinfo, kind == SRF_KEYS || kind == SRF_ELEMENTS ||
						kind == SRF_ELEMENTS_TEXT ? MAT_SRF_USE_EXPECTED_DESC : 0);
	rbmarshal_open_lazy(v, &doc);
	entries = root_entries(&doc, object, fname);
	foreach(lc, entries)
	{
		Entry	   *en = lfirst(lc);
		Datum		values[2];
		bool		nulls[2] = {false, false};
		int			col = 0;

		if (object)
			values[col++] = PointerGetDatum(cstring_to_text_with_len(en->key, (int) en->keylen));
		if (en->made && kind == SRF_EACH)
			values[col++] = PointerGetDatum(rbmarshal_from_jsonb_value(en->made));
		else if (en->made && kind == SRF_EACH_TEXT)
		{
			text	   *t = made_text(en->made);

			nulls[col] = t == NULL;
			values[col++] = PointerGetDatum(t);
		}
		else if (kind == SRF_EACH || kind == SRF_ELEMENTS)
			values[col++] = PointerGetDatum(value_at(&doc, en->value));
		else if (kind == SRF_EACH_TEXT || kind == SRF_ELEMENTS_TEXT)
		{
			text	   *t = text_at(&doc, en->value);

			nulls[col] = t == NULL;
			values[col++] = PointerGetDatum(t);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
rbmarshal_keys(PG_FUNCTION_ARGS)
{
	return entries_srf(fcinfo, SRF_KEYS, "rbmarshal_keys");
}

Datum
rbmarshal_each(PG_FUNCTION_ARGS)
{
	return entries_srf(fcinfo, SRF_EACH, "rbmarshal_each");
}

Datum
rbmarshal_each_text(PG_FUNCTION_ARGS)
{
	return entries_srf(fcinfo, SRF_EACH_TEXT, "rbmarshal_each_text");
}

Datum
rbmarshal_array_elements(PG_FUNCTION_ARGS)
{
	return entries_srf(fcinfo, SRF_ELEMENTS, "rbmarshal_array_elements");
}

Datum
rbmarshal_array_elements_text(PG_FUNCTION_ARGS)
{
	return entries_srf(fcinfo, SRF_ELEMENTS_TEXT, "rbmarshal_array_elements_text");
}

Datum
rbmarshal_array_length(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_RBMARSHAL_PP(0);
	MarshalDoc	doc;
	MarshalView view;
	MarshalError err;

	rbmarshal_open_lazy(v, &doc);
	rbmarshal_check_status(marshal_view(&doc, 2, &view, &err), &err);
	if (view.kind != MV_ARRAY && view.kind != MV_SET)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot get array length of a %s",
						view.kind == MV_SCALAR ? "scalar" : "non-array")));
	PG_RETURN_INT32((int32) view.count);
}
